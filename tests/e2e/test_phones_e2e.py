"""End-to-end (issue 13): real players on real phones, through the fake Bot API and the real bot
process. A Russian group and an English one, users whose `language_code` is `ru` or `en`:

- a new group answers in the language of whoever opens its first game, and only the game's players
  may /lang (item 5);
- an `@username` seat is linked to its account the first time it acts and shows the first name; the
  author is named in /history; the private /start lists the game (item 1);
- a deal read through a Cyrillic seat letter is echoed with the names, in Russian (items 2-3);
- the real reasons: a user seated by name, an outsider's /endgame, /lastround, "Game #1" per chat
  (item 6).
"""

from __future__ import annotations

import pytest

from tests.e2e.fake_telegram import Chat, User, private_chat
from tests.e2e.harness import BotProcess, Member, contains, is_photo

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one bot process for the module

SASHA = User(2101, "Саша", "sasha_k", language_code="ru")
MISHA = User(2102, "Миша", "misha_p", language_code="ru-RU")
LENA = User(2103, "Лена", "lena_v", language_code="ru")
KATE = User(2111, "Kate", "kate_e", language_code="en")
BOB = User(2112, "Bob", "bob_e", language_code="en-US")
EVE = User(2113, "Eve", "eve_x", language_code="en")

RU_GROUP = Chat(-1001500001301, "supergroup", "Пулька по пятницам")
EN_GROUP = Chat(-1001500001302, "supergroup", "Friday pulka")
ODESSA_GROUP = Chat(-1001500001303, "supergroup", "Odessa nights")


async def test_a_russian_group_links_seats_and_reads_russian(shared_bot: BotProcess) -> None:
    sasha, misha, lena = (Member(shared_bot, RU_GROUP, u) for u in (SASHA, MISHA, LENA))
    eve = Member(shared_bot, RU_GROUP, EVE)
    opened = await sasha.say("/newgame sochi me @misha_p @lena_v", contains("Пулька #1"))
    assert "misha_p" in opened.text  # not linked yet: the handle
    refused = await eve.say("/lang en", contains("❗"))
    assert "только её игроки" in refused.text
    # Лена's first act links her seat; Cyrillic А is seat A (Саша), echoed with the names
    echo = await lena.say("/deal А 6п = вист:misha_p пас:я", contains("6♠"))
    assert "Саша 6♠ = вист:misha_p пас:Лена" in echo.text
    echo = await misha.say("/deal Миша 7ч -1 вист:Саша пас:Лена", contains("7♥"))
    assert "Миша 7♥ -1 пас:Лена вист:Саша" in echo.text  # defenders in seat order
    history = await sasha.say("/history", contains("Пулька #1"))
    assert "Саша 6♠ = вист:Миша пас:Лена — Лена" in history.text
    assert "— Миша" in history.text and "?" not in history.text
    assert "vist" not in history.text and "pass:" not in history.text
    alone = Member(shared_bot, private_chat(MISHA), MISHA)
    games = await alone.say("/start", contains(RU_GROUP.title or ""))
    assert "Саша" in games.text and "Лена" in games.text
    changed = await misha.say("/lang en", contains("English"))  # a player may
    assert "I speak English here" in changed.text


async def test_an_english_group_says_the_real_reasons(shared_bot: BotProcess) -> None:
    kate, bob, eve = (Member(shared_bot, EN_GROUP, u) for u in (KATE, BOB, EVE))
    opened = await kate.say("/newgame sochi me Bob Clara", contains("Game #1"))
    assert "is open" in opened.text  # the group's first game is #1, whatever other chats played
    refused = await bob.say("/deal Kate 6♠ = vist:Bob pass:Clara", contains("❗"))
    assert "Bob is seated by name" in refused.text and "scorekeeper (Kate)" in refused.text
    ended = await eve.say("/endgame", contains("❗"))
    assert "Only the game's players can end it" in ended.text and "record" not in ended.text
    outsider = await eve.say("/lang ru", contains("❗"))
    assert "Only the players" in outsider.text


async def test_the_last_round_says_where_it_starts(shared_bot: BotProcess) -> None:
    bob = Member(shared_bot, ODESSA_GROUP, BOB)
    await bob.say("/newgame odessa me Kim Lou", contains("Game #1"))
    await bob.say("/deal Bob 6♠ = vist:Kim pass:Lou", contains("6♠"))
    answer = await bob.say("/lastround", contains("last round"))
    assert "starts at deal #4, dealt by Bob" in answer.text and "5 deals remain" in answer.text


async def test_buttons_record_a_concession_and_a_closed_deal_with_a_note(
    shared_bot: BotProcess,
) -> None:
    """Item 4: a phone records the concession and open/closed play with a note by buttons."""
    chat = Chat(-1001500001304, "supergroup", "Buttons only")
    kate = Member(shared_bot, chat, KATE)
    await kate.say("/newgame sochi me Kim Lou", contains("Game #1"))
    steps = await kate.say("/deal", contains("What was played?"))
    for label in ("Contract", "Kim", "7♠"):
        await kate.press(steps, label, contains())
    await kate.press(steps, "🏳 conceded «three down»", contains("Record this deal?"))
    await kate.press(steps, "✅ Record", is_photo)
    steps = await kate.say("/deal", contains("What was played?"))
    for label in ("Contract", "Lou", "6♥", "Whist", "Pass", "−1"):
        await kate.press(steps, label, contains())
    await kate.press(steps, "🌑 closed", contains("closed"))
    await kate.press(steps, "📝 note", contains("reply to this message"))
    await kate.say("the last trick was a revoke", contains("Noted"))
    await kate.press(steps, "✅ Record", is_photo)
    steps = await kate.say("/deal", contains("What was played?"))
    for label in ("Kate", "8♦", "⏩ both pass"):  # the common deal: three taps, then ✅
        await kate.press(steps, label, contains())
    await kate.press(steps, "✅ Record", is_photo)
    history = await kate.say("/history", contains("every event"))
    assert "Kate 8♦ = pass:Kim pass:Lou" in history.text
    assert "Kim 7♠ = three_down" in history.text
    assert 'Lou 6♥ -1 vist:Kate pass:Kim closed note:"the last trick was a revoke"' in history.text
