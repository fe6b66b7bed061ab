"""Mid-game rule changes through the real dispatcher (conventions.md §1.4, corrections.md "A vote"):
a rule changes only by a vote every player agrees to, never as a deal."""

from __future__ import annotations

from bot.service import GameService
from bot.storage import SqliteStore
from tests.bot.factories import ANNA, BORIS, CLARA, ChatDriver
from tests.bot.test_game_flow import count_events, open_game

DEAL_1 = "Anna 6♠ = vist:Boris pass:Clara"


async def test_a_rule_change_sent_as_a_deal_is_refused_and_records_nothing(
    chat: ChatDriver, game: GameService, store: SqliteStore
) -> None:
    """conventions.md §1.4: changing a rule mid-game needs every player's consent."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    events = await count_events(store)
    for text in (
        "/deal option pool_target=30",
        "/deal правило whist_split=gentleman",
        "/deal option pool_target=30 late",
        "/dispute 1 option pool_target=30",
        "/edit option pool_target=30",
    ):
        refused = await chat.say(BORIS if "dispute" in text else ANNA, text)
        assert "/rule name=value" in refused, (text, refused)
        assert "/rule pool_target=30" in refused
    assert await count_events(store) == events
    snap = await game.snapshot(chat.chat_id)
    assert snap.sheet is not None and len(snap.sheet.records) == 1
    assert snap.sheet.rules.pool_target == 10
    assert "/rule" in await chat.say(CLARA, "/deal option pool_target=30")
