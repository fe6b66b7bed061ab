"""A tournament's texts: its creation, tables, rounds, judge, and standings (ranked players with
their games, total and per-round points)."""

from __future__ import annotations

from fractions import Fraction

from bot.core.tournaments import Standings, Table, TableGame, Tournament
from bot.texts.i18n import Safe, Translator
from bot.texts.views import join_lines
from scoring.tournament import Scoring, shown_places


def rules_shown(tournament: Tournament) -> str:
    options = (f"{key}={value}" for key, value in tournament.overrides.items())
    return " ".join([tournament.convention, *options])


def scoring_shown(t: Translator, tournament: Tournament) -> Safe:
    return t(f"tournament-scoring-{tournament.scoring.value}")


def created_text(t: Translator, tournament: Tournament) -> Safe:
    return t(
        "tournament-created",
        name=tournament.name,
        code=tournament.code,
        rules=rules_shown(tournament),
        scoring=scoring_shown(t, tournament),
    )


def table_title(t: Translator, table: Table) -> str:
    return table.title or t("tournament-table-untitled", table=table.number)


def joined_text(t: Translator, tournament: Tournament, table: Table) -> Safe:
    return t(
        "tournament-joined",
        name=tournament.name,
        table=table.number,
        rules=rules_shown(tournament),
    )


def joined_home_text(t: Translator, tournament: Tournament, table: Table) -> Safe:
    return t(
        "tournament-table-joined-home",
        name=tournament.name,
        table=table.number,
        title=table_title(t, table),
    )


def round_text(t: Translator, tournament: Tournament) -> Safe:
    key = "tournament-round-started" if tournament.open else "tournament-round-closed"
    return t(key, name=tournament.name, round=tournament.round)


def judge_text(t: Translator, tournament: Tournament) -> Safe:
    judge = tournament.judge
    shown = f"@{judge.username}" if judge and judge.username else (judge.name if judge else "")
    return t("tournament-judge", name=tournament.name, judge=shown)


def _points(t: Translator, scoring: Scoring, value: Fraction) -> str:
    return t.number(value, signed=scoring is Scoring.WHISTS)


def standings_text(t: Translator, standings: Standings) -> Safe:
    """The ranked players: place, name, total, games, and each round's points."""
    tournament = standings.tournament
    playing = t("standings-playing", count=standings.playing) if standings.playing else ""
    lines = [
        t(
            "standings-title",
            name=tournament.name,
            played=t.count(standings.played, "game"),
            playing=playing,
            scoring=scoring_shown(t, tournament),
        )
    ]
    if not standings.lines:
        lines.append(t("standings-empty"))
    for place, line in zip(shown_places(standings.lines), standings.lines, strict=True):
        rounds = " · ".join(
            t("standings-round", round=n, points=_points(t, tournament.scoring, value))
            for n, value in enumerate(line.rounds, start=1)
            if value is not None
        )
        lines.append(
            t(
                "standings-line",
                place=place,
                name=standings.names.get(line.player, "?"),
                total=_points(t, tournament.scoring, line.total),
                games=t.count(line.games, "game"),
                rounds=rounds,
            )
        )
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
        title = table_title(t, table)
        lines.append(t("tournament-table-line", table=table.number, title=title, game=game))
        for vote in found.waiting if found else ():
            lines.append(t("tournament-table-vote", table=table.number, vote=vote))
    if not tournament.tables:
        lines.append(t("tournament-no-tables", code=tournament.code))
    return join_lines(lines)


def referred_text(
    t: Translator, tournament: Tournament, table: Table, vote: int, judge: str
) -> Safe:
    return t(
        "tournament-referred",
        table=table.number,
        title=table_title(t, table),
        vote=vote,
        judge=judge,
    )


def decided_text(t: Translator, table: Table, vote: int, passed: bool | None) -> Safe:
    verdict = t("tournament-verdict-yes" if passed else "tournament-verdict-no")
    return t("tournament-decided", table=table.number, vote=vote, verdict=verdict)


def ended_home_text(t: Translator, table: Table, round_number: int) -> Safe:
    return t(
        "standings-after-game", table=table.number, title=table_title(t, table), round=round_number
    )
