"""Tournaments: tables under frozen rules, in rounds, with a judge; their log, state, standings."""

import secrets
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final

from bot.core.base import Caller
from bot.core.errors import GameError
from bot.core.events import EndReason, Kind, Player
from bot.core.ledger import person
from bot.core.newgame import NewGame, parse_arbiter, parse_newgame
from bot.core.stats import summaries
from bot.core.uow import UnitOfWork
from bot.domain import GameStatus, Repo, TournamentRow
from scoring.errors import OptionError
from scoring.rules import canonical_convention
from scoring.tournament import SCORINGS, Line, Scoring, game_points, standings


class TKind(StrEnum):  # the kinds of a tournament's log
    CREATED = "created"  # {name, convention, overrides, scoring, creator}
    TABLE_JOINED = "table_joined"  # {chat_id, thread_id, title}
    JUDGE_NAMED = "judge_named"  # {judge: player}
    ROUND_STARTED = "round_started"  # {round}
    ROUND_CLOSED = "round_closed"  # {round}
    GAME_ENTERED = "game_entered"  # {game_id, table, round}
    TABLE_MOVED = "table_moved"  # {from_chat, to_chat}: its group became a supergroup


@dataclass(frozen=True, slots=True)
class Table:
    number: int  # 1, 2, … in the order the tables joined
    chat_id: int
    thread_id: int
    title: str | None


@dataclass(frozen=True, slots=True)
class Entry:
    game_id: int
    table: int
    round: int


@dataclass(slots=True)
class Tournament:
    row: TournamentRow
    name: str = ""
    convention: str = "sochi"
    overrides: dict[str, str] = field(default_factory=dict)
    scoring: Scoring = Scoring.WHISTS
    creator: Player | None = None
    judge: Player | None = None
    tables: list[Table] = field(default_factory=list)
    round: int = 0  # the last round started
    open: bool = False  # whether that round is still open
    entries: list[Entry] = field(default_factory=list)

    @property
    def rules(self) -> str:  # as typed to /newgame: `sochi pool=20`
        return " ".join([self.convention, *(f"{k}={v}" for k, v in self.overrides.items())])

    def table_at(self, chat_id: int, thread_id: int) -> Table | None:
        return next(
            (t for t in self.tables if (t.chat_id, t.thread_id) == (chat_id, thread_id)), None
        )

    def table(self, number: int) -> Table:
        if not 1 <= number <= len(self.tables):
            raise GameError("tournament-no-table", str(number), {}, "/tournament tables")
        return self.tables[number - 1]

    def apply(self, kind: TKind, data: dict[str, Any]) -> None:
        if kind is TKind.CREATED:
            self.name, self.convention = data["name"], data["convention"]
            self.overrides = dict(data["overrides"])
            self.scoring, self.creator = Scoring(data["scoring"]), Player.of(data["creator"])
        elif kind is TKind.TABLE_JOINED:
            number = len(self.tables) + 1
            self.tables.append(Table(number, data["chat_id"], data["thread_id"], data["title"]))
        elif kind is TKind.JUDGE_NAMED:
            self.judge = Player.of(data["judge"])
        elif kind is TKind.ROUND_STARTED:
            self.round, self.open = data["round"], True
        elif kind is TKind.ROUND_CLOSED:
            self.open = False
        elif kind is TKind.GAME_ENTERED:
            self.entries.append(Entry(data["game_id"], data["table"], data["round"]))
        elif kind is TKind.TABLE_MOVED:
            self.tables = [
                replace(t, chat_id=data["to_chat"]) if t.chat_id == data["from_chat"] else t
                for t in self.tables
            ]


async def read(repo: Repo, row: TournamentRow) -> Tournament:
    state = Tournament(row)
    for event in await repo.tournament_events(row.tournament_id):
        state.apply(TKind(event.kind), event.payload)
    return state


EXAMPLE: Final = "/tournament new Cup sochi pool 20"
CODE_LETTERS: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud, typed
CODE_LENGTH: Final = 6
NAME_LIMIT: Final = 40
_SCORING_OPTION: Final = frozenset({"scoring", "зачёт", "зачет"})


