"""Issue 13: an @username seat is linked to its account the first time it acts in the chat
(notation.md "Players"); the author is named in /history; private /start lists the game."""

from __future__ import annotations

from bot.core import Core, looks
from bot.core.archive import read_log
from tests.bot.factories import ANNA, BORIS, CLARA, ChatDriver, TgUser

SASHA = TgUser(1011, "Саша", "sasha_k")
MISHA = TgUser(1012, "Миша Петров", "misha_p")
LENA = TgUser(1013, "Lena", "lena_v")


async def test_a_seat_takes_the_first_name_when_its_account_acts(
    chat: ChatDriver, game: Core
) -> None:
    await chat.send(SASHA, "/newgame sochi me @misha_p @lena_v")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.state.names == ("Саша", "misha_p", "lena_v")
    await chat.send(LENA, "/deal misha_p 6♠ = vist:Саша pass:me")  # Lena acts first
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.state.names == ("Саша", "misha_p", "Lena")
    assert snap.state.players[2].user_id == LENA.id
    await chat.send(MISHA, "/deal Миша 7♥ -1 vist:Саша pass:Lena")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.state.names == ("Саша", "Миша", "Lena")
    # the deal written before the link reads with the new name
    assert snap.state.records[0].line.startswith("Миша 6♠ = ")
    assert snap.sheet is not None and len(snap.sheet.records) == 2
    history = await chat.say(SASHA, "/history")
    assert "?" not in history.replace("?</", "")
    assert "— Lena" in history and "— Миша" in history
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=MISHA.id, chat_type="private")
    assert chat.title in await private.say(MISHA, "/start")


async def test_a_clash_keeps_the_username(chat: ChatDriver, game: Core) -> None:
    other_anna = TgUser(1021, "Anna", "anna_two")
    await chat.send(ANNA, "/newgame sochi me @anna_two @boris_p")
    await chat.send(other_anna, "/deal anna_two 6♠ = vist:Anna pass:boris_p")
    await chat.send(BORIS, "/deal Boris 6♠ = vist:Anna pass:anna_two")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.state.names == ("Anna", "anna_two", "Boris")
    assert all(p.user_id is not None for p in snap.state.players)
    assert CLARA.id not in {p.user_id for p in snap.state.players}


async def test_a_new_group_takes_the_openers_language_until_lang(
    chat: ChatDriver, game: Core
) -> None:
    sasha = TgUser(1031, "Саша", "sasha_k", "ru-RU")
    opened = await chat.say(sasha, "/newgame sochi me @misha_p @lena_v")
    assert "Пулька" in opened or "пульк" in opened
    assert await looks.locale(game, chat.chat_id) == "ru"
    outsider = TgUser(1032, "Eve", "eve_x", "en")
    refused = await chat.say(outsider, "/lang en")
    assert "только её игроки" in refused and "/lang en" in refused
    assert await looks.locale(game, chat.chat_id) == "ru"
    await chat.send(sasha, "/lang en")
    assert await looks.locale(game, chat.chat_id) == "en"


async def test_an_english_opener_keeps_a_new_group_english(chat: ChatDriver, game: Core) -> None:
    await chat.send(TgUser(1041, "Ann", "ann_e", "en-GB"), "/newgame sochi me @misha_p @lena_v")
    assert await looks.locale(game, chat.chat_id) == "en"


async def test_a_user_seated_by_name_is_told_the_scorekeeper_records(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi me Boris Clara")
    refused = await chat.say(BORIS, "/deal Anna 6♠ = vist:Boris pass:Clara")
    assert "Boris is seated by name" in refused and "scorekeeper (Anna)" in refused


async def test_an_outsiders_endgame_says_only_players_end_it(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi me Boris Clara")
    refused = await chat.say(TgUser(1051, "Eve", "eve_x"), "/endgame")
    assert "Only the game's players can end it" in refused and "record" not in refused


async def test_a_first_look_links_the_seat_too(chat: ChatDriver, game: Core) -> None:
    await chat.send(SASHA, "/newgame sochi me @misha_p @lena_v")
    score = await chat.say(LENA, "/score")
    assert "Lena" in score and "lena_v" not in score.replace("@lena_v", "")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.state.players[2].user_id == LENA.id
    assert "Lena" in await chat.say(LENA, "/score")  # linked once, a later look changes nothing
    state = await read_log(game.store, snap.state)
    assert sum(1 for _, e in state.logged() if type(e).__name__ == "SeatLinked") == 1
