"""End-to-end: a group's life across games through the real bot process and the fake Bot API.

Anna, Boris and Clara play three short games in their group (Sochi to a pool of 2: they end after
four deals), Anna one more in another chat with Dmitry and Eva. Then: /games lists the games with
the balances each final /score showed; /game 2 and /export 2 give game 2 (its protocol replays
offline to its balances); /stats totals are the sums of the final balances; /top ranks by total,
with a picture, and its ratings are the documented formula (`scoring.stats`) on the exact
balances of those games; /me in a private chat sums Anna over both chats; in Russian and English.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from scoring.stats import ratings
from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, DMITRY, GROUP, OTHER_GROUP, private_chat
from tests.e2e.harness import BotProcess, Member, contains, is_photo, scoring_replay

pytestmark = pytest.mark.asyncio(loop_scope="module")

GAMES = (
    (
        ("Anna", "Anna 6♠ = vist:Boris pass:Clara"),
        ("Boris", "Boris 6♠ = vist:Clara pass:Anna"),
        ("Clara", "Clara 6♠ -1 vist:Anna pass:Boris"),
        ("Anna", "Clara 6♠ = vist:Anna pass:Boris"),
    ),
    (
        ("Boris", "Boris 7♥ -1 vist:Anna pass:Clara"),
        ("Clara", "Anna 6♠ = vist:Boris pass:Clara"),
        ("Anna", "Boris 6♠ = vist:Clara pass:Anna"),
        ("Boris", "Clara 6♠ = vist:Anna pass:Boris"),
    ),
    (
        ("Clara", "pass Anna/2 Boris/3 Clara/5"),
        ("Anna", "Boris 6♠ = vist:Clara pass:Anna"),
        ("Boris", "Anna 6♠ -2 vist:Boris pass:Clara"),
        ("Clara", "Anna 6♠ = vist:Boris pass:Clara"),
        ("Anna", "Clara 6♠ = vist:Anna pass:Boris"),
    ),
)
ELSEWHERE = (
    ("Dmitry", "Dmitry 6♠ = vist:Anna pass:Eva"),
    ("Anna", "Anna 7♠ -1 vist:Dmitry pass:Eva"),
    ("Anna", "Anna 6♠ = vist:Dmitry pass:Eva"),
    ("Dmitry", "Eva 6♠ = vist:Dmitry pass:Anna"),
)
_AMOUNT = re.compile(r"([+\-−]?)(\d+)(?:[.,](\d))?")
ROUNDING = Fraction(1, 20)


def amount(text: str) -> Fraction:
    match = _AMOUNT.fullmatch(text)
    assert match is not None, f"not an amount of whists: {text!r}"
    sign, whole, tenths = match.groups()
    value = Fraction(int(whole) * 10 + int(tenths or 0), 10)
    return -value if sign in ("-", "−") else value


def balances(text: str, names: tuple[str, ...]) -> dict[str, str]:
    """The `Name: +12.5` lines of a /score, as shown."""
    found = dict(re.findall(rf"^({'|'.join(names)}): (\S+)$", text, re.MULTILINE))
    assert set(found) == set(names), text
    return found


def near(shown: str, exact: Fraction) -> bool:
    return abs(amount(shown) - exact) <= ROUNDING


class Club:
    def __init__(self, bot: BotProcess) -> None:
        self.bot = bot
        self.group = {u.first_name: Member(bot, GROUP, u) for u in (ANNA, BORIS, CLARA, DMITRY)}
        self.other = {u.first_name: Member(bot, OTHER_GROUP, u) for u in (ANNA, DMITRY)}

    async def play(self, members: dict[str, Member], deals: tuple[tuple[str, str], ...]) -> str:
        for who, line in deals:
            await members[who].say(f"/deal {line}", is_photo)
        first = next(iter(members.values()))
        ended = await first.say("/endgame", contains("📊"))
        assert "end rule is met" in ended.text
        return (await first.say("/score", contains("📊"))).text

    async def exact(self, member: Member, number: int, path: Path) -> dict[str, Fraction]:
        """The balances of game `number` from its /export, replayed offline."""
        since = member.server.cursor(member.chat)
        await member.say(f"/export {number}", contains("protocol file"))
        protocol = next(
            s for s in member.server.sent[member.chat.id][since:] if s.document is not None
        )
        assert f"Game #{number} as a protocol file" in protocol.text
        assert protocol.document is not None
        result = await scoring_replay(path, protocol.document.decode())
        return dict(result["balances_exact"])


async def open_group_game(club: Club) -> None:
    anna, boris, clara = (club.group[n] for n in ("Anna", "Boris", "Clara"))
    opened = await anna.say("/newgame sochi pool 2", lambda s: bool(s.buttons))
    await anna.press(opened, 0)
    await boris.press(opened, 0)
    await clara.say("/join", contains("Clara"))


async def test_a_group_s_archive_statistics_standings_and_rating_across_games(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    club = Club(shared_bot)
    anna, boris, dmitry = club.group["Anna"], club.group["Boris"], club.group["Dmitry"]
    names = ("Anna", "Boris", "Clara")
    await anna.say("/lang en", contains("English"))
    scores = []
    for deals in GAMES:
        await open_group_game(club)
        scores.append(await club.play(club.group, deals))

    there = club.other
    await there["Dmitry"].say("/lang en", contains("English"))
    await there["Dmitry"].say("/newgame sochi pool 2", lambda s: bool(s.buttons))
    await there["Dmitry"].say("/join", contains("Dmitry"))
    await there["Anna"].say("/join", contains("Anna"))
    await there["Dmitry"].say("/join Eva", contains("Eva"))
    await club.play(there, ELSEWHERE)

    # /games: newest first, each finished game with the balances its final /score showed
    listing = (await dmitry.say("/games", contains("Games of this chat"))).text
    rows = [line for line in listing.splitlines() if line.startswith("#")]
    assert [row.split(" ")[0] for row in rows] == ["#3", "#2", "#1"]
    for row, score in zip(reversed(rows), scores, strict=True):
        for name, shown in balances(score, names).items():
            assert f"{name} {shown}" in row, (row, score)

    # /game 2 and /export 2: game 2
    since = shared_bot.server.cursor(GROUP)
    opened = await dmitry.say("/game 2", contains("📊", "Game #2"))
    assert balances(opened.text, names) == balances(scores[1], names)
    assert any(s.is_photo for s in shared_bot.server.sent[GROUP.id][since:])
    exact = [await club.exact(anna, n, tmp_path / f"g{n}.pref") for n in (1, 2, 3)]
    for game, score in zip(exact, scores, strict=True):
        assert all(near(balances(score, names)[n], game[n]) for n in names)

    # /stats: totals are the sums of the final balances
    stats = (await boris.say("/stats", contains("Statistics"))).text
    totals = {n: sum((g[n] for g in exact), Fraction(0)) for n in names}
    for name in names:
        line = re.search(rf"^{name}: 3 games, won \d+ · total (\S+) ", stats, re.MULTILINE)
        assert line is not None and near(line.group(1), totals[name]), stats

    # /top: by total, a picture, the ratings of the formula on these games
    top = await boris.say("/top", is_photo)
    assert top.photo is not None and top.photo[:8] == b"\x89PNG\r\n\x1a\n"
    ranked = re.findall(r"^(\d)\. (\w+) (\S+) · .* rating (\d+)$", top.text, re.MULTILINE)
    assert [r[1] for r in ranked] == sorted(names, key=lambda n: -totals[n])
    rated = ratings([[(n, g[n]) for n in names] for g in exact])
    assert {r[1]: int(r[3]) for r in ranked} == {n: round(v) for n, v in rated.items()}

    # /me: Anna over both chats
    elsewhere = await club.exact(there["Anna"], 1, tmp_path / "other.pref")
    private = Member(shared_bot, private_chat(ANNA), ANNA)
    await private.say("/lang en", contains("English"))
    me = (await private.say("/me", contains("You"))).text
    assert "4 games finished · chats: 2" in me
    shown = re.search(r"total (\S+)$", me.splitlines()[0])
    assert shown is not None and near(shown.group(1), totals["Anna"] + elsewhere["Anna"])
    assert f"«{GROUP.title}»: 3 games" in me and f"«{OTHER_GROUP.title}»: 1 game," in me

    # in Russian
    await anna.say("/lang ru", contains("по-русски"))
    russian = (await boris.say("/stats", contains("Статистика"))).text
    assert "за всё время · 3 пульки" in russian and "3 пульки, побед" in russian
    assert "Пульки этого чата" in (await boris.say("/games", contains("Пульки"))).text
    top_ru = await boris.say("/top", is_photo)
    assert "Турнирная таблица" in top_ru.text and "рейтинг" in top_ru.text
    clara_private = Member(shared_bot, private_chat(CLARA), CLARA)
    await clara_private.say("/lang ru", contains("по-русски"))
    assert "окончено 3 пульки · чатов: 1" in (await clara_private.say("/me", contains("Вы"))).text
    shared_bot.assert_alive()
    for chat in (GROUP, OTHER_GROUP):
        assert not any("Traceback" in s.text for s in shared_bot.server.sent[chat.id])