async def _writing(uow: UnitOfWork, caller: Caller, *chat_ids: int) -> Repo:
    """The unit's open transaction for a tournament command, the chats locked in order."""
    await uow.holding(caller.chat_id, *chat_ids)
    async with uow.command(caller, game=None, direct=True) as unit:
        return unit.repo


def _group_only(caller: Caller) -> None:
    if caller.private:
        raise GameError("group-only", "", {}, EXAMPLE)


async def create(uow: UnitOfWork, caller: Caller, args: str) -> Tournament:
    """/tournament new NAME convention [options] [scoring=places]: a tournament, rules frozen."""
    _group_only(caller)
    tokens = args.split()
    if len(tokens) < 2:
        raise GameError("tournament-usage", args.strip() or "/tournament new", {}, EXAMPLE)
    name, rest, scoring = tokens[0], [], Scoring.WHISTS
    for token in tokens[1:]:
        key, sep, value = token.partition("=")
        if not sep or key.casefold() not in _SCORING_OPTION:
            rest.append(token)
        elif (found := SCORINGS.get(value.casefold())) is None:
            raise GameError("tournament-scoring", token, {}, f"{EXAMPLE} scoring=places")
        else:
            scoring = found
    if len(name) > NAME_LIMIT:
        raise GameError("tournament-usage", name, {}, EXAMPLE)
    spec = parse_newgame(" ".join(rest), caller.as_player())
    repo = await _writing(uow, caller)
    code = ""
    while not code or await repo.tournament_by_code(code) is not None:
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
    home = (caller.chat_id, caller.topic)
    row = await repo.create_tournament(code, home, caller.user_id, uow.now())
    payload = {
        "name": name,
        "convention": spec.convention,
        "overrides": dict(spec.overrides),
        "scoring": scoring.value,
        "creator": caller.as_player().payload(),
    }
    return await _log(uow, repo, Tournament(row), TKind.CREATED, payload)


async def join(
    uow: UnitOfWork, caller: Caller, code: str, title: str | None = None
) -> tuple[Tournament, Table]:
    """/tournament join CODE: this chat becomes a table of the tournament, shown by `title`."""
    _group_only(caller)
    code = code.strip().upper()
    async with uow.reading() as repo:
        row = await repo.tournament_by_code(code) if code else None
    if row is None:
        raise GameError(
            "tournament-unknown", code or "/tournament join", {}, "/tournament join K7M2QX"
        )
    repo = await _writing(uow, caller, row.home_chat_id)
    state = await read(repo, row)
    if state.table_at(caller.chat_id, caller.topic) is not None:
        raise GameError("tournament-joined", code, {}, "/standings")
    shown = title or caller.chat_title
    payload = {"chat_id": caller.chat_id, "thread_id": caller.topic, "title": shown}
    await _log(uow, repo, state, TKind.TABLE_JOINED, payload)
    await repo.set_table_tournament(caller.chat_id, caller.topic, row.tournament_id)
    return state, state.tables[-1]


async def _managed(uow: UnitOfWork, caller: Caller, command: str) -> tuple[Repo, Tournament]:
    """The tournament at home here, for a command of its creator's."""
    _group_only(caller)
    async with uow.reading() as repo:  # its log is read under the write lock
        row = await repo.home_tournament(caller.chat_id, caller.topic)
    if row is None:
        raise GameError("tournament-none", command, {}, EXAMPLE)
    repo = await _writing(uow, caller)
    state = await read(repo, row)
    if state.creator is None or not state.creator.is_user(caller.user_id, caller.username):
        raise GameError("tournament-creator-only", command, {}, "/standings")
    return repo, state


async def _log(
    uow: UnitOfWork, repo: Repo, state: Tournament, kind: TKind, data: Any
) -> Tournament:
    author = uow.caller.user_id if uow.caller is not None else None
    await repo.append_tournament(state.row.tournament_id, kind.value, data, author, uow.now())
    state.apply(kind, data)
    return state


async def start_round(uow: UnitOfWork, caller: Caller) -> Tournament:
    """/tournament round: the next round starts (each table plays one game in it)."""
    repo, state = await _managed(uow, caller, "/tournament round")
    if state.open:
        raise GameError("tournament-round-open", str(state.round), {}, "/tournament close")
    return await _log(uow, repo, state, TKind.ROUND_STARTED, {"round": state.round + 1})


