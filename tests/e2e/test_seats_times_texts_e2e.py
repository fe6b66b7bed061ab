"""End-to-end (issue 27, Deliver 3, 4 and 8): the real bot process, through the fake Bot API, in a
Russian group and an English one, on a server whose DEFAULT_LOCALE is Russian.

- seats named at once (`Миша=@misha_k`), and "✋ This is me" linking an `@username` seat to the
  account that presses it, only that account (item 3);
- vote deadlines and the history in the chat's time zone (Moscow for a Russian chat, UTC for an
  English one, `/tz` to change it); a group with no language answers in the sender's (item 4);
- the text defects: Russian notation in Russian examples, options in words, ✎ only where a value
  differs from the preset, the pool's limit, a valid arbiter example, no example in a toast (item 8).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.e2e.fake_telegram import Chat, FakeTelegram, User
from tests.e2e.harness import BotProcess, Member, contains

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one bot process for the module

MISHA = User(2701, "Миша", "misha_k", language_code="ru")
GRISHA = User(2702, "Гриша", "grig77", language_code="ru-RU")
TANYA = User(2703, "Таня", "tanya_v", language_code="ru")
KATE = User(2711, "Kate", "kate_e", language_code="en")
BOB = User(2712, "Bob", "bob_e27", language_code="en-US")
CLARA = User(2713, "Clara", "clara_e", language_code="en")
MALLORY = User(2714, "Mallory", "mallory_x", language_code="en")

RU_NAMED = Chat(-1001500002701, "supergroup", "Сочи по средам")
RU_BUTTONS = Chat(-1001500002702, "supergroup", "Пулька у Гриши")
EN_BUTTONS = Chat(-1001500002703, "supergroup", "Tuesday pulka")
EN_FRESH = Chat(-1001500002704, "supergroup", "A fresh group")
RU_TEXTS = Chat(-1001500002705, "supergroup", "Тексты")
EN_TEXTS = Chat(-1001500002706, "supergroup", "Texts")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def ru_server() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bot(
    ru_server: FakeTelegram, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BotProcess]:
    """One bot process whose server default is Russian."""
    process = BotProcess(ru_server, tmp_path_factory.mktemp("bot27"), locale="ru")
    await process.start()
    yield process
    await process.kill()
    print(process.log_tail(80))


async def test_russian_seats_named_at_once_take_deals_by_their_names(bot: BotProcess) -> None:
    misha, grisha = Member(bot, RU_NAMED, MISHA), Member(bot, RU_NAMED, GRISHA)
    opened = await misha.say("/newgame сочи Миша=@misha_k Гриша=@grig77 Таня", contains("Пулька"))
    assert "Миша (@misha_k)" in opened.text and "Гриша (@grig77)" in opened.text
    echo = await grisha.say("/deal Миша 6п = вист:Гриша пас:Таня", contains("6♠"))
    assert "Миша 6♠ = вист:Гриша пас:Таня" in echo.text and "Нет такого" not in echo.text


async def test_russian_this_is_me_links_a_handle_seat_with_the_first_name(
    bot: BotProcess,
) -> None:
    misha, grisha, tanya = (Member(bot, RU_BUTTONS, u) for u in (MISHA, GRISHA, TANYA))
    opened = await misha.say("/newgame сочи @misha_k @grig77 @tanya_v", contains("Пулька"))
    assert "grig77" in opened.text
    mallory = Member(bot, RU_BUTTONS, MALLORY)
    refused = await mallory.press(opened, "@grig77")
    assert "может только этот аккаунт" in refused["text"]  # the chat's language, not his
    toast = await grisha.press(opened, "Это я: @grig77", contains("Гриша (@grig77)"))
    assert toast["text"] == "Гриша, это место ваше."
    await misha.press(opened, "Это я: @misha_k", contains("Миша (@misha_k)"))
    await tanya.press(opened, "Это я: @tanya_v", contains("Таня (@tanya_v)"))
    echo = await misha.say("/deal Миша 6п = вист:Гриша пас:Таня", contains("6♠"))
    assert "Миша 6♠ = вист:Гриша пас:Таня" in echo.text


async def test_english_this_is_me_and_a_utc_deadline_moved_by_tz(bot: BotProcess) -> None:
    kate, bob, clara = (Member(bot, EN_BUTTONS, u) for u in (KATE, BOB, CLARA))
    opened = await kate.say("/newgame sochi pool 10 me @bob_e27 @clara_e", contains("Game #1"))
    toast = await bob.press(opened, "This is me: @bob_e27", contains("Bob (@bob_e27)"))
    assert toast["text"] == "Bob, this seat is yours."
    await clara.say("/deal Kate 6♠ = vist:Bob pass:Clara", contains("6♠"))
    vote = await kate.say("/endgame", contains("Open until"))
    assert re.search(r"Open until \d\d:\d\d UTC\.", vote.text), vote.text
    await bob.press(vote, "No", contains("rejected"))
    await kate.say("/tz Asia/Tokyo", contains("Asia/Tokyo"))
    vote = await kate.say("/endgame", contains("Open until"))
    assert re.search(r"Open until \d\d:\d\d JST\.", vote.text), vote.text
    history = await clara.say("/history", contains("The game starts"))
    assert re.search(r"▶️ \d{4}-\d\d-\d\d \d\d:\d\d The game starts", history.text)


async def test_a_fresh_group_answers_each_sender_in_his_language(bot: BotProcess) -> None:
    kate, misha = Member(bot, EN_FRESH, KATE), Member(bot, EN_FRESH, MISHA)
    english = await kate.say("/score", contains("❗"))
    assert "There is no game in this chat" in english.text  # not the server's Russian
    russian = await misha.say("/score", contains("❗"))
    assert "В этом чате нет пульки" in russian.text


async def test_russian_texts_examples_options_and_moscow_time(bot: BotProcess) -> None:
    misha, grisha = Member(bot, RU_TEXTS, MISHA), Member(bot, RU_TEXTS, GRISHA)
    refused = await misha.say("/newgame сочи pool 100000", contains("❗"))
    assert "от 1 до 9999" in refused.text
    refused = await misha.say("/newgame сочи arbiter=eva", contains("❗"))
    assert "arbiter=@eva_arbiter" in refused.text
    opened = await misha.say(
        "/newgame сочи pool 20 whist_split=gentleman me Гриша=@grig77 Таня", contains("Пулька")
    )
    assert "вист при ремизе: джентльменский" in opened.text and "whist_split" not in opened.text
    hint = re.search(r"Записывайте каждую раздачу: /deal (\S+ .+?) · /help", opened.text)
    assert hint is not None and "вист:" in hint.group(1) and "vist" not in hint.group(1)
    rules = await grisha.say("/rules", contains("Правила"))
    pool_line = next(line for line in rules.text.split("\n") if "pool_target=" in line)
    assert "✎" not in pool_line and "размер пули на игрока: 20" in pool_line
    assert "✎" in next(line for line in rules.text.split("\n") if "whist_split=" in line)
    await grisha.say("/deal Миша 8бк = вист:Гриша/1 вист:Таня/1", contains("8бк"))
    vote = await misha.say("/endgame", contains("Голосование открыто до"))
    assert re.search(r"открыто до \d\d:\d\d MSK\.", vote.text), vote.text
    again = await misha.press(vote, "Да")
    assert "Ваш голос уже учтён" in again["text"] and "Например" not in again["text"]
    history = await grisha.say("/history", contains("Игра началась"))
    assert re.search(r"▶️ \d\d\.\d\d\.\d{4} \d\d:\d\d Игра началась", history.text)


async def test_english_texts_limit_and_a_valid_arbiter_example(bot: BotProcess) -> None:
    kate = Member(bot, EN_TEXTS, KATE)
    refused = await kate.say("/newgame sochi pool 100000", contains("❗"))
    assert "1 to 9999" in refused.text and "positive" not in refused.text
    refused = await kate.say("/newgame sochi arbiter=@eva", contains("❗"))
    assert "arbiter=@eva_arbiter" in refused.text
    opened = await kate.say("/newgame sochi pool 20 arbiter=@eva_arbiter", contains("Game #1"))
    assert "is open" in opened.text
    rules = await kate.say("/rules", contains("Rules of game"))
    pool_line = next(line for line in rules.text.split("\n") if "pool_target=" in line)
    assert "✎" not in pool_line
