"""/newgame, /join, /leave and the Join button; /tournament's subcommands, /standings, and a
table's history shown in its home."""

import io
import zipfile
from dataclasses import replace

from aiogram import Router
from aiogram.enums import MessageEntityType
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import GameError, Player, UnitOfWork, lobby, looks, parse_newgame, tournaments, votes
from bot.core.archive import exported, game_snapshot, game_state, parse_number
from bot.core.newgame import name_from_profile
from bot.core.results import Snapshot
from bot.telegram.inbound.archive import tournament_png
from bot.telegram.inbound.context import Ctx
from bot.telegram.inbound.handlers.view import owe_export, owe_history
from bot.telegram.keyboards import ClaimCb, JoinCb, opening_keyboard
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import Outbox
from bot.texts import tournaments as tour
from bot.texts.i18n import translator
from bot.texts.views import joined_text, left_text, opened_text, plain_text, started_text

router = Router(name=__name__)


def mention_tokens(message: Message) -> tuple[str, dict[str, Player]]:
    """The arguments with each text mention replaced by a token, and the players they stand for."""
    encoded = (message.text or "").encode("utf-16-le")  # entities count UTF-16 code units
    entities = message.entities or []
    mentioned = [e for e in entities if e.type == MessageEntityType.TEXT_MENTION and e.user]
    pieces: list[str] = []
    players: dict[str, Player] = {}
    last = 0
    for index, entity in enumerate(sorted(mentioned, key=lambda e: e.offset)):
        user = entity.user
        assert user is not None
        token, taken = f"mention#{index}", {p.name.casefold() for p in players.values()}
        pieces += [encoded[last : entity.offset * 2].decode("utf-16-le"), f" {token} "]
        name = name_from_profile(user.first_name, user.username, taken)
        players[token] = Player(name, user.id, user.username)
        last = (entity.offset + entity.length) * 2
    pieces.append(encoded[last:].decode("utf-16-le"))
    parts = "".join(pieces).split(maxsplit=1)
    return (parts[1] if len(parts) > 1 else ""), players


@router.message(Command("newgame", "new"))
async def newgame_cmd(message: Message, ctx: Ctx) -> None:
    caller = ctx.caller
    args, mentions = mention_tokens(message)
    spec = parse_newgame(args, caller.as_player(), mentions)
    language = lobby.locale_of(message.from_user.language_code if message.from_user else None)
    async with ctx.work() as uow:
        admitted = await tournaments.admit(uow, caller, spec, args)
        opened = await lobby.new_game(uow, caller, spec, language)
        if admitted is not None:  # a tournament's table: the game counts in its round
            await tournaments.enter(uow, admitted, opened.state.game_id)
        t = translator(opened.locale or ctx.t.lang)  # a new group takes the opener's
        state = opened.state
        markup = opening_keyboard(t, state.game_id, state.players, not opened.started)
        await replace(ctx.out, t=t).text(uow, opened_text(t, state, opened.started), markup)


@router.message(Command("join"))
async def join_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    name = (command.args or "").strip() or None
    async with ctx.work() as uow:
        joined = await lobby.join(uow, ctx.caller, name)
        await ctx.out.text(uow, joined_text(ctx.t, joined.state, joined.player, joined.started))


@router.callback_query(JoinCb.filter())
async def join_button(query: CallbackQuery, callback_data: JoinCb, ctx: Ctx) -> None:
    t = ctx.t
    async with ctx.work() as uow:
        joined = await lobby.join(uow, ctx.caller, game_id=callback_data.game)
        state = joined.state
        if isinstance(query.message, Message):
            markup = opening_keyboard(t, state.game_id, state.players, not joined.started)
            await ctx.out.edit(uow, query.message.message_id, opened_text(t, state, False), markup)
        if joined.started:
            await ctx.out.text(uow, started_text(t, state, with_seats=True))
    await at_once.toast(query, t("joined-toast", name=joined.player.name))


@router.callback_query(ClaimCb.filter())
async def claim_button(query: CallbackQuery, callback_data: ClaimCb, ctx: Ctx) -> None:
    """ "✋ This is me": the seat is the presser's from now on; the button goes."""
    t = ctx.t
    async with ctx.work() as uow:
        claimed = await lobby.claim(uow, ctx.caller, callback_data.game, callback_data.seat)
        state = claimed.state
        if isinstance(query.message, Message):
            markup = opening_keyboard(t, state.game_id, state.players, not claimed.started)
            text = opened_text(t, state, claimed.started)
            await ctx.out.edit(uow, query.message.message_id, text, markup)
    await at_once.toast(query, t("claimed-toast", name=claimed.player.name))


@router.message(Command("leave"))
async def leave_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    name = (command.args or "").strip() or None
    async with ctx.work() as uow:
        left = await lobby.leave(uow, ctx.caller, name)
        await ctx.out.text(uow, left_text(ctx.t, left.state, left.player))


@router.message(Command("tournament", "турнир"))
async def tournament_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    action, _, rest = (command.args or "").strip().partition(" ")
    action = action.casefold()
    async with ctx.work() as uow:
        await _tournament(message, ctx, uow, action, rest)


