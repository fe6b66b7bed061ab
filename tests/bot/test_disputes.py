"""Disputed records through the real dispatcher (issue 6, spec/corrections.md): corrections by vote
inside and after the window, late deals, record penalties, the arbiter, votes that time out, the
audit (/history, /export) — with a fake clock."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from aiogram import Dispatcher
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendDocument,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot.app import build_dispatcher
from bot.core import Core, Kind, looks, votes
from bot.core.results import Snapshot
from bot.core.votes import corrections_count
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.telegram.keyboards import HelpCb, VoteCb
from bot.telegram.outbound.outbox import close_expired_votes, render_png
from bot.texts.help import Topic, menu_commands
from bot.texts.i18n import translator
from scoring.notation import Table, parse_protocol, parse_record
from scoring.replay import replay
from scoring.settle import settle
from tests.bot.factories import (
    ANNA,
    BORIS,
    CLARA,
    DMITRY,
    EVA,
    ChatDriver,
    FakeClock,
    TgUser,
    texts,
)
from tests.bot.test_game_flow import balances, count_events, open_game

DEAL_1 = "Anna 6♠ = vist:Boris pass:Clara"
DEAL_1_FIXED = "Anna 6♠ -1 vist:Boris pass:Clara"
DEAL_2 = "Boris 7♥ -1 pass:Clara vist:Anna"  # canonical: defenders clockwise
FORGOTTEN = "Clara misere 0"
EVA_ARBITER = TgUser(1006, "Eva", "eva_arbiter")


def vote_message(answer: list[TelegramMethod[Any]]) -> SendMessage:
    """The vote message among the bot's answers (the one with ✅/❌)."""
    for request in answer:
        if isinstance(request, SendMessage) and isinstance(
            request.reply_markup, InlineKeyboardMarkup
        ):
            return request
    raise AssertionError(f"no vote message in {texts(answer)!r}")


def buttons(answer: list[TelegramMethod[Any]]) -> tuple[VoteCb, VoteCb]:
    """(✅, ❌) of the vote the bot posted."""
    markup = vote_message(answer).reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    yes, no = markup.inline_keyboard[0]
    return VoteCb.unpack(yes.callback_data or ""), VoteCb.unpack(no.callback_data or "")


