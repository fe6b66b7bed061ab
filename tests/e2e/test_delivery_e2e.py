"""Nothing lost between Telegram and the log (issue 11, items 1 and 2): updates are confirmed only
once their commands committed, and the replies they owe are delivered by the outbox's sender
through crashes and a misbehaving Bot API (docs/architecture.md "Delivery")."""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, GROUP, Chat, FakeTelegram, Sent
from tests.e2e.harness import PACED, BotProcess, Member, contains, scoring_replay
from tests.e2e.test_game_e2e import assert_balances, has_balances

PLAYERS = ("Anna", "Boris", "Clara")
HEADER = "# convention: sochi\n# players: Anna Boris Clara\n# pool: 10\n"
_NUMBER = re.compile(r"^#(\d+) ", re.MULTILINE)
KILLS = 6  # SIGKILLs at random instants while the deals come in
BURST = 3  # deals each of 300 chats sends at once: 900 acknowledgements, 30 s at 30 a second


def deal_line(i: int) -> str:
    """A failed contract (no pool is written, so the game never ends), declarer in turn."""
    declarer, whister, passer = (PLAYERS[(i + k) % 3] for k in range(3))
    return f"{declarer} 6♠ -1 vist:{whister} pass:{passer}"


async def open_table(bot: BotProcess, chat: Chat) -> dict[str, Member]:
    members = {u.first_name: Member(bot, chat, u) for u in (ANNA, BORIS, CLARA)}
    opened = await members["Anna"].say("/newgame sochi pool 10", lambda s: bool(s.buttons))
    await members["Anna"].press(opened, 0)
    await members["Boris"].press(opened, 0)
    await members["Clara"].say("/join", contains("Clara"))
    return members


def answered(server: FakeTelegram, chat: Chat) -> Counter[int]:
    """How many times the chat was told of each deal number (its caption `#N line`): in a
    sheet photo's caption, or in the text just before one, where the captions of sheets that
    waited together and went out as the newest are kept (bot/telegram/coalesce.py)."""
    numbers: Counter[int] = Counter()
    for sent in server.sent[chat.id]:
        if sent.method in ("sendPhoto", "sendMessage"):
            numbers.update(int(n) for n in _NUMBER.findall(sent.text))
    return numbers


