"""End-to-end: disputed records with the real bot process against the fake Bot API (issue 6).

One scenario per row of spec/corrections.md's table, each in a chat of its own on the module's bot:
a pencil-rule edit; a dispute passed 2:1 and one rejected 1:2; a dispute after the window refused
(and the writer's own proposal left to time out while the bot runs); a late deal vetoed by one
player and one every player agrees to; a second correction by the same writer drawing the mirror
penalty under `russian`; a vote kept across a restart and one that times out while the bot is
down; an arbiter's decision of a tied vote. After each, `/export` sends the protocol file, and
`python -m scoring replay --json` on it gives exactly the balances of the records the test
expects, which are the balances /score shows (to the one decimal it shows).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, DMITRY, Chat, Sent, User
from tests.e2e.harness import (
    WAIT,
    BotProcess,
    Member,
    contains,
    is_photo,
    scoring_replay,
)
from tests.e2e.test_game_e2e import ROUNDING, balance_lines, shown_amount

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one bot process for the module

EVA = User(1005, "Eva", "eva_arbiter", language_code="en")  # the arbiter: watches, never plays
PENCIL = Chat(-1001500000011, "supergroup", "Pencil rule")
DISPUTES = Chat(-1001500000012, "supergroup", "Disputes")
WINDOW = Chat(-1001500000013, "supergroup", "After the window")
LATE = Chat(-1001500000014, "supergroup", "Late deals")
PENALTY = Chat(-1001500000015, "supergroup", "Record penalties")
RESTART = Chat(-1001500000016, "supergroup", "A vote across a restart")
DOWN = Chat(-1001500000018, "supergroup", "A vote timed out while the bot is down")
ARBITER = Chat(-1001500000017, "supergroup", "An arbiter")

DEAL_1 = "Anna 6♠ = vist:Boris pass:Clara"
DEAL_1_FIXED = "Anna 6♠ -1 vist:Boris pass:Clara"
DEAL_2 = "Boris 7♥ -1 pass:Clara vist:Anna"
DEAL_3 = "Clara misere 1"


def has_buttons(sent: Sent) -> bool:
    return bool(sent.buttons)


def is_document(sent: Sent) -> bool:
    return sent.method == "sendDocument"


class Table:
    """Players (and a watcher) in one chat; `records` are the records the test expects in force,
    in play order, as protocol lines."""

    def __init__(self, bot: BotProcess, chat: Chat, users: tuple[User, ...]) -> None:
        self.bot = bot
        self.server = bot.server
        self.chat = chat
        self.players = tuple(u.first_name for u in users)
        self.members = {u.first_name: Member(bot, chat, u) for u in (*users, DMITRY, EVA)}
        self.records: list[str] = []

    async def open(self, args: str) -> None:
        """Anna opens the game with `args`; the players join in seat order."""
        first = self.members[self.players[0]]
        await first.say("/lang en", contains("English"))  # else the opener's (issue 13)
        await first.say(f"/newgame {args}", contains("game #"))
        for name in self.players:
            reply = await self.members[name].say("/join", contains(name))
        assert "The game is on" in reply.text, reply.text

    async def deal(self, who: str, line: str) -> Sent:
        photo = await self.members[who].say(f"/deal {line}", is_photo)
        assert photo.text.startswith(f"#{self.deals + 1} "), photo.text
        self.records.append(line)
        return photo

    @property
    def deals(self) -> int:
        return sum(1 for line in self.records if not line.startswith("adjust"))

    async def propose(self, who: str, command: str) -> Sent:
        """A command that opens a vote; the vote message (with its ✅/❌)."""
        vote = await self.members[who].say(command, has_buttons)
        assert "🗳" in vote.text, vote.text
        return vote

    async def press(
        self, who: str, vote: Sent, yes: bool, until: Any = None, *, refused: bool = False
    ) -> str:
        """`who` presses ✅ or ❌ under the vote; the toast he gets, once the vote message is
        redrawn (or `until` is seen; nothing is awaited for a `refused` press)."""
        if until is None and not refused:
            until = self.redrawn(vote)
        answer = await self.members[who].press(vote, "Yes" if yes else "No", until)
        return str(answer.get("text", ""))

    @staticmethod
    def redrawn(vote: Sent) -> Any:
        return lambda sent: sent.is_edit and sent.message_id == vote.message_id

    def shown(self, vote: Sent) -> str:
        """The vote message as it stands now."""
        return str(self.server.message(self.chat, vote.message_id).get("text", ""))

    async def refused(self, who: str, command: str) -> Sent:
        since = self.server.cursor(self.chat)
        error = await self.members[who].say(command)
        await self.server.wait_idle()
        shown = self.server.sent[self.chat.id][since:]
        assert not any(s.is_photo or s.buttons for s in shown), self.server.describe(self.chat)
        return error

    async def check(self, tmp_path: Path) -> str:
        """/export: the protocol file replays to exactly the balances of the expected records,
        and /score shows them; the JSON log lists every event. The protocol's text."""
        since = self.server.cursor(self.chat)
        watcher = self.members["Dmitry"]
        watcher.send("/export")
        await watcher.wait(contains("every event as JSON"), since=since)
        documents = [s for s in self.server.sent[self.chat.id][since:] if is_document(s)]
        protocol_doc, log_doc = documents
        assert protocol_doc.message["document"]["file_name"].endswith(".pref")
        assert protocol_doc.document is not None and log_doc.document is not None
        protocol = protocol_doc.document.decode()
        log = json.loads(log_doc.document)
        assert log["events"][0]["kind"] == "game_created"
        exported = await scoring_replay(tmp_path / f"{self.chat.id}-export.pref", protocol)
        expected = "".join(line + "\n" for line in [*header_lines(protocol), *self.records])
        replayed = await scoring_replay(tmp_path / f"{self.chat.id}-expected.pref", expected)
        assert exported["balances_exact"] == replayed["balances_exact"]
        assert exported["deals"] == self.deals
        score = await watcher.say("/score", lambda s: set(balance_lines(s.text)) >= {"Anna"})
        for name, text in balance_lines(score.text).items():
            exact = exported["balances_exact"][name]
            assert abs(shown_amount(text) - exact) <= ROUNDING, (name, text, exact)
        return protocol


