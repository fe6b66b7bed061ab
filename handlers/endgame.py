"""/endgame and the ✅/❌ buttons of a vote."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.i18n import Translator
from bot.keyboards import VoteCb, vote_keyboard
from bot.service import Caller, GameService
from bot.service.results import Ended, VoteState
from bot.views import chunks, ended_text, vote_text

router = Router(name=__name__)


async def _announce_end(message: Message, t: Translator, ended: Ended) -> None:
    for part in chunks(ended_text(t, ended).split("\n")):
        await message.answer(part)


@router.message(Command("endgame", "end"))
async def endgame_cmd(message: Message, caller: Caller, t: Translator, game: GameService) -> None:
    result = await game.end_game(caller)
    if isinstance(result, Ended):
        await _announce_end(message, t, result)
        return
    await _show_vote(message, t, result, new=True)


async def _show_vote(message: Message, t: Translator, result: VoteState, *, new: bool) -> None:
    markup = None
    if result.passed is None:
        markup = vote_keyboard(t, result.state.game_id, result.vote.seq)
    if new:
        await message.answer(vote_text(t, result), reply_markup=markup)
    else:
        await message.edit_text(vote_text(t, result), reply_markup=markup)
    if result.ended is not None:
        await _announce_end(message, t, result.ended)


@router.callback_query(VoteCb.filter())
async def vote_button(
    query: CallbackQuery, callback_data: VoteCb, caller: Caller, t: Translator, game: GameService
) -> None:
    result = await game.vote(caller, callback_data.game, callback_data.vote, callback_data.yes)
    await query.answer(
        t("vote-rejected-timeout" if result.reason == "timeout" else "vote-counted")
    )
    if isinstance(query.message, Message):
        await _show_vote(query.message, t, result, new=False)