async def wait_answered(server: FakeTelegram, chat: Chat, count: int, timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while set(answered(server, chat)) < set(range(1, count + 1)):
        if asyncio.get_running_loop().time() > deadline:
            missing = sorted(set(range(1, count + 1)) - set(answered(server, chat)))
            raise AssertionError(f"deals never answered: {missing}")
        await asyncio.sleep(0.25)


async def check_against_replay(
    members: dict[str, Member], lines: list[str], tmp_path: Path
) -> dict[str, Any]:
    """/export's protocol holds every deal once and replays to what the typed deals replay to,
    and /score shows those balances."""
    anna = members["Anna"]
    since = anna.server.cursor(anna.chat)
    anna.send("/export")
    await anna.wait(lambda s: s.method == "sendDocument" and "JSON" in s.text, since=since)
    documents = [s for s in anna.server.sent[anna.chat.id][since:] if is_document(s)]
    assert documents[0].document is not None
    protocol = documents[0].document.decode()
    exported = await scoring_replay(tmp_path / "export.pref", protocol)
    typed = await scoring_replay(tmp_path / "typed.pref", HEADER + "\n".join(lines) + "\n")
    assert exported["deals"] == len(lines), "a deal was lost or recorded twice"
    assert exported["balances_exact"] == typed["balances_exact"]
    score = await anna.say("/score", has_balances)
    assert_balances(score, typed["balances_exact"])
    return exported


def is_document(sent: Sent) -> bool:
    return sent.method == "sendDocument"


async def test_no_deal_is_lost_or_doubled_when_the_bot_is_killed_at_random(
    server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    """120 deals in bursts from three players while the bot is SIGKILLed 6 times at random
    instants and restarted: every deal is recorded once, every one is answered, and /score
    equals the offline replay of /export's protocol."""
    bot = await start_bot(locale="en")
    members = await open_table(bot, GROUP)
    rng = random.Random(2026)
    lines = [deal_line(i) for i in range(120)]
    sending_done = asyncio.Event()
    kills = 0

    async def killer() -> None:  # at a random instant after each start, while deals come in
        nonlocal kills
        while kills < KILLS or not sending_done.is_set():
            await asyncio.sleep(rng.uniform(0.2, 2.0))
            await bot.kill()
            kills += 1
            await bot.start()

    killing = asyncio.create_task(killer())
    for burst in range(12):
        for i in range(burst * 10, burst * 10 + 10):
            members[PLAYERS[(i + 1) % 3]].send(f"/deal {lines[i]}")
        await asyncio.sleep(rng.uniform(0.2, 1.2))
    sending_done.set()
    await asyncio.wait_for(killing, 100)
    assert kills >= KILLS
    bot.assert_alive()
    await wait_answered(server, GROUP, 120, 45)
    await check_against_replay(members, lines, tmp_path)
    numbers = answered(server, GROUP)
    assert set(numbers) == set(range(1, 121)), "a deal number shown that was never recorded"
    print(
        f"{kills} kills; answers sent twice (a send whose answer the kill lost): "
        f"{sum(n - 1 for n in numbers.values())}"
    )


async def test_every_owed_reply_arrives_once_through_429s_5xx_drops_and_an_outage(
    server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    """A third of the sends fail (429 with retry_after, 502, the connection closed before an
    answer) and the Bot API is down for 12 s in the middle: each deal's reply arrives exactly
    once, and no deal is recorded twice (then /score under the same faults, until each kind of
    fault has been met)."""
    bot = await start_bot(locale="en")
    members = await open_table(bot, GROUP)
    server.faults.rate = 0.33
    lines = [deal_line(i) for i in range(30)]
    for burst in range(6):
        for i in range(burst * 5, burst * 5 + 5):
            members[PLAYERS[i % 3]].send(f"/deal {lines[i]}")
        if burst == 2:  # long enough for the sender's and the poller's back-offs to reach
            server.faults.outage(12)  # their caps (4 s after 7.5 s, 5 s after 7 s)
        await asyncio.sleep(0.5)
    await wait_answered(server, GROUP, 30, 70)
    injected = server.faults.injected
    # Sheets that waited together go out as one (bot/telegram/coalesce.py), so 30 deals are a few
    # sends: answers that cannot be coalesced carry on until every kind of fault has been met.
    for _ in range(40):
        if min(injected["429"], injected["5xx"], injected["drop"]) > 0:
            break
        await members["Anna"].say("/score", has_balances, timeout=30)
    server.faults.rate = 0.0
    assert min(injected["429"], injected["5xx"], injected["drop"], injected["outage"]) > 0, (
        injected
    )
    await check_against_replay(members, lines, tmp_path)
    numbers = answered(server, GROUP)
    assert numbers == Counter(range(1, 31)), f"replies not sent exactly once: {numbers}"
    bot.assert_alive()


async def test_one_instance_tells_every_deal_of_bursts_in_300_chats_within_telegrams_limits(
    server: FakeTelegram, start_bot: StartBot
) -> None:
    """300 chats each send a burst of deals at once, Telegram's limits enforced (20 a minute a
    group, 30 a second in all): sheets may go out coalesced, but each chat is told every deal's
    number exactly once, and nothing is refused with a 429 (issue 36, item 2)."""
    chats = [Chat(-1001600000000 - n, "supergroup", f"Table {n}") for n in range(300)]
    bot = await start_bot(locale="en", pacing=PACED)
    for chat in chats:  # queued at once; each chat's updates are handled in their order
        anna, boris, clara = (Member(bot, chat, u) for u in (ANNA, BORIS, CLARA))
        anna.send("/newgame sochi pool 1000")
        for member in (anna, boris, clara):
            member.send("/join")
    for chat in chats:
        await Member(bot, chat, CLARA).wait(contains("▶️"), timeout=120)
    await server.wait_idle(quiet=1.0, timeout=120)
    server.limits.on = True
    for chat in chats:
        members = [Member(bot, chat, u) for u in (ANNA, BORIS, CLARA)]
        for n in range(BURST):
            members[n % 3].send(f"/deal {deal_line(n)}")
    for chat in chats:
        await wait_answered(server, chat, BURST, 240)
    await server.wait_idle(quiet=1.0, timeout=60)
    for chat in chats:
        told = answered(server, chat)
        assert told == Counter(range(1, BURST + 1)), (chat.id, told)
    assert not server.limits.refused, server.limits.refused