async def close_round(uow: UnitOfWork, caller: Caller) -> Tournament:
    """/tournament close: the round ends (games already opened in it still count in it)."""
    repo, state = await _managed(uow, caller, "/tournament close")
    if not state.open:
        raise GameError("tournament-no-round", "/tournament close", {}, "/tournament round")
    return await _log(uow, repo, state, TKind.ROUND_CLOSED, {"round": state.round})


async def name_judge(uow: UnitOfWork, caller: Caller, ref: str) -> Tournament:
    """/tournament judge @user: the arbiter of every table's games opened from now on."""
    repo, state = await _managed(uow, caller, "/tournament judge")
    judge = parse_arbiter(ref, caller.as_player())
    return await _log(uow, repo, state, TKind.JUDGE_NAMED, {"judge": judge.payload()})


async def migrate(uow: UnitOfWork, old_chat_id: int, new_chat_id: int) -> None:
    """A group upgraded to a supergroup keeps its tournaments (`table_moved`)."""
    repo = await uow.holding(old_chat_id, new_chat_id)
    for tournament_id in await repo.move_tournament_chat(old_chat_id, new_chat_id):
        data = {"from_chat": old_chat_id, "to_chat": new_chat_id}
        await repo.append_tournament(tournament_id, TKind.TABLE_MOVED.value, data, None, uow.now())


Admission = tuple[Tournament, Table]  # a table's game admitted: entered once the game exists


async def admit(uow: UnitOfWork, caller: Caller, spec: NewGame, args: str) -> Admission | None:
    """Check a table's /newgame against its tournament (None: the table plays in none)."""
    async with uow.reading() as repo:
        row = await _table_row(repo, caller.chat_id, caller.topic)
    if row is None:
        return None
    repo = await uow.holding(caller.chat_id, row.home_chat_id)
    state = await read(repo, row)
    table = state.table_at(caller.chat_id, caller.topic)
    assert table is not None
    if not state.open:
        raise GameError("tournament-no-round", "/newgame", {"name": state.name}, "/standings")
    if not spec.overrides:  # no option typed, nor a convention: the tournament's rules
        try:
            canonical_convention((args.split() or [""])[0])
        except OptionError:
            spec.convention, spec.overrides = state.convention, dict(state.overrides)
    if spec.convention != state.convention or spec.overrides != state.overrides:
        params = {"name": state.name, "rules": state.rules}
        raise GameError("tournament-rules", "/newgame", params, "/newgame")
    for entry in state.entries:  # a cancelled game leaves the round to play
        if (entry.table, entry.round) == (table.number, state.round):
            last = (await repo.events(entry.game_id))[-1]
            if (last.kind, last.payload.get("reason")) != (Kind.GAME_ENDED, EndReason.CANCELLED):
                params = {"round": str(state.round)}
                raise GameError("tournament-played", "/newgame", params, "/standings")
    spec.arbiter = state.judge or spec.arbiter  # the judge arbitrates every table's games
    return state, table


async def enter(uow: UnitOfWork, admission: Admission, game_id: int) -> None:
    state, table = admission
    repo = await uow.holding(table.chat_id, state.row.home_chat_id)
    data = {"game_id": game_id, "table": table.number, "round": state.round}
    await _log(uow, repo, state, TKind.GAME_ENTERED, data)


# -- looking -------------------------------------------------------------------------------------
async def _table_row(repo: Repo, chat_id: int, topic: int) -> TournamentRow | None:
    tournament_id = await repo.table_tournament(chat_id, topic)
    return None if tournament_id is None else await repo.tournament(tournament_id)


async def find(
    uow: UnitOfWork, caller: Caller, command: str = "/standings", *, home_only: bool = False
) -> Tournament:
    """The tournament at home here, else (unless `home_only`) the one this table plays in."""
    async with uow.reading() as repo:
        row = await repo.home_tournament(caller.chat_id, caller.topic)
        if row is None and not home_only:
            row = await _table_row(repo, caller.chat_id, caller.topic)
        if row is None:
            raise GameError("tournament-none", command, {}, EXAMPLE)
        return await read(repo, row)


