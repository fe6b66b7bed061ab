"""End-to-end: two bot instances in webhook mode on one real PostgreSQL (issue 14, Done when).

The fake Bot API delivers by webhook (`WebhookDelivery`: POSTs with the secret header, many at once,
re-sending what is not answered 2xx) to a round-robin proxy on 127.0.0.1 that the test runs in front
of the two `python -m bot` processes. Two games get bursts of deals landing on both instances at
once; the instance holding the vote clock is SIGKILLed mid-burst; a vote then times out (closed by
the other instance, which took the clock's lease over); a deal entered by buttons is started on one
instance and finished on the other. Every deal is recorded once, `/score` is the replay of the
exported protocol, the vote is closed once. Meanwhile a third chat's reminder of its open debts,
set before the kill, fires once after its period, and not twice, though both instances run.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from tests.e2e.fake_telegram import (
    ANNA,
    BORIS,
    CLARA,
    DMITRY,
    GROUP,
    OTHER_GROUP,
    Chat,
    FakeTelegram,
    Sent,
)
from tests.e2e.harness import PACED, BotProcess, Member, contains, scoring_replay
from tests.e2e.test_delivery_e2e import wait_answered
from tests.e2e.test_game_e2e import ROUNDING, balance_lines, shown_amount
from tests.pg import PostgresServer, free_port

SECRET = "e2e_webhook-Secret1"
HOOK_PATH = "/tg/hook"
BURST = (  # canonical lines (as the export writes them); all three play, so any order is valid
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 pass:Clara vist:Anna",
    "Clara 6♦ = vist:Anna pass:Boris",
    "Anna 7♣ -1 vist:Boris pass:Clara",
    "Boris 6♥ = vist:Clara pass:Anna",
    "Clara 8♠ = pass:Anna pass:Boris",
)
PER_CHAT = 12  # deals of each game's burst
BUTTONS = ("Contract", "Clara", "7♠", "Whist", "Pass", "−1")
WAIT_ALL = 90.0  # a burst with a SIGKILL and re-sends on a busy machine
DEBTS = Chat(-1001500000031, "supergroup", "Debts to remind of")
REMINDED = "Debts still open"


class RoundRobin:
    """A small reverse proxy: each POST goes to the next instance in turn (to the one after it if
    the first refuses the connection, as nginx's proxy_next_upstream); no answer → 502."""

    def __init__(self, backends: list[str]) -> None:
        self.backends = backends
        self.turn = 0
        self.answered: Counter[str] = Counter()  # 2xx answers per backend
        self.port = free_port()
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{HOOK_PATH}"

    async def start(self) -> None:
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
        app = web.Application()
        app.router.add_post(HOOK_PATH, self.forward)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._http is not None:
            await self._http.close()

    async def forward(self, request: web.Request) -> web.Response:
        assert self._http is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower().startswith("x-telegram")}
        headers["Content-Type"] = request.headers.get("Content-Type", "application/json")
        start = self.turn
        self.turn += 1
        for step in range(len(self.backends)):
            backend = self.backends[(start + step) % len(self.backends)]
            try:
                async with self._http.post(backend, data=body, headers=headers) as answer:
                    payload = await answer.read()
                    if 200 <= answer.status < 300:
                        self.answered[backend] += 1
                    return web.Response(status=answer.status, body=payload)
            except aiohttp.ClientConnectorError:
                continue  # not listening (down, or not started yet): the next one
            except (aiohttp.ClientError, TimeoutError):
                break  # it took the request and died: Telegram will send it again
        return web.Response(status=502, text="no instance answered")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[PostgresServer]:
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=[None], ids=["unpaced"])
async def instances(
    request: pytest.FixtureRequest, pg_server: PostgresServer, server: FakeTelegram, tmp_path: Path
) -> AsyncIterator[tuple[list[BotProcess], RoundRobin]]:
    url = await pg_server.new_database()
    ports = [free_port(), free_port()]
    proxy = RoundRobin([f"http://127.0.0.1:{port}{HOOK_PATH}" for port in ports])
    await proxy.start()
    bots = [
        BotProcess(
            server,
            tmp_path / f"instance{n}",
            locale="en",
            webhook=True,
            pacing=request.param,
            env={
                "DATABASE_URL": url,
                "WEBHOOK_URL": proxy.url,
                "WEBHOOK_SECRET": SECRET,
                "WEB_LISTEN": f"127.0.0.1:{port}",
                "LEASE_SECONDS": "2",
            },
        )
        for n, port in enumerate(ports)
    ]
    try:
        for bot in bots:
            await bot.start()
        yield bots, proxy
    finally:
        for bot in bots:
            await bot.kill()
            print(bot.log_tail(60))
        await proxy.close()


