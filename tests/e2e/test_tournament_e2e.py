"""End-to-end: a tournament of three tables — two group chats and a forum topic — over two rounds,
through the real bot process and the fake Bot API.

The home chat (English) creates the tournament and names a judge; table 1 (four players, English)
disputes a record 2:2 and the judge decides it from the home chat; table 2 (Russian) is refused a
game under other rules; table 3 plays in a forum topic. Every game's end posts the standings at
home; at the end `/tournament export` gives every game's protocol file and the standings, and the
standings equal the sums of the protocols' exact balances (`python -m scoring replay`)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, DMITRY, Chat, Sent, User
from tests.e2e.harness import BotProcess, Member, contains, is_photo, scoring_replay

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOME = Chat(-1001500000020, "supergroup", "Cup home")
TABLE_ONE = Chat(-1001500000021, "supergroup", "Table one")
TABLE_TWO = Chat(-1001500000022, "supergroup", "Стол два")
CLUB = Chat(-1001500000023, "supergroup", "Club", is_forum=True)
ZOYA = User(1010, "Zoya", "zoya_judge", language_code="en")
FEDOR = User(1011, "Fedor", "fedor_p", language_code="ru")
KIRA = User(1012, "Kira", "kira_p", language_code="en")
FOUR = (ANNA, BORIS, CLARA, DMITRY)

# Named players (the scorekeeper records for them): a pulka to 2 that ends on its last deal.
GAMES_TWO = (
    (
        "Fedor Galina Igor",
        (
            "Fedor 6♠ = vist:Galina pass:Igor",
            "Galina 6♠ -1 vist:Igor pass:Fedor",
            "Igor 6♠ = vist:Fedor pass:Galina",
            "Galina 6♥ = vist:Igor pass:Fedor",
        ),
    ),
    (
        "Fedor Galina Igor",
        (
            "Galina 6♠ = vist:Fedor pass:Igor",
            "Igor 6♠ -2 vist:Fedor/3 vist:Galina/3",
            "Fedor 6♠ = vist:Galina pass:Igor",
            "Igor 6♥ = vist:Galina pass:Fedor",
        ),
    ),
)
GAMES_THREE = (
    (
        "Kira Lev Mark",
        (
            "Kira 6♠ = vist:Lev pass:Mark",
            "Lev 6♠ = vist:Mark pass:Kira",
            "Mark 6♠ = vist:Kira pass:Lev",
        ),
    ),
    (
        "Kira Lev Mark",
        (
            "Kira 6♣ -1 vist:Lev pass:Mark",
            "Lev 6♠ = vist:Mark pass:Kira",
            "Mark 6♠ = vist:Kira pass:Lev",
            "Kira 6♠ = vist:Lev pass:Mark",
        ),
    ),
)


def in_topic(topic: int | None, until: Callable[[Sent], bool]) -> Callable[[Sent], bool]:
    return lambda sent: sent.thread_id == topic and until(sent)


async def say(member: Member, text: str, until: Callable[[Sent], bool] | None = None) -> Sent:
    return await member.say(text, in_topic(member.topic, until or (lambda _: True)))


async def named_game(opener: Member, players: str, deals: tuple[str, ...]) -> None:
    """A game of named players under the tournament's rules (`/newgame` names none), played to
    its end rule and ended."""
    opened = await say(opener, f"/newgame {players}", contains("#"))
    assert "❗" not in opened.text, opened.text
    for line in deals:
        await say(opener, f"/deal {line}", is_photo)
    await say(opener, "/endgame", contains("#"))


class FourTable:
    """Table one: Anna, Boris, Clara and Dmitry, with accounts (they vote)."""

    def __init__(self, bot: BotProcess) -> None:
        self.members = {u.first_name: Member(bot, TABLE_ONE, u) for u in FOUR}
        self.server = bot.server

    async def open(self) -> None:
        await say(self.members["Anna"], "/newgame players=4", contains("#"))
        for name in ("Anna", "Boris", "Clara", "Dmitry"):
            joined = await say(self.members[name], "/join", contains(name))
        assert "The game is on" in joined.text, joined.text

    async def press(self, name: str, vote: Sent, yes: bool) -> None:
        await self.members[name].press(
            vote, "Yes" if yes else "No", lambda s: s.is_edit and s.message_id == vote.message_id
        )

    async def end(self) -> None:
        vote = await say(self.members["Anna"], "/endgame", lambda s: bool(s.buttons))
        for name in ("Boris", "Clara"):
            await self.press(name, vote, True)
        await self.members["Dmitry"].press(vote, "Yes", contains("is over"))


def code_of(created: Sent) -> str:
    found = re.search(r"Code: ([A-Z0-9]{6})", created.text)
    assert found, created.text
    return found.group(1)


def standings_points(text: str) -> dict[str, Fraction]:
    """`N. Name +12.5 · …` lines (as plain text): each player's total, as shown."""
    found = re.findall(r"^\d+\. (\w+) ([+−]?)([\d.]+) ·", text, re.MULTILINE)
    return {name: Fraction(value) * (-1 if sign == "−" else 1) for name, sign, value in found}