def toast(answer: list[TelegramMethod[Any]]) -> str:
    answers = [r for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert len(answers) == 1, answer
    return answers[0].text or ""


def edited(answer: list[TelegramMethod[Any]]) -> str:
    return "\n".join(r.text for r in answer if isinstance(r, EditMessageText))


async def exported(chat: ChatDriver) -> tuple[str, dict[str, Any]]:
    """/export: the protocol file's text and the event log."""
    answer = await chat.send(DMITRY, "/export")
    documents = [r.document for r in answer if isinstance(r, SendDocument)]
    assert len(documents) == 2, texts(answer)
    protocol, log = documents
    assert isinstance(protocol, BufferedInputFile) and isinstance(log, BufferedInputFile)
    assert protocol.filename == "game-1.pref" and log.filename == "game-1-events.json"
    return protocol.data.decode(), json.loads(log.data)


async def assert_export_replays(chat: ChatDriver, game: Core) -> str:
    """The exported protocol replays offline to exactly the balances the bot holds."""
    protocol_text, _ = await exported(chat)
    protocol = parse_protocol(protocol_text)
    game_ = protocol.game()
    sheet = replay(game_, [record for _, record in protocol.records])
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.settlement is not None
    assert settle(game_.rules, sheet.totals, game_.stake).balances == snap.settlement.balances
    return protocol_text


async def test_a_dispute_inside_the_window_passes_two_to_one(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """corrections.md 4.2.9: any player disputes the latest deal; a majority (2 of 3) passes."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    clock.advance(200)  # past the pencil time: a real correction
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    text = vote_message(opened).text
    assert "Correct #1?" in text and "Boris disputes the record written by Anna" in text
    assert f"Was: <code>{DEAL_1}</code>" in text and f"Now: <code>{DEAL_1_FIXED}</code>" in text
    assert "Anna: mountain +2" in text  # the entries after
    assert "Balances: Anna +" in text and "A majority of the players decides: 2 of 3." in text
    yes, no = buttons(opened)
    assert "counted" in toast(await chat.press(CLARA, no))
    passed = await chat.press(ANNA, yes)
    assert "✅ Agreed." in edited(passed)
    photo = next(r for r in passed if isinstance(r, SendPhoto))
    assert "corrected by vote" in (photo.caption or "") and DEAL_1_FIXED in (photo.caption or "")
    history = await chat.say(DMITRY, "/history")
    assert "Boris disputes <b>#1</b>" in history
    assert "✅ Vote" in history and "passed" in history
    assert "✅ Boris, ❌ Clara, ✅ Anna" in history
    assert f"<code>{DEAL_1_FIXED}</code>" in history
    protocol = await assert_export_replays(chat, game)
    assert DEAL_1_FIXED in protocol and "# vote" in protocol and DEAL_1 in protocol


async def test_a_dispute_rejected_one_to_two_changes_nothing(chat: ChatDriver, game: Core) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    before = (await looks.snapshot(game, chat.chat_id)).settlement
    opened = await chat.send(BORIS, f"/dispute #1 {DEAL_1_FIXED}")
    _, no = buttons(opened)
    await chat.press(ANNA, no)
    rejected = await chat.press(CLARA, no)
    assert "❌ Rejected." in edited(rejected)
    assert not any(isinstance(r, SendPhoto) for r in rejected)
    assert (await looks.snapshot(game, chat.chat_id)).settlement == before
    assert "rejected" in await chat.say(DMITRY, "/history")
    await assert_export_replays(chat, game)


async def test_after_the_window_only_the_writer_proposes_and_all_must_agree(
    chat: ChatDriver, clock: FakeClock, store: SqliteStore
) -> None:
    """corrections.md 4.2.9: once the next deal is dispute_grace_seconds old, the record may be
    corrected only by its writer's good will, with every player's consent."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    await chat.send(BORIS, f"/deal {DEAL_2}")
    clock.advance(301)
    events = await count_events(store)
    refused = await chat.say(CLARA, f"/dispute 1 {DEAL_1_FIXED}")
    assert "only the record's writer (Anna)" in refused and "300 s" in refused
    assert await count_events(store) == events
    opened = await chat.send(ANNA, f"/dispute 1 {DEAL_1_FIXED}")
    assert "Every player must agree" in vote_message(opened).text
    yes, no = buttons(opened)
    assert "Agreed" not in edited(await chat.press(BORIS, yes))  # 2 of 3 is not enough
    assert "❌ Rejected." in edited(await chat.press(CLARA, no))


async def test_a_dispute_needs_a_deal_that_exists_and_a_change(chat: ChatDriver) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    assert "Which deal?" in await chat.say(BORIS, f"/dispute 7 {DEAL_1_FIXED}")
    assert "Which deal?" in await chat.say(BORIS, "/dispute")
    assert "nothing to correct" in await chat.say(BORIS, f"/dispute 1 {DEAL_1}")
    assert "Only the game's players" in await chat.say(DMITRY, f"/dispute 1 {DEAL_1_FIXED}")
    await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    assert "already open" in await chat.say(CLARA, "/dispute 1 Anna 6♠ -2 vist:Boris pass:Clara")
    assert "already open" in await chat.say(ANNA, "/undo")  # no pencil fix under a vote
    assert "still open" in await chat.say(ANNA, "/endgame")


async def test_a_late_deal_is_vetoed_by_one_player(chat: ChatDriver, game: Core) -> None:
    """corrections.md 4.2.10: every partner must agree to remember a forgotten deal."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    await chat.send(BORIS, f"/deal {DEAL_2}")
    opened = await chat.send(CLARA, f"/deal {FORGOTTEN} late")
    text = vote_message(opened).text
    assert "Insert a forgotten deal as #2?" in text and "Every player must agree" in text
    yes, no = buttons(opened)
    await chat.press(ANNA, yes)
    assert "❌ Rejected." in edited(await chat.press(BORIS, no))
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.sheet.deals == 2


async def test_a_late_deal_every_player_agrees_to_goes_before_the_latest(
    chat: ChatDriver, game: Core
) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    await chat.send(BORIS, f"/deal {DEAL_2}")
    opened = await chat.send(CLARA, f"/deal late {FORGOTTEN}")
    yes, _ = buttons(opened)
    await chat.press(ANNA, yes)
    passed = await chat.press(BORIS, yes)
    photo = next(r for r in passed if isinstance(r, SendPhoto))
    assert "#2" in (photo.caption or "") and "forgotten deal inserted" in (photo.caption or "")
    history = await chat.say(DMITRY, "/history")
    assert f"<b>#2</b> <code>{FORGOTTEN}</code>" in history
    assert f"<b>#3</b> <code>{DEAL_2}</code>" in history
    protocol = await assert_export_replays(chat, game)
    lines = [line for line in protocol.splitlines() if not line.startswith("#")]
    assert lines == [DEAL_1, FORGOTTEN, DEAL_2]


async def test_a_late_deal_needs_a_young_latest_deal(chat: ChatDriver, clock: FakeClock) -> None:
    await open_game(chat)
    assert "no deal to insert" in await chat.say(ANNA, f"/deal {FORGOTTEN} late")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    clock.advance(300)
    assert "can no longer be inserted" in await chat.say(ANNA, f"/deal {FORGOTTEN} late")


async def test_a_second_correction_of_the_same_writer_draws_the_mirror_penalty(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """Кодекс 4.2.7 (corrections.md): the first corrected error is a warning; the second, which
    over-wrote whists on a partner, lets the partner write as many on the writer."""
    await chat.send(ANNA, "/newgame russian pool 10")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")
    await chat.send(ANNA, "/deal Boris 6♠ -1 vist:Anna pass:Clara")  # Boris made it
    clock.advance(200)
    first = await chat.send(BORIS, "/dispute 1 Boris 6♠ = vist:Anna pass:Clara")
    # the vote shows what it will bring before anyone votes (corrections.md 4.2.7)
    assert "If it passes: Anna's first corrected error, a warning" in texts(first)
    passed = await chat.press(CLARA, buttons(first)[0])
    caption = texts(passed)
    assert "Anna's first corrected error: a warning, no penalty" in caption
    await chat.send(ANNA, "/deal Clara 7♦ -1 vist:Anna pass:Boris")  # Clara made it
    clock.advance(200)
    second = await chat.send(CLARA, "/dispute 2 Clara 7♦ = vist:Anna pass:Boris")
    shown = texts(second)
    assert "If it passes, a record penalty on Anna" in shown
    assert "Clara → Anna: 8 whists" in shown.split("record penalty on Anna")[1]
    passed = await chat.press(BORIS, buttons(second)[0])
    caption = texts(passed)
    assert "Record penalty on Anna" in caption
    # Anna over-wrote 8 whists on Clara (4 for the trick, 4 of consolation); Clara writes 8 on her.
    assert "Clara → Anna: 8 whists" in caption
    history = await chat.say(DMITRY, "/history")
    assert "Record penalty: <code>adjust Clara whists:Anna +8" in history
    assert "first corrected error" in history
    protocol = await assert_export_replays(chat, game)
    assert "adjust Clara whists:Anna +8" in protocol


async def test_corrections_4_2_8_a_dispute_within_the_pencil_time_is_a_warning_then_a_penalty(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """corrections.md 4.2.8: "A `/dispute` by anyone is never under the pencil rule, however soon
    it follows the record: its correction is a warning or a penalty by 4.2.7." Under `russian`
    Anna over-records twice and is caught within two minutes each time: a warning, then the
    penalty."""
    await chat.send(ANNA, "/newgame russian pool 10")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")
    await chat.send(ANNA, "/deal Boris 6♠ -1 vist:Anna pass:Clara")  # Boris made it
    clock.advance(30)
    first = await chat.send(BORIS, "/dispute 1 Boris 6♠ = vist:Anna pass:Clara")
    assert "If it passes: Anna's first corrected error, a warning" in texts(first)
    assert "Anna's first corrected error: a warning" in texts(
        await chat.press(CLARA, buttons(first)[0])
    )
    await chat.send(ANNA, "/deal Clara 7♦ -1 vist:Anna pass:Boris")  # Clara made it
    clock.advance(30)
    second = await chat.send(CLARA, "/dispute 2 Clara 7♦ = vist:Anna pass:Boris")
    assert "If it passes, a record penalty on Anna" in texts(second)
    caption = texts(await chat.press(BORIS, buttons(second)[0]))
    # Anna over-wrote 8 whists on Clara (p = 4 for the trick, 4 of consolation): Clara writes 8.
    assert "Record penalty on Anna" in caption and "Clara → Anna: 8 whists" in caption
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert corrections_count(state, ANNA.id) == 2
    protocol = await assert_export_replays(chat, game)
    assert "adjust Clara whists:Anna +8" in protocol


async def test_a_vote_times_out_as_rejected_and_its_message_says_so(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """Votes and deadlines are events: the background task closes a timed-out vote."""
    await open_game(chat, "sochi pool 10 vote_seconds=60")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    assert await close_expired_votes(game, "en") == 0
    clock.advance(61)
    before = len(chat.bot.requests)
    assert await close_expired_votes(game, "en") == 1
    redrawn = edited(chat.bot.requests[before:])
    assert "Time is up: rejected" in redrawn
    yes, _ = buttons(opened)
    assert "already closed" in toast(await chat.press(ANNA, yes))


async def test_a_restart_keeps_an_open_vote_and_closes_it_when_its_time_is_over(
    chat: ChatDriver, settings: Settings, store: SqliteStore, clock: FakeClock
) -> None:
    """A new service on the same database (a restart) finds the open vote in the log."""
    await open_game(chat, "sochi pool 10 vote_seconds=60")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    restarted: Dispatcher = build_dispatcher(settings, store, clock)
    again = ChatDriver(restarted, chat.bot)
    service = restarted["core"]
    assert await votes.watch_open_votes(service) == 1
    _, no = buttons(opened)
    assert "counted" in toast(await again.press(ANNA, no))  # the vote was not lost
    clock.advance(61)
    assert await close_expired_votes(service, "en") == 1
    assert "already closed" in toast(await again.press(CLARA, no))


async def test_a_tied_vote_goes_to_the_arbiter_whose_decision_is_final(
    chat: ChatDriver, game: Core, store: SqliteStore
) -> None:
    """corrections.md "A vote": with 4 players 2:2 is a tie; the arbiter (not a player) decides."""
    await chat.send(ANNA, "/newgame sochi pool 10 players=4 arbiter=@eva_arbiter")
    for user in (ANNA, BORIS, CLARA, DMITRY):
        await chat.send(user, "/join")
    await chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Dmitry")
    opened = await chat.send(BORIS, "/dispute 1 Boris 6♠ -1 vist:Clara pass:Dmitry")
    assert "3 of 4" in vote_message(opened).text
    yes, no = buttons(opened)
    assert "only a tied or timed-out" in toast(await chat.press(EVA_ARBITER, yes))
    await chat.press(CLARA, yes)
    await chat.press(ANNA, no)
    tied = await chat.press(DMITRY, no)
    assert "arbiter decides" in toast(tied) and "Tied: the arbiter @eva_arbiter" in edited(tied)
    events = await count_events(store)
    assert "arbiter's to decide" in toast(await chat.press(ANNA, yes))
    assert await count_events(store) == events
    decided = await chat.press(EVA_ARBITER, yes)
    assert "The arbiter" in edited(decided) and "accepted" in edited(decided)
    assert any(isinstance(r, SendPhoto) for r in decided)
    assert "already closed" in toast(await chat.press(EVA_ARBITER, no))
    history = await chat.say(DMITRY, "/history")
    assert "is tied: it goes to the arbiter" in history and "by the arbiter" in history
    await assert_export_replays(chat, game)


async def test_a_timed_out_vote_goes_to_the_arbiter(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    await open_game(chat, "sochi pool 10 vote_seconds=60")
    assert "no arbiter" in await chat.say(DMITRY, "/arbiter")
    named = await chat.send(ANNA, "/arbiter @eva_arbiter")  # a vote: every player agrees
    yes, _ = buttons(named)
    await chat.press(BORIS, yes)
    await chat.press(CLARA, yes)
    assert "Arbiter: @eva_arbiter" in await chat.say(DMITRY, "/arbiter")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    clock.advance(61)
    before = len(chat.bot.requests)
    await close_expired_votes(game, "en")
    assert "Time is up: the arbiter" in edited(chat.bot.requests[before:])
    _, no = buttons(opened)
    rejected = await chat.press(EVA_ARBITER, no)
    assert "rejected it" in edited(rejected)


async def test_the_arbiter_cannot_play(chat: ChatDriver) -> None:
    refused = await chat.say(ANNA, "/newgame sochi arbiter=@anna_p @anna_p @boris_p Clara")
    assert "cannot be a player" in refused
    await chat.send(ANNA, "/newgame sochi arbiter=@eva_arbiter")
    assert "cannot be a player" in await chat.say(EVA_ARBITER, "/join")
    assert "an @username" in await chat.say(ANNA, "/arbiter Eva")


async def test_the_export_carries_the_protocol_and_every_event(chat: ChatDriver) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    await chat.send(ANNA, f"/edit {DEAL_1_FIXED}")  # the pencil rule
    protocol, log = await exported(chat)
    assert protocol.startswith("# convention: sochi\n# players: Anna Boris Clara\n")
    assert "edited by Anna under the pencil rule" in protocol
    kinds = [event["kind"] for event in log["events"]]
    assert kinds[-2:] == [Kind.DEAL.value, Kind.DEAL_EDITED.value]
    assert log["game"] == 1 and log["events"][-1]["payload"]["old"] == DEAL_1


async def test_the_sheet_marks_the_corrected_values(chat: ChatDriver, game: Core) -> None:
    """corrections.md "Audit": the picture shows a corrected value the paper way."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    await chat.press(CLARA, buttons(opened)[0])
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None
    values = looks.corrected_values(game, snap.state, snap.sheet)
    # Boris's whists on Anna: 8 written by mistake (4 tricks), 12 after the correction (5 tricks
    # and the consolation); the sheet has 12 there, the picture «8.12¹».
    shown = {(band.player, band.column.value, band.target): v for (band, _), v in values.items()}
    assert shown[(1, "whists", 0)] == (Fraction(8), 1)
    assert snap.sheet.totals.whists[1][0] == 12
    assert snap.settlement is not None
    marked = await render_png(snap.sheet, "en", snap.settlement, game, snap.state)
    plain = await render_png(snap.sheet, "en", snap.settlement)
    assert marked is not None and plain is not None and marked != plain
    assert balances(await chat.say(DMITRY, "/score"))["Anna"].startswith("−")


async def test_the_corrected_values_stay_as_a_fresh_reading_gives_them_as_the_game_goes_on(
    chat: ChatDriver, game: Core
) -> None:
    """The corrected values are worked out once per correction (not on every picture): later
    deals, an undo and a second correction still give what a reading of the whole game gives."""
    from bot.core import archive

    def fresh(snap: Snapshot) -> object:
        assert snap.sheet is not None
        return archive.corrected_values(snap.state, snap.sheet)  # nothing known: worked out

    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    await chat.press(CLARA, buttons(opened)[0])
    lines = ("Boris 6♠ = vist:Clara pass:Anna", "Clara 6♣ = vist:Anna pass:Boris")
    for n, line in enumerate(lines * 2):
        await chat.send((BORIS, CLARA)[n % 2], f"/deal {line}")
        snap = await looks.snapshot(game, chat.chat_id)
        assert snap.sheet is not None
        kept = looks.corrected_values(game, snap.state, snap.sheet)
        assert kept and kept == fresh(snap)
    await chat.send(CLARA, "/undo")
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None
    assert looks.corrected_values(game, snap.state, snap.sheet) == fresh(snap)


async def test_a_pool_value_corrected_away_is_still_marked(chat: ChatDriver, game: Core) -> None:
    """Issue 13: 6♠ made wrote Anna's pool 2; corrected to one down it writes no pool at all (a
    mountain instead): the 2 stays on the picture, grey, numbered, never silently dropped."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    await chat.press(CLARA, buttons(opened)[0])
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None
    values = looks.corrected_values(game, snap.state, snap.sheet)
    shown = {(band.player, band.column.value): v for (band, _), v in values.items()}
    assert shown[(0, "pool")] == (Fraction(2), 1)
    assert snap.sheet.totals.pool[0] == 0 and snap.sheet.totals.mountain[0] > 0
    pool = [b for b in snap.sheet.history if b.player == 0 and b.column.value == "pool"]
    assert all(at != 0 for b in pool for at, _ in snap.sheet.history[b])


async def test_help_and_menu_name_the_new_commands(chat: ChatDriver) -> None:
    await chat.send(EVA, "/help")
    home = chat.bot.session.message_ids[chat.chat_id]
    answer = texts(await chat.press(EVA, HelpCb(topic=Topic.CORRECTIONS), home))
    answer += texts(await chat.press(EVA, HelpCb(topic=Topic.SETTLEMENT), home))
    assert "/dispute" in answer and "/arbiter" in answer and "/export" in answer
    names = [command for command, _ in menu_commands(translator("en"), private=False)]
    assert {"dispute", "arbiter", "export"} <= set(names)


async def test_an_early_end_that_times_out_goes_to_the_arbiter(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    """Every vote, /endgame's too: time up with an arbiter named, he decides."""
    await open_game(chat, "sochi pool 10 vote_seconds=60 arbiter=@eva_arbiter")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    yes, _ = buttons(await chat.send(ANNA, "/endgame"))
    await chat.press(BORIS, yes)
    clock.advance(61)
    assert "arbiter decides" in toast(await chat.press(CLARA, yes))
    ended = await chat.press(EVA_ARBITER, yes)
    assert "the arbiter decided" in texts(ended)
    assert "the arbiter decided" in await chat.say(DMITRY, "/history")


async def test_a_passed_correction_of_a_record_changed_meanwhile_changes_nothing(
    chat: ChatDriver, game: Core, store: SqliteStore, clock: FakeClock
) -> None:
    """corrections.md "A vote": a vote that passes on a record another instance has changed in the
    meantime closes as a conflict — the record stays as it now is, and the chat is told so."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    clock.advance(200)
    opened = await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    yes, _ = buttons(opened)
    meanwhile = "Anna 6♠ -2 vist:Boris pass:Clara"
    async with store.transaction() as repo:  # as another instance's passed correction wrote it
        row = await repo.live_game(chat.chat_id)
        assert row is not None
        (deal,) = [e for e in await repo.events(row.game_id) if e.kind == Kind.DEAL]
        payload = {"target": deal.seq, "line": meanwhile, "old": DEAL_1}
        await repo.append(row.game_id, Kind.DEAL_EDITED, payload, ANNA.id, clock())
    passed = await chat.press(ANNA, yes)  # the second of three: a majority
    assert "the record has changed meanwhile: nothing was changed" in edited(passed)
    assert not any(isinstance(r, SendPhoto) for r in passed)
    snap = await looks.snapshot(game, chat.chat_id)
    (record,) = snap.sheet.records
    assert record.record == parse_record(meanwhile, Table(("Anna", "Boris", "Clara")))
    assert "changed meanwhile" in await chat.say(DMITRY, "/history")
