"""/score, /sheet, /history, /rules, /export: anyone in the chat may look; `/sheet N`,
`/history N` and `/export N` look at any game of the chat by its number, and `/sheet full` (or
`/sheet N full`) sends every total of the sheet as a document."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork, archive
from bot.core.results import Snapshot
from bot.telegram.inbound.archive import owe_export, owe_history
from bot.telegram.outbound.outbox import Reply, render_png
from bot.texts.archive import look_caption
from bot.texts.i18n import Translator
from bot.texts.views import chunks, opened_text, rules_text, score_text

router = Router(name=__name__)
FULL_WORDS = frozenset({"full", "полный", "полностью", "весь"})


def _split_full(args: str) -> tuple[str, bool]:
    """The arguments without the word `full` (anywhere), and whether it was there."""
    words = args.split()
    kept = [w for w in words if w.casefold() not in FULL_WORDS]
    return " ".join(kept), len(kept) != len(words)


async def _look(
    game: GameService, uow: UnitOfWork, caller: Caller, command: str, args: str
) -> Snapshot:
    """The game a look names: `N` after the command, else the chat's live (or last) game."""
    if not args.strip():
        return await game.look(uow, caller)
    number = archive.parse_number(args, f"/{command}")
    return await archive.game_snapshot(game, caller.chat_id, number)


@router.message(Command("score"))
async def score_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False))
        return
    for part in chunks(score_text(t, snap.state, snap.sheet, snap.settlement).split("\n")):
        await reply.text(part)


@router.message(Command("sheet"))
async def sheet_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    args, full = _split_full(command.args or "")
    snap = await _look(game, uow, caller, command.command, args)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False))
        return
    caption = look_caption(t, snap.state, snap.sheet)
    if full:  # every total, as a document
        png = await render_png(snap.sheet, t.lang, snap.settlement, game, snap.state, full=True)
        if png is not None:
            await reply.document(png, f"sheet-{snap.state.number}.png", caption)
            return
    await reply.sheet_of(snap.state, snap.sheet, snap.settlement, caption)


@router.message(Command("history"))
async def history_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    await owe_history(
        reply, t, await _look(game, uow, caller, command.command, command.args or "")
    )


@router.message(Command("rules"))
async def rules_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    for part in chunks(rules_text(t, snap.state).split("\n")):
        await reply.text(part)


@router.message(Command("export"))
async def export_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    args = command.args or ""
    if args.strip():
        snap = await _look(game, uow, caller, command.command, args)
        await owe_export(reply, t, archive.exported(snap.state, game.clock(), reply.zone))
        return
    await owe_export(reply, t, await game.export(caller.chat_id, uow, reply.zone, caller.topic))
