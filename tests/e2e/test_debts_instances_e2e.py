"""End-to-end: two bot instances behind a webhook share one PostgreSQL; a chat's reminder of its
open debts fires once after its period, and not twice, though both instances run."""

from __future__ import annotations

import asyncio

from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, GROUP, FakeTelegram
from tests.e2e.harness import BotProcess, Member, contains
from tests.e2e.test_webhook_e2e import RoundRobin, instances, pg_server  # noqa: F401 (fixtures)

REMINDED = "Debts still open"


async def test_a_reminder_fires_once_a_period_across_two_instances(
    instances: tuple[list[BotProcess], RoundRobin],  # noqa: F811
    server: FakeTelegram,
) -> None:
    (first, second), _ = instances
    anna, boris, clara = (Member(second, GROUP, u) for u in (ANNA, BORIS, CLARA))
    await anna.say("/lang en", contains("English"))
    await anna.say("/newgame sochi pool 10 stake 0.1", contains("Game #1"))
    for member in (anna, boris, clara):
        await member.say("/join", contains(member.user.first_name))
    await anna.say("/deal Anna 6♠ = vist:Boris pass:Clara", lambda s: s.is_photo, timeout=30)
    vote = await anna.say("/endgame", lambda s: bool(s.buttons))
    await boris.press(vote, 0)
    await clara.press(vote, 0, contains("is over"))
    await anna.say("/remind 1m", contains("Reminders on"))
    since = server.cursor(GROUP)
    reminder = await anna.wait(contains(REMINDED), since=since, timeout=100)
    assert "→" in reminder.text
    await asyncio.sleep(25)  # both instances tick meanwhile; the period is not over
    told = [s for s in server.sent[GROUP.id][since:] if REMINDED in s.text]
    assert len(told) == 1, server.describe(GROUP, since)
    assert first.running and second.running
