"""Short games for the archive and statistics tests: Sochi to a pool of 2, ended by /endgame
after the deal that closes the last pool (each player's 6♠ made writes his 2)."""

from __future__ import annotations

import re

from tests.bot.factories import ANNA, ChatDriver, TgUser

SHORT: dict[str, tuple[str, ...]] = {
    "a": (
        "Anna 6♠ = vist:Boris pass:Clara",
        "Boris 6♠ = vist:Clara pass:Anna",
        "Clara 6♠ -1 vist:Anna pass:Boris",
        "Clara 6♠ = vist:Anna pass:Boris",
    ),
    "b": (
        "Boris 7♥ -1 vist:Anna pass:Clara",
        "Anna 6♠ = vist:Boris pass:Clara",
        "Boris 6♠ = vist:Clara pass:Anna",
        "Clara 6♠ = vist:Anna pass:Boris",
    ),
    "c": (
        "pass Anna/2 Boris/3 Clara/5",
        "Boris 6♠ = vist:Clara pass:Anna",
        "Anna 6♠ -2 vist:Boris pass:Clara",
        "Anna 6♠ = vist:Boris pass:Clara",
        "Clara 6♠ = vist:Anna pass:Boris",
    ),
}
# The seats of a short game: Anna's account, Boris and Clara by @username (linked when they act).
SEATS = "me @boris_p @clara_p"
_BALANCE = re.compile(r"^(\w+): ([+−]?[\d.,]+)", re.MULTILINE)


async def short_game(
    chat: ChatDriver,
    which: str = "a",
    *,
    seats: str = SEATS,
    opener: TgUser = ANNA,
    convention: str = "sochi",
) -> str:
    """Play one short game to its end; the final /score."""
    await chat.send(opener, f"/newgame {convention} pool 2 {seats}")
    for line in SHORT[which]:
        await chat.send(opener, f"/deal {line}")
    ended = await chat.say(opener, "/endgame")
    assert "is over" in ended or "окончена" in ended, ended
    score = await chat.say(opener, "/score")
    deals = len(SHORT[which])
    assert f"(ended), {deals} deals" in score or f"(окончена), раздач: {deals}" in score, score
    return score


def balance_lines(text: str) -> dict[str, str]:
    """The `Name: +12.5` lines of a /score (first of each name)."""
    found: dict[str, str] = {}
    for name, value in _BALANCE.findall(text):
        found.setdefault(name, value)
    return found
