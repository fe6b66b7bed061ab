"""Writes tests/data/db/v1.sqlite3: a database as the bot wrote it before the typed log (issue 10).

Run once, with the code of commit 1ac257a (the last before the restructure):
    PYTHONPATH=. .venv/bin/python tests/data/db/make_v1.py
The file is committed; `tests/bot/test_migration_v1.py` reads it with today's code and checks the
folded state and the replayed balances. Do not regenerate it with newer code: its worth is that it
holds events exactly as the old service wrote them.

Chat -100111 plays one whole game with every kind of event the old service wrote: players joining
and one leaving, deals, a pencil undo and edit, two disputes (a warning, then a record penalty), a
late deal, a rule change, an arbiter named by vote, a vote timed out and referred to him, his
decision, a posted vote message, and the game ended by agreement. Chat -100222 has a game created
and cancelled while forming, with an arbiter named by the scorekeeper.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.service import Caller, Core, parse_newgame
from bot.service.results import VoteState

from bot.core import corrections, lobby, looks, records, votes
from bot.storage import SqliteStore

OUT = Path(__file__).with_name("v1.sqlite3")
START = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)
CHAT, OTHER = -100111, -100222
USERS = {
    "anna": (1001, "Anna", "anna_p"),
    "boris": (1002, "Boris", "boris_p"),
    "clara": (1003, "Clara", "clara_p"),
    "dmitry": (1004, "Dmitry", "dmitry_p"),
    "eva": (1006, "Eva", "eva_arbiter"),
}


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


updates = iter(range(5000, 10**6))


def who(name: str, chat: int = CHAT) -> Caller:
    user_id, first, username = USERS[name]
    return Caller(chat, user_id, first, username, next(updates), "supergroup", "v1 pulka")


async def main() -> None:
    if OUT.exists():
        OUT.unlink()
    store = await SqliteStore.open(OUT)
    clock = Clock()
    game = Core(store, clock)
    anna = who("anna")

    await lobby.new_game(anna, parse_newgame("russian pool 10 stake 0.1", anna.as_player()))
    await lobby.join(who("anna"))
    await lobby.join(who("dmitry"))
    await lobby.leave(who("dmitry"))
    await lobby.join(who("boris"))
    await lobby.join(who("clara"))
    await lobby.set_language(who("anna"), "en")

    # deal 1 and a dispute: Anna's first corrected error, a warning (Кодекс 4.2.7)
    await records.record(who("anna"), "Boris 6♠ -1 vist:Anna pass:Clara")
    clock.advance(200)
    vote = await corrections.dispute(who("boris"), "1", "Boris 6♠ = vist:Anna pass:Clara")
    await votes.vote(who("clara"), vote.state.game_id, vote.vote.seq, True)
    # deal 2 and a second dispute: the record penalty
    clock.advance(10)
    await records.record(who("anna"), "Clara 7♦ -1 vist:Anna pass:Boris")
    clock.advance(200)
    vote = await corrections.dispute(who("clara"), "2", "Clara 7♦ = vist:Anna pass:Boris")
    await votes.vote(who("boris"), vote.state.game_id, vote.vote.seq, True)
    # deal 3: written, undone, written again, edited with the pencil
    clock.advance(10)
    await records.record(who("boris"), "Anna 6♥ = vist:Boris pass:Clara")
    clock.advance(5)
    await records.undo(who("boris"))
    await records.record(who("boris"), "Anna 6♥ -1 vist:Boris pass:Clara")
    clock.advance(5)
    await records.edit(who("boris"), "Anna 6♥ = vist:Boris pass:Clara")
    # deal 4, then a forgotten deal inserted before it
    clock.advance(10)
    await records.record(who("clara"), "Boris 7♣ = vist:Clara pass:Anna")
    clock.advance(10)
    vote = await corrections.propose_late(
        who("clara"), "Clara misere 0"
    )  # the handler strips `late`
    await votes.vote(who("anna"), vote.state.game_id, vote.vote.seq, True)
    await votes.vote(who("boris"), vote.state.game_id, vote.vote.seq, True)
    # a rule change by everyone's vote
    clock.advance(10)
    vote = await corrections.propose_rule(who("anna"), "whist_split=gentleman")
    await votes.vote(who("boris"), vote.state.game_id, vote.vote.seq, True)
    await votes.vote(who("clara"), vote.state.game_id, vote.vote.seq, True)
    # an arbiter named by vote
    clock.advance(10)
    named = await corrections.name_arbiter(who("boris"), "@eva_arbiter")
    assert isinstance(named, VoteState)
    await votes.vote(who("anna"), named.state.game_id, named.vote.seq, True)
    await votes.vote(who("clara"), named.state.game_id, named.vote.seq, True)
    # deal 5 disputed; the vote's message is posted, it times out, the arbiter accepts it
    clock.advance(10)
    await records.record(who("anna"), "Anna 8♠ = vist:Boris pass:Clara")
    clock.advance(30)
    vote = await corrections.dispute(who("boris"), "6", "Anna 8♠ -1 vist:Boris pass:Clara")
    await game.vote_posted(CHAT, vote.state.game_id, vote.vote.seq, 777)
    await votes.vote(who("clara"), vote.state.game_id, vote.vote.seq, False)
    clock.advance(901)
    expired = await game.expire_votes()
    assert [e.reason for e in expired] == ["timeout"], expired
    await votes.vote(who("eva"), vote.state.game_id, vote.vote.seq, True)
    # the end by agreement
    clock.advance(10)
    end = await votes.end_game(who("boris"))
    assert isinstance(end, VoteState)
    await votes.vote(who("anna"), end.state.game_id, end.vote.seq, True)
    await votes.vote(who("clara"), end.state.game_id, end.vote.seq, True)

    # another chat: a game cancelled while forming
    keeper = who("dmitry", OTHER)
    spec = parse_newgame("sochi pool 20 arbiter=@eva_arbiter", keeper.as_player())
    await lobby.new_game(keeper, spec)
    await lobby.join(who("dmitry", OTHER))
    await votes.end_game(who("dmitry", OTHER))

    snap = await looks.snapshot(game, CHAT)
    assert snap.settlement is not None and snap.sheet is not None
    print("deals", snap.sheet.deals, "balances", snap.settlement.balances, file=sys.stderr)
    print("totals", snap.sheet.totals, file=sys.stderr)
    await store.close()


if __name__ == "__main__":
    asyncio.run(main())
