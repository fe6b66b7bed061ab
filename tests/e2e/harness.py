"""Run the real bot (`python -m bot`) against the fake Telegram server, and act as its users.

    server = FakeTelegram(); await server.start()
    bot = BotProcess(server, tmp_path, locale="en"); await bot.start()
    anna = Member(bot, GROUP, ANNA)
    reply = await anna.say("/newgame sochi pool 10")      # the bot's first answer in the chat
    photo = await anna.say("/deal ...", until=is_photo)    # the first photo after the command
    await bot.kill(); await bot.start()                    # SIGKILL, then the same database again

Every wait is bounded; a failed wait names what the bot did in the chat and ends with the tail of
its log. Only 127.0.0.1 is used. `python -m bot` is forked from a process that has imported
aiogram (tests/e2e/zygote.py); other argv are exec'd.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from tests.e2e.fake_telegram import (
    BOT_TOKEN,
    Chat,
    FakeTelegram,
    Sent,
    User,
    find_button,
    inline_buttons,
)

REPO = Path(__file__).resolve().parents[2]
WAIT = 15.0
START_WAIT = 60.0  # importing aiogram alone takes seconds on a busy machine
# Settings the bot reads that the tests set themselves; nothing else leaks in from the caller.
_OWN_ENV = (
    "BOT_TOKEN",
    "TELEGRAM_API_URL",
    "DATABASE_PATH",
    "DEFAULT_LOCALE",
    "LOG_LEVEL",
    *("DATABASE_URL", "WEBHOOK_URL", "WEBHOOK_SECRET", "WEB_LISTEN", "REDIS_URL"),  # issue 14
    *("PACE_GROUP_PER_MINUTE", "PACE_GROUP_BURST", "PACE_PRIVATE_PER_SECOND"),
    *("PACE_PRIVATE_BURST", "PACE_BOT_PER_SECOND", "PACE_BOT_BURST"),
    *("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"),  # libpq's: PostgreSQL
    *("LOG_FORMAT", "DATABASE_WAIT_SECONDS"),
)
# The bot's pace, loosened: a test plays a game in minutes that a table plays in hours, and the
# fake enforces no limit unless a test asks (`server.limits.on`); tests of pacing pass `PACED`.
UNPACED: dict[str, str] = {
    "PACE_GROUP_PER_MINUTE": "60000",
    "PACE_GROUP_BURST": "1000",
    "PACE_PRIVATE_PER_SECOND": "1000",
    "PACE_PRIVATE_BURST": "1000",
    "PACE_BOT_PER_SECOND": "10000",
    "PACE_BOT_BURST": "1000",
}
PACED: dict[str, str] = {}  # the defaults: Telegram's limits (bot/settings.py)
# `python -m bot` is forked from a process that has imported aiogram (tests/e2e/zygote.py), which
# saves some 5 s of CPU a start; E2E_FORK=0 starts each one with exec instead.
FORK = os.environ.get("E2E_FORK", "1") != "0"


class Forked:
    """A bot forked by the zygote, seen as an `asyncio.subprocess.Process` (what BotProcess uses)."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote = zygote
        self.pid = pid

    @property
    def returncode(self) -> int | None:
        return self.zygote.exits.get(self.pid)

    def send_signal(self, number: int) -> None:
        if self.returncode is not None:
            raise ProcessLookupError(self.pid)
        os.kill(self.pid, number)

    async def wait(self) -> int:
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[int] = loop.create_future()
        with self.zygote.lock:
            code = self.returncode
            if code is None:
                self.zygote.waiters.setdefault(self.pid, []).append((loop, exited))
        return code if code is not None else await exited


