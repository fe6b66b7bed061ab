"""A vote in text: what is proposed, who decides, the ballots, and what a passed vote did."""

from datetime import tzinfo
from typing import Final

from bot.core import GameState, Player
from bot.core import events as ev
from bot.core.results import Applied, Proposal, VoteState
from bot.texts.i18n import Safe, Translator, chat_time, quote
from bot.texts.views import (
    entry_text,
    footer_text,
    join_lines,
    option_label,
    option_value,
    shown_line,
    why_text,
)
from scoring.notation import parse_rule_change
from scoring.sheet import Entry, Reason
from scoring.voting import majority

BALLOT_MARKS: Final = {True: "✅", False: "❌", None: "…"}  # yes, no, not yet


def vote_text(t: Translator, result: VoteState, zone: tzinfo) -> Safe:
    """The vote message: what is proposed, who decides, each voter's ballot, and how it stands."""
    vote, state, proposal, event = result.vote, result.state, result.proposal, result.vote.event
    line = "" if isinstance(event, ev.EndProposed | ev.ArbiterProposed) else event.line
    number, writer = ("?", None) if proposal is None else (proposal.number, proposal.writer)
    arbiter = arbiter_name(event.arbiter if isinstance(event, ev.ArbiterProposed) else None)
    proposer = state.player_name(vote.author) or "?"
    said = {"game": state.number, "number": number, "proposer": proposer, "line": line}
    head = t(f"vote-{vote.kind.value}", **said, writer=writer or "?", arbiter=arbiter)
    lines: list[str] = [head]
    if vote.kind is not ev.Kind.END_PROPOSED:
        count = len(result.voters)
        key = "vote-majority" if vote.threshold == "majority" else "vote-all"
        lines.append(t(key, need=majority(count), count=count))
    if proposal is not None:
        lines += proposal_lines(t, state, proposal)
    elif isinstance(event, ev.CorrectionProposed | ev.LateDealProposed):
        lines.append(t("vote-line", line=state.canonical(event.line, t.lang)))
    elif isinstance(event, ev.RuleChangeProposed):
        change = parse_rule_change(event.line)
        option, value = (change.option, change.value) if change is not None else ("?", "?")
        old, value = option_value(t, event.old), option_value(t, value)
        lines.append(t("vote-rule-change", option=option_label(t, option), old=old, value=value))
    lines.append("")
    lines += [f"{BALLOT_MARKS[vote.ballot(v)]} {quote(v.name)}" for v in result.voters]
    if result.passed is None:
        key = "vote-open" if vote.referred is None else f"vote-referred-{vote.referred}"
    elif result.reason == "arbiter":
        key = "vote-arbiter-accepted" if result.passed else "vote-arbiter-rejected"
    else:
        key = "vote-passed" if result.passed else f"vote-rejected-{result.reason or 'certain'}"
    deadline = chat_time(vote.deadline, zone, t.lang, date=False, label=True)
    return join_lines([*lines, t(key, arbiter=arbiter_name(state.arbiter), deadline=deadline)])


def arbiter_name(player: Player | None) -> str:
    """The arbiter by his name once his account has acted (or the opener named him), by his
    @username until then: nothing else is known of him."""
    if player is None:
        return "?"
    if player.username and player.user_id is None and player.name == player.username:
        return f"@{player.username}"
    return player.name


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
    shown = [
        (name, t.number(before, signed=True), t.number(after, signed=True))
        for name, before, after in zip(names, proposal.before, proposal.after, strict=True)
        if before != after
    ]
    changes = [t("vote-balance", name=n, before=was, after=now) for n, was, now in shown]
    if changes:
        lines.append(t("vote-balances", changes=Safe(" · ".join(changes))))
    writer = proposal.writer or "?"
    if proposal.warning:
        lines.append(t("vote-penalty-warning", name=writer))
    if proposal.penalty:
        lines.append(t("vote-penalty-title", name=writer))
        for adj in proposal.penalty:
            entry = Entry(adj.player, adj.column, adj.amount, Reason.ADJUST, adj.target)
            lines.append(entry_text(t, names, entry))
    return lines


def applied_text(t: Translator, state: GameState, applied: Applied) -> Safe:
    """What a passed vote on a record did, for the caption of the sheet sent after it."""
    names = state.names
    said = {"number": f"#{applied.number}", "line": shown_line(t, applied.scored.record, names)}
    if applied.old is None:
        head = t("late-applied", **said)
    else:
        head = t("correction-applied", **said, old=state.canonical(applied.old, t.lang))
    lines: list[str] = [head, why_text(t, names, applied.scored)]
    if applied.warning is not None:
        lines.append(t("penalty-warning", name=applied.warning))
    if applied.penalties:
        lines.append(t("penalty-title", name=applied.writer or "?"))
        lines += [why_text(t, names, scored) for scored in applied.penalties]
    lines.append(footer_text(t, state, applied.sheet))
    return join_lines(lines)


def arbiter_text(t: Translator, state: GameState) -> Safe:
    if state.arbiter is None:
        return t("arbiter-none")
    return t("arbiter-named", arbiter=arbiter_name(state.arbiter))
