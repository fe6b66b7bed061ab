"""The one way to answer a user: `Outbox` owes the answers in the handler's unit of work; what the
vote clock, a game's end, the debt reminders and a tournament's tables owe goes through it too."""

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, tzinfo
from functools import partial
from typing import Any, Final

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core import Core, GameState, UnitOfWork, attempts, looks, tournaments, votes
from bot.core import debts as debts_core
from bot.core.events import ReferReason
from bot.core.results import Edited, Ended, Recorded, Undone, VoteState
from bot.core.tournaments import Entry
from bot.core.zones import zone_of_chat
from bot.domain import Owed, OwedKind, TournamentRow
from bot.telegram.keyboards import as_json, debts_keyboard, vote_keyboard
from bot.texts.debts import private_ended_text, reminder_text
from bot.texts.i18n import Safe, Translator, translator
from bot.texts.score import ended_text
from bot.texts.tournaments import ended_home_text, handle, referred_text, standings_text
from bot.texts.views import chunks, plain_text, recorded_text
from bot.texts.votes import applied_text, vote_text
from scoring.settle import Settlement
from scoring.sheet import Sheet

try:
    from bot.sheet import in_picture_thread, render_document_png, render_sheet_png
    from bot.sheet.model import Correction
except ImportError:  # the picture is optional: the text sheet stands in
    render_sheet_png = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

CAPTION_LIMIT: Final = 1024
NEAR: Final = 4  # a sheet message at most this many messages up may be redrawn in place


async def render_png(
    sheet: Sheet,
    lang: str,
    settlement: Settlement,
    core: Core | None = None,
    state: GameState | None = None,
    full: bool = False,
) -> bytes | None:
    """The sheet's PNG (corrections drawn the paper way; `full`: the document), or None."""
    if render_sheet_png is None:
        return None
    try:
        corrections = None
        if core is not None and state is not None:
            values = looks.corrected_values(core, state, sheet)
            corrections = {key: Correction(wrong, n) for key, (wrong, n) in values.items()}
        render = render_document_png if full else render_sheet_png
        return await in_picture_thread(
            render, sheet, lang, settlement=settlement, corrections=corrections
        )
    except Exception:
        log.exception("the sheet could not be drawn; sending it as text")
        return None


Sheeted = Recorded | Undone | Edited  # a command's result that carries the game and its sheet
Markup = InlineKeyboardMarkup | None
LiveButton = Callable[[Translator, int, bool], InlineKeyboardButton | None]
"""(texts, game id, private chat) → the button that opens the game's live sheet, or None."""


