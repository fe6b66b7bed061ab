"""The service's results as chat texts (Telegram HTML) in the chat's language.

Pure functions of (translator, values): no I/O. Numbers come exact from scoring/ and are only formatted
here: whists with at most one decimal, money with two.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Sequence
from typing import Final

from bot.core import GameState, Player
from bot.core.events import (
    ArbiterProposed,
    CorrectionProposed,
    EndProposed,
    Kind,
    LateDealProposed,
    RuleChangeProposed,
)
from bot.core.results import Applied, Edited, Ended, Proposal, Recorded, Undone, VoteState
from bot.core.uow import deal_example
from bot.texts.i18n import Safe, Translator, quote
from scoring.deal import Column, LastRound, Record
from scoring.entries import Entry, Reason
from scoring.errors import ScoringError
from scoring.notation import SEATS, format_record, parse_rule_change
from scoring.rules import OPTION_NAMES, Rules, format_option, rules_for
from scoring.settle import Settlement
from scoring.sheet import ScoredRecord, Sheet, Totals
from scoring.voting import majority

MESSAGE_LIMIT: Final = 4000  # Telegram allows 4096 characters; keep a margin for entities
# The longest piece of input an error quotes: a 4,000-character command is answered with its first
# part, and the refusal stays far under Telegram's limit.
QUOTE_LIMIT: Final = 200


_TAG: Final = re.compile(r"<[^>]+>")


def plain_text(text: str) -> str:
    """What a Telegram HTML text shows, without tags or entities (callback answers, lengths)."""
    return html.unescape(_TAG.sub("", text))


def join_lines(lines: Iterable[str]) -> Safe:
    return Safe("\n".join(lines))


def shown_line(t: Translator, record: Record, names: Sequence[str]) -> str:
    """A record's canonical line with the chat's role words (they parse back too)."""
    return format_record(record, names, lang=t.lang)


def player_ref(t: Translator, player: Player) -> str:
    if player.username and player.username != player.name:
        return f"{player.name} (@{player.username})"
    if player.named_only:
        return t("player-named", name=player.name)
    return player.name


def seats_text(t: Translator, state: GameState) -> Safe:
    lines = [
        f"{SEATS[seat]}. {quote(player_ref(t, player))}"
        for seat, player in enumerate(state.players)
    ]
    free = state.seats - len(state.players)
    lines += [f"{SEATS[len(state.players) + i]}. …" for i in range(free)]
    return join_lines(lines)


def rules_brief(t: Translator, state: GameState) -> Safe:
    """Convention, pool, stake and the options that differ from the preset, in one line."""
    convention = t(f"convention-{state.convention}")
    parts: list[str] = [t("rules-brief", convention=convention, pool=_pool(state))]
    if state.stake is not None:
        parts.append(t("rules-stake", stake=t.number(state.stake, places=4)))
    options = {k: v for k, v in state.overrides.items() if k != "pool_target"}
    if options:
        parts.append(", ".join(f"{k}={v}" for k, v in options.items()))
    return Safe(" · ".join(quote(p) for p in parts))


def _pool(state: GameState) -> str:
    rules = state.rules_now()
    if rules is not None:
        return str(rules.pool_target)
    return str(rules_for(state.convention, state.seats, state.overrides).pool_target)


def opened_text(t: Translator, state: GameState, started: bool) -> Safe:
    lines = [
        t("game-opened", game=state.number),
        rules_brief(t, state),
        "",
        t("seats", count=len(state.players), seats=state.seats),
        seats_text(t, state),
    ]
    if started:
        lines += ["", started_text(t, state)]
    else:
        lines += ["", t("join-hint", seats=state.seats)]
    return join_lines(lines)


def started_text(t: Translator, state: GameState, *, with_seats: bool = False) -> Safe:
    dealer = state.players[state.first_dealer].name
    lines: list[str] = [t("game-started", dealer=dealer)]
    if with_seats:
        lines += [rules_brief(t, state), seats_text(t, state)]
    lines.append(t("deal-hint", example=deal_example(state.names, state.first_dealer)))
    return join_lines(lines)


def joined_text(t: Translator, state: GameState, player: Player, started: bool) -> Safe:
    lines: list[str] = [t("joined", name=player.name, count=len(state.players), seats=state.seats)]
    if started:
        lines.append(started_text(t, state, with_seats=True))
    return join_lines(lines)


def left_text(t: Translator, state: GameState, player: Player) -> Safe:
    return t("left", name=player.name, count=len(state.players), seats=state.seats)


def sheet_caption(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    return join_lines(
        [t("sheet-title", game=state.number, deals=sheet.deals), footer_text(t, state, sheet)]
    )


# Every command, in the order /help explains them and the commands menu lists them.
COMMANDS: Final = (
    "newgame",
    "join",
    "leave",
    "deal",
    "undo",
    "edit",
    "score",
    "sheet",
    "history",
    "rules",
    "rule",
    "lastround",
    "dispute",
    "arbiter",
    "export",
    "endgame",
    "games",
    "game",
    "stats",
    "top",
    "me",
    "calc",
    "lang",
    "tz",
    "help",
)


def help_lines(t: Translator) -> list[str]:
    lines: list[str] = [t("help-title")]
    for key in COMMANDS:
        lines += ["", t(f"help-{key}")]
    lines += ["", t("help-notation")]
    return lines


def open_games_text(t: Translator, games: Sequence[tuple[GameState, str | None]]) -> Safe:
    if not games:
        return t("private-no-games")
    lines: list[str] = [t("private-games-title")]
    for state, title in games:
        lines.append(
            t(
                "private-game-line",
                game=state.number,
                chat=title or "?",
                status=t(f"status-{state.status.value}"),
                players=", ".join(state.names) or "…",
            )
        )
    return join_lines(lines)


# -- entries ("why") -------------------------------------------------------------------------
def entry_text(t: Translator, names: Sequence[str], entry: Entry) -> Safe:
    helper = names[entry.source] if entry.source is not None else ""
    reason = t(f"reason-{entry.reason.value}", helper=helper)
    if entry.column is Column.WHISTS and entry.target is not None:
        return t(
            "entry-whists",
            writer=names[entry.player],
            target=names[entry.target],
            amount=t.count(entry.amount, "whist"),
            reason=reason,
        )
    return t(
        "entry-column",
        player=names[entry.player],
        column=t(f"column-{entry.column.value}"),
        amount=t.number(entry.amount, signed=True),
        reason=reason,
    )


def why_text(t: Translator, names: Sequence[str], scored: ScoredRecord) -> Safe:
    lines = [entry_text(t, names, e) for e in scored.entries]
    lines += [t(f"warning-{code}") for code in scored.warnings]
    return join_lines(lines or [t("no-entries")])


def number_label(t: Translator, scored: ScoredRecord) -> str:
    return f"#{scored.number}" if scored.number else t("mark")


def recorded_text(t: Translator, result: Recorded) -> Safe:
    names = result.state.names
    scored = result.scored
    if isinstance(scored.record, LastRound):
        sheet = result.sheet
        size = len(names)
        wait = (sheet.game.first_dealer - sheet.next_dealer) % size  # deals before his turn
        announced = t(
            "last-round-announced",
            start=sheet.deals + wait + 1,
            dealer=names[sheet.game.first_dealer],
            remain=wait + size,
        )
        return join_lines([announced, footer_text(t, result.state, sheet)])
    head = t(
        "deal-recorded",
        number=number_label(t, scored),
        line=shown_line(t, scored.record, names),
    )
    lines = [head, why_text(t, names, scored)]
    lines.append(footer_text(t, result.state, result.sheet))
    return join_lines(lines)


def footer_text(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    if sheet.finished:
        return t("game-finished-hint")
    return t("next-dealer", dealer=state.names[sheet.next_dealer], deals=sheet.deals)


def undone_text(t: Translator, result: Undone) -> Safe:
    return join_lines(
        [
            t(
                "deal-undone",
                number=f"#{result.number}",
                line=result.state.canonical(result.line, t.lang),
            ),
            footer_text(t, result.state, result.sheet),
        ]
    )


def edited_text(t: Translator, result: Edited) -> Safe:
    names = result.state.names
    return join_lines(
        [
            t(
                "deal-edited",
                number=number_label(t, result.scored),
                old=result.state.canonical(result.old, t.lang),
                line=shown_line(t, result.scored.record, names),
            ),
            why_text(t, names, result.scored),
            footer_text(t, result.state, result.sheet),
        ]
    )


# -- score -----------------------------------------------------------------------------------
def balances_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    """One line per player, `Name: +12.5` (and money with a stake)."""
    lines = []
    for seat, name in enumerate(names):
        balance = t.number(settlement.balances[seat], signed=True)
        if settlement.money is not None:
            money = t.money(settlement.money[seat], signed=True)
            lines.append(t("balance-money-line", name=name, whists=balance, money=money))
        else:
            lines.append(t("balance-line", name=name, whists=balance))
    return join_lines(lines)


def transfers_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    if not settlement.transfers:
        return t("nobody-pays")
    lines = []
    for tr in settlement.transfers:
        if tr.money is not None:
            amount = t(
                "transfer-money", money=t.money(tr.money), whists=t.count(tr.whists, "whist")
            )
        else:
            amount = Safe(quote(t.count(tr.whists, "whist")))
        lines.append(
            t("transfer-line", debtor=names[tr.debtor], creditor=names[tr.creditor], amount=amount)
        )
    return join_lines(lines)


def totals_text(t: Translator, names: Sequence[str], sheet: Sheet) -> Safe:
    """The sheet in text: pool, mountain and whists written on each other player."""
    return totals_lines(t, names, sheet.totals, sheet.closed_pools)


def totals_lines(
    t: Translator, names: Sequence[str], totals: Totals, closed_pools: Collection[int]
) -> Safe:
    """Each player's line of totals (a live sheet's, or a paper sheet's as typed)."""
    lines = []
    for seat, name in enumerate(names):
        whists = ", ".join(
            f"{names[other]} {t.number(totals.whists[seat][other])}"
            for other in range(len(names))
            if other != seat
        )
        closed = t("pool-closed") if seat in closed_pools else ""
        lines.append(
            t(
                "totals-line",
                name=name,
                pool=t.number(totals.pool[seat]),
                closed=closed,
                mountain=t.number(totals.mountain[seat]),
                whists=whists,
            )
        )
    return join_lines(lines)


