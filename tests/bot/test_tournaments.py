"""Tournaments through the real dispatcher with a mocked Bot: tables in chats and forum topics under
one tournament's frozen rules, rounds, standings summed from the tables' games, the judge."""

from __future__ import annotations

import io
import re
import zipfile
from fractions import Fraction

from aiogram.methods import SendDocument, SendMessage, SendPhoto
from aiogram.types import BufferedInputFile

from bot.core import Core, looks
from tests.bot.factories import ANNA, BORIS, DMITRY, ChatDriver, FakeClock, TgUser, texts
from tests.bot.test_forum_topics import TopicDriver

HOME_ID = -1001111111111
TABLE_A = -1002222222222
FORUM_ID = -1003333333333
JUDGE = TgUser(1006, "Zoya", "zoya_judge")

# Three deals to a pool of 2: Sochi's end rule is met, /endgame ends the game at once.
GAME_A = (
    "/deal Anna 6♠ = vist:Boris pass:Clara",
    "/deal Boris 6♠ -1 vist:Clara pass:Anna",
    "/deal Clara 6♠ = vist:Anna pass:Boris",
    "/deal Anna 6♥ = vist:Boris pass:Clara",
    "/deal Boris 6♥ = vist:Clara pass:Anna",
    "/deal Clara 6♥ = vist:Anna pass:Boris",
)

GAME_B = tuple(
    line.replace("Anna", "Dima").replace("Boris", "Fedor").replace("Clara", "Gleb")
    for line in GAME_A
)


def shown_points(standings: str) -> dict[str, Fraction]:
    """`N. <b>Name</b> +12.5 · …` lines: each player's total as shown (one decimal)."""
    found = re.findall(r"^\d+\. <b>(\w+)</b> ([+−]?)([\d.]+) ·", standings, re.MULTILINE)
    return {name: Fraction(number) * (-1 if sign == "−" else 1) for name, sign, number in found}


def drivers(chat: ChatDriver) -> tuple[ChatDriver, ChatDriver, TopicDriver]:
    home = ChatDriver(chat.dispatcher, chat.bot, HOME_ID, title="Cup home")
    table_a = ChatDriver(chat.dispatcher, chat.bot, TABLE_A, title="Table in a chat")
    topic = TopicDriver(chat.dispatcher, chat.bot, FORUM_ID, title="Club", topic=17)
    return home, table_a, topic


async def create(home: ChatDriver, args: str = "Cup sochi pool 2") -> str:
    made = await home.say(ANNA, f"/tournament new {args}")
    found = re.search(r"Code: <code>([A-Z0-9]{6})</code>", made)
    assert found, made
    return found.group(1)


async def play_to_the_end(table: ChatDriver, players: str, deals: tuple[str, ...]) -> str:
    opened = await table.say(ANNA, f"/newgame sochi pool 2 {players}")
    assert "❗" not in opened, opened
    for line in deals:
        await table.send(ANNA, line)
    return await table.say(ANNA, "/endgame")


async def test_a_tables_newgame_follows_the_tournaments_rounds_and_rules(chat: ChatDriver) -> None:
    home, table, _ = drivers(chat)
    code = await create(home)
    joined = await table.say(BORIS, f"/tournament join {code}")
    assert "table 1" in joined and "sochi pool_target=2" in joined
    assert "no round of it is open" in await table.say(
        ANNA, "/newgame sochi pool 2 Anna Boris Clara"
    )
    assert "round 1 has started" in await home.say(ANNA, "/tournament round")
    refused = await table.say(ANNA, "/newgame leningrad pool 2 Anna Boris Clara")
    assert "tournament's rules" in refused and "<code>sochi pool_target=2</code>" in refused
    assert "already" not in await table.say(ANNA, "/newgame Anna Boris Clara")
    assert "Sochi" in await table.say(DMITRY, "/rules")


async def test_only_the_creator_starts_rounds_and_names_the_judge(chat: ChatDriver) -> None:
    home, _, _ = drivers(chat)
    await create(home)
    assert "Only the tournament's creator" in await home.say(BORIS, "/tournament round")
    assert "Only the tournament's creator" in await home.say(BORIS, "/tournament judge @x_judge")
    assert "is the judge" in await home.say(ANNA, "/tournament judge @zoya_judge")


