"""A game's past as chat texts: the archive's pages of games (a chat's, or an account's in every
chat), and /history, every event of a game in order (corrections.md "Audit")."""

from collections.abc import Mapping
from datetime import tzinfo

from bot.core import events as ev
from bot.core.archive import GameLine, GamesPage
from bot.core.ledger import Debt, debts_of
from bot.core.state import GameState, Vote
from bot.domain import EventRow, GameStatus
from bot.texts import views
from bot.texts.debts import sides
from bot.texts.i18n import Safe, Translator, chat_time, quote
from bot.texts.votes import BALLOT_MARKS, arbiter_name
from scoring.errors import ScoringError
from scoring.notation import parse_rule_change
from scoring.sheet import Sheet


def history_lines(t: Translator, state: GameState, sheet: Sheet | None, zone: tzinfo) -> list[str]:
    """Records with their numbers as they stand, undos and pencil edits, votes with who voted how,
    penalties, the arbiter, the end; each at its time in the chat's `zone` (the start dated)."""
    lines: list[str] = [t("history-title", game=state.number)]
    numbers: dict[int, str] = {}
    if sheet is not None:
        pairs = zip(state.records, sheet.records, strict=True)
        numbers = {item.seq: views.number_label(t, scored) for item, scored in pairs}
    debts = debts_of(state.game_id, state.chat_id, state.number, state.debt_rows)
    for row, event in state.logged():
        lines += _event_lines(t, state, row, event, numbers, debts, zone)
    if not state.items:
        lines.append(t("history-empty"))
    return lines


def _event_lines(
    t: Translator,
    state: GameState,
    row: EventRow,
    event: ev.Event,
    numbers: dict[int, str],
    debts: Mapping[int, Debt],
    zone: tzinfo,
) -> list[str]:
    # every line names its time and author (a text without them leaves them out)
    who, time = state.player_name(row.author) or "?", chat_time(row.at, zone, t.lang, date=False)
    said: dict[str, object] = {"time": time, "author": who, "who": who}
    match event:
        case ev.Dealt() | ev.RuleChanged() | ev.LastRoundMarked() | ev.Penalized():
            item = state.item(row.seq)
            rule = isinstance(event, ev.RuleChanged)
            line = item.line if rule else state.canonical(item.line, t.lang)
            said.update(line=line, number=numbers.get(row.seq, "?"))
            if item.undone:
                return [t("history-undone", **said)]
            if isinstance(event, ev.Penalized):
                return [t("history-penalty", **said, vote=event.vote)]
            if isinstance(event, ev.RuleChanged):
                said["line"] = rule_said(t, line)
                vote = "?" if event.vote is None else event.vote
                return [t("history-rule-changed", **said, vote=vote)]
            if isinstance(event, ev.Dealt) and event.vote is not None:
                return [t("history-late", **said, vote=event.vote)]
            return [t("history-line", **said)]
        case ev.DealEdited():
            old, line = state.canonical(event.old, t.lang), state.canonical(event.line, t.lang)
            said.update(number=numbers.get(event.target, "?"), old=old, line=line)
            if event.vote is None:
                return [t("history-edited", **said)]
            out: list[str] = [t("history-corrected", **said, vote=event.vote)]
            if event.warning:
                writer = state.player_name(state.item(event.target).author) or "?"
                out.append(t("history-warning", name=writer))
            return out
        case _ if isinstance(event, ev.Proposed):
            target = getattr(event, "target", getattr(event, "before", 0))
            line, old = getattr(event, "line", ""), getattr(event, "old", "")
            if isinstance(event, ev.CorrectionProposed | ev.LateDealProposed):
                line, old = state.canonical(line, t.lang), old and state.canonical(old, t.lang)
            elif isinstance(event, ev.RuleChangeProposed):
                line, old = rule_said(t, line), views.option_value(t, old)
            arbiter = event.arbiter if isinstance(event, ev.ArbiterProposed) else None
            said.update(vote=row.seq, number=numbers.get(target, "?"), old=old, was=old, line=line)
            out = [t(f"history-{event.KIND.value}", **said, arbiter=arbiter_name(arbiter))]
            vote_state = state.votes[row.seq]
            if not vote_state.closed:
                out.append(t("history-vote-open", ballots=_ballots(state, vote_state)))
            return out
        case ev.VoteReferred():
            return [t(f"history-referred-{event.reason}", **said, vote=event.vote)]
        case ev.VoteClosed():
            result = "passed" if event.passed else "rejected"
            why = t(f"history-why-{event.reason}", arbiter=who)
            ballots = _ballots(state, state.votes[event.vote])
            return [t(f"history-vote-{result}", **said, vote=event.vote, why=why, ballots=ballots)]
        case ev.ArbiterNamed():
            return [t("history-arbiter", **said, arbiter=arbiter_name(event.arbiter))]
        case ev.GameStarted():
            started = chat_time(row.at, zone, t.lang)
            return [t("history-started", time=started, rules=views.rules_brief(t, state))]
        case ev.GameEnded():
            return [t(f"game-ended-{event.reason}", game=state.number)]
        case ev.DebtOpened():  # opened by the game's end
            return [t("history-debt-opened", **said, **sides(t, debts[row.seq]))]
        case ev.DebtMarked():
            return [t(f"history-debt-{event.side.value}", **said, **sides(t, debts[event.debt]))]
        case ev.SeatLinked():
            username = event.player.username or ""
            return [t("history-linked", **said, username=username, name=event.player.name)]
    return []