def score_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    names = state.names
    key = "score-head-ended" if state.ended_reason else "score-head"
    if key == "score-head" and sheet.finished:
        key = "score-head-finished"  # the end rule is met: the final score, not "if it ended now"
    lines = [
        t(key, game=state.number, deals=sheet.deals),
        rules_brief(t, state),
        "",
        t("balances-title"),
        balances_text(t, names, settlement),
        "",
        t("transfers-title"),
        transfers_text(t, names, settlement),
        "",
        t("totals-title"),
        totals_text(t, names, sheet),
    ]
    return join_lines(lines)


def sheet_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    """The sheet when no picture can be drawn."""
    names = state.names
    return join_lines(
        [
            t("sheet-title", game=state.number, deals=sheet.deals),
            totals_text(t, names, sheet),
            "",
            t("balances-title"),
            balances_text(t, names, settlement),
        ]
    )


def ended_text(t: Translator, ended: Ended) -> Safe:
    state = ended.state
    lines: list[str] = [t(f"game-ended-{ended.reason}", game=state.number)]
    if ended.sheet is not None and ended.settlement is not None:
        lines += ["", score_text(t, state, ended.sheet, ended.settlement)]
    return join_lines(lines)


def vote_text(t: Translator, result: VoteState) -> Safe:
    """The vote message: what is proposed (a record before and after, with its entries and the
    balances it changes), who decides, each voter's ballot, and how it stands or ended."""
    vote, state = result.vote, result.state
    proposer = state.player_name(vote.author) or "?"
    event = vote.event
    line = "" if isinstance(event, EndProposed | ArbiterProposed) else event.line
    proposal = result.proposal
    number = proposal.number if proposal is not None else "?"
    head = t(
        f"vote-{vote.kind.value}",
        game=state.number,
        number=number,
        proposer=proposer,
        writer=(proposal.writer if proposal is not None else None) or "?",
        arbiter=arbiter_name(event.arbiter if isinstance(event, ArbiterProposed) else None),
        line=line,
    )
    lines: list[str] = [head]
    if vote.kind is not Kind.END_PROPOSED:
        count = len(result.voters)
        if vote.threshold == "majority":
            lines.append(t("vote-majority", need=majority(count), count=count))
        else:
            lines.append(t("vote-all"))
    if proposal is not None:
        lines += proposal_lines(t, state, proposal)
    elif isinstance(event, CorrectionProposed | LateDealProposed):
        lines.append(t("vote-line", line=state.canonical(event.line, t.lang)))
    elif isinstance(event, RuleChangeProposed):
        change = parse_rule_change(event.line)
        option, value = (change.option, change.value) if change is not None else ("?", "?")
        lines.append(t("vote-rule-change", option=option, old=event.old, value=value))
    lines.append("")
    for voter in result.voters:
        ballot = vote.ballot(voter)
        mark = "✅" if ballot else ("❌" if ballot is False else "…")
        lines.append(f"{mark} {quote(voter.name)}")
    arbiter = arbiter_name(state.arbiter)
    if result.passed is None and vote.referred is not None:
        lines.append(t(f"vote-referred-{vote.referred}", arbiter=arbiter))
    elif result.passed is None:
        lines.append(t("vote-open", deadline=vote.deadline.strftime("%H:%M UTC")))
    elif result.reason == "arbiter":
        decided = "vote-arbiter-accepted" if result.passed else "vote-arbiter-rejected"
        lines.append(t(decided, arbiter=arbiter))
    elif result.passed:
        lines.append(t("vote-passed"))
    else:
        lines.append(t(f"vote-rejected-{result.reason or 'certain'}"))
    return join_lines(lines)