async def test_standings_are_the_sums_of_the_tables_balances_and_are_posted_home(
    chat: ChatDriver, game: Core
) -> None:
    home, table, topic = drivers(chat)
    code = await create(home)
    await table.send(BORIS, f"/tournament join {code}")
    await topic.send(BORIS, f"/tournament join {code}")
    await home.send(ANNA, "/tournament round")
    before = len(chat.bot.requests)
    await play_to_the_end(table, "Anna Boris Clara", GAME_A)
    posted = [
        r
        for r in chat.bot.requests[before:]
        if isinstance(r, SendMessage) and r.chat_id == HOME_ID
    ]
    assert posted and "Table 1" in posted[-1].text and "standings after 1 game " in posted[-1].text
    await play_to_the_end(topic, "Dima Fedor Gleb", GAME_B)
    snaps = [await looks.snapshot(game, TABLE_A), await looks.snapshot(game, FORUM_ID, topic=17)]
    exact: dict[str, Fraction] = {}
    for snap in snaps:
        assert snap.settlement is not None
        for name, balance in zip(snap.state.names, snap.settlement.balances, strict=True):
            exact[name] = exact.get(name, Fraction(0)) + balance
    asked = len(chat.bot.requests)
    standings = await home.say(DMITRY, "/standings")
    assert "after 2 games" in standings and len(shown_points(standings)) == 6
    pictures = [r for r in chat.bot.requests[asked:] if isinstance(r, SendPhoto)]
    assert len(pictures) == 1 and pictures[0].chat_id == HOME_ID  # the standings drawn too
    for name, balance in exact.items():
        assert abs(shown_points(standings)[name] - balance) <= Fraction(1, 20), (name, standings)
    assert texts(await topic.send(DMITRY, "/standings")) == standings


async def test_the_judge_decides_a_tables_timed_out_vote_from_the_home_chat(
    chat: ChatDriver, clock: FakeClock
) -> None:
    home, table, _ = drivers(chat)
    code = await create(home, "Cup sochi pool 2 vote_seconds=60")
    await home.send(ANNA, "/tournament judge @zoya_judge")
    await table.send(BORIS, f"/tournament join {code}")
    await home.send(ANNA, "/tournament round")
    await table.send(ANNA, "/newgame sochi pool 2 vote_seconds=60 @anna_p @boris_p @clara_p")
    await table.send(ANNA, GAME_A[0])
    opened = await table.send(ANNA, "/endgame")
    vote = next(r for r in opened if isinstance(r, SendMessage) and r.reply_markup is not None)
    assert vote.reply_markup is not None
    data = vote.reply_markup.inline_keyboard[0][0].callback_data or ""
    clock.advance(61)
    before = len(chat.bot.requests)
    await table.press(BORIS, data, message_id=chat.bot.session.message_ids[TABLE_A])
    told = [
        r
        for r in chat.bot.requests[before:]
        if isinstance(r, SendMessage) and r.chat_id == HOME_ID
    ]
    assert told and "waits for the judge" in told[0].text, texts(chat.bot.requests[before:])
    seq = re.search(r"/tournament decide 1 (\d+) yes", told[0].text)
    assert seq, told[0].text
    refused = await home.say(DMITRY, f"/tournament decide 1 {seq.group(1)} yes")
    assert "Only the tournament's judge" in refused
    decided = await home.say(JUDGE, f"/tournament decide 1 {seq.group(1)} yes")
    assert "the judge decided — accepted" in decided
    history = await table.say(DMITRY, "/history")
    assert "arbiter" in history
    from_home = await home.say(JUDGE, "/history 1 1")
    assert "Game #1" in from_home
    files = [r for r in await home.send(JUDGE, "/export 1 1") if isinstance(r, SendDocument)]
    assert [f.chat_id for f in files] == [HOME_ID, HOME_ID]
    assert "no such table" in await home.say(JUDGE, "/history 4 1")


async def test_places_scoring_gives_three_two_one_and_the_export_holds_every_game(
    chat: ChatDriver,
) -> None:
    home, table, _ = drivers(chat)
    code = await create(home, "Cup sochi pool 2 scoring=places")
    await table.send(BORIS, f"/tournament join {code}")
    await home.send(ANNA, "/tournament round")
    await play_to_the_end(table, "Anna Boris Clara", GAME_A)
    standings = await home.say(DMITRY, "/standings")
    assert "places 3/2/1/0" in standings
    assert sorted(shown_points(standings).values()) == [1, 2, 3]  # balances +20.7, +10.7, −31.3
    assert "At fault: <code>scoring=money</code>" in (
        await home.say(ANNA, "/tournament new Other sochi scoring=money")
    )
    sent = [
        r for r in await home.send(DMITRY, "/tournament export") if isinstance(r, SendDocument)
    ]
    assert len(sent) == 1
    upload = sent[0].document
    assert isinstance(upload, BufferedInputFile)
    names = zipfile.ZipFile(io.BytesIO(upload.data)).namelist()
    assert names == [
        "standings.txt",
        "round-1/table-1-game-1.pref",
        "round-1/table-1-game-1-events.json",
    ]


async def test_a_table_whose_group_becomes_a_supergroup_stays_in_the_tournament(
    chat: ChatDriver,
) -> None:
    home, _, _ = drivers(chat)
    table = ChatDriver(chat.dispatcher, chat.bot, -401, "group", "Old table")
    code = await create(home)
    await table.send(BORIS, f"/tournament join {code}")
    await home.send(ANNA, "/tournament round")
    await table.send(ANNA, None, migrate_to_chat_id=-100401)
    table.chat_id, table.chat_type = -100401, "supergroup"
    await table.send(ANNA, None, migrate_from_chat_id=-401)
    assert "❗" not in await table.say(ANNA, "/newgame Anna Boris Clara")
    assert "Sochi" in await table.say(DMITRY, "/rules")
    assert "game #1" in await home.say(DMITRY, "/tournament tables")