class Zygote:
    """The forking process of this pytest process, started at its first bot; a thread reads its
    answers (so that tests on any event loop can wait for their bots)."""

    _running: Zygote | None = None

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.zygote"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lock = threading.Lock()
        self.exits: dict[int, int] = {}
        self.waiters: dict[int, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[int]]]] = {}
        self._started: list[int] = []
        self._started_cond = threading.Condition(self.lock)
        threading.Thread(target=self._read, name="zygote", daemon=True).start()
        atexit.register(self.close)

    @classmethod
    def get(cls) -> Zygote:
        if cls._running is None or cls._running.proc.poll() is not None:
            cls._running = cls()
        return cls._running

    def fork(self, args: Sequence[str], env: dict[str, str], cwd: Path, log: Path) -> Forked:
        request = {"args": list(args), "env": env, "cwd": str(cwd), "log": str(log)}
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
            if not self._started_cond.wait_for(lambda: bool(self._started), START_WAIT):
                raise RuntimeError("the zygote did not fork the bot")
            return Forked(self, self._started.pop(0))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.lock:
                if "started" in message:
                    self._started.append(int(message["started"]))
                    self._started_cond.notify_all()
                    continue
                pid, code = int(message["exited"]), int(message["code"])
                self.exits[pid] = code
                for loop, exited in self.waiters.pop(pid, []):
                    loop.call_soon_threadsafe(_resolve, exited, code)

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)


def _resolve(future: asyncio.Future[int], code: int) -> None:
    if not future.done():
        future.set_result(code)