@dataclass(frozen=True, slots=True)
class Outbox:
    """The answer to one update: its chat, its language and the command's message."""

    t: Translator
    chat_id: int
    message_id: int | None = None
    live: LiveButton | None = None  # the Mini App's "live sheet" button, when set up
    zone: tzinfo = UTC  # the chat's time zone, in which every time it is shown is written
    thread_id: int | None = None  # the forum topic the answer goes to (None: the chat itself)

    def _owed(self, kind: OwedKind, text: str, markup: Markup = None, **fields: Any) -> Owed:
        lang, thread = self.t.lang, self.thread_id
        return Owed(self.chat_id, kind, text, lang, as_json(markup), thread_id=thread, **fields)

    def _texts(self, text: str, markup: Markup = None) -> list[Owed]:
        parts = chunks(text.split("\n"))
        return [
            self._owed(OwedKind.TEXT, part, markup if index == len(parts) - 1 else None)
            for index, part in enumerate(parts)
        ]

    def _captioned(self, caption: Safe, short: str) -> tuple[list[Owed], Safe]:
        """A caption over Telegram's limit goes first as text, `short` in its place."""
        if len(plain_text(caption)) > CAPTION_LIMIT:
            return self._texts(caption), Safe(short)
        return [], caption

    async def text(self, uow: UnitOfWork, text: str, markup: Markup = None) -> None:
        """`text` into the chat, split into messages Telegram accepts (the markup on the last)."""
        uow.owe(*self._texts(text, markup))

    async def edit(
        self, uow: UnitOfWork, message_id: int, text: str, markup: Markup = None
    ) -> None:
        uow.owe(self._owed(OwedKind.TEXT, text, markup, target=message_id))

    async def sheet(
        self, uow: UnitOfWork, result: Sheeted, caption: Safe, *, redraw: bool = False
    ) -> None:
        await self.sheet_of(
            uow, result.state, result.sheet, result.settlement, caption, redraw=redraw
        )

    async def sheet_of(
        self,
        uow: UnitOfWork,
        state: GameState,
        sheet: Sheet,
        settlement: Settlement,
        caption: Safe,
        *,
        redraw: bool = False,
    ) -> None:
        """The sheet with `caption`; with `redraw`, the live photo redrawn when it is near."""
        title = self.t("sheet-title", game=state.number, deals=sheet.deals)
        rows, caption = self._captioned(caption, title)
        kind = OwedKind.REDRAW if redraw and self.message_id is not None else OwedKind.SHEET
        button = self.live(self.t, state.game_id, self.chat_id > 0) if self.live else None
        markup = InlineKeyboardMarkup(inline_keyboard=[[button]]) if button is not None else None
        game, seq = state.game_id, state.last_seq
        row = self._owed(kind, caption, markup, game_id=game, seq=seq, reply_to=self.message_id)
        uow.owe(*rows, row)

    async def vote(
        self, uow: UnitOfWork, result: VoteState, *, message_id: int | None = None
    ) -> None:
        """Redraw a vote's message or post it anew, then show what a passed vote did."""
        state, vote, t = result.state, result.vote, self.t
        chat = result.chat_id or state.chat_id
        here = replace(self, chat_id=chat, thread_id=state.thread_id or None)
        markup = vote_keyboard(t, state.game_id, vote.seq) if result.passed is None else None
        target = message_id if message_id is not None else vote.message_id
        text, game = vote_text(t, result, self.zone), state.game_id
        uow.owe(here._owed(OwedKind.VOTE, text, markup, game_id=game, seq=vote.seq, target=target))
        await _referred_home(uow, t.lang, result)  # told at the home too
        if (applied := result.applied) is not None:
            caption = applied_text(t, state, applied)
            await here.sheet_of(uow, state, applied.sheet, applied.settlement, caption)
        if result.ended is not None:
            await here.ended(uow, result.ended)

    async def ended(self, uow: UnitOfWork, ended: Ended) -> None:
        """A game's end: the chat's message, private ones, and the tournament's standings."""
        t = self.t
        hint = f"\n\n{t('debts-ended-hint')}" if ended.debts else ""  # how the buttons work
        text = ended_text(t, ended) + hint
        await self.text(uow, text, debts_keyboard(t, ended.debts))
        await _owe_private_messages(uow, ended)
        state = ended.state
        tournament = await tournaments.of_table(uow, state.chat_id, state.thread_id)
        if tournament is None:
            return
        entry = next((e for e in tournament.entries if e.game_id == state.game_id), None)
        # a tournament table's game: once this unit is committed, the home gets the standings
        if entry is not None:
            uow.then(partial(_post_standings, uow.core, tournament.row, entry, t.lang))

    async def photo(self, uow: UnitOfWork, png: bytes, filename: str, caption: Safe) -> None:
        """A picture the command drew; a caption over Telegram's limit goes first as text."""
        rows, caption = self._captioned(caption, caption.split("\n", 1)[0])
        uow.owe(*rows, self._owed(OwedKind.PHOTO, caption, body=png, filename=filename))

    async def document(self, uow: UnitOfWork, data: bytes, filename: str, caption: str) -> None:
        uow.owe(self._owed(OwedKind.DOCUMENT, caption, body=data, filename=filename))


async def close_expired_votes(core: Core, default_locale: str) -> int:
    """Close (or refer) the votes whose time is over, one unit per game; how many."""
    closed = 0
    for chat_id, game_id in votes.due_votes(core):
        try:
            t = translator(await looks.locale(core, chat_id) or default_locale)
            zone = await zone_of_chat(core.store, chat_id, t.lang)
            async with UnitOfWork(core) as uow:
                results, state = await votes.expire(uow, chat_id, game_id)
                for result in results:
                    await Outbox(t, chat_id, zone=zone).vote(uow, result)
                await uow.commit()
            votes.rewatch(core, game_id, state)
            closed += len(results)
        except Exception as error:
            log.warning(
                "votes of game %s not closed yet (%s: %s)", game_id, type(error).__name__, error
            )
    return closed


