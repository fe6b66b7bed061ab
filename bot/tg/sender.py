"""The sender: delivers what the bot owes (the outbox, `bot.storage.Owed` rows) — in order per
chat, concurrently across chats, each row claimed with a lease in one statement so that two
senders (two processes) never send one row (docs/architecture.md "Delivery").

A failed attempt gives the row back with a back-off: `retry_after` for a 429, growing pauses for
a 5xx, a time-out or a dropped connection; a request Telegram refuses for good (400, 403) is
given up and logged. A row is marked sent with Telegram's message id, and in the same transaction
a new sheet photo becomes the game's live sheet message. A send whose answer was lost (a time-out
after the request went out) is sent again: at least once, so the chat may see it twice — never
lost, and never turned into an error message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, InputMediaPhoto

from bot.core import GameService
from bot.domain import Owed, OwedKind, OwedRow
from bot.texts.i18n import Safe, translator
from bot.texts.views import chunks, sheet_text
from bot.tg.reply import NEAR, render_png

if TYPE_CHECKING:  # the picture, and so the painter, is optional (Pillow)
    from bot.sheet.painter import Painter

log = logging.getLogger(__name__)

LEASE: Final = 30.0  # seconds a claim holds; an attempt's request time-out stays below it
REQUEST_TIMEOUT: Final = 20  # seconds
TICK: Final = 0.5  # seconds between two looks at the outbox when nobody wakes the sender
# Seconds between two looks for this host's dead senders: an instance killed beside a live one
# (several instances on one machine) must not hold its chats' replies for a whole lease.
DEAD_CHECK: Final = 2.0
LONGEST_PAUSE: Final = 4.0  # the back-off's cap, seconds
GIVE_UP_AFTER: Final = 12  # attempts that failed with an error of ours (not Telegram's)
KEEP_SENT: Final = 86_400.0  # sent rows are forgotten after a day


def pause(attempts: int) -> float:
    """The back-off after `attempts` failures: 0.5, 1, 2, 4, 4, … seconds."""
    return float(min(0.5 * 2**attempts, LONGEST_PAUSE))


def claimant_name(host: str | None = None, pid: int | None = None) -> str:
    """`host/pid/random`: a restarted process releases its dead predecessors' claims at once
    (same host, a pid no longer alive); other hosts' claims wait for their lease."""
    return f"{host or socket.gethostname()}/{pid or os.getpid()}/{secrets.token_hex(4)}"


