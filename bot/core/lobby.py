"""Opening a game and taking seats: /newgame, /join, /leave (the game starts when the seats fill)."""

import logging
from contextlib import suppress

from bot.core.base import Caller
from bot.core.errors import GameError
from bot.core.events import ArbiterNamed, GameCreated, PlayerJoined, PlayerLeft
from bot.core.newgame import NewGame, check_name
from bot.core.results import Joined, Left, Opened
from bot.core.state import GameState, Player, started_event
from bot.core.uow import Command, UnitOfWork
from bot.domain import GameStatus, Repo
from scoring.errors import ScoringError
from scoring.notation import SEATS, Table, resolve_player, stake_text
from scoring.rules import rules_for

log = logging.getLogger(__name__)


def locale_of(language_code: str | None) -> str:
    return "ru" if (language_code or "").lower().startswith("ru") else "en"


async def new_game(
    uow: UnitOfWork, caller: Caller, spec: NewGame, language: str | None = None
) -> Opened:
    """/newgame; `language`: the opener's, which a new group (no game yet, no /lang) takes."""
    if caller.private:
        raise GameError("group-only", "", {}, "/newgame sochi")
    async with uow.command(caller, game=None, direct=True) as unit:
        repo = unit.repo
        if await repo.live_game(caller.chat_id, caller.topic) is not None:
            raise GameError("game-exists", "", {}, "/endgame")
        if (
            language is not None
            and await repo.chat_locale(caller.chat_id) is None
            and await repo.last_game(caller.chat_id) is None
        ):
            await repo.set_chat_locale(caller.chat_id, language)
        if caller.chat_title:
            await repo.set_chat_title(caller.chat_id, caller.chat_title)
        row = await repo.create_game(caller.chat_id, caller.user_id, unit.now(), caller.topic)
        unit.adopt(GameState(row.game_id, row.chat_id, row.chat_number, row.thread_id))
        check_dealer_ref(spec)
        stake = stake_text(spec.stake) if spec.stake is not None else None
        created = GameCreated(
            spec.convention, spec.seats, spec.overrides, stake, spec.dealer, caller.as_player()
        )
        await unit.append(created, caller.user_id)
        if spec.arbiter is not None:
            await unit.append(ArbiterNamed(spec.arbiter), caller.user_id)
        for player in spec.players:
            await unit.append(PlayerJoined(player), caller.user_id)
        for user_id in [caller.user_id, *(player.user_id for player in spec.players)]:
            if user_id is not None:
                await repo.add_member(row.game_id, user_id)
        started = await start_if_full(unit, caller)
        return Opened(unit.state, started, await repo.chat_locale(caller.chat_id))


def check_dealer_ref(spec: NewGame) -> None:
    ref = spec.dealer
    if ref is None or (len(ref) == 1 and ref in SEATS[: spec.seats]):
        return
    if len(spec.players) == spec.seats:
        with suppress(ScoringError):
            resolve_player(ref, Table(tuple(p.name for p in spec.players)))
            return
    raise GameError("unknown-dealer", ref, {}, "/newgame sochi dealer=B")


async def start_if_full(unit: Command, caller: Caller) -> bool:
    state = unit.state
    if len(state.players) < state.seats:
        return False
    rules = rules_for(state.convention, state.seats, state.overrides)
    first = 0
    if state.dealer_ref:
        try:
            first = resolve_player(state.dealer_ref, Table(state.names))
        except ScoringError:
            log.warning(
                "game %s: dealer %r not found, seat A deals", state.game_id, state.dealer_ref
            )
    await unit.append(started_event(state, rules, first), caller.user_id)
    await unit.write(lambda repo: repo.set_status(state.game_id, GameStatus.PLAYING))
    return True


