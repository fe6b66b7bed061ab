"""Issue 12: pictures drawn in the painter's processes are the pictures drawn here, byte for
byte, whatever the painter is sent: only the new totals of a game it drew before, the whole history
after an undo, a restart or a stale base, two games on one child or on two."""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from fractions import Fraction

import pytest

from bench.sheets import NAMES, random_records
from bot.sheet import Correction, render_full_png
from bot.sheet.drawn import drawn
from bot.sheet.painter import PIPE, Painter, PainterGone, changes
from bot.telegram.outbound.outbox import render_png
from scoring.deal import Column, Record
from scoring.replay import Replay
from scoring.rules import rules_for
from scoring.settle import settle
from scoring.sheet import Band, Game, Sheet
from tests.render.factories import picture


def game_of(players: int) -> Game:
    return Game(rules_for("sochi", players, {"pool_target": "300"}), NAMES[:players], 0)


def played(players: int, seed: int) -> tuple[Replay, list[Record]]:
    """A fresh replay of a game and the records it will take."""
    return Replay(game_of(players)), random_records(players, 40, seed=seed)


@pytest.fixture
async def painter() -> AsyncIterator[Painter]:
    painting = Painter(1)
    yield painting
    await painting.close()


def first_child(painter: Painter) -> asyncio.subprocess.Process:
    """The process running in the painter's first place (it has drawn a picture)."""
    run = painter._children[0].run
    assert run is not None
    return run.process


async def same_as_here(painter: Painter, sheet: Sheet, game: object, **kw: object) -> None:
    corrections = kw.get("corrections")
    png = await painter.png(drawn(sheet), "ru", corrections, game)  # type: ignore[arg-type]
    assert picture(png) == picture(render_full_png(sheet, "ru", corrections=corrections))  # type: ignore[arg-type]


def test_a_replay_extending_a_band_sends_only_its_new_totals() -> None:
    game = game_of(3)
    replay = Replay(game)
    stock = random_records(3, 20, seed=4)
    before = replay.advance(stock[:10])
    after = replay.advance(stock[10:12])
    sent = changes(before.history, after.history)
    for band, (kept, added) in sent.items():
        assert kept == len(before.history.get(band, ()))
        assert before.history.get(band, ()) + added == after.history[band]
    assert sum(len(added) for _, added in sent.values()) <= 2 * 6  # not the whole history
    # A different sheet of the same length shares nothing: each band goes whole.
    other = Replay(game).advance(stock[:12])
    assert all(kept == 0 for kept, _ in changes(before.history, other.history).values())


async def test_a_game_played_deal_by_deal_with_undos_is_drawn_as_here(painter: Painter) -> None:
    replay, stock = played(3, seed=11)
    sheet = replay.advance(stock[:5])
    await same_as_here(painter, sheet, 7)
    for n in range(5, 14):
        sheet = replay.advance(stock[n : n + 1])  # extends the bands' tuples: deltas
        await same_as_here(painter, sheet, 7)
    # An undo: a sheet sharing nothing with the last.
    back = played(3, seed=11)[0].advance(stock[:9])
    await same_as_here(painter, back, 7)
    band = Band(0, Column.POOL)
    if back.history.get(band):
        at = back.history[band][-1][0]
        fixed = {(band, at): Correction(Fraction(3), 1)}
        await same_as_here(painter, back, 7, corrections=fixed)
    assert painter.started == 1


async def test_games_on_two_children_at_once_are_each_drawn_as_here() -> None:
    painter = Painter(2)
    try:
        games = {game_id: game_of(3 + game_id % 2) for game_id in range(4)}
        replays = {game_id: Replay(game) for game_id, game in games.items()}
        stocks = {g: random_records(games[g].size, 30, seed=g) for g in games}
        for n in range(0, 12, 3):
            sheets = {g: replays[g].advance(stocks[g][n : n + 3]) for g in games}
            pngs = await asyncio.gather(
                *(painter.png(drawn(s), "en", None, g) for g, s in sheets.items())
            )
            for png, sheet in zip(pngs, sheets.values(), strict=True):
                assert picture(png) == picture(render_full_png(sheet, "en"))
        assert painter.started == 2
    finally:
        await painter.close()


async def test_a_killed_child_is_started_again_and_sent_the_whole_history(
    painter: Painter,
) -> None:
    replay, stock = played(4, seed=2)
    await same_as_here(painter, replay.advance(stock[:8]), 1)
    process = first_child(painter)
    process.kill()
    await process.wait()  # dead before its reader noticed
    await same_as_here(painter, replay.advance(stock[8:10]), 1)
    assert painter.started == 2