def _dead_here(claimant: str, host: str) -> bool:
    parts = claimant.split("/")
    if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Sender:
    """Delivers the outbox through `bot`; `drain()` sends everything due now, `run()` keeps
    doing it, woken by `wake()` when a command commits owed rows."""

    def __init__(
        self,
        bot: Bot,
        game: GameService,
        *,
        lease: float = LEASE,
        clock: Callable[[], float] = time.time,
        name: str | None = None,
        painter: Painter | None = None,
    ) -> None:
        self.bot = bot
        self.painter = painter  # draws the pictures in processes of their own; None: in threads
        self.game = game
        self.store = game.core.store
        self.lease = lease
        self.clock = clock
        self.name = name or claimant_name()
        self._woken = asyncio.Event()
        self.sent = 0

    async def wake(self) -> None:
        self._woken.set()

    async def release_dead(self) -> int:
        """Give back the claims of this host's senders that died (a crash, a SIGKILL)."""
        host = self.name.split("/")[0]
        released = 0
        async with self.store.transaction() as repo:
            for claimant in await repo.owed_claimants():
                if _dead_here(claimant, host):
                    released += await repo.release_claims(claimant)
        if released:
            log.info("outbox: %d row(s) a dead sender had claimed are owed again", released)
        return released

    async def run(self) -> None:
        """The background task: deliver, then wait to be woken (or a tick, for back-offs)."""
        await self.release_dead()
        pruned_at = checked_at = 0.0
        while True:
            try:
                if self.clock() - checked_at > DEAD_CHECK:
                    checked_at = self.clock()
                    await self.release_dead()
                await self.drain()
                if self.clock() - pruned_at > 3600:
                    pruned_at = self.clock()
                    async with self.store.transaction() as repo:
                        await repo.prune_sent(pruned_at - KEEP_SENT)
            except Exception:
                log.exception("outbox: delivering failed; trying again")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK)
            self._woken.clear()

    async def drain(self) -> int:
        """Claim each chat's first due row, deliver them (chats concurrently), until nothing
        is due; how many were sent."""
        sent = 0
        while True:
            now = self.clock()
            async with self.store.statement() as repo:  # one statement: its own transaction
                rows = await repo.claim_owed(self.name, now, now + self.lease)
            if not rows:
                return sent
            done = await asyncio.gather(*(self.deliver(row) for row in rows))
            sent += sum(done)

    async def deliver(self, row: OwedRow) -> bool:
        """One attempt at one claimed row; True when it was sent (or given up)."""
        try:
            message_id, live = await self._send(row)
        except TelegramRetryAfter as error:
            await self._retry(row, float(error.retry_after), f"429: {error.message}")
            return False
        except TelegramServerError as error:
            await self._retry(row, pause(row.attempts), f"5xx: {error.message}")
            return False
        except TelegramNetworkError as error:  # a time-out, a dropped connection
            await self._retry(row, pause(row.attempts), f"network: {error.message}")
            return False
        except TelegramAPIError as error:  # refused for good: a retry gets the same answer
            log.warning("outbox row %s to chat %s refused: %s", row.id, row.owed.chat_id, error)
            await self._sent(row, None, None)
            return True
        except Exception as error:  # an answer that cannot be read, a bug of ours
            if row.attempts + 1 >= GIVE_UP_AFTER:
                log.exception("outbox row %s: giving up after %d attempts", row.id, GIVE_UP_AFTER)
                await self._sent(row, None, None)
                return True
            await self._retry(row, pause(row.attempts), f"{type(error).__name__}: {error}")
            return False
        await self._sent(row, message_id, live)
        return True

    async def _retry(self, row: OwedRow, after: float, error: str) -> None:
        log.info("outbox row %s: %s; again in %.1f s", row.id, error, after)
        async with self.store.statement() as repo:
            await repo.owed_retry(row.id, self.name, self.clock() + after, error)

    async def _sent(self, row: OwedRow, message_id: int | None, live: int | None) -> None:
        owed = row.owed
        game_id = owed.game_id if live is not None else None
        # A new sheet photo becomes the game's live sheet in the mark's own transaction; a mark
        # alone is one statement.
        async with self.store.statement() if game_id is None else self.store.transaction() as repo:
            if not await repo.owed_sent(row.id, self.name, message_id, self.clock()):
                log.warning("outbox row %s: the claim ran out before it was marked sent", row.id)
                return
            if game_id is not None and live is not None:
                await repo.set_sheet_message(game_id, live)
        self.sent += 1
        if owed.kind is OwedKind.VOTE and message_id is not None and message_id != owed.target:
            assert owed.game_id is not None and owed.seq is not None
            await self.game.vote_posted(owed.chat_id, owed.game_id, owed.seq, message_id)

    # -- one attempt -------------------------------------------------------------------------
    async def _send(self, row: OwedRow) -> tuple[int | None, int | None]:
        """Telegram's message id, and the new live sheet message (a sheet photo sent)."""
        owed = row.owed
        if owed.kind is OwedKind.TEXT:
            return await self._text(owed), None
        if owed.kind is OwedKind.VOTE:
            return await self._vote(owed), None
        if owed.kind is OwedKind.DOCUMENT:
            assert owed.body is not None and owed.filename is not None
            document = BufferedInputFile(owed.body, filename=owed.filename)
            sent = await self.bot.send_document(
                owed.chat_id, document, caption=owed.text, request_timeout=REQUEST_TIMEOUT
            )
            return sent.message_id, None
        return await self._sheet(row)

    @staticmethod
    def _markup(owed: Owed) -> InlineKeyboardMarkup | None:
        if owed.markup is None:
            return None
        return InlineKeyboardMarkup.model_validate_json(owed.markup)

    async def _text(self, owed: Owed) -> int | None:
        markup = self._markup(owed)
        if owed.target is not None:
            try:
                await self.bot.edit_message_text(
                    text=owed.text,
                    chat_id=owed.chat_id,
                    message_id=owed.target,
                    reply_markup=markup,
                    request_timeout=REQUEST_TIMEOUT,
                )
            except TelegramBadRequest as error:
                if "not modified" not in str(error):
                    log.info("message %s could not be edited (%s)", owed.target, error)
            return owed.target
        sent = await self.bot.send_message(
            owed.chat_id, owed.text, reply_markup=markup, request_timeout=REQUEST_TIMEOUT
        )
        return sent.message_id

    async def _vote(self, owed: Owed) -> int:
        """Edit the vote's message, or post it anew when there is none or it is gone (edits are
        idempotent: a retried one changes nothing)."""
        markup = self._markup(owed)
        if owed.target is not None:
            try:
                await self.bot.edit_message_text(
                    text=owed.text,
                    chat_id=owed.chat_id,
                    message_id=owed.target,
                    reply_markup=markup,
                    request_timeout=REQUEST_TIMEOUT,
                )
                return owed.target
            except TelegramBadRequest as error:
                if "not modified" in str(error):
                    return owed.target
                log.info("vote %s: its message could not be edited (%s)", owed.seq, error)
        sent = await self.bot.send_message(
            owed.chat_id, owed.text, reply_markup=markup, request_timeout=REQUEST_TIMEOUT
        )
        return sent.message_id

    async def _sheet(self, row: OwedRow) -> tuple[int | None, int | None]:
        owed = row.owed
        assert owed.game_id is not None and owed.seq is not None
        snap = await self.game.sheet_at(owed.game_id, owed.seq)
        if snap is None or snap.sheet is None or snap.settlement is None:
            return await self._plain(owed, owed.text), None
        state, sheet, settlement = snap.state, snap.sheet, snap.settlement
        png = await render_png(sheet, owed.lang, settlement, self.game, state, self.painter)
        if png is None:
            t = translator(owed.lang)
            text = Safe(f"{owed.text}\n\n{sheet_text(t, state, sheet, settlement)}")
            return await self._plain(owed, text), None
        photo = BufferedInputFile(png, filename=f"sheet-{owed.game_id}.png")
        if owed.kind is OwedKind.REDRAW and owed.reply_to is not None:
            live = await self.game.sheet_message(owed.game_id)
            if live is not None and 0 < owed.reply_to - live <= NEAR:
                try:
                    await self.bot.edit_message_media(
                        media=InputMediaPhoto(media=photo, caption=owed.text),
                        chat_id=owed.chat_id,
                        message_id=live,
                        reply_markup=self._markup(owed),
                        request_timeout=REQUEST_TIMEOUT,
                    )
                except TelegramBadRequest as error:
                    log.info("the sheet could not be redrawn (%s); sending a new one", error)
                else:  # what is left to send is the caption, as a text under the command
                    async with self.store.transaction() as repo:
                        await repo.owed_as_text(row.id)
                    return await self._text(owed), None
        sent = await self.bot.send_photo(
            owed.chat_id,
            photo,
            caption=owed.text,
            reply_markup=self._markup(owed),
            request_timeout=REQUEST_TIMEOUT,
        )
        return sent.message_id, sent.message_id

    async def _plain(self, owed: Owed, text: str) -> int | None:
        """The text sheet (no picture): its parts one after another (a retry may repeat the
        parts already out — the rare case of a sheet that cannot be drawn)."""
        message_id = None
        for part in chunks(text.split("\n")):
            sent = await self.bot.send_message(owed.chat_id, part, request_timeout=REQUEST_TIMEOUT)
            message_id = sent.message_id
        return message_id
