"""/tournament (new, join, round, close, judge, tables, decide, export), /standings, and a
table's history shown in the tournament's home (/history TABLE N)."""

from __future__ import annotations

import io
import zipfile

from aiogram import Router
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import Message

from bot.core import Caller, GameError, GameService, UnitOfWork, tournaments
from bot.core.archive import exported, game_snapshot, game_state, parse_number
from bot.core.results import Snapshot
from bot.telegram.inbound.archive import owe_export, owe_history, tournament_png
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import Translator, translator
from bot.texts.tournaments import (
    created_text,
    decided_text,
    joined_home_text,
    joined_text,
    judge_text,
    round_text,
    standings_text,
    tables_text,
)
from bot.texts.views import plain_text

router = Router(name=__name__)

USAGE = "/tournament new Cup sochi pool 20"


def topic_title(message: Message) -> str | None:
    """A forum topic's name: Telegram shows a topic's message as a reply to the topic's creation
    (when it replies to nothing else); else the chat's title stands for the table."""
    created = message.reply_to_message.forum_topic_created if message.reply_to_message else None
    if created is None or not message.chat.title:
        return None
    return f"{message.chat.title} · {created.name}"


@router.message(Command("tournament", "турнир"))
async def tournament_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    action, _, rest = (command.args or "").strip().partition(" ")
    action = action.casefold()
    if action in ("new", "создать"):
        made = await tournaments.create(uow, caller, rest)
        await reply.text(created_text(t, made))
    elif action in ("join", "войти"):
        state, table = await tournaments.join(uow, caller, rest, topic_title(message))
        await reply.text(joined_text(t, state, table))
        home = state.row
        if (home.home_chat_id, home.home_thread_id) != (caller.chat_id, caller.topic):
            at_home = translator(await game.locale(home.home_chat_id, uow) or t.lang)
            there = Reply(uow, at_home, home.home_chat_id, thread_id=home.home_thread_id or None)
            await there.text(joined_home_text(at_home, state, table))
    elif action in ("round", "тур"):
        await reply.text(round_text(t, await tournaments.start_round(uow, caller)))
    elif action in ("close", "закрыть"):
        await reply.text(round_text(t, await tournaments.close_round(uow, caller)))
    elif action in ("judge", "судья"):
        await reply.text(judge_text(t, await tournaments.name_judge(uow, caller, rest)))
    elif action in ("tables", "столы"):
        state = await tournaments.at_home(uow, caller, "/tournament tables")
        await reply.text(tables_text(t, state, await tournaments.table_games(uow, state)))
    elif action in ("decide", "решить"):
        await _decide(caller, t, game, reply, uow, rest)
    elif action in ("export", "экспорт"):
        await _export(caller, t, game, reply, uow)
    elif action in ("standings", "таблица", ""):
        await _standings(caller, t, reply, uow)
    else:
        raise GameError("tournament-usage", action, {}, USAGE)


@router.message(Command("standings", "турнирная"))
async def standings_cmd(
    message: Message, caller: Caller, t: Translator, reply: Reply, uow: UnitOfWork
) -> None:
    await _standings(caller, t, reply, uow)


async def _standings(caller: Caller, t: Translator, reply: Reply, uow: UnitOfWork) -> None:
    state = await tournaments.find(uow, caller.chat_id, caller.topic)
    standings = await tournaments.standings_of(uow, state)
    text = standings_text(t, standings)
    png = await tournament_png(t, standings)
    if png is None:
        await reply.text(text)
    else:
        await reply.photo(png, f"standings-{state.row.tournament_id}.png", text)


async def _decide(
    caller: Caller, t: Translator, game: GameService, reply: Reply, uow: UnitOfWork, args: str
) -> None:
    """The judge decides a table's vote from the home chat: his decision is the table's event,
    its vote message there is shown anew, and the home is told."""
    number, vote, yes = tournaments.parse_decision(args)
    table, game_id = await tournaments.judged_table(uow, caller, number)
    result = await game.vote(uow, tournaments.delegated(caller, table), game_id, vote, yes)
    await reply.vote(result)
    await reply.text(decided_text(t, table, vote, result.passed))


class TableGame(Filter):
    """`/history TABLE N`, `/export TABLE N`: two numbers (a table's own command takes one),
    read in a tournament's home."""

    async def __call__(self, message: Message) -> bool:
        parts = (message.text or "").split()[1:]
        return len(parts) == 2 and all(p.lstrip("#").isdigit() for p in parts)


async def _table_game(caller: Caller, game: GameService, uow: UnitOfWork, args: str) -> Snapshot:
    number_text, game_text = args.split()
    state = await tournaments.at_home(uow, caller, "/history")
    table = state.table(int(number_text.lstrip("#")))
    return await game_snapshot(game, table.chat_id, parse_number(game_text, "/history"))


@router.message(Command("export"), TableGame())
async def table_export_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """Game N of table TABLE as its protocol file and event log, from the home chat."""
    snap = await _table_game(caller, game, uow, command.args or "")
    await owe_export(reply, t, exported(snap.state, game.clock()))


@router.message(Command("history", "история"), TableGame())
async def table_history_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """Game N of table TABLE, from the home chat (the judge and anyone there may look)."""
    await owe_history(reply, t, await _table_game(caller, game, uow, command.args or ""))


async def _export(
    caller: Caller, t: Translator, game: GameService, reply: Reply, uow: UnitOfWork
) -> None:
    """Every entered game's protocol file and event log, and the standings, in one zip."""
    state = await tournaments.find(uow, caller.chat_id, caller.topic)
    standings = await tournaments.standings_of(uow, state)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("standings.txt", plain_text(standings_text(t, standings)))
        for entry in state.entries:
            table = state.table(entry.table)
            async with uow.reading() as repo:
                row = await repo.game(entry.game_id)
            if row is None:
                continue
            played = await game_state(game, row.chat_id, row.chat_number)
            if played.rules is None:
                continue
            done = exported(played, game.clock())
            stem = f"round-{entry.round}/table-{table.number}-game-{row.chat_number}"
            archive.writestr(f"{stem}.pref", done.protocol)
            archive.writestr(f"{stem}-events.json", done.events)
    name = f"tournament-{state.code}.zip"
    await reply.document(buffer.getvalue(), name, t("tournament-export", name=state.name))
