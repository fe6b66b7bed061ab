"""How one update is answered: `Reply`, made per update by the middleware, sends texts into the
chat, sends or redraws the game's sheet, and posts or redraws a vote — handlers parse, call the
service, and hand the result to their `reply`.

The sheet is a picture (rendered in a worker thread) with the reply as its caption, or the text
sheet when no picture can be drawn. One live sheet message per game is remembered; an undo or an
edit redraws that photo in place when it is still near the bottom of the chat, so a correction does
not add another picture. Values corrected by a vote are drawn the paper way (the wrong value, a
dot, the right one).

`close_expired_votes` is what the background task runs.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from typing import Final, Protocol

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, InputMediaPhoto

from bot.core import GameService, GameState
from bot.core.results import VoteState
from bot.texts.i18n import Safe, Translator, translator
from bot.texts.views import applied_text, chunks, ended_text, plain_text, sheet_text, vote_text
from bot.tg.keyboards import vote_keyboard
from scoring.settle import Settlement
from scoring.sheet import Sheet

try:
    from bot.sheet import Correction, render_sheet_png
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


class Sheeted(Protocol):
    """A command's result that carries the game and its sheet (Recorded, Undone, Edited)."""

    @property
    def state(self) -> GameState: ...
    @property
    def sheet(self) -> Sheet: ...
    @property
    def settlement(self) -> Settlement: ...


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one update: its chat, its language, and the command's message (`message_id`,
    None for a button or the vote clock), near which an undo or an edit redraws the sheet."""

    bot: Bot
    game: GameService
    t: Translator
    chat_id: int
    message_id: int | None = None

    async def text(self, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
        """`text` into the chat, split into messages Telegram accepts (the markup on the last)."""
        parts = chunks(text.split("\n"))
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            await self.bot.send_message(self.chat_id, part, reply_markup=markup if last else None)

    async def sheet(self, result: Sheeted, caption: Safe, *, redraw: bool = False) -> None:
        """A command's result: its sheet with `caption` (see `sheet_of`)."""
        await self.sheet_of(result.state, result.sheet, result.settlement, caption, redraw=redraw)

    async def sheet_of(
        self,
        state: GameState,
        sheet: Sheet,
        settlement: Settlement,
        caption: Safe,
        *,
        redraw: bool = False,
    ) -> None:
        """Send the sheet with `caption`; with `redraw`, redraw the game's live sheet photo instead
        when it is at most NEAR messages above the command, and send the caption as a text under
        the command so the chat still sees the answer."""
        bot, t, chat_id = self.bot, self.t, self.chat_id
        png = await render_png(sheet, t.lang, settlement, self.game, state)
        if png is None:
            await self.text(Safe(f"{caption}\n\n{sheet_text(t, state, sheet, settlement)}"))
            return
        photo = BufferedInputFile(png, filename=f"sheet-{state.game_id}.png")
        if len(plain_text(caption)) > CAPTION_LIMIT:
            await self.text(caption)
            caption = Safe(t("sheet-title", game=state.number, deals=sheet.deals))
        if redraw and self.message_id is not None:
            live = await self.game.sheet_message(state.game_id)
            if live is not None and 0 < self.message_id - live <= NEAR:
                try:
                    await bot.edit_message_media(
                        media=InputMediaPhoto(media=photo, caption=caption),
                        chat_id=chat_id,
                        message_id=live,
                    )
                    await bot.send_message(chat_id, caption)
                    return
                except TelegramAPIError as error:
                    log.info("the sheet could not be redrawn (%s); sending a new one", error)
        sent = await bot.send_photo(chat_id, photo, caption=caption)
        await self.game.set_sheet_message(state.game_id, sent.message_id)

    async def vote(self, result: VoteState, *, message_id: int | None = None) -> None:
        """Redraw a vote's message (`message_id`, else the one the log remembers) or post it anew
        and remember it, in the vote's own chat; then show what a passed vote did: the sheet after
        a record changed, or the end."""
        here = replace(self, chat_id=result.chat_id or result.state.chat_id)
        await here._vote(result, message_id)

    async def _vote(self, result: VoteState, message_id: int | None) -> None:
        state, vote, t = result.state, result.vote, self.t
        text = vote_text(t, result)
        markup = vote_keyboard(t, state.game_id, vote.seq) if result.passed is None else None
        target = message_id if message_id is not None else vote.message_id
        shown = False
        if target is not None:
            try:
                await self.bot.edit_message_text(
                    text=text, chat_id=self.chat_id, message_id=target, reply_markup=markup
                )
                shown = True
            except TelegramBadRequest as error:
                shown = "not modified" in str(error)
                if not shown:
                    log.info("vote %s: its message could not be edited (%s)", vote.seq, error)
        if not shown:
            sent = await self.bot.send_message(self.chat_id, text, reply_markup=markup)
            await self.game.vote_posted(self.chat_id, state.game_id, vote.seq, sent.message_id)
        applied = result.applied
        if applied is not None:
            caption = applied_text(t, state, applied)
            await self.sheet_of(state, applied.sheet, applied.settlement, caption)
        if result.ended is not None:
            await self.text(ended_text(t, result.ended))

    async def document(self, data: bytes, filename: str, caption: str) -> None:
        await self.bot.send_document(
            self.chat_id, BufferedInputFile(data, filename=filename), caption=caption
        )


async def close_expired_votes(bot: Bot, game: GameService, default_locale: str) -> int:
    """Close (or refer to the arbiter) the votes whose time is over and redraw their messages;
    how many. Run by the background task, and once at start-up."""
    results = await game.expire_votes()
    for result in results:
        chat_id = result.chat_id or result.state.chat_id
        t = translator(await game.locale(chat_id) or default_locale)
        try:
            await Reply(bot, game, t, chat_id).vote(result)
        except TelegramAPIError as error:
            log.warning("vote %s in chat %s: not shown (%s)", result.vote.seq, chat_id, error)
    return len(results)