async def _owe_private_messages(uow: UnitOfWork, ended: Ended) -> None:
    """One private message per player of the ended game who started the bot: his debts."""
    debts = ended.debts
    players = [player for debt in debts for player in (debt.debtor, debt.creditor)]
    ids = sorted({p.user_id for p in players if p.user_id is not None})
    names = sorted({p.username for p in players if p.user_id is None and p.username})
    if not ids and not names:
        return
    async with uow.reading() as repo:
        started = await repo.accounts(ids, names)
        title = await repo.chat_title(ended.state.chat_id) if started else None
    for account in started:
        me = (account.user_id, account.username)  # a seat is his by its id or its @username
        mine = [d for d in debts if d.debtor.is_user(*me) or d.creditor.is_user(*me)]
        if not mine:
            continue
        t = translator(account.lang)
        owing = [debt for debt in mine if debt.debtor.is_user(*me)]
        text = private_ended_text(t, mine, owing, title)
        keyboard = as_json(debts_keyboard(t, owing))
        uow.owe(Owed(account.user_id, OwedKind.TEXT, text, t.lang, keyboard))


async def remind_debts(core: Core, default_locale: str) -> int:
    """Remind the chats whose reminder is due, each in a unit of work; how many."""
    reminded = 0
    for reminder in await debts_core.due_reminders(core):
        chat_id = reminder.chat_id
        try:
            t = translator(await looks.locale(core, chat_id) or default_locale)
            async with UnitOfWork(core) as uow:
                every, debts = await debts_core.remind(uow, chat_id)
                if debts:  # the keyboard under the last part
                    text = reminder_text(t, debts, every)
                    await Outbox(t, chat_id).text(uow, text, debts_keyboard(t, debts))
                await uow.commit()
            reminded += bool(debts)
        except Exception as error:
            log.warning("chat %s not reminded yet (%s: %s)", chat_id, type(error).__name__, error)
    return reminded


@dataclass(frozen=True, slots=True)
class ChatAnnouncer:
    """The chat's answer to a deal taken in the Mini App (the core's `Announce` port)."""

    live: LiveButton | None = None

    async def recorded(self, uow: UnitOfWork, lang: str, result: Recorded) -> None:
        t = translator(lang)
        state = result.state
        out = Outbox(t, state.chat_id, live=self.live, thread_id=state.thread_id or None)
        await out.sheet(uow, result, recorded_text(t, result))


# -- what a tournament's home chat is told about its tables: referred votes, standings -----------


async def _home(uow: UnitOfWork, row: TournamentRow, fallback: str) -> Outbox:
    async with uow.reading() as repo:
        lang = (await repo.chat_settings(row.home_chat_id)).locale or fallback
    return Outbox(translator(lang), row.home_chat_id, thread_id=row.home_thread_id or None)


async def _referred_home(uow: UnitOfWork, lang: str, result: VoteState) -> None:
    """A table's vote went to the judge now: the home chat is told how he decides it."""
    if not result.referred or not isinstance(result.reason, ReferReason):
        return
    state = result.state
    tournament = await tournaments.of_table(uow, state.chat_id, state.thread_id)
    if tournament is None or tournament.judge is None:
        return
    table = tournament.table_at(state.chat_id, state.thread_id)
    if table is None or not state.is_arbiter(tournament.judge.user_id, tournament.judge.username):
        return
    home = await _home(uow, tournament.row, lang)
    await home.text(uow, referred_text(home.t, table, result.vote.seq, handle(tournament.judge)))


async def _post_standings(core: Core, row: TournamentRow, entry: Entry, lang: str) -> None:
    async def work(uow: UnitOfWork) -> None:
        async with uow.reading() as repo:
            state = await tournaments.read(repo, row)
        standings = await tournaments.standings_of(uow, state)
        home = await _home(uow, row, lang)
        ended = ended_home_text(home.t, state.table(entry.table), entry.round)
        await home.text(uow, f"{ended}\n\n{standings_text(home.t, standings)}")

    await attempts.run(core, work)
