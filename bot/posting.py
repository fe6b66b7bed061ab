"""Putting a game's sheet into the chat: the picture (rendered in a worker thread) with the reply as
its caption, or the text sheet when no picture can be drawn.

One live sheet message per game is remembered; an undo or an edit redraws that photo in place when it
is still near the bottom of the chat, so a correction does not add another picture.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import BufferedInputFile, InputMediaPhoto

from bot.i18n import Safe, Translator
from bot.service import GameService, GameState
from bot.views import chunks, plain_text, sheet_text
from scoring.settle import Settlement
from scoring.sheet import Sheet

try:
    from bot.render import render_sheet_png
except ImportError:  # the picture is optional: the text sheet stands in
    render_sheet_png = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

CAPTION_LIMIT: Final = 1024
NEAR: Final = 4  # a sheet message at most this many messages up may be redrawn in place


async def render_png(sheet: Sheet, lang: str, settlement: Settlement) -> bytes | None:
    if render_sheet_png is None:
        return None
    try:
        return await asyncio.to_thread(render_sheet_png, sheet, lang, settlement=settlement)
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
    png = await render_png(sheet, t.lang, settlement)
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