async def join(
    uow: UnitOfWork, caller: Caller, name: str | None = None, game_id: int | None = None
) -> Joined:
    """The sender takes the next seat; `game_id` is the game a Join button was made for."""
    async with uow.command(caller, game=None, direct=True) as unit:
        row = await unit.repo.live_game(caller.chat_id, caller.topic)
        if game_id is not None and (row is None or row.game_id != game_id):
            raise GameError("stale-button", "", {}, "/join")
        if row is None:
            raise GameError("no-game", "", {}, "/newgame sochi")
        state = await unit.fold(row)
        taken = {n.casefold() for n in state.names}
        if name is not None:
            if not state.is_scorekeeper(caller.user_id):
                raise GameError("scorekeeper-only", name, {}, "/join")
            check_name(name)
            if name.casefold() in taken:
                raise GameError("same-name", name, {}, "/join Clara")
            player = Player(name)
        else:
            if state.seat_of(caller.user_id, caller.username) is not None:
                raise GameError("already-joined", caller.shown, {}, "/score")
            if state.is_arbiter(caller.user_id, caller.username):
                raise GameError("arbiter-plays", caller.shown, {}, "/arbiter")
            player = caller.as_player(taken)
        if state.status is not GameStatus.FORMING:
            raise GameError("no-open-game", player.name, {}, "/score")
        if len(state.players) >= state.seats:
            raise GameError("game-full", player.name, {}, "/score")
        await unit.append(PlayerJoined(player), caller.user_id)
        if player.user_id is not None:
            await unit.repo.add_member(state.game_id, player.user_id)
        return Joined(state, player, await start_if_full(unit, caller))


async def leave(uow: UnitOfWork, caller: Caller, name: str | None = None) -> Left:
    async with uow.command(caller) as unit:
        state = unit.state
        if name is not None:
            if not state.is_scorekeeper(caller.user_id):
                raise GameError("scorekeeper-only", name, {}, "/leave")
            folded = [n.casefold() for n in state.names]
            seat = folded.index(name.casefold()) if name.casefold() in folded else None
        else:
            seat = state.seat_of(caller.user_id, caller.username)
        if seat is None:
            raise GameError("not-joined", name or caller.shown, {}, "/join")
        if state.status is not GameStatus.FORMING:
            raise GameError("no-open-game", state.players[seat].name, {}, "/endgame")
        player = state.players[seat]
        await unit.append(PlayerLeft(player.name), caller.user_id)
        if (user_id := player.user_id) is not None and not state.is_scorekeeper(user_id):
            await unit.write(lambda repo: repo.remove_member(state.game_id, user_id))
        return Left(state, player)


async def set_language(uow: UnitOfWork, caller: Caller, locale: str) -> None:
    repo = await chat_setting(uow, caller, "lang-players-only", f"/lang {locale}")
    await repo.set_chat_locale(caller.chat_id, locale)


async def chat_setting(uow: UnitOfWork, caller: Caller, refusal: str, span: str) -> Repo:
    """The open transaction to change a chat's setting in; during a game only its players may."""
    async with uow.command(caller, game=None, direct=True) as unit:
        if (row := await unit.repo.live_game(caller.chat_id, caller.topic)) is not None:
            state = await unit.fold(row)
            await unit.link(caller)
            if not state.may_record(caller.user_id, caller.username):
                raise GameError(refusal, span, {"players": ", ".join(state.names)}, "/score")
        return unit.repo


async def claim(uow: UnitOfWork, caller: Caller, game_id: int, seat: int) -> Joined:
    """ "✋ This is me" under an opened game: the account takes the `@username` seat naming it."""
    async with uow.command(caller, game=game_id) as unit:
        state = unit.state
        if state.status is GameStatus.ENDED or not 0 <= seat < len(state.players):
            raise GameError("stale-button", "", {}, "/score")
        player = state.players[seat]
        if caller.user_id is not None and player.user_id == caller.user_id:
            return Joined(state, player, state.status is GameStatus.PLAYING)
        handle = f"@{player.username}" if player.username else player.name
        refusal = "seat-not-yours" if player.user_id is None else "seat-claimed"
        raise GameError(refusal, "", {"name": player.name, "handle": handle}, "")


def needs_link(state: GameState, caller: Caller) -> bool:
    live = state.status is not GameStatus.ENDED
    return live and state.link_event(caller.as_player()) is not None