def arbiter_name(player: Player | None) -> str:
    if player is None:
        return "?"
    return f"@{player.username}" if player.username else player.name


def proposal_lines(t: Translator, state: GameState, proposal: Proposal) -> list[str]:
    """The record before and after with the entries each writes, and the balances that change."""
    names = state.names
    lines: list[str] = []
    if proposal.old is not None:
        lines.append(t("vote-was", line=shown_line(t, proposal.old.record, names)))
        lines.append(why_text(t, names, proposal.old))
    key = "vote-now" if proposal.old is not None else "vote-deal"
    lines.append(t(key, line=shown_line(t, proposal.new.record, names)))
    lines.append(why_text(t, names, proposal.new))
    changes = [
        t(
            "vote-balance",
            name=name,
            before=t.number(before, signed=True),
            after=t.number(after, signed=True),
        )
        for name, before, after in zip(names, proposal.before, proposal.after, strict=True)
        if before != after
    ]
    if changes:
        lines.append(t("vote-balances", changes=Safe(" · ".join(changes))))
    writer = proposal.writer or "?"
    if proposal.warning:
        lines.append(t("vote-penalty-warning", name=writer))
    if proposal.penalty:
        lines.append(t("vote-penalty-title", name=writer))
        for adjust in proposal.penalty:
            entry = Entry(
                adjust.player, adjust.column, adjust.amount, Reason.ADJUST, adjust.target
            )
            lines.append(entry_text(t, names, entry))
    return lines