async def test_a_tournament_of_three_tables_over_two_rounds_with_a_remote_judge(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    server = shared_bot.server
    topic = server.open_topic(CLUB, "Стол 3")
    anna_home, zoya = Member(shared_bot, HOME, ANNA), Member(shared_bot, HOME, ZOYA)
    watcher = Member(shared_bot, HOME, DMITRY)
    fedor = Member(shared_bot, TABLE_TWO, FEDOR)
    kira = Member(shared_bot, CLUB, KIRA, topic)
    one = FourTable(shared_bot)

    await say(anna_home, "/lang en", contains("English"))
    code = code_of(await say(anna_home, "/tournament new Cup sochi pool 2", contains("Code")))
    await say(anna_home, "/tournament judge @zoya_judge", contains("is the judge"))
    await say(one.members["Anna"], "/lang en", contains("English"))
    await say(fedor, "/lang ru", contains("по-русски"))
    for member in (one.members["Boris"], fedor, kira):
        since = server.cursor(HOME)
        await say(member, f"/tournament join {code}", lambda s: "❗" not in s.text)
        await watcher.wait(contains("joined"), since=since)
    assert "no round of it is open" in (await say(kira, "/newgame Kira Lev Mark")).text
    await say(anna_home, "/tournament round", contains("round 1 has started"))
    refused = await say(fedor, "/newgame leningrad pool 2 Fedor Galina Igor")
    assert "по правилам турнира" in refused.text and "sochi pool_target=2" in refused.text

    # Round 1. Table one: a record disputed 2:2 goes to the judge, who decides from home.
    await one.open()
    await say(one.members["Anna"], "/deal Boris 6♠ = vist:Clara pass:Dmitry", is_photo)
    since_home = server.cursor(HOME)
    vote = await say(
        one.members["Boris"],
        "/dispute 1 Boris 6♠ -1 vist:Clara pass:Dmitry",
        lambda s: bool(s.buttons),
    )
    await one.press("Clara", vote, True)
    await one.press("Anna", vote, False)
    await one.press("Dmitry", vote, False)
    told = await watcher.wait(contains("waits for the judge"), since=since_home)
    assert told.thread_id is None and "Table 1" in told.text
    number = re.search(r"/tournament decide 1 (\d+) yes", told.text)
    assert number, told.text
    assert (
        "Only the tournament's judge"
        in (await say(watcher, f"/tournament decide 1 {number.group(1)} yes", contains("❗"))).text
    )
    since_table = server.cursor(TABLE_ONE)
    decided = await say(zoya, f"/tournament decide 1 {number.group(1)} yes", contains("decided"))
    assert "accepted" in decided.text
    await one.members["Clara"].wait(is_photo, since=since_table)  # the corrected sheet, there
    assert "accepted" in server.message(TABLE_ONE, vote.message_id)["text"]
    history = await say(zoya, "/history 1 1", contains("every event"))
    assert "by the arbiter" in history.text
    await one.end()
    await named_game(fedor, *GAMES_TWO[0])
    await named_game(kira, *GAMES_THREE[0])
    standings = await watcher.wait(contains("standings after 3 games"), since=since_home)
    assert standings.thread_id is None

    # Round 2.
    await say(anna_home, "/tournament close", contains("round 1 is closed"))
    await say(anna_home, "/tournament round", contains("round 2 has started"))
    await one.open()
    await say(one.members["Anna"], "/deal Boris 7♥ -1 vist:Clara pass:Dmitry", is_photo)
    await one.end()
    await named_game(fedor, *GAMES_TWO[1])
    await named_game(kira, *GAMES_THREE[1])
    assert "has played its game of round 2" in (await say(kira, "/newgame Kira Lev Mark")).text
    await say(anna_home, "/tournament close", contains("round 2 is closed"))

    tables = await say(watcher, "/tournament tables", contains("the tables"))
    assert all(f"{n}. " in tables.text for n in (1, 2, 3))
    assert "3. Club · Стол 3 — game #" in tables.text  # a topic's table by the topic's name
    shown = await say(watcher, "/standings", contains("standings after 6 games"))
    since = server.cursor(HOME)
    watcher.send("/tournament export")
    exported = await watcher.wait(lambda s: s.document is not None, since=since)
    assert exported.document is not None
    archive = zipfile.ZipFile(io.BytesIO(exported.document))
    protocols = sorted(n for n in archive.namelist() if n.endswith(".pref"))
    assert len(protocols) == 6, protocols
    exact: dict[str, Fraction] = {}
    for index, name in enumerate(protocols):
        text = archive.read(name).decode()
        result = await scoring_replay(tmp_path / f"game-{index}.pref", text)
        for player, balance in result["balances_exact"].items():
            exact[player] = exact.get(player, Fraction(0)) + balance
    for text in (shown.text, archive.read("standings.txt").decode()):
        points = standings_points(text)
        assert set(points) == set(exact), (points, exact)
        for player, total in exact.items():
            assert abs(points[player] - total) <= Fraction(1, 20), (player, points, total)
    assert sum(exact.values()) == 0
    shared_bot.assert_alive()
