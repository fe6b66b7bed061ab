"""/dispute, /arbiter, /rule and the ✅/❌ buttons of every vote (corrections.md "A vote")."""

from __future__ import annotations

from functools import partial

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import Caller, GameError, GameService, UnitOfWork
from bot.core.corrections import DISPUTE_EXAMPLE
from bot.core.results import VoteState
from bot.telegram.keyboards import VoteCb
from bot.telegram.outbound import direct
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import Translator
from bot.texts.views import arbiter_text, chunks, rules_text

router = Router(name=__name__)


@router.message(Command("dispute"))
async def dispute_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    number, _, line = (command.args or "").strip().partition(" ")
    if not number:
        raise GameError("bad-deal-number", "/dispute", {}, DISPUTE_EXAMPLE)
    await reply.vote(await game.dispute(uow, caller, number, line))


@router.message(Command("arbiter"))
async def arbiter_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    ref = (command.args or "").strip()
    if not ref:
        snap = await game.snapshot(caller.chat_id, topic=caller.topic)
        await reply.text(arbiter_text(t, snap.state))
        return
    result = await game.name_arbiter(uow, caller, ref)
    if isinstance(result, VoteState):
        await reply.vote(result)
    else:
        await reply.text(arbiter_text(t, result))


@router.message(Command("rule"))
async def rule_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """`/rule name=value`: a vote every player must agree to (conventions.md §1.4); `/rule`
    alone shows the rules in force, as /rules does."""
    text = (command.args or "").strip()
    if not text:
        snap = await game.snapshot(caller.chat_id, topic=caller.topic)
        for part in chunks(rules_text(t, snap.state).split("\n")):
            await reply.text(part)
        return
    await reply.vote(await game.propose_rule(uow, caller, text))


@router.callback_query(VoteCb.filter())
async def vote_button(
    query: CallbackQuery,
    callback_data: VoteCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    result = await game.vote(
        uow, caller, callback_data.game, callback_data.vote, callback_data.yes
    )
    if result.referred:
        toast = t(f"vote-referred-{result.vote.referred}-toast")
    elif result.reason == "timeout":
        toast = t("vote-rejected-timeout")
    elif result.reason == "arbiter":
        toast = t("vote-decided")
    else:
        toast = t("vote-counted")
    uow.after_commit(partial(direct.toast, query, toast))  # said once the ballot is saved
    message_id = query.message.message_id if query.message is not None else None
    await reply.vote(result, message_id=message_id)