async def of_table(uow: UnitOfWork, chat_id: int, topic: int) -> Tournament | None:
    async with uow.reading() as repo:
        row = await _table_row(repo, chat_id, topic)
        return None if row is None else await read(repo, row)


def delegated(caller: Caller, table: Table) -> Caller:
    """The judge acting at a table from the home chat: his command runs on the table's game."""
    return replace(
        caller,
        chat_id=table.chat_id,
        thread_id=table.thread_id or None,
        chat_type="supergroup",
        chat_title=table.title,
    )


async def judged_table(uow: UnitOfWork, caller: Caller, number: int) -> tuple[Table, int]:
    """The judge's table `number` (from the home chat) and its live game's id."""
    state = await find(uow, caller, "/tournament decide", home_only=True)
    if state.judge is None or not state.judge.is_user(caller.user_id, caller.username):
        raise GameError("tournament-judge-only", "/tournament decide", {}, "/tournament tables")
    table = state.table(number)
    async with uow.reading() as repo:
        row = await repo.live_game(table.chat_id, table.thread_id)
    if row is None:
        raise GameError("tournament-no-vote", str(number), {}, "/tournament tables")
    return table, row.game_id


def parse_decision(args: str) -> tuple[int, int, bool]:
    """`TABLE VOTE yes|no` (да/нет, +/-)."""
    parts = args.split()
    example = "/tournament decide 2 14 yes"
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].lstrip("#").isdigit():
        raise GameError("tournament-usage", args.strip() or "/tournament decide", {}, example)
    verdict = parts[2].casefold()
    if verdict not in {"yes", "no", "да", "нет", "+", "-"}:
        raise GameError("tournament-usage", parts[2], {}, example)
    return int(parts[0]), int(parts[1].lstrip("#")), verdict in {"yes", "да", "+"}


# -- the standings, and each table's game as the judge sees it ----------------------------------
@dataclass(frozen=True, slots=True)
class Standings:
    tournament: Tournament
    lines: tuple[Line, ...]
    names: dict[Hashable, str]  # a player's key → his name as his last game shows it
    played: int  # games counted
    playing: int  # games entered and not ended yet


async def standings_of(uow: UnitOfWork, state: Tournament) -> Standings:
    """The standings: every entered game that ended (not cancelled), scored and summed."""
    async with uow.reading() as repo:
        rows = [r for e in state.entries if (r := await repo.game(e.game_id)) is not None]
    rounds = {e.game_id: e.round for e in state.entries}
    results: list[tuple[int, dict[Hashable, Fraction]]] = []
    names: dict[Hashable, str] = {}
    for summary in await summaries(uow.core.store, rows):
        if summary.plays is None or summary.reason is EndReason.CANCELLED:
            continue
        keys = [person(p) for p in summary.players]
        names.update(zip(keys, (p.name for p in summary.players), strict=True))
        points = game_points(state.scoring, [play.balance for play in summary.plays])
        results.append((rounds[summary.game_id], dict(zip(keys, points, strict=True))))
    playing = sum(1 for row in rows if row.status is not GameStatus.ENDED)
    lines = tuple(standings(max(state.round, 1), results))
    return Standings(state, lines, names, len(results), playing)


@dataclass(frozen=True, slots=True)
class TableGame:  # a table's live game: its number in its chat, status, votes for the judge
    number: int
    status: GameStatus
    waiting: tuple[int, ...]


async def table_games(uow: UnitOfWork, state: Tournament) -> dict[int, TableGame]:
    """Each table's live game, else its last (by table number)."""
    found: dict[int, TableGame] = {}
    async with uow.reading() as repo:
        for table in state.tables:
            # its newest game: the live one if any (a table opens a game only when none is live)
            row = await repo.last_game(table.chat_id, table.thread_id)
            if row is None:
                continue
            waiting: tuple[int, ...] = ()
            if row.status is not GameStatus.ENDED:
                game = await uow.core.fold(repo, row)
                waiting = tuple(v.seq for v in game.open_votes() if v.referred is not None)
            found[table.number] = TableGame(row.chat_number, row.status, waiting)
    return found
