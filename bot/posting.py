"""Putting a game's sheet into the chat: the picture (rendered in a worker thread) with the reply as
its caption, or the text sheet when no picture can be drawn.

One live sheet message per game is remembered; an undo or an edit redraws that photo in place when it
is still near the bottom of the chat, so a correction does not add another picture. Values corrected
by a vote are drawn the paper way (the wrong value, a dot, the right one).

Votes too: `show_vote` posts a vote's message (and remembers it in the log) or redraws it, then
shows what a passed vote did; `close_expired_votes` is what the background task runs.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final, Protocol

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.types import BufferedInputFile, InputMediaPhoto

from bot.i18n import Safe, Translator, translator
from bot.keyboards import vote_keyboard
from bot.service import GameService, GameState
from bot.service.results import VoteState
from bot.views import applied_text, chunks, ended_text, plain_text, sheet_text, vote_text
from scoring.settle import Settlement
from scoring.sheet import Sheet

try:
    from bot.render import Correction, render_sheet_png
except ImportError:  # the picture is optional: the text sheet stands in
    render_sheet_png = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

CAPTION_LIMIT: Final = 1024
NEAR: Final = 4  # a sheet message at most this many messages up may be redrawn in place


async def render_png(
    sheet: Sheet,
    lang: str,
    settlement: Settlement,
    game: GameService | None = None,
    state: GameState | None = None,
) -> bytes | None:
    """The sheet's PNG, or None; with `game` and `state`, values corrected by a vote are drawn
    as paper shows them."""
    if render_sheet_png is None:
        return None
    try:
        corrections = None
        if game is not None and state is not None:
            values = game.corrected_values(state, sheet)
            corrections = {key: Correction(wrong, n) for key, (wrong, n) in values.items()}
        return await asyncio.to_thread(
            render_sheet_png, sheet, lang, settlement=settlement, corrections=corrections
        )
    except Exception:
        log.exception("the sheet could not be drawn; sending it as text")
        return None


async def post_sheet(
    bot: Bot,
    game: GameService,
    t: Translator,
    chat_id: int,
    state: GameState,
    sheet: Sheet,
    settlement: Settlement,
    caption: Safe,
    *,
    redraw_near: int | None = None,
) -> None:
    """Send the sheet with `caption`; with `redraw_near` (the command's message id), redraw the
    game's live sheet photo instead when it is at most NEAR messages up, and send the caption as a
    text under the command so the chat still sees the answer."""
    png = await render_png(sheet, t.lang, settlement, game, state)
    if png is None:
        text = Safe(f"{caption}\n\n{sheet_text(t, state, sheet, settlement)}")
        for part in chunks(text.split("\n")):
            await bot.send_message(chat_id, part)
        return
    photo = BufferedInputFile(png, filename=f"sheet-{state.game_id}.png")
    if len(plain_text(caption)) > CAPTION_LIMIT:
        for part in chunks(caption.split("\n")):
            await bot.send_message(chat_id, part)
        caption = Safe(t("sheet-title", game=state.game_id, deals=sheet.deals))
    if redraw_near is not None:
        live = await game.sheet_message(state.game_id)
        if live is not None and 0 < redraw_near - live <= NEAR:
            try:
                await bot.edit_message_media(
                    media=InputMediaPhoto(media=photo, caption=caption),
                    chat_id=chat_id,
                    message_id=live,
                )
                await bot.send_message(chat_id, caption)
                return
            except TelegramAPIError as error:
                log.info("the sheet message could not be redrawn (%s); sending a new one", error)
    sent = await bot.send_photo(chat_id, photo, caption=caption)
    await game.set_sheet_message(state.game_id, sent.message_id)


class Sheeted(Protocol):
    """A command's result that carries the game and its sheet (Recorded, Undone, Edited)."""

    @property
    def state(self) -> GameState: ...
    @property
    def sheet(self) -> Sheet: ...
    @property
    def settlement(self) -> Settlement: ...


async def post_result(
    bot: Bot,
    game: GameService,
    t: Translator,
    chat_id: int,
    result: Sheeted,
    caption: Safe,
    *,
    redraw_near: int | None = None,
) -> None:
    """`post_sheet` for a command's result."""
    await post_sheet(
        bot,
        game,
        t,
        chat_id,
        result.state,
        result.sheet,
        result.settlement,
        caption,
        redraw_near=redraw_near,
    )


async def show_vote(
    bot: Bot,
    game: GameService,
    t: Translator,
    result: VoteState,
    *,
    message_id: int | None = None,
) -> None:
    """Redraw a vote's message (`message_id`, else the one the log remembers) or post it anew and
    remember it; then show what a passed vote did: the sheet after a record changed, or the end."""
    state, vote = result.state, result.vote
    chat_id = result.chat_id or state.chat_id
    text = vote_text(t, result)
    markup = vote_keyboard(t, state.game_id, vote.seq) if result.passed is None else None
    target = message_id if message_id is not None else vote.message_id
    shown = False
    if target is not None:
        try:
            await bot.edit_message_text(
                text=text, chat_id=chat_id, message_id=target, reply_markup=markup
            )
            shown = True
        except TelegramBadRequest as error:
            shown = "not modified" in str(error)
            if not shown:
                log.info("vote %s: its message could not be edited (%s)", vote.seq, error)
    if not shown:
        sent = await bot.send_message(chat_id, text, reply_markup=markup)
        await game.vote_posted(chat_id, state.game_id, vote.seq, sent.message_id)
    applied = result.applied
    if applied is not None:
        caption = applied_text(t, state, applied)
        await post_sheet(bot, game, t, chat_id, state, applied.sheet, applied.settlement, caption)
    if result.ended is not None:
        for part in chunks(ended_text(t, result.ended).split("\n")):
            await bot.send_message(chat_id, part)


async def close_expired_votes(bot: Bot, game: GameService, default_locale: str) -> int:
    """Close (or refer to the arbiter) the votes whose time is over and redraw their messages;
    how many. Run by the background task, and once at start-up."""
    results = await game.expire_votes()
    for result in results:
        chat_id = result.chat_id or result.state.chat_id
        t = translator(await game.locale(chat_id) or default_locale)
        try:
            await show_vote(bot, game, t, result)
        except TelegramAPIError as error:
            log.warning("vote %s in chat %s: not shown (%s)", result.vote.seq, chat_id, error)
    return len(results)