class BotProcess:
    """The bot as a child process on one database; `start` waits until it polls for updates (or,
    `webhook=True`, until it has called setWebhook)."""

    def __init__(
        self,
        server: FakeTelegram,
        workdir: Path,
        *,
        locale: str = "ru",
        env: dict[str, str] | None = None,
        token: str = BOT_TOKEN,
        argv: Sequence[str] = ("-m", "bot"),
        webhook: bool = False,
        pacing: dict[str, str] | None = None,
    ) -> None:
        self.server = server
        self.pacing = pacing  # PACE_* settings; None: loosened (UNPACED)
        self.webhook = webhook
        self.workdir = workdir
        self.locale = locale
        self.token = token
        self.argv = tuple(argv)
        self.extra_env = dict(env or {})
        self.db_path = workdir / "bot.sqlite3"
        self.log_path = workdir / "bot.log"
        self.starts = 0
        self.proc: asyncio.subprocess.Process | Forked | None = None

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _OWN_ENV}
        env.update(
            BOT_TOKEN=self.token,
            TELEGRAM_API_URL=self.server.url,
            DATABASE_PATH=str(self.db_path),
            DEFAULT_LOCALE=self.locale,
            LOG_LEVEL="INFO",
            PYTHONPATH=str(REPO),
            PYTHONUNBUFFERED="1",
            NO_PROXY="127.0.0.1,localhost",
        )
        env.update(UNPACED if self.pacing is None else self.pacing)
        env.update(self.extra_env)
        return env

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def launch(self) -> None:
        """Start the process without waiting for it to poll (for tests of start-up failures)."""
        if self.running:
            raise RuntimeError("the bot is already running")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"\n===== start {self.starts} =====\n".encode())
            log.flush()
        if FORK and self.argv[:2] == ("-m", "bot"):
            self.proc = Zygote.get().fork(self.argv[2:], self.env(), self.workdir, self.log_path)
            return
        with self.log_path.open("ab") as log:
            # The working directory is the test's own, so a developer's .env is not read.
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                *self.argv,
                cwd=self.workdir,
                env=self.env(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

    async def start(self, timeout: float = START_WAIT) -> None:
        """Start the bot and wait until it asks the server for updates."""
        polls = self.server.poll_count
        hooks = self.server.webhook.set_count
        await self.launch()
        assert self.proc is not None
        exited = asyncio.ensure_future(self.proc.wait())
        if self.webhook:
            polling = asyncio.ensure_future(self.server.webhook.wait_set(hooks, timeout))
        else:
            polling = asyncio.ensure_future(self.server.wait_polling(polls, timeout))
        try:
            await asyncio.wait({exited, polling}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if polling.done() and polling.exception() is None:
            return
        polling.cancel()
        with contextlib.suppress(asyncio.CancelledError, AssertionError):
            await polling
        code = self.proc.returncode
        await self.kill()
        reason = f"exited with status {code}" if code is not None else "did not poll"
        raise AssertionError(f"the bot {reason} within {timeout:.0f} s\n{self.log_tail()}")

    async def wait_exit(self, timeout: float = WAIT) -> int:
        """The exit status of a bot that is expected to stop by itself."""
        assert self.proc is not None
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            await self.kill()
            raise AssertionError(f"the bot did not exit within {timeout:.0f} s") from None

    async def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up, as when a machine loses power."""
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL if the bot has not stopped within `timeout`; the exit status."""
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                await self.kill()
        return self.proc.returncode

    async def restart(self) -> None:
        """Kill the bot (SIGKILL) and start it again on the same database."""
        await self.kill()
        await self.start()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        tail = self.log().splitlines()[-lines:]
        return "the bot's log (tail):\n" + "\n".join("  | " + line for line in tail)

    def assert_alive(self) -> None:
        assert self.running, f"the bot has exited\n{self.log_tail()}"


def is_photo(sent: Sent) -> bool:
    """The call put a photo in the chat (sendPhoto or editMessageMedia with a photo)."""
    return sent.is_photo


def contains(*fragments: str) -> Callable[[Sent], bool]:
    """The text or caption contains every fragment (case-insensitive)."""
    wanted = [f.casefold() for f in fragments]
    return lambda sent: all(f in sent.text.casefold() for f in wanted)


class Member:
    """One user in one chat (in its forum topic `topic`), typing commands and pressing buttons."""

    def __init__(self, bot: BotProcess, chat: Chat, user: User, topic: int | None = None) -> None:
        self.server = bot.server
        self.bot = bot
        self.chat = chat
        self.user = user
        self.topic = topic

    def send(self, text: str, *, reply_to: int | None = None) -> dict[str, Any]:
        """Queue the message without waiting for an answer."""
        return self.server.user_message(
            self.chat, self.user, text, reply_to=reply_to, topic=self.topic
        )

    async def say(
        self,
        text: str,
        until: Callable[[Sent], bool] | None = None,
        *,
        timeout: float = WAIT,
        reply_to: int | None = None,
    ) -> Sent:
        """Send `text`; the first thing the bot does in the chat after it that satisfies `until`."""
        since = self.server.cursor(self.chat)
        self.send(text, reply_to=reply_to)
        return await self.wait(until, since=since, timeout=timeout)

    async def press(
        self,
        sent: Sent | int,
        button: str | int,
        until: Callable[[Sent], bool] | None = None,
        *,
        timeout: float = WAIT,
    ) -> dict[str, Any]:
        """Press a button of a bot message (text it contains, or its index); the bot's answer.

        Returns the answerCallbackQuery parameters (the toast); pass `until` to wait also for
        something shown in the chat, then read it with `wait`.
        """
        message_id = sent if isinstance(sent, int) else sent.message_id
        message = self.server.message(self.chat, message_id)
        if isinstance(button, int):
            data = inline_buttons(message)[button]["callback_data"]
        else:
            data = find_button(message, button)["callback_data"]
        since = self.server.cursor(self.chat)
        query = self.server.press(self.chat, self.user, message_id, data)
        try:
            answer = await self.server.wait_for_answer(query, timeout)
            if until is not None:
                await self.server.wait_for(self.chat, until, timeout, since=since)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.bot.log_tail()}") from None
        return answer

    async def wait(
        self,
        until: Callable[[Sent], bool] | None = None,
        *,
        since: int = 0,
        timeout: float = WAIT,
    ) -> Sent:
        try:
            return await self.server.wait_for(self.chat, until, timeout, since=since)
        except AssertionError as error:
            state = "" if self.bot.running else "\nthe bot is not running"
            raise AssertionError(f"{error}{state}\n{self.bot.log_tail()}") from None


async def scoring_replay(path: Path, text: str) -> dict[str, Any]:
    """`python -m scoring replay FILE --json` on this protocol text; balances as exact Fractions."""
    path.write_text(text, encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "scoring",
        "replay",
        str(path),
        "--json",
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError("python -m scoring replay did not finish in time") from None
    assert process.returncode == 0, f"replay of {path.name} failed: {err.decode()}\n{text}"
    result: dict[str, Any] = json.loads(out)
    result["balances_exact"] = {k: Fraction(v) for k, v in result["balances_exact"].items()}
    return result