async def _tournament(message: Message, ctx: Ctx, uow: UnitOfWork, action: str, rest: str) -> None:
    caller, t, out = ctx.caller, ctx.t, ctx.out
    if action in ("new", "создать"):
        await out.text(uow, tour.created_text(t, await tournaments.create(uow, caller, rest)))
    elif action in ("join", "войти"):
        replied = message.reply_to_message  # in a forum topic: the topic's creation, its name
        created = replied.forum_topic_created if replied else None
        group = message.chat.title
        title = f"{group} · {created.name}" if created and group else None
        state, table = await tournaments.join(uow, caller, rest, title)
        await out.text(uow, tour.joined_text(t, state, table))
        home = state.row
        if (home.home_chat_id, home.home_thread_id) != (caller.chat_id, caller.topic):
            at_home = translator(await looks.locale(ctx.core, home.home_chat_id, uow) or t.lang)
            there = Outbox(at_home, home.home_chat_id, thread_id=home.home_thread_id or None)
            await there.text(uow, tour.joined_home_text(at_home, state, table))
    elif action in ("round", "тур"):
        await out.text(uow, tour.round_text(t, await tournaments.start_round(uow, caller)))
    elif action in ("close", "закрыть"):
        await out.text(uow, tour.round_text(t, await tournaments.close_round(uow, caller)))
    elif action in ("judge", "судья"):
        await out.text(uow, tour.judge_text(t, await tournaments.name_judge(uow, caller, rest)))
    elif action in ("tables", "столы"):
        state = await tournaments.find(uow, caller, "/tournament tables", home_only=True)
        await out.text(uow, tour.tables_text(t, state, await tournaments.table_games(uow, state)))
    elif action in ("decide", "решить"):  # the judge, from the home chat; both chats are told
        number, vote, yes = tournaments.parse_decision(rest)
        table, game_id = await tournaments.judged_table(uow, caller, number)
        result = await votes.vote(uow, tournaments.delegated(caller, table), game_id, vote, yes)
        await out.vote(uow, result)
        await out.text(uow, tour.decided_text(t, table, vote, result.passed))
    elif action in ("export", "экспорт"):
        await _export(ctx, uow)
    elif action in ("standings", "таблица", ""):
        await _standings(ctx, uow)
    else:
        raise GameError("tournament-usage", action, {}, tournaments.EXAMPLE)


@router.message(Command("standings", "турнирная"))
async def standings_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        await _standings(ctx, uow)


async def _standings(ctx: Ctx, uow: UnitOfWork) -> None:
    state = await tournaments.find(uow, ctx.caller)
    standings = await tournaments.standings_of(uow, state)
    text = tour.standings_text(ctx.t, standings)
    png = await tournament_png(ctx.t, standings)
    if png is None:
        return await ctx.out.text(uow, text)
    await ctx.out.photo(uow, png, f"standings-{state.row.tournament_id}.png", text)


async def table_game(message: Message) -> bool:
    """`/history TABLE N`, `/export TABLE N`, read in a tournament's home."""
    parts = (message.text or "").split()[1:]
    return len(parts) == 2 and all(p.lstrip("#").isdigit() for p in parts)


async def _table_game(ctx: Ctx, uow: UnitOfWork, args: str) -> Snapshot:
    number_text, game_text = args.split()
    state = await tournaments.find(uow, ctx.caller, "/history", home_only=True)
    table = state.table(int(number_text.lstrip("#")))
    return await game_snapshot(ctx.core, table.chat_id, parse_number(game_text, "/history"))


@router.message(Command("export"), table_game)
async def table_export_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Game N of table TABLE as its protocol file and event log, from the home chat."""
    async with ctx.work() as uow:
        snap = await _table_game(ctx, uow, command.args or "")
        await owe_export(uow, ctx.out, await exported(uow, snap.state, ctx.now()))


@router.message(Command("history", "история"), table_game)
async def table_history_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Game N of table TABLE, from the home chat (the judge and anyone there may look)."""
    async with ctx.work() as uow:
        await owe_history(uow, ctx.out, await _table_game(ctx, uow, command.args or ""))


async def _export(ctx: Ctx, uow: UnitOfWork) -> None:
    """Every entered game's protocol file and event log, and the standings, in one zip."""
    state = await tournaments.find(uow, ctx.caller)
    standings = await tournaments.standings_of(uow, state)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("standings.txt", plain_text(tour.standings_text(ctx.t, standings)))
        for entry in state.entries:
            table = state.table(entry.table)
            async with uow.reading() as repo:
                row = await repo.game(entry.game_id)
            if row is None:
                continue
            played = await game_state(ctx.core, row.chat_id, row.chat_number)
            if played.rules is None:
                continue
            done = await exported(uow, played, ctx.now())
            stem = f"round-{entry.round}/table-{table.number}-game-{row.chat_number}"
            archive.writestr(f"{stem}.pref", done.protocol)
            archive.writestr(f"{stem}-events.json", done.events)
    caption = ctx.t("tournament-export", name=state.name)
    await ctx.out.document(uow, buffer.getvalue(), f"tournament-{state.row.code}.zip", caption)