def applied_text(t: Translator, state: GameState, applied: Applied) -> Safe:
    """What a passed vote on a record did, for the caption of the sheet sent after it."""
    names = state.names
    line = shown_line(t, applied.scored.record, names)
    if applied.old is None:
        head = t("late-applied", number=f"#{applied.number}", line=line)
    else:
        old = state.canonical(applied.old, t.lang)
        head = t("correction-applied", number=f"#{applied.number}", old=old, line=line)
    lines: list[str] = [head, why_text(t, names, applied.scored)]
    if applied.warning is not None:
        lines.append(t("penalty-warning", name=applied.warning))
    if applied.penalties:
        lines.append(t("penalty-title", name=applied.writer or "?"))
        for scored in applied.penalties:
            lines.append(why_text(t, names, scored))
    lines.append(footer_text(t, state, applied.sheet))
    return join_lines(lines)


def arbiter_text(t: Translator, state: GameState) -> Safe:
    if state.arbiter is None:
        return t("arbiter-none")
    return t("arbiter-named", arbiter=arbiter_name(state.arbiter))


# -- rules ---------------------------------------------------------------------------------
def rules_text(t: Translator, state: GameState) -> Safe:
    lines: list[str] = [t("rules-title", game=state.number), rules_brief(t, state), ""]
    rules = state.rules_now()
    mid_game = state.changed_options()
    if rules is None:
        rules = rules_for(state.convention, state.seats, state.overrides)
        lines.append(t("rules-not-frozen"))
    elif mid_game:
        lines.append(t("rules-changed-mid-game"))
    lines += option_lines(t, rules, set(state.overrides), mid_game)
    return join_lines(lines)


