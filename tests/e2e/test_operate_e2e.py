"""End-to-end: running the real `python -m bot` as an operator does — an unknown command refused
before anything reaches Telegram, `/healthz` of a running bot naming its loops, LOG_FORMAT=json
from the first line on, a misspelt `.env` key warned about, and the image's health check."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import ANNA, GROUP, FakeTelegram
from tests.e2e.harness import Member, contains
from tests.pg import free_port


async def test_an_unknown_command_is_refused_with_the_usage_and_never_reaches_telegram(
    start_bot: StartBot, server: FakeTelegram
) -> None:
    for argv in (("-m", "bot", "bakcup", "x"), ("-m", "bot", "run", "--token", "x")):
        bot = await start_bot(argv=argv, wait=False)
        assert await bot.wait_exit(60) == 2
        assert "usage: python -m bot" in bot.log() and "Traceback" not in bot.log()
    assert server.requests == [] and server.poll_count == 0


async def test_a_running_bot_answers_healthz_with_its_loops_and_logs_json(
    start_bot: StartBot, server: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    workdir = tmp_path / "bot0"
    workdir.mkdir()
    (workdir / ".env").write_text("DATABSE_PATH=elsewhere.sqlite3\n")  # a typo: warned about
    bot = await start_bot(
        locale="en", env={"WEB_LISTEN": f"127.0.0.1:{port}", "LOG_FORMAT": "json"}
    )
    reply = await Member(bot, GROUP, ANNA).say("/newgame sochi pool 10", contains("#1"))
    assert reply is not None
    async with aiohttp.ClientSession() as http:
        for _ in range(50):  # the vote clock's first tick comes a second after the start
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                body = await response.json()
            if set(body["ages"]) == {"poller", "sender", "vote_clock"}:
                break
            await asyncio.sleep(0.2)
    assert response.status == 200 and body["ok"] is True and body["database"] == "ok"
    assert set(body["ages"]) == {"poller", "sender", "vote_clock"}
    assert all(age < 30 for age in body["ages"].values())
    records = [json.loads(line) for line in bot.log().splitlines() if line.startswith("{")]
    written = [line for line in bot.log().splitlines() if line and not line.startswith("=====")]
    assert len(records) == len(written) > 3  # every line is one JSON object
    assert {"time", "level", "logger", "message"} <= set(records[0])
    typo = [r for r in records if "DATABSE_PATH" in r["message"]]
    assert typo and typo[0]["level"] == "WARNING" and "DATABASE_PATH" in typo[0]["message"]
    assert not any("123456:TEST-token" in line for line in written)
