"""Mid-game rule changes through the real dispatcher (conventions.md §1.4, corrections.md "A vote"):
a rule changes only by a vote every player agrees to, never as a deal."""

from __future__ import annotations

from bot.core import Core, looks
from bot.storage import SqliteStore
from bot.telegram.outbound.outbox import close_expired_votes
from scoring.notation import parse_protocol
from scoring.replay import replay
from scoring.settle import settle
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, FakeClock
from tests.bot.test_disputes import (
    EVA_ARBITER,
    assert_export_replays,
    buttons,
    edited,
    exported,
    toast,
    vote_message,
)
from tests.bot.test_game_flow import count_events, open_game

DEAL_1 = "Anna 6♠ = vist:Boris pass:Clara"
FAILED = "Clara 6♠ -1 vist:Anna pass:Boris"
FAILED_FIXED = "Clara 6♠ -2 vist:Anna pass:Boris"


async def test_a_rule_change_sent_as_a_deal_is_refused_and_records_nothing(
    chat: ChatDriver, game: Core, store: SqliteStore
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
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and len(snap.sheet.records) == 1
    assert snap.sheet.rules.pool_target == 10
    assert "/rule" in await chat.say(CLARA, "/deal option pool_target=30")


async def test_a_rule_change_every_player_agrees_to_scores_later_deals_under_it(
    chat: ChatDriver, game: Core, store: SqliteStore
) -> None:
    """conventions.md §1.4: a whist split changed to gentleman holds from the next deal on; the
    deals before keep the greedy split, and the export replays to the bot's balances."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {FAILED}")
    opened = await chat.send(ANNA, "/rule whist_split=gentleman")
    text = vote_message(opened).text
    assert "Change a rule of game #1?" in text and "Every player must agree" in text
    assert "one-whist split: greedy → <b>gentleman's</b>" in text
    yes, _ = buttons(opened)
    events = await count_events(store)
    assert "Agreed" not in edited(await chat.press(BORIS, yes))  # 2 of 3 is not enough
    assert "✅ Agreed." in edited(await chat.press(CLARA, yes))
    assert await count_events(store) == events + 4  # two ballots, the close, the change
    await chat.send(BORIS, f"/deal {FAILED}")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.sheet.deals == 2
    assert snap.sheet.rules.whist_split.value == "gentleman"
    assert snap.state.rules is not None and snap.state.rules.whist_split.value == "greedy"
    assert snap.sheet.totals.whists[0][2] == (5 * 2 + 2) + 7  # greedy, then the gentleman's half
    assert snap.sheet.totals.whists[1][2] == 2 + 7
    history = await chat.say(DMITRY, "/history")
    assert (
        "Anna proposes a rule change: <b>one-whist split: gentleman's</b> (was greedy)" in history
    )
    assert "✅ Anna, ✅ Boris, ✅ Clara" in history
    assert "Rule changed by vote" in history and "<b>#2</b>" in history
    rules = await chat.say(DMITRY, "/rules")
    assert "<code>whist_split=gentleman</code>" in rules and "changed during the game" in rules
    assert "one-whist split: gentleman's ✎ 🔄" in rules
    assert "gentleman's ✎ 🔄 · <code>whist_split=gentleman</code>" in await chat.say(
        DMITRY, "/rule"
    )
    protocol = await assert_export_replays(chat, game)
    lines = [line for line in protocol.splitlines() if not line.startswith("#")]
    assert lines == [FAILED, "option whist_split=gentleman", FAILED]
    assert "rule changed mid-game by vote" in protocol
    assert "is already gentleman" in await chat.say(BORIS, "/rule whist_split=gentleman")


async def test_one_no_rejects_a_rule_change(
    chat: ChatDriver, game: Core, store: SqliteStore
) -> None:
    await open_game(chat)
    opened = await chat.send(ANNA, "/rule pool_target=20")
    yes, no = buttons(opened)
    await chat.press(BORIS, yes)
    assert "❌ Rejected." in edited(await chat.press(CLARA, no))
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.sheet.rules.pool_target == 10
    assert snap.state.records == []
    assert "rejected" in await chat.say(DMITRY, "/history")


async def test_a_press_by_someone_not_playing_changes_nothing(
    chat: ChatDriver, game: Core, store: SqliteStore
) -> None:
    await open_game(chat)
    opened = await chat.send(ANNA, "/rule pool_target=20")
    yes, _ = buttons(opened)
    events = await count_events(store)
    assert "Only the game's players vote" in toast(await chat.press(DMITRY, yes))
    assert await count_events(store) == events
    assert "Only the game's players" in await chat.say(DMITRY, "/rule pool_target=30")
    assert "already open" in await chat.say(BORIS, "/rule pool_target=30")


async def test_an_unknown_option_is_refused_with_the_valid_ones_listed(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    events = await count_events(store)
    refused = await chat.say(ANNA, "/rule colour=red")
    assert "no such option" in refused and "pool_target, " in refused and "whist_split" in refused
    assert "<code>/rule pool_target=30</code>" in refused
    assert "cannot take" in await chat.say(ANNA, "/rule whist_split=kind")
    assert "name=value" in await chat.say(ANNA, "/rule pool_target")
    assert await count_events(store) == events


async def test_a_timed_out_rule_change_goes_to_the_arbiter_and_the_new_window_holds(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """corrections.md "A vote": a timed-out vote goes to the arbiter; a passed change of
    vote_seconds sets the deadline of the next vote."""
    await chat.send(ANNA, "/newgame sochi pool 10 arbiter=@eva_arbiter")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")
    opened = await chat.send(ANNA, "/rule vote_seconds=60")
    clock.advance(901)
    before = len(chat.bot.requests)
    await close_expired_votes(game, "en")
    assert "Time is up: the arbiter" in edited(chat.bot.requests[before:])
    yes, _ = buttons(opened)
    assert "The arbiter Eva accepted it" in edited(await chat.press(EVA_ARBITER, yes))
    await chat.send(ANNA, f"/deal {FAILED}")
    clock.advance(200)
    await chat.send(BORIS, f"/dispute 1 {FAILED_FIXED}")
    snap = await looks.snapshot(game, chat.chat_id)
    vote = snap.state.open_votes()[0]
    assert (vote.deadline - vote.at).total_seconds() == 60


async def test_the_settlement_and_the_export_use_the_pool_target_in_force(
    chat: ChatDriver, game: Core
) -> None:
    """The pool changed mid-game settles the game; `python -m scoring replay` of the exported
    protocol (an `option pool_target=20` line) gives the same balances."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {FAILED}")
    yes, _ = buttons(await chat.send(ANNA, "/rule pool_target=20"))
    await chat.press(BORIS, yes)
    await chat.press(CLARA, yes)
    await chat.send(BORIS, f"/deal {FAILED}")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.settlement is not None
    assert snap.settlement == settle(snap.sheet.rules, snap.sheet.totals)
    protocol_text, _ = await exported(chat)
    protocol = parse_protocol(protocol_text)
    sheet = replay(protocol.game(), [record for _, record in protocol.records])
    assert sheet.rules.pool_target == 20
    assert settle(sheet.rules, sheet.totals).balances == snap.settlement.balances


