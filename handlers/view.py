"""/score, /sheet, /history, /rules, /export: anyone in the chat may look; `/sheet N`,
`/history N` and `/export N` look at any game of the chat by its number."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameService, archive
from bot.core.results import Snapshot
from bot.texts.archive import look_caption
from bot.texts.i18n import Translator
from bot.texts.views import chunks, opened_text, rules_text, score_text
from bot.tg.archive import owe_export, owe_history
from bot.tg.reply import Reply

router = Router(name=__name__)


async def _look(game: GameService, caller: Caller, command: CommandObject) -> Snapshot:
    """The game a look names: `N` after the command, else the chat's live (or last) game."""
    if not (command.args or "").strip():
        return await game.look(caller)
    number = archive.parse_number(command.args or "", f"/{command.command}")
    return await archive.game_snapshot(game, caller.chat_id, number)


@router.message(Command("score"))
async def score_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, reply: Reply
) -> None:
    snap = await game.look(caller)
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
) -> None:
    snap = await _look(game, caller, command)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False))
        return
    caption = look_caption(t, snap.state, snap.sheet)
    await reply.sheet_of(snap.state, snap.sheet, snap.settlement, caption)


@router.message(Command("history"))
async def history_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
) -> None:
    await owe_history(reply, t, await _look(game, caller, command))


@router.message(Command("rules"))
async def rules_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, reply: Reply
) -> None:
    snap = await game.look(caller)
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
) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    if (command.args or "").strip():
        snap = await _look(game, caller, command)
        await owe_export(reply, t, archive.exported(snap.state, game.clock()))
        return
    await owe_export(reply, t, await game.export(caller.chat_id))
