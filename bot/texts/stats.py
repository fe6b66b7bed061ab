"""Statistics, standings and the rating as chat texts: /stats (every player, or one in detail),
/top, /me. Pure functions of (translator, values); numbers formatted by the translator."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from bot.core.stats import ChatRecord, ChatStats, PlayerStats, StatsFilter
from bot.texts.i18n import Safe, Translator, quote
from bot.texts.views import join_lines
from scoring.stats import LEVELS, Tally


def rating_shown(rating: float) -> str:
    """A rating in whole points (the formula's value is exact enough to round once)."""
    return str(round(rating))


def filter_text(t: Translator, filt: StatsFilter) -> Safe:
    """`all time`, `this month · Sochi`…"""
    parts = [t(f"stats-period-{filt.period.value}")]
    if filt.convention is not None:
        parts.append(t(f"convention-{filt.convention}"))
    return Safe(" · ".join(parts))


def _ratio(t: Translator, value: Fraction | None) -> str:
    return "—" if value is None else t.number(value)


def _signed(t: Translator, value: Fraction) -> str:
    return t.number(value, signed=True)


def _money(t: Translator, tally: Tally) -> Safe:
    money = tally.money
    return Safe("") if money is None else t("stats-money", money=t.money(money, signed=True))


def _line(t: Translator, player: PlayerStats) -> dict[str, object]:
    """What a player's line in /stats, /top or /me shows."""
    tally = player.tally
    return {
        "name": player.name,
        "games": t.count(tally.games, "game"),
        "wins": tally.wins,
        "total": _signed(t, tally.total),
        "average": _signed(t, tally.average),
        "money": _money(t, tally),
        "rating": rating_shown(player.rating),
    }


def _best_worst(t: Translator, stats: ChatStats, tally: Tally, key: str = "stats-best") -> Safe:
    assert tally.best is not None and tally.worst is not None
    return t(
        key,
        best=_signed(t, tally.best[0]),
        best_game=stats.number(tally.best[1]),
        worst=_signed(t, tally.worst[0]),
        worst_game=stats.number(tally.worst[1]),
    )


def _contracts(t: Translator, tally: Tally, key: str = "stats-contracts") -> Safe:
    levels = " · ".join(
        t("stats-level", level=level, made=made, declared=declared)
        for level, made, declared in zip(LEVELS, tally.made, tally.declared, strict=True)
        if declared
    )
    return t(
        key,
        made=tally.contracts_made,
        declared=tally.contracts,
        levels=t("stats-levels", levels=levels) if levels else "",
    )


def _head(t: Translator, key: str, stats: ChatStats) -> Safe:
    """The title (`key`) of the chat's selected games, or that there are none."""
    if not stats.players:
        return t("stats-none", filter=filter_text(t, stats.filter))
    return t(key, filter=filter_text(t, stats.filter), games=t.count(len(stats.games), "game"))


def stats_text(t: Translator, stats: ChatStats) -> Safe:
    """/stats: every player of the chat's selected games, best total first."""
    head = _head(t, "stats-title", stats)
    if not stats.players:
        return head
    lines: list[str] = [head]
    for player in stats.players:
        tally = player.tally
        lines += ["", t("stats-player", **_line(t, player)), _best_worst(t, stats, tally)]
        # contracts and misères, whists and raspasy, each only when there was one
        declared: list[str] = []
        if tally.contracts:
            declared.append(_contracts(t, tally))
        if tally.miseres:
            declared.append(t("stats-miseres", made=tally.miseres_made, declared=tally.miseres))
        habits = [t("stats-habits", whists=_ratio(t, tally.whists_per_deal))]
        if tally.raspasy:
            habits.append(t("stats-raspasy", tricks=_ratio(t, tally.tricks_per_raspasy)))
        lines += [t("stats-indent", parts=Safe(" · ".join(p))) for p in (declared, habits) if p]
    lines += ["", t("stats-hint")]
    return join_lines(lines)


def player_text(t: Translator, stats: ChatStats, player: PlayerStats) -> Safe:
    """/stats @user: one player in detail, with his rating and place."""
    tally = player.tally
    place = next(i for i, p in enumerate(stats.players) if p.key == player.key) + 1
    share = round(100 * tally.wins / tally.games) if tally.games else 0
    lines: list[str] = [
        t("stats-detail-title", name=player.name, filter=filter_text(t, stats.filter)),
        t("stats-detail-games", games=tally.games, wins=tally.wins, share=share),
        t(
            "stats-detail-total",
            total=t.count(tally.total, "whist", signed=True),
            average=_signed(t, tally.average),
            money=_money(t, tally),
        ),
        _best_worst(t, stats, tally, "stats-detail-best"),
        t(
            "stats-detail-rating",
            rating=rating_shown(player.rating),
            place=place,
            players=len(stats.players),
        ),
        _contracts(t, tally, "stats-detail-contracts"),
        t("stats-detail-miseres", made=tally.miseres_made, declared=tally.miseres),
        t("stats-detail-whists", whists=_ratio(t, tally.whists_per_deal), deals=tally.deals),
        t(
            "stats-detail-raspasy",
            tricks=_ratio(t, tally.tricks_per_raspasy),
            deals=tally.raspasy,
        ),
    ]
    return join_lines(lines)


def top_text(t: Translator, stats: ChatStats) -> Safe:
    """/top as text: the players by total, with games, average and rating."""
    lines: list[str] = [_head(t, "top-title", stats)]
    lines += [
        t("top-line", place=place, **_line(t, player))
        for place, player in enumerate(stats.players, start=1)
    ]
    return join_lines(lines)


def me_text(t: Translator, records: Sequence[ChatRecord]) -> Safe:
    """/me: the account in every chat it finished games in, and the sums over them."""
    if not records:
        return t("me-none")
    games = sum(r.player.tally.games for r in records)
    wins = sum(r.player.tally.wins for r in records)
    total = sum((r.player.tally.total for r in records), Fraction(0))
    lines: list[str] = [
        t(
            "me-title",
            games=t.count(games, "game"),
            chats=len(records),
            wins=wins,
            total=_signed(t, total),
        )
    ]
    for record in records:
        chat = quote(record.title or "?")
        params = {"chat": chat, "place": record.place, "players": record.players}
        lines.append(t("me-chat", **_line(t, record.player), **params))
    lines += ["", t("me-hint")]
    return join_lines(lines)