SIXES = (
    "Anna 6♠ = pass:Boris pass:Clara",
    "Boris 6♠ = pass:Clara pass:Anna",
    "Clara 6♠ = pass:Anna pass:Boris",
)


async def test_notation_errors_a_rule_change_after_the_game_has_ended_is_refused(
    chat: ChatDriver, game: Core, store: SqliteStore
) -> None:
    """notation.md "Errors": "a deal or an `option` line after the game has ended" — `/rule` once
    the end rule is met is refused like a deal, and records nothing."""
    await open_game(chat, "sochi pool 2")
    for line in SIXES:
        await chat.send(ANNA, f"/deal {line}")
    events = await count_events(store)
    refused = await chat.say(BORIS, "/rule whist_split=gentleman")
    assert "The game is over" in refused
    assert await count_events(store) == events


async def test_a_rule_change_passed_after_the_game_has_ended_is_not_recorded(
    chat: ChatDriver, game: Core
) -> None:
    """A rule vote opened before the last deal and passed after it: the engine refuses an `option`
    line after the end, so the change is not written and the rules stay as they were."""
    await open_game(chat, "sochi pool 2")
    for line in SIXES[:2]:
        await chat.send(ANNA, f"/deal {line}")
    opened = await chat.send(ANNA, "/rule whist_split=gentleman")
    await chat.send(ANNA, f"/deal {SIXES[2]}")
    yes, _ = buttons(opened)
    await chat.press(BORIS, yes)
    shown = edited(await chat.press(CLARA, yes))
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.sheet.finished
    assert snap.sheet.rules.whist_split.value == "greedy"
    assert [r.change for r in snap.state.records if r.change] == []
    assert "It passed, but" in shown and "nothing was changed" in shown