def option_lines(
    t: Translator, rules: Rules, changed: set[str], mid_game: set[str] | None = None
) -> list[str]:
    """One line per option; ✎ differs from the preset, 🔄 was changed mid-game by a vote."""
    lines = []
    for name in OPTION_NAMES:
        value = format_option(getattr(rules, name))
        label = t.template(f"options.{name}")
        mark = " ✎" if name in changed else ""
        if mid_game and name in mid_game:
            mark += " 🔄"
        lines.append(f"<code>{quote(name)}={quote(value)}</code>{mark} — {quote(label)}")
    return lines


def chunks(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[Safe]:
    """Lines packed into messages under Telegram's length limit."""
    out: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if out[-1] and size + len(line) + 1 > limit:
            out.append([])
            size = 0
        out[-1].append(line)
        size += len(line) + 1
    return [join_lines(part) for part in out if part]


# -- errors ---------------------------------------------------------------------------------
def capped(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Quoted input cut to its first `limit` characters (the cut marked with "…")."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_text(t: Translator, error: ScoringError) -> Safe:
    """`error-<code>` with the input at fault and one correct example, each quoted piece capped."""
    params = {k: capped(v) for k, v in error.params.items() if k != "record"}
    lines: list[str] = [t(f"error-{error.code}", **params)]
    if error.span:
        lines.append(t("error-span", span=capped(error.span)))
    if error.example:
        lines.append(t("error-example", example=capped(example_in(t.lang, error.example))))
    return join_lines(lines)


def edited_by_message_text(t: Translator, result: Edited) -> Safe:
    """An edited /deal message that corrected its record: said so, then as /edit answers."""
    return join_lines([t("deal-edited-by-message"), edited_text(t, result)])


_RU_WORDS: Final = {"vist": "вист", "pass": "пас", "half": "пол"}
_RU_TOKENS: Final = {"misere": "мизер", "three_down": "без трёх", "open": "светлую"}


def example_in(lang: str, example: str) -> str:
    """An example deal line with the chat's role words (Russian: `вист:`, `пас:`, `мизер`), so a
    Russian chat never reads English notation words; names and numbers stay."""
    if lang != "ru" or not example.startswith("/deal"):
        return example
    words = []
    for word in example.split(" "):
        role, colon, rest = word.partition(":")
        if colon and role in _RU_WORDS:
            word = f"{_RU_WORDS[role]}:{rest}"
        words.append(_RU_TOKENS.get(word, word))
    return " ".join(words)
