"""/deal, /lastround, /undo, /edit: records, each answered with its line and the sheet; `/deal` alone:
the deal as inline-keyboard steps, recorded like a typed `/deal`; /endgame, /dispute, /arbiter, /rule
and the ✅/❌ buttons of every vote (corrections.md "A vote")."""

import contextlib
import hashlib
from dataclasses import replace
from datetime import timedelta
from typing import Final

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, ForceReply, InlineKeyboardMarkup, Message

from bot.core import Caller, GameError, GameState, corrections, looks, records, split_late, votes
from bot.core.results import Ended, VoteState
from bot.domain import GameStatus
from bot.telegram.inbound import fsm
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import Act, DealCb, VoteCb, deal_keyboard
from bot.telegram.outbound import at_once
from bot.texts import deal_steps as steps
from bot.texts import views
from bot.texts.i18n import Safe, Translator
from bot.texts.votes import arbiter_text
from scoring.errors import IllegalDeal, ScoringError
from scoring.seating import Seating

router = Router(name=__name__)
NOTE_KEY: Final = "note_for"  # FSM data: the step message whose note the sender's next text is
LIFETIME: Final = timedelta(hours=6)
TOASTS: Final = {"timeout": "vote-rejected-timeout", "arbiter": "vote-decided"}  # else counted


def fingerprint(state: GameState) -> str:
    """Changes whenever a record is added, undone or corrected: a draft made before is stale."""
    text = "\n".join(f"{item.seq} {item.line}" for item in state.records)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shown(t: Translator, opener: int, entry: fsm.OpenSteps) -> tuple[str, InlineKeyboardMarkup]:
    back = len(entry.drafts) > 1
    flags = {"concede": entry.concede, "prikup": entry.prikup, "odessa": entry.odessa}
    markup = deal_keyboard(
        t, entry.game_id, opener, entry.version, entry.seating, entry.draft, back=back, **flags
    )
    return steps.step_text(t, entry.seating, entry.draft), markup


async def _done(state: FSMContext, message: Message, text: str | None = None) -> None:
    """Done with (recorded, cancelled, stale), later presses change nothing; `text`: shown in it."""
    data = fsm.with_closed(await state.get_data(), message.message_id)
    await state.set_data(data)
    if fsm.STEPS_KEY not in data:
        await state.set_state(None)
    if text is not None:
        await at_once.edit(message, text)


