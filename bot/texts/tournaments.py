"""A tournament's texts: its creation, tables, rounds, judge, and standings."""

from bot.core.events import Player
from bot.core.tournaments import Standings, Table, TableGame, Tournament
from bot.texts.i18n import Safe, Translator
from bot.texts.views import join_lines
from scoring.tournament import Scoring, shown_places


def handle(player: Player | None) -> str:
    if player is None:
        return ""
    return f"@{player.username}" if player.username else player.name


def created_text(t: Translator, tournament: Tournament) -> Safe:
    rules, scoring = tournament.rules, t(f"tournament-scoring-{tournament.scoring.value}")
    code = tournament.row.code
    return t("tournament-created", name=tournament.name, code=code, rules=rules, scoring=scoring)


def _table(t: Translator, table: Table) -> dict[str, object]:
    """A table's number and title, as every text of a table names it."""
    title = table.title or t("tournament-table-untitled", table=table.number)
    return {"table": table.number, "title": title}


def joined_text(t: Translator, tournament: Tournament, table: Table) -> Safe:
    return t("tournament-joined", name=tournament.name, table=table.number, rules=tournament.rules)


def joined_home_text(t: Translator, tournament: Tournament, table: Table) -> Safe:
    return t("tournament-table-joined-home", name=tournament.name, **_table(t, table))


def round_text(t: Translator, tournament: Tournament) -> Safe:
    key = "tournament-round-started" if tournament.open else "tournament-round-closed"
    return t(key, name=tournament.name, round=tournament.round)


def judge_text(t: Translator, tournament: Tournament) -> Safe:
    return t("tournament-judge", name=tournament.name, judge=handle(tournament.judge))


def standings_text(t: Translator, standings: Standings) -> Safe:
    """The ranked players: place, name, total, games, and each round's points."""
    tournament = standings.tournament
    signed = tournament.scoring is Scoring.WHISTS
    playing = t("standings-playing", count=standings.playing) if standings.playing else ""
    played = t.count(standings.played, "game")
    scoring = t(f"tournament-scoring-{tournament.scoring.value}")
    params = {"name": tournament.name, "played": played, "playing": playing, "scoring": scoring}
    lines = [t("standings-title", **params)]
    if not standings.lines:
        lines.append(t("standings-empty"))
    for place, line in zip(shown_places(standings.lines), standings.lines, strict=True):
        rounds = " · ".join(
            t("standings-round", round=n, points=t.number(value, signed=signed))
            for n, value in enumerate(line.rounds, start=1)
            if value is not None
        )
        shown = {"place": place, "name": standings.names.get(line.player, "?"), "rounds": rounds}
        total, games = t.number(line.total, signed=signed), t.count(line.games, "game")
        lines.append(t("standings-line", **shown, total=total, games=games))
    return join_lines(lines)


def tables_text(t: Translator, tournament: Tournament, games: dict[int, TableGame]) -> Safe:
    """The tables, each with its live (or last) game and the votes waiting for the judge."""
    lines = [t("tournament-tables-title", name=tournament.name, round=tournament.round)]
    for table in tournament.tables:
        found = games.get(table.number)
        if found is None:
            game = t("tournament-table-idle")
        else:
            status = t(f"status-{found.status.value}")
            game = t("tournament-table-game", game=found.number, status=status)
        lines.append(t("tournament-table-line", **_table(t, table), game=game))
        waiting = found.waiting if found else ()
        lines += [t("tournament-table-vote", table=table.number, vote=v) for v in waiting]
    if not tournament.tables:
        lines.append(t("tournament-no-tables", code=tournament.row.code))
    return join_lines(lines)


def referred_text(t: Translator, table: Table, vote: int, judge: str) -> Safe:
    return t("tournament-referred", **_table(t, table), vote=vote, judge=judge)


def decided_text(t: Translator, table: Table, vote: int, passed: bool | None) -> Safe:
    verdict = t("tournament-verdict-yes" if passed else "tournament-verdict-no")
    return t("tournament-decided", table=table.number, vote=vote, verdict=verdict)


def ended_home_text(t: Translator, table: Table, round_number: int) -> Safe:
    return t("standings-after-game", **_table(t, table), round=round_number)