def header_lines(protocol: str) -> list[str]:
    """The `# key: value` lines before the first record."""
    lines = []
    for line in protocol.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return lines


THREE = (ANNA, BORIS, CLARA)


async def test_a_pencil_rule_edit_is_free_and_shown_in_the_history(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """corrections.md 4.2.8: the writer fixes his record freely while the pen is in his hand."""
    table = Table(shared_bot, PENCIL, THREE)
    await table.open("sochi pool 10")
    await table.deal("Anna", DEAL_1)
    anna = table.members["Anna"]
    fixed = await anna.say(f"/edit {DEAL_1_FIXED}", contains("corrected"))
    assert DEAL_1 in fixed.text and DEAL_1_FIXED in fixed.text
    table.records[-1] = DEAL_1_FIXED
    history = await table.members["Dmitry"].say("/history", contains("every event"))
    assert "under the pencil rule" in history.text and f"was: {DEAL_1}" in history.text
    protocol = await table.check(tmp_path)
    assert "edited by Anna under the pencil rule" in protocol


async def test_a_dispute_passes_two_to_one_and_another_is_rejected_one_to_two(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """corrections.md 4.2.9 and "A vote": inside the window a majority of players decides."""
    table = Table(shared_bot, DISPUTES, THREE)
    await table.open("sochi pool 10 pencil_seconds=0")
    await table.deal("Anna", DEAL_1)
    vote = await table.propose("Boris", f"/dispute 1 {DEAL_1_FIXED}")
    assert "Correct #1?" in vote.text and f"Was: {DEAL_1}" in vote.text
    assert f"Now: {DEAL_1_FIXED}" in vote.text and "Anna: mountain +2" in vote.text
    assert "counted" in await table.press("Clara", vote, yes=False)
    assert "❌ Clara" in table.shown(vote) and "Open until" in table.shown(vote)
    await table.press("Anna", vote, yes=True, until=is_photo)
    assert "✅ Agreed." in table.shown(vote)
    assert not table.server.message(table.chat, vote.message_id).get("reply_markup")
    table.records[0] = DEAL_1_FIXED

    await table.deal("Boris", DEAL_2)
    rejected = await table.propose("Clara", "/dispute 2 Boris 7♥ -2 pass:Clara vist:Anna")
    await table.press("Anna", rejected, yes=False)
    await table.press("Boris", rejected, yes=False, until=contains("Rejected"))
    assert "❌ Rejected." in table.shown(rejected)
    history = await table.members["Dmitry"].say("/history", contains("every event"))
    assert "✅ Boris, ❌ Clara, ✅ Anna" in history.text
    assert "✅ Clara, ❌ Anna, ❌ Boris" in history.text
    protocol = await table.check(tmp_path)
    assert f"{DEAL_1} -> {DEAL_1_FIXED}; passed" in protocol


async def test_a_dispute_after_the_window_is_refused_and_the_writers_own_times_out(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """corrections.md 4.2.9: after the next deal's grace only the writer may propose, and every
    player must agree; a vote nobody finishes is closed as rejected by the bot's clock."""
    table = Table(shared_bot, WINDOW, THREE)
    await table.open("sochi pool 10 dispute_grace_seconds=1 vote_seconds=3")
    await table.deal("Anna", DEAL_1)
    await table.deal("Boris", DEAL_2)
    await asyncio.sleep(1.5)
    error = await table.refused("Clara", f"/dispute 1 {DEAL_1_FIXED}")
    assert "only the record's writer (Anna)" in error.text
    vote = await table.propose("Anna", f"/dispute 1 {DEAL_1_FIXED}")
    assert "Every player must agree" in vote.text
    await table.press("Boris", vote, yes=True)
    timed_out = await table.members["Anna"].wait(
        lambda s: s.is_edit and s.message_id == vote.message_id and "Time is up" in s.text,
        timeout=WAIT,
    )
    assert "rejected" in timed_out.text
    await table.check(tmp_path)


async def test_a_late_deal_is_vetoed_by_one_player_and_inserted_when_all_agree(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """corrections.md 4.2.10: a forgotten deal goes in before the latest only if nobody refuses."""
    table = Table(shared_bot, LATE, THREE)
    await table.open("sochi pool 10")
    await table.deal("Anna", DEAL_1)
    await table.deal("Boris", DEAL_2)
    vetoed = await table.propose("Clara", f"/deal {DEAL_3} late")
    assert "Insert a forgotten deal as #2?" in vetoed.text
    await table.press("Anna", vetoed, yes=True)
    await table.press("Boris", vetoed, yes=False, until=contains("Rejected"))
    await table.check(tmp_path)

    vote = await table.propose("Clara", f"/deal {DEAL_3} late")
    await table.press("Anna", vote, yes=True)
    assert "counted" in await table.press("Boris", vote, yes=True, until=is_photo)
    table.records.insert(1, DEAL_3)
    protocol = await table.check(tmp_path)
    deals = [line for line in protocol.splitlines() if line and not line.startswith("#")]
    assert deals == [DEAL_1, DEAL_3, DEAL_2]


async def test_a_second_correction_of_the_same_writer_draws_a_penalty_under_russian(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """Кодекс 4.2.7: the first corrected error is a warning; the second, which over-wrote whists
    on a partner, lets the partner write as many on the writer — as a separate, visible entry."""
    table = Table(shared_bot, PENALTY, THREE)
    await table.open("russian pool 10 pencil_seconds=0")
    await table.deal("Anna", "Boris 6♠ -1 vist:Anna pass:Clara")
    first = await table.propose("Boris", "/dispute 1 Boris 6♠ = vist:Anna pass:Clara")
    await table.press("Clara", first, yes=True, until=is_photo)
    warned = await table.members["Dmitry"].wait(contains("first corrected error"))
    assert "a warning, no penalty" in warned.text
    table.records[0] = "Boris 6♠ = vist:Anna pass:Clara"

    await table.deal("Anna", "Clara 7♦ -1 vist:Anna pass:Boris")
    second = await table.propose("Clara", "/dispute 2 Clara 7♦ = vist:Anna pass:Boris")
    since = table.server.cursor(table.chat)
    await table.press("Boris", second, yes=True, until=is_photo)
    penalised = await table.members["Dmitry"].wait(contains("Record penalty"), since=since)
    assert "Clara → Anna: 8 whists" in penalised.text
    table.records[1] = "Clara 7♦ = vist:Anna pass:Boris"
    table.records.append('adjust Clara whists:Anna +8 note:"penalty"')
    history = await table.members["Dmitry"].say("/history", contains("every event"))
    assert "Record penalty: adjust Clara whists:Anna +8" in history.text
    protocol = await table.check(tmp_path)
    assert 'adjust Clara whists:Anna +8 note:"penalty"' in protocol


async def test_a_vote_survives_a_restart_and_another_times_out_while_the_bot_is_down(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """Issue 6, Deliver 7: votes and deadlines are events. One SIGKILL: a vote of 15 minutes is
    not lost; a vote whose time ran out while the bot was down is closed at start-up, and a press
    sent meanwhile cannot make it pass."""
    bot = shared_bot
    kept = Table(bot, RESTART, THREE)
    await kept.open("sochi pool 10")  # votes last the default 15 minutes
    await kept.deal("Anna", DEAL_1)
    lasting = await kept.propose("Boris", f"/dispute 1 {DEAL_1_FIXED}")
    table = Table(bot, DOWN, THREE)
    seconds = 8
    await table.open(f"sochi pool 10 vote_seconds={seconds}")
    await table.deal("Anna", DEAL_1)
    vote = await table.propose("Boris", f"/dispute 1 {DEAL_1_FIXED}")
    opened = time.monotonic()
    await table.server.wait_idle()  # the votes' message ids are in the log once the bot is idle

    await bot.kill()
    assert time.monotonic() < opened + seconds, "the vote timed out before the kill (too slow)"
    await asyncio.sleep(max(0.0, opened + seconds + 1 - time.monotonic()))
    since = table.server.cursor(table.chat)
    clara = table.members["Clara"]
    query = table.server.press(
        table.chat, CLARA, vote.message_id, vote.button("Yes")["callback_data"]
    )  # 2 of 3 would pass it, but its time is over
    await bot.start()
    closed = await clara.wait(
        lambda s: s.is_edit and s.message_id == vote.message_id and "Time is up" in s.text,
        since=since,
    )
    assert "rejected" in closed.text
    answer = await table.server.wait_for_answer(query, WAIT)
    assert "closed" in answer.get("text", "") or "Time is up" in answer.get("text", "")
    await table.server.wait_idle()
    assert not any(s.is_photo for s in table.server.sent[table.chat.id][since:])
    await table.check(tmp_path)

    assert "counted" in await kept.press("Anna", lasting, yes=False)  # the vote was not lost
    assert "❌ Anna" in kept.shown(lasting)
    await kept.check(tmp_path)


async def test_a_tied_vote_goes_to_the_arbiter_whose_decision_is_final(
    shared_bot: BotProcess, tmp_path: Path
) -> None:
    """corrections.md "A vote": with four players 2:2 is a tie; the arbiter named at /newgame
    (not a player) decides with the same buttons, and nobody else can."""
    table = Table(shared_bot, ARBITER, (ANNA, BORIS, CLARA, DMITRY))
    await table.open("sochi pool 10 players=4 pencil_seconds=0 arbiter=@eva_arbiter")
    await table.deal("Anna", "Boris 6♠ = vist:Clara pass:Dmitry")
    vote = await table.propose("Boris", "/dispute 1 Boris 6♠ -1 vist:Clara pass:Dmitry")
    assert "3 of 4" in vote.text
    assert "only a tied or timed-out" in await table.press("Eva", vote, True, refused=True)
    await table.press("Clara", vote, yes=True)
    await table.press("Anna", vote, yes=False)
    assert "arbiter decides" in await table.press("Dmitry", vote, yes=False)
    assert "Tied: the arbiter @eva_arbiter decides" in table.shown(vote)
    assert "arbiter's to decide" in await table.press("Anna", vote, True, refused=True)
    await table.press("Eva", vote, yes=True, until=is_photo)
    assert "The arbiter Eva accepted it." in table.shown(vote)  # named once his account acted
    table.records[0] = "Boris 6♠ -1 vist:Clara pass:Dmitry"
    history = await table.members["Dmitry"].say("/history", contains("every event"))
    assert "is tied: it goes to the arbiter" in history.text
    assert "passed by the arbiter" in history.text
    await table.check(tmp_path)
    shared_bot.assert_alive()
