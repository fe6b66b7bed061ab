"""/stats (every player, or one in detail), /top and /me as chat texts."""

from collections.abc import Sequence
from fractions import Fraction

from bot.core.stats import ChatRecord, ChatStats, PlayerStats, StatsFilter
from bot.texts.i18n import Safe, Translator, quote
from bot.texts.views import join_lines
from scoring.stats import LEVELS, Tally


def filter_text(t: Translator, filt: StatsFilter) -> Safe:
    """`all time`, `this month · Sochi`…"""
    parts = [t(f"stats-period-{filt.period.value}")]
    if filt.convention is not None:
        parts.append(t(f"convention-{filt.convention}"))
    return Safe(" · ".join(parts))


def _ratio(t: Translator, value: Fraction | None) -> str:
    return "—" if value is None else t.number(value)


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
        "total": t.number(tally.total, signed=True),
        "average": t.number(tally.average, signed=True),
        "money": _money(t, tally),
        "rating": round(player.rating),  # whole points: the formula is exact enough to round once
    }


def _best_worst(t: Translator, stats: ChatStats, tally: Tally, key: str = "stats-best") -> Safe:
    assert tally.best is not None and tally.worst is not None
    (best, best_game), (worst, worst_game) = tally.best, tally.worst
    games = {"best_game": stats.number(best_game), "worst_game": stats.number(worst_game)}
    return t(key, best=t.number(best, signed=True), worst=t.number(worst, signed=True), **games)


def _contracts(t: Translator, tally: Tally, key: str = "stats-contracts") -> Safe:
    levels = " · ".join(
        t("stats-level", level=level, made=made, declared=declared)
        for level, made, declared in zip(LEVELS, tally.made, tally.declared, strict=True)
        if declared
    )
    levels = t("stats-levels", levels=levels) if levels else ""
    return t(key, made=tally.contracts_made, declared=tally.contracts, levels=levels)


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
        declared: list[str] = [_contracts(t, tally)] if tally.contracts else []
        if tally.miseres:
            declared.append(t("stats-miseres", made=tally.miseres_made, declared=tally.miseres))
        habits = [t("stats-habits", whists=_ratio(t, tally.whists_per_deal))]
        if tally.raspasy:
            habits.append(t("stats-raspasy", tricks=_ratio(t, tally.tricks_per_raspasy)))
        lines += [t("stats-indent", parts=Safe(" · ".join(p))) for p in (declared, habits) if p]
    return join_lines([*lines, "", t("stats-hint")])


def player_text(t: Translator, stats: ChatStats, player: PlayerStats) -> Safe:
    """/stats @user: one player in detail, with his rating and place."""
    tally = player.tally
    place = next(i for i, p in enumerate(stats.players) if p.key == player.key) + 1
    share = round(100 * tally.wins / tally.games) if tally.games else 0
    total = t.count(tally.total, "whist", signed=True)
    average, rating = t.number(tally.average, signed=True), round(player.rating)
    whists, tricks = _ratio(t, tally.whists_per_deal), _ratio(t, tally.tricks_per_raspasy)
    lines = [
        t("stats-detail-title", name=player.name, filter=filter_text(t, stats.filter)),
        t("stats-detail-games", games=tally.games, wins=tally.wins, share=share),
        t("stats-detail-total", total=total, average=average, money=_money(t, tally)),
        _best_worst(t, stats, tally, "stats-detail-best"),
        t("stats-detail-rating", rating=rating, place=place, players=len(stats.players)),
        _contracts(t, tally, "stats-detail-contracts"),
        t("stats-detail-miseres", made=tally.miseres_made, declared=tally.miseres),
        t("stats-detail-whists", whists=whists, deals=tally.deals),
        t("stats-detail-raspasy", tricks=tricks, deals=tally.raspasy),
    ]
    return join_lines(lines)


def top_text(t: Translator, stats: ChatStats) -> Safe:
    """/top as text: the players by total, with games, average and rating."""
    lines = [t("top-line", place=n, **_line(t, p)) for n, p in enumerate(stats.players, 1)]
    return join_lines([_head(t, "top-title", stats), *lines])


def me_text(t: Translator, records: Sequence[ChatRecord]) -> Safe:
    """/me: the account in every chat it finished games in, and the sums over them."""
    if not records:
        return t("me-none")
    tallies = [r.player.tally for r in records]
    games = t.count(sum(tally.games for tally in tallies), "game")
    total = t.number(sum((tally.total for tally in tallies), Fraction(0)), signed=True)
    wins = sum(tally.wins for tally in tallies)
    lines = [t("me-title", games=games, chats=len(records), wins=wins, total=total)]
    for r in records:
        where = {"chat": quote(r.title or "?"), "place": r.place, "players": r.players}
        lines.append(t("me-chat", **_line(t, r.player), **where))
    return join_lines([*lines, "", t("me-hint")])
