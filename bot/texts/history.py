"""/history: every event of a game in order as chat lines (corrections.md "Audit"), read from the
typed events decoded again from the rows (`GameState.logged`). Pure, no aiogram."""

from __future__ import annotations

from datetime import UTC, tzinfo

from bot.core import events as ev
from bot.core.ledger import debts_of
from bot.core.state import GameState, Vote
from bot.domain import EventRow
from bot.texts.debts import debt_history_line
from bot.texts.i18n import Safe, Translator, chat_time, quote
from bot.texts.views import number_label, option_said, option_value, rules_brief
from bot.texts.votes import arbiter_name
from scoring.errors import ScoringError
from scoring.notation import parse_rule_change
from scoring.sheet import Sheet


def history_lines(
    t: Translator, state: GameState, sheet: Sheet | None, zone: tzinfo = UTC
) -> list[str]:
    """Every event of the game in order (corrections.md "Audit"): records with their numbers as
    they stand, undos and pencil edits, votes with who voted how, penalties, the arbiter, the end;
    each at its time in the chat's `zone` (the start with its date)."""
    lines: list[str] = [t("history-title", game=state.number)]
    numbers: dict[int, str] = {}
    if sheet is not None:
        in_force = [item.seq for item in state.records]
        numbers = {
            seq: number_label(t, sc) for seq, sc in zip(in_force, sheet.records, strict=True)
        }
    debts = debts_of(state.game_id, state.chat_id, state.number, state.debt_rows)
    for row, event in state.logged():
        if isinstance(event, ev.DebtOpened | ev.DebtMarked):
            lines.append(debt_history_line(t, row, event, debts, zone))
        else:
            lines += _event_lines(t, state, row, event, numbers, zone)
    if not state.items:
        lines.append(t("history-empty"))
    return lines


def _event_lines(
    t: Translator,
    state: GameState,
    row: EventRow,
    event: ev.Event,
    numbers: dict[int, str],
    zone: tzinfo,
) -> list[str]:
    time = chat_time(row.at, zone, t.lang, date=False)
    who = state.player_name(row.author) or "?"
    match event:
        case ev.Dealt() | ev.RuleChanged() | ev.LastRoundMarked() | ev.Penalized():
            item = state.item(row.seq)
            rule = isinstance(event, ev.RuleChanged)
            line = item.line if rule else state.canonical(item.line, t.lang)
            number = numbers.get(row.seq, "?")
            if item.undone:
                return [t("history-undone", line=line, time=time, author=who)]
            if isinstance(event, ev.Penalized):
                return [t("history-penalty", line=line, vote=event.vote, time=time)]
            if isinstance(event, ev.RuleChanged):
                vote = "?" if event.vote is None else event.vote
                line = rule_said(t, item.line)
                return [t("history-rule-changed", line=line, vote=vote, time=time)]
            if isinstance(event, ev.Dealt) and event.vote is not None:
                return [t("history-late", number=number, line=line, vote=event.vote, time=time)]
            return [t("history-line", number=number, line=line, time=time, author=who)]
        case ev.DealEdited():
            number = numbers.get(event.target, "?")
            old, line = state.canonical(event.old, t.lang), state.canonical(event.line, t.lang)
            if event.vote is None:
                return [t("history-edited", number=number, old=old, line=line, author=who)]
            out: list[str] = [
                t("history-corrected", number=number, old=old, line=line, vote=event.vote)
            ]
            if event.warning:
                writer = state.player_name(state.item(event.target).author) or "?"
                out.append(t("history-warning", name=writer))
            return out
        case (
            ev.EndProposed()
            | ev.CorrectionProposed()
            | ev.LateDealProposed()
            | ev.ArbiterProposed()
            | ev.RuleChangeProposed()
        ):
            target = getattr(event, "target", getattr(event, "before", 0))
            line, old = getattr(event, "line", ""), getattr(event, "old", "")
            if isinstance(event, ev.CorrectionProposed | ev.LateDealProposed):
                line, old = state.canonical(line, t.lang), old and state.canonical(old, t.lang)
            elif isinstance(event, ev.RuleChangeProposed):
                line, old = rule_said(t, line), option_value(t, old)
            arbiter = event.arbiter if isinstance(event, ev.ArbiterProposed) else None
            out = [
                t(
                    f"history-{event.KIND.value}",
                    vote=row.seq,
                    who=who,
                    time=time,
                    number=numbers.get(target, "?"),
                    old=old,
                    line=line,
                    arbiter=arbiter_name(arbiter),
                    was=old,
                )
            ]
            vote_state = state.votes[row.seq]
            if not vote_state.closed:
                out.append(t("history-vote-open", ballots=_ballots(state, vote_state)))
            return out
        case ev.VoteReferred():
            return [t(f"history-referred-{event.reason}", vote=event.vote, time=time)]
        case ev.VoteClosed():
            result = "passed" if event.passed else "rejected"
            return [
                t(
                    f"history-vote-{result}",
                    vote=event.vote,
                    time=time,
                    why=t(f"history-why-{event.reason}", arbiter=who),
                    ballots=_ballots(state, state.votes[event.vote]),
                )
            ]
        case ev.ArbiterNamed():
            return [t("history-arbiter", arbiter=arbiter_name(event.arbiter), time=time)]
        case ev.GameStarted():
            started = chat_time(row.at, zone, t.lang)
            return [t("history-started", time=started, rules=rules_brief(t, state))]
        case ev.GameEnded():
            return [t(f"game-ended-{event.reason}", game=state.number)]
        case ev.SeatLinked():
            username = event.player.username or ""
            return [t("history-linked", username=username, name=event.player.name, time=time)]
    return []


def rule_said(t: Translator, line: str) -> str:
    """An `option name=value` line in the chat's words; a line that does not read, as it is."""
    try:
        change = parse_rule_change(line)
    except ScoringError:
        return line
    return option_said(t, change.option, change.value) if change is not None else line


def _ballots(state: GameState, vote: Vote) -> Safe:
    parts = []
    for user_id, yes in vote.ballots.items():
        name = state.player_name(user_id) or vote.usernames.get(user_id) or "?"
        parts.append(f"{'✅' if yes else '❌'} {quote(name)}")
    return Safe(", ".join(parts) or "—")
