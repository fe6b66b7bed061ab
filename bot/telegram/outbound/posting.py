"""One attempt at one owed row: its Telegram calls, each paced to Telegram's limits."""

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeVar

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramEntityTooLarge
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, InputMediaPhoto, Message

from bot.core import Core, looks
from bot.domain import Owed, OwedKind, OwedRow
from bot.telegram.outbound.outbox import CAPTION_LIMIT, NEAR, render_png
from bot.telegram.outbound.pacing import Pacing
from bot.texts.i18n import Safe, translator
from bot.texts.score import sheet_text
from bot.texts.views import MESSAGE_LIMIT, chunks, plain_text

log = logging.getLogger(__name__)

REQUEST_TIMEOUT: Final = 20  # seconds; below the sender's lease
T = TypeVar("T")


class StoreFault(Exception):
    """The database failed under an attempt: tried again soon, the attempt not counted."""


class ClaimLost(Exception):
    """Another sender holds the row now (this one's lease ran out)."""


@contextmanager
def store_faults() -> Iterator[None]:
    """A database error in the block raised as `StoreFault` (a lost claim as itself)."""
    try:
        yield
    except ClaimLost:
        raise
    except Exception as error:
        raise StoreFault(f"{type(error).__name__}: {error}") from error


def calls_needed(owed: Owed) -> int:
    """How many calls a row takes at most in the usual case (its chat's bucket must hold them)."""
    if owed.kind is OwedKind.REDRAW:
        return 2
    if owed.kind is OwedKind.SHEET:
        return 1 + (len(plain_text(owed.text)) > CAPTION_LIMIT)
    if owed.kind is OwedKind.TEXT and owed.target is None:
        return max(1, len(_parts(owed.text)))
    return 1


def _parts(text: str) -> list[Safe]:
    return [Safe(text)] if len(text) <= MESSAGE_LIMIT else chunks(text.split("\n"))


@dataclass(frozen=True, slots=True)
class Poster:
    """Makes the Telegram calls of one row, each after its chat's and the bot's token."""

    bot: Bot
    core: Core
    pacing: Pacing
    clock: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]

    async def send(self, row: OwedRow) -> tuple[int | None, int | None]:
        """Telegram's message id, and the new live sheet message (a sheet photo sent)."""
        owed = row.owed
        if owed.kind in (OwedKind.TEXT, OwedKind.VOTE):
            # A text's edit is done even if refused; a vote whose message is gone is posted anew.
            if owed.target is not None and (await self._edit(owed) or owed.kind is OwedKind.TEXT):
                return owed.target, None
            return await self._plain(owed, owed.text), None
        if owed.kind in (OwedKind.DOCUMENT, OwedKind.PHOTO):  # a file the command made
            assert owed.body is not None
            name, document = owed.filename or "picture.png", owed.kind is OwedKind.DOCUMENT
            sent = await self._file(owed, owed.body, name, owed.text, document=document)
            return sent.message_id, None
        return await self._sheet(row)

    async def _file(
        self, owed: Owed, body: bytes, filename: str, caption: str, document: bool = False
    ) -> Message:
        send = self.bot.send_document if document else self.bot.send_photo
        field = "document" if document else "photo"
        file: dict[str, Any] = {field: BufferedInputFile(body, filename=filename)}
        return await self._call(
            owed, send, message_thread_id=owed.thread_id, caption=caption, **file
        )

    async def _call(
        self, owed: Owed, method: Callable[..., Awaitable[T]], keyboard: bool = True, **fields: Any
    ) -> T:
        """`method` to the row's chat, its keyboard under, after a chat token and a bot token."""
        for take in (partial(self.pacing.take_chat, owed.chat_id), self.pacing.take_bot):
            if (wait := take(self.clock())) > 0:
                await self.sleep(wait)
        markup: InlineKeyboardMarkup | None = None
        if keyboard and owed.markup is not None:
            markup = InlineKeyboardMarkup.model_validate_json(owed.markup)
        return await method(
            chat_id=owed.chat_id, reply_markup=markup, request_timeout=REQUEST_TIMEOUT, **fields
        )

    async def _edit(self, owed: Owed) -> bool:
        """Edit the row's message; whether it shows the text (a retried edit changes nothing)."""
        try:
            await self._call(
                owed, self.bot.edit_message_text, text=owed.text, message_id=owed.target
            )
        except TelegramBadRequest as error:
            if "not modified" not in str(error):
                log.info("message %s could not be edited (%s)", owed.target, error)
                return False
        return True

    async def _sheet(self, row: OwedRow) -> tuple[int | None, int | None]:
        owed = row.owed
        assert owed.game_id is not None and owed.seq is not None
        with store_faults():
            snap = await looks.sheet_at(self.core, owed.game_id, owed.seq)
        if snap is None or snap.sheet is None or snap.settlement is None:
            return await self._plain(owed, owed.text), None
        state, sheet, settlement = snap.state, snap.sheet, snap.settlement
        t = translator(owed.lang)
        png = await render_png(sheet, owed.lang, settlement, self.core, state)
        caption = owed.text
        if png is not None:
            if len(plain_text(caption)) > CAPTION_LIMIT:  # the caption as a text, the title under
                await self._plain(owed, caption, markup=False)
                caption = t("sheet-title", game=state.number, deals=sheet.deals)
            elif owed.kind is OwedKind.REDRAW and await self._redrawn(row, png, caption):
                return await self._plain(owed, caption), None  # the answer, under the command
            try:
                sent = await self._file(owed, png, f"sheet-{owed.game_id}.png", caption)
                return sent.message_id, sent.message_id
            except (TelegramBadRequest, TelegramEntityTooLarge) as error:
                told = "chat %s: the sheet picture was refused (%s); sending the text sheet"
                log.warning(told, owed.chat_id, error)
        text = Safe(f"{caption}\n\n{sheet_text(t, state, sheet, settlement)}")
        return await self._plain(owed, text), None

    async def _redrawn(self, row: OwedRow, png: bytes, caption: str) -> bool:
        """Redraw the live sheet photo in place when it is near the command; whether it was."""
        owed = row.owed
        assert owed.game_id is not None
        if owed.reply_to is None:
            return False
        with store_faults():
            async with self.core.store.reading() as repo:
                live = await repo.sheet_message(owed.game_id)
        if live is None or not 0 < owed.reply_to - live <= NEAR:
            return False
        photo = BufferedInputFile(png, filename=f"sheet-{owed.game_id}.png")
        media = InputMediaPhoto(media=photo, caption=caption)
        try:
            await self._call(owed, self.bot.edit_message_media, media=media, message_id=live)
        except (TelegramBadRequest, TelegramEntityTooLarge) as error:
            log.info("the sheet could not be redrawn (%s); sending a new one", error)
            return False
        with store_faults():
            async with self.core.store.transaction() as repo:
                await repo.owed_as_text(row.id)
        return True

    async def _plain(self, owed: Owed, text: str, *, markup: bool = True) -> int:
        """A text in as many messages as Telegram's limit asks, the keyboard on the last."""
        parts = _parts(text)
        for index, part in enumerate(parts):
            keyboard = markup and index == len(parts) - 1
            sent = await self._call(
                owed, self.bot.send_message, keyboard, text=part, message_thread_id=owed.thread_id
            )
        return sent.message_id