class Game:
    """Anna, Boris and Clara playing in one chat (Dmitry watches), seen through instance `bot`."""

    def __init__(self, bot: BotProcess, chat: Chat) -> None:
        self.server = bot.server
        self.chat = chat
        self.members = {u.first_name: Member(bot, chat, u) for u in (ANNA, BORIS, CLARA, DMITRY)}
        self.sent: list[str] = []

    async def open(self) -> None:
        await self.members["Anna"].say("/lang en", contains("English"))  # else the opener's
        await self.members["Anna"].say(
            "/newgame sochi pool 1000 vote_seconds=3 pencil_seconds=0", contains("game #")
        )
        for name in ("Anna", "Boris", "Clara"):
            reply = await self.members[name].say("/join", contains(name))
        assert "The game is on" in reply.text, reply.text

    def burst(self, count: int, offset: int = 0) -> None:
        """Queue `count` deals at once; Telegram delivers them together."""
        writers = ("Anna", "Boris", "Clara")
        for n in range(offset, offset + count):
            line = BURST[n % len(BURST)]
            self.members[writers[n % 3]].send(f"/deal {line}")
            self.sent.append(line)

    async def export(self) -> tuple[list[str], dict[str, object]]:
        """/export: the protocol's record lines and the JSON log."""
        watcher = self.members["Dmitry"]
        since = self.server.cursor(self.chat)
        watcher.send("/export")
        await watcher.wait(contains("every event as JSON"), since=since, timeout=30)
        documents = [s for s in self.server.sent[self.chat.id][since:] if s.document]
        protocol_doc, log_doc = documents
        assert protocol_doc.document is not None and log_doc.document is not None
        protocol = protocol_doc.document.decode()
        self.protocol = protocol
        records = [line for line in protocol.splitlines() if line and not line.startswith("#")]
        return records, json.loads(log_doc.document)

    async def check_score(self, tmp_path: Path) -> None:
        """/score shows the balances of `python -m scoring replay` on the exported protocol."""
        replayed = await scoring_replay(tmp_path / f"{self.chat.id}.pref", self.protocol)
        score = await self.members["Dmitry"].say(
            "/score", lambda s: set(balance_lines(s.text)) >= {"Anna"}, timeout=30
        )
        for name, text in balance_lines(score.text).items():
            exact = replayed["balances_exact"][name]
            assert abs(shown_amount(text) - exact) <= ROUNDING, (name, text, exact)


def edited(message_id: int, *fragments: str) -> Callable[[Sent], bool]:
    return lambda s: (
        s.is_edit and s.message_id == message_id and all(f in s.text for f in fragments)
    )


async def end_a_game_with_debts(bot: BotProcess) -> None:
    """In DEBTS: a game with a stake ended by everyone's vote, leaving Clara owing Anna and
    Boris; Boris has been paid; then `/remind 1m`."""
    anna, boris, clara = (Member(bot, DEBTS, u) for u in (ANNA, BORIS, CLARA))
    await anna.say("/lang en", contains("English"))
    await anna.say("/newgame sochi pool 10 stake 0.1", contains("Game #1"))
    for member in (anna, boris, clara):
        await member.say("/join", contains(member.user.first_name))
    await anna.say("/deal Anna 6♠ = vist:Boris pass:Clara", lambda s: s.is_photo, timeout=30)
    vote = await anna.say("/endgame", lambda s: bool(s.buttons))
    await boris.press(vote, 0)
    await clara.press(vote, 0, contains("is over"))
    await boris.say("/paid @clara_pulka", contains("received what Clara owed"))
    await anna.say("/remind 1m", contains("Reminders on"))