def rule_said(t: Translator, line: str) -> str:
    """An `option name=value` line in the chat's words; a line that does not read, as it is."""
    try:
        change = parse_rule_change(line)
    except ScoringError:
        return line
    return views.option_said(t, change.option, change.value) if change is not None else line


def _ballots(state: GameState, vote: Vote) -> Safe:
    parts = []
    for user_id, yes in vote.ballots.items():
        name = state.player_name(user_id) or vote.usernames.get(user_id) or "?"
        parts.append(f"{BALLOT_MARKS[yes]} {quote(name)}")
    return Safe(", ".join(parts) or "—")


def game_state_text(t: Translator, line: GameLine) -> Safe:
    """What became of the game: forming, playing, cancelled, or its balances once it ended."""
    players = ", ".join(line.names) or "…"
    if line.status is not GameStatus.ENDED:
        return t(f"archive-state-{line.status.value}", players=players)
    if line.reason is ev.EndReason.CANCELLED:
        return t("archive-state-cancelled", players=players)
    if line.balances is None or not line.deals:
        return t("archive-state-unplayed", players=players)
    parts = [
        t("archive-balance", name=name, whists=t.number(balance, signed=True))
        for name, balance in zip(line.names, line.balances, strict=True)
    ]
    deals = t.count(line.deals, "deal")
    return t("archive-state-ended", deals=deals, balances=Safe(" · ".join(parts)))


def games_text(t: Translator, page: GamesPage, *, private: bool = False) -> Safe:
    """A page of games newest first, with how to open one."""
    if not page.lines:
        return t("archive-private-empty" if private else "archive-empty")
    title = "archive-private-title" if private else "archive-title"
    lines: list[str] = [t(title, count=page.total, page=page.page + 1, pages=page.pages)]
    for line in page.lines:
        date = chat_time(line.created_at, page.zone, t.lang, clock=False)
        shown = {"game": line.number, "chat": line.chat_title or "?", "date": date}
        convention, state = t(f"convention-{line.convention}"), game_state_text(t, line)
        key = "archive-line-private" if private else "archive-line"
        lines.append(t(key, **shown, convention=convention, state=state))
    lines += ["", t("archive-private-hint" if private else "archive-hint")]
    return views.join_lines(lines)


def look_caption(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    """The caption of a game's sheet: an ended game's says so (no hint to end it)."""
    if state.status is GameStatus.ENDED:
        return t("archive-sheet-ended", game=state.number, deals=sheet.deals)
    return views.sheet_caption(t, state, sheet)