async def _toast(query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    await at_once.toast(query, views.plain_text(text), alert=alert)


# -- opening ---------------------------------------------------------------------------------
@router.message(Command("deal", "d", magic=F.args.is_(None)))
async def deal_steps_cmd(message: Message, ctx: Ctx, state: FSMContext) -> None:
    """`/deal` alone: the first step, for a player (or the scorekeeper) of the live game."""
    caller, t = ctx.caller, ctx.t
    snap = await looks.snapshot(ctx.core, caller.chat_id, topic=caller.topic)
    live, sheet = snap.state, snap.sheet
    if live.status is GameStatus.ENDED:
        raise GameError("no-game", "", {}, "/newgame sochi")
    if live.status is GameStatus.FORMING or sheet is None:
        missing = str(live.seats - len(live.players))
        raise GameError("game-not-started", "", {"missing": missing}, "/join")
    if not live.may_record(caller.user_id, caller.username):
        players = ", ".join(live.names)
        raise IllegalDeal("not-a-player", caller.shown, {"players": players}, records.DEAL_EXAMPLE)
    if sheet.finished:
        raise IllegalDeal("game-finished", "/deal", {}, "/endgame")
    seating = Seating(live.names, sheet.next_dealer, sheet.deals + 1)
    entry = fsm.OpenSteps(0, caller.shown, live.game_id, fingerprint(live), seating, ctx.now())
    entry.concede, entry.prikup = sheet.rules.three_down, sheet.rules.prikup_bonus
    entry.odessa = sheet.rules.odessa_rules
    text, markup = shown(t, caller.user_id or 0, entry)
    sent = await at_once.answer(message, text, reply_markup=markup)
    if sent is not None:  # else not shown (Telegram refused it, or kept failing): nothing to open
        entry.message_id = sent.message_id
        await state.set_state(fsm.DealEntry.steps)
        await state.update_data({fsm.STEPS_KEY: entry.to_data()})


# -- presses ---------------------------------------------------------------------------------
def _opener(message: Message) -> int | None:
    """Who opened a step message, as its buttons (Telegram's copy, not the press) say."""
    markup = message.reply_markup
    for button in [b for row in markup.inline_keyboard for b in row] if markup else []:
        with contextlib.suppress(TypeError, ValueError):
            return DealCb.unpack(button.callback_data or "").by
    return None


async def _verdict(
    message: Message, data: DealCb, ctx: Ctx, state: FSMContext
) -> fsm.OpenSteps | str | None:
    """The steps this press may act on, why it may not, or None: the message is stale."""
    caller, t = ctx.caller, ctx.t
    try:
        snap = await looks.snapshot(ctx.core, caller.chat_id, topic=caller.topic)
    except GameError:
        return t("error-stale-button")
    live = snap.state
    if live.game_id != data.game:
        return t("error-stale-button")
    if not live.may_record(caller.user_id, caller.username):
        return t("steps-not-player")
    saved = await state.get_data()
    if message.message_id in saved.get(fsm.CLOSED_KEY, ()):
        return t("steps-moved-on")
    entry = fsm.open_steps(saved, message.message_id)
    opener = _opener(message)
    if entry is None and opener is not None and opener != (caller.user_id or 0):
        context = FSMContext(state.storage, replace(state.key, user_id=opener))
        other = fsm.open_steps(await context.get_data(), message.message_id)
        if other is not None:
            return t("steps-not-opener", name=other.opener_name)
    if (
        entry is None
        or live.status is not GameStatus.PLAYING
        or snap.sheet is None
        or entry.game_id != live.game_id
        or entry.records != fingerprint(live)
        or ctx.now() - entry.opened_at > LIFETIME
    ):
        return None
    if data.ver != entry.version or data.step is not steps.step(entry.seating, entry.draft):
        return t("steps-moved-on")
    return entry


@router.callback_query(DealCb.filter())
async def step_press(
    query: CallbackQuery, callback_data: DealCb, ctx: Ctx, state: FSMContext
) -> None:
    """A value, ↩, ✖ or ✅: the draft moves and the message shows the next step, or is recorded."""
    caller, t, act = ctx.caller, ctx.t, callback_data.act
    message = query.message
    if not isinstance(message, Message):
        return await _toast(query, t("steps-stale-toast"), alert=True)
    entry = await _verdict(message, callback_data, ctx, state)
    if entry is None:
        await _toast(query, t("steps-stale-toast"), alert=True)
        return await _done(state, message, t("steps-stale"))
    if isinstance(entry, str):
        return await _toast(query, entry)
    if act is Act.RECORD:
        return await _record(query, ctx, state, message, entry)
    if act is Act.CANCEL:
        await at_once.toast(query)
        return await _done(state, message, t("steps-cancelled"))
    if act is Act.EXTRA and callback_data.v == steps.Extra.NOTE:
        await at_once.toast(query)
        await state.update_data({NOTE_KEY: message.message_id})
        ask = t("steps-note-ask", name=caller.shown, number=entry.seating.number)
        await at_once.answer(message, ask, reply_markup=ForceReply(selective=True))
        return
    seating, draft, value = entry.seating, entry.draft, callback_data.v
    try:
        if act is Act.BACK:  # the first draft stays
            entry.drafts = entry.drafts[: max(1, len(entry.drafts) - 1)]
        elif act is Act.EXTRA:
            flags = entry.concede, entry.prikup, entry.odessa
            entry.drafts.append(steps.toggle(seating, draft, value, *flags))
        else:
            entry.drafts.append(steps.press(seating, draft, value))
    except steps.BadPress:
        return await _toast(query, t("steps-moved-on"))
    entry.version += 1
    await state.update_data({fsm.STEPS_KEY: entry.to_data()})
    await at_once.toast(query)
    await at_once.edit(message, *shown(t, caller.user_id or 0, entry))


async def _record(
    query: CallbackQuery, ctx: Ctx, state: FSMContext, message: Message, entry: fsm.OpenSteps
) -> None:
    """✅: the canonical line goes through `records.record`, as a typed `/deal` would."""
    t = ctx.t
    if steps.step(entry.seating, entry.draft) is not steps.DealStep.CONFIRM:
        return await _toast(query, t("steps-moved-on"))
    text = steps.notation(entry.seating, entry.draft)
    try:
        async with ctx.work() as uow:
            result = await records.record(uow, ctx.caller, text)
            line = views.shown_line(t, result.scored.record, result.state.names)
            done = t("deal-recorded", number=views.number_label(t, result.scored), line=line)
            await ctx.out.edit(uow, message.message_id, done)
            await ctx.out.sheet(uow, result, views.recorded_text(t, result))
    except ScoringError as error:
        refused = Safe(f"{views.error_text(t, error)}\n{t('steps-start-again')}")
        await _done(state, message, refused)  # the refused draft is done with
        raise  # the errors router answers the press with the same refusal
    await _done(state, message)  # committed: a second ✅ records nothing
    await _toast(query, t("steps-recorded-toast"))


async def awaiting_note(message: Message, state: FSMContext) -> bool:
    """The sender pressed 📝 on his open steps and this is his text (not a command)."""
    text = message.text or ""
    return bool(text) and not text.startswith("/") and NOTE_KEY in await state.get_data()


@router.message(StateFilter(fsm.DealEntry.steps), awaiting_note)
async def note_reply(message: Message, caller: Caller, t: Translator, state: FSMContext) -> None:
    """The note typed after 📝: it joins the draft, and the step message shows the new line."""
    data = await state.get_data()
    message_id = int(data.pop(NOTE_KEY))
    await state.set_data(data)
    entry = fsm.open_steps(data, message_id)
    if entry is None or steps.step(entry.seating, entry.draft) is not steps.DealStep.CONFIRM:
        await at_once.answer(message, t("steps-moved-on"))
        return
    entry.drafts.append(steps.with_note(entry.draft, message.text or ""))
    entry.version += 1
    await state.update_data({fsm.STEPS_KEY: entry.to_data()})
    assert message.bot is not None
    text, markup = shown(t, caller.user_id or 0, entry)
    await at_once.edit_in(message.bot, caller.chat_id, message_id, text, markup)
    await at_once.answer(message, t("steps-note-added"))


# -- typed records, votes --------------------------------------------------------------------
@router.message(Command("deal", "d"))
@router.message(Command("lastround"))  # the record `last-round`, whatever follows
async def deal_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    text, late = split_late("last-round" if command.command == "lastround" else command.args or "")
    async with ctx.work() as uow:  # the deal and its answer, in one transaction; then it is sent
        if late:
            await ctx.out.vote(uow, await corrections.propose_late(uow, ctx.caller, text))
        else:
            result = await records.record(uow, ctx.caller, text)
            await ctx.out.sheet(uow, result, views.recorded_text(ctx.t, result))


@router.message(Command("undo"))
async def undo_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    if command.args:  # None when nothing follows the command
        raise GameError("undo-takes-nothing", command.args.strip(), {}, "/undo")
    async with ctx.work() as uow:
        result = await records.undo(uow, ctx.caller)
        await ctx.out.sheet(uow, result, views.undone_text(ctx.t, result), redraw=True)


@router.message(Command("edit"))
async def edit_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        result = await records.edit(uow, ctx.caller, command.args or "")
        await ctx.out.sheet(uow, result, views.edited_text(ctx.t, result), redraw=True)


@router.edited_message(Command("deal", "d"))
async def edited_deal(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """An edited /deal: as /edit would, if it wrote the sender's last, still pencilled record."""
    async with ctx.work() as uow:
        result = await records.edit_by_message(uow, ctx.caller, command.args or "", message.date)
        edited = views.edited_text(ctx.t, result)
        caption = views.join_lines([ctx.t("deal-edited-by-message"), edited])
        await ctx.out.sheet(uow, result, caption, redraw=True)


@router.message(Command("endgame", "end"))
async def endgame_cmd(message: Message, ctx: Ctx) -> None:
    """End a finished game at once, or open a vote every player must agree to."""
    async with ctx.work() as uow:
        result = await votes.end_game(uow, ctx.caller)
        if isinstance(result, Ended):
            await ctx.out.ended(uow, result)
        else:
            await ctx.out.vote(uow, result)


@router.message(Command("dispute"))
async def dispute_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    number, _, line = (command.args or "").strip().partition(" ")
    if not number:
        raise GameError("bad-deal-number", "/dispute", {}, corrections.DISPUTE_EXAMPLE)
    async with ctx.work() as uow:
        await ctx.out.vote(uow, await corrections.dispute(uow, ctx.caller, number, line))


@router.message(Command("arbiter"))
async def arbiter_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    ref = (command.args or "").strip()
    async with ctx.work() as uow:
        if not ref:
            snap = await looks.snapshot(ctx.core, ctx.caller.chat_id, topic=ctx.caller.topic)
            return await ctx.out.text(uow, arbiter_text(ctx.t, snap.state))
        result = await corrections.name_arbiter(uow, ctx.caller, ref)
        if isinstance(result, VoteState):
            await ctx.out.vote(uow, result)
        else:
            await ctx.out.text(uow, arbiter_text(ctx.t, result))


@router.message(Command("rule"))
async def rule_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/rule name=value`: a vote every player must agree to; `/rule` alone shows the rules."""
    text = (command.args or "").strip()
    if not text:
        snap = await looks.snapshot(ctx.core, ctx.caller.chat_id, topic=ctx.caller.topic)
        return await ctx.say(views.rules_text(ctx.t, snap.state))
    async with ctx.work() as uow:
        await ctx.out.vote(uow, await corrections.propose_rule(uow, ctx.caller, text))


@router.callback_query(VoteCb.filter())
async def vote_button(query: CallbackQuery, callback_data: VoteCb, ctx: Ctx) -> None:
    t, data = ctx.t, callback_data
    message_id = query.message.message_id if query.message is not None else None
    async with ctx.work() as uow:
        result = await votes.vote(uow, ctx.caller, data.game, data.vote, data.yes)
        await ctx.out.vote(uow, result, message_id=message_id)
    toast = TOASTS.get(result.reason or "", "vote-counted")
    if result.referred:
        toast = f"vote-referred-{result.vote.referred}-toast"
    await at_once.toast(query, t(toast))  # said once the ballot is saved