async def test_two_instances_behind_a_webhook_share_one_postgresql(
    instances: tuple[list[BotProcess], RoundRobin], server: FakeTelegram, tmp_path: Path
) -> None:
    (first, second), proxy = instances
    # 0. Debts to be reminded of in a minute: the wait overlaps the steps below.
    await end_a_game_with_debts(second)
    reminders_from = server.cursor(DEBTS)
    games = [Game(second, GROUP), Game(second, OTHER_GROUP)]
    for game in games:
        await game.open()

    # 1. Both games' bursts at once; the first instance (it started first: it holds the vote
    # clock's lease) is SIGKILLed while they are being handled.
    answered_before = sum(proxy.answered.values())
    for game in games:
        game.burst(PER_CHAT // 2)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_ALL
    while sum(proxy.answered.values()) < answered_before + 4 and loop.time() < deadline:
        await asyncio.sleep(0.05)
    for game in games:
        game.burst(PER_CHAT // 2, offset=PER_CHAT // 2)
    await asyncio.sleep(0.2)
    await first.kill()
    await server.wait_idle(quiet=1.0, timeout=WAIT_ALL)
    assert not server._undelivered, "every update was answered 2xx in the end"
    assert len(proxy.answered) == 2, f"both instances took updates: {proxy.answered}"
    for game in games:  # each accepted deal told with its number, however the sheets went
        await wait_answered(server, game.chat, len(game.sent), WAIT_ALL)

    # 2. A vote that times out, closed once by the surviving instance (it took the lease over).
    game = games[0]
    vote = await game.members["Boris"].say(
        f"/dispute {PER_CHAT} Anna 6♠ -1 vist:Boris pass:Clara", lambda s: bool(s.buttons)
    )
    closed = await game.members["Dmitry"].wait(edited(vote.message_id, "Time is up"), timeout=30)
    assert "rejected" in closed.text
    assert "taken" in second.log() and "lease vote-clock" in second.log()

    # 3. The killed instance comes back; a deal by buttons alternates between the two.
    await first.start()
    anna = game.members["Anna"]
    steps = await anna.say("/deal", lambda s: bool(s.buttons))
    before = dict(proxy.answered)
    for label in BUTTONS:
        await anna.press(steps, label, edited(steps.message_id))
    await anna.press(steps, "✅ Record", lambda s: s.is_photo)
    took = {b: n - before.get(b, 0) for b, n in proxy.answered.items()}
    assert all(n >= 2 for n in took.values()) and len(took) == 2, took
    await server.wait_idle(quiet=0.5, timeout=WAIT_ALL)

    # The reminder, once its minute is over (set before the kill; either instance may send it).
    watcher = Member(second, DEBTS, DMITRY)
    reminder = await watcher.wait(contains(REMINDED), since=reminders_from, timeout=100)
    assert "Clara → Anna" in reminder.text and "Clara → Boris" not in reminder.text  # paid
    reminded_at = loop.time()

    # 4. Every deal recorded once; /score is the replay; the vote closed once.
    for game in games:
        records, log = await game.export()
        expected = list(game.sent)
        if game is games[0]:
            expected.append("Clara 7♠ -1 vist:Anna pass:Boris")
        assert Counter(records) == Counter(expected), (records, expected)
        await game.check_score(tmp_path)
        events = log["events"]
        assert isinstance(events, list)
        closes = [e for e in events if e["kind"] == "vote_closed"]
        assert len(closes) == (1 if game is games[0] else 0), closes
    for bot in (first, second):
        bot.assert_alive()

    # 5. Each instance's /healthz: its webhook, sender and vote clock beat, no poller.
    async with aiohttp.ClientSession() as http:
        for bot in (first, second):
            listen = bot.extra_env["WEB_LISTEN"]
            async with http.get(f"http://{listen}/healthz") as response:
                body = await response.json()
            assert response.status == 200, body
            assert set(body["ages"]) == {"webhook", "sender", "vote_clock"}

    # 6. Not reminded twice: the holder of the clock looks every 5 s; both instances ran
    # meanwhile, and the period is not over.
    await asyncio.sleep(max(0.0, reminded_at + 16 - loop.time()))
    told = [s for s in server.sent[DEBTS.id][reminders_from:] if REMINDED in s.text]
    assert len(told) == 1, server.describe(DEBTS, reminders_from)
    assert first.running and second.running


@pytest.mark.parametrize("instances", [PACED], ids=["paced"], indirect=True)
async def test_two_instances_tell_every_deal_of_bursts_within_telegrams_limits(
    instances: tuple[list[BotProcess], RoundRobin], server: FakeTelegram
) -> None:
    """30 deals a chat in bursts across both instances, Telegram's limits enforced: the sheets
    may go out coalesced, but every accepted deal is told with its number (issue 36)."""
    (first, second), proxy = instances
    games = [Game(first, GROUP), Game(second, OTHER_GROUP)]
    for game in games:
        await game.open()
    server.limits.on = True
    for part in range(3):
        for game in games:
            game.burst(10, offset=10 * part)
        await asyncio.sleep(1.0)
    for game in games:
        await wait_answered(server, game.chat, 30, 240)
        records, _ = await game.export()
        assert Counter(records) == Counter(game.sent)
    assert not [r for r in server.requests if r.status == 429], "a 429 from Telegram"
    assert len(proxy.answered) == 2, proxy.answered