async def test_a_stale_base_is_answered_by_sending_the_game_whole(painter: Painter) -> None:
    replay, stock = played(3, seed=9)
    await same_as_here(painter, replay.advance(stock[:6]), "g")
    child = painter._children[0]
    token, history = child.sent["g"]
    child.sent["g"] = (token + 1000, history)  # a base the child never had
    await same_as_here(painter, replay.advance(stock[6:8]), "g")
    assert painter.started == 1


async def test_a_job_in_flight_when_its_child_dies_fails_and_the_next_is_drawn(
    painter: Painter,
) -> None:
    replay, stock = played(3, seed=3)
    await same_as_here(painter, replay.advance(stock[:4]), 5)
    process = first_child(painter)
    job = asyncio.ensure_future(painter.png(drawn(replay.advance(stock[4:5])), "ru", None, 5))
    await asyncio.sleep(0)  # written to the pipe, not yet answered
    process.kill()
    with pytest.raises(PainterGone):
        await job
    await same_as_here(painter, replay.advance(stock[5:6]), 5)
    assert painter.started == 2


async def test_a_painter_that_cannot_start_leaves_the_picture_to_a_thread(
    painter: Painter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")  # it starts at its first job
    sheet = Replay(game_of(3)).advance(random_records(3, 10, seed=1))
    settlement = settle(sheet.rules, sheet.totals, sheet.game.stake)
    with pytest.raises(PainterGone):
        await painter.png(drawn(sheet), "ru", None, 1)
    png = await render_png(sheet, "ru", settlement, painter=painter)
    assert picture(png) == picture(render_full_png(sheet, "ru", settlement=settlement))


async def test_a_child_keeping_one_picture_draws_two_games_in_turn_exactly() -> None:
    painter = Painter(1, kept=1)  # each picture drawn over the other game's
    try:
        games = {g: played(3 + g % 2, seed=g) for g in (1, 2)}
        for n in range(0, 12, 4):
            for g, (replay, stock) in games.items():
                await same_as_here(painter, replay.advance(stock[n : n + 4]), g)
    finally:
        await painter.close()


@pytest.mark.skipif(sys.platform != "linux", reason="F_GETPIPE_SZ is Linux's")
async def test_a_child_answers_through_a_pipe_that_holds_a_whole_picture(painter: Painter) -> None:
    import fcntl

    replay, stock = played(3, seed=9)
    sheet = replay.advance(stock[:20])
    png = await painter.png(drawn(sheet), "ru", None, "pipe")
    assert picture(png) == picture(render_full_png(sheet, "ru"))
    stdout = first_child(painter).stdout
    assert stdout is not None
    pipe = stdout._transport.get_extra_info("pipe")  # type: ignore[attr-defined]
    assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) >= PIPE > 2 * len(png)


def test_a_child_waiting_for_jobs_drops_the_pictures_gone_idle_on_its_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child's loop (`serve`) with a short tick: a picture drawn, then no job for longer than
    the idle time, and the picture is gone before the next job comes."""
    import os
    import threading
    import time

    import bot.sheet
    from bot.sheet import painter as painting
    from bot.sheet.canvas import Canvas

    monkeypatch.setattr(bot.sheet, "canvas", Canvas(idle=0.2))
    replay, stock = played(3, seed=4)
    shown = drawn(replay.advance(stock[:8]))
    history = painting.changes({}, shown.history)
    job = painting.Job("quiet", None, 1, history, replace(shown, history={}), "en", None)
    jobs_r, jobs_w = os.pipe()
    answers_r, answers_w = os.pipe()
    body = pickle.dumps(job)
    os.write(jobs_w, painting.HEAD.pack(len(body)) + body)
    requests = os.fdopen(jobs_r, "rb", buffering=0)
    answers = os.fdopen(answers_w, "wb")
    child = threading.Thread(target=painting.serve, args=(requests, answers, 0.05), daemon=True)
    child.start()
    reply = os.fdopen(answers_r, "rb")
    (size,) = painting.HEAD.unpack(reply.read(painting.HEAD.size))
    assert pickle.loads(reply.read(size))[0] is True
    assert len(bot.sheet.canvas) == 1
    time.sleep(0.6)  # no job: the timer runs
    assert len(bot.sheet.canvas) == 0
    os.close(jobs_w)  # the parent closes the pipe: the loop ends
    child.join(5)
    assert not child.is_alive()
    for stream in (requests, answers, reply):
        stream.close()
