"""End-to-end: the Mini App in a real headless Chromium against the real bot process (issue 15).

The bot runs as `python -m bot` on the fake Telegram server with `WEB_LISTEN` set; three players
open a game and record deals in the group. Clara then opens the page as Telegram opens a Mini App:
`/app` with a signed `#tgWebAppData=…` in the URL fragment, and telegram-web-app.js cannot be
loaded (its requests are refused). The page shows each player's balance equal to /score; a tap on a
number shows the deal that wrote it with its entries; the form records a deal that the chat then
shows with its picture, and the page updates. Screenshots at phone size (390×844) go to docs/img/
with `make screenshots` (PREFBOT_SCREENSHOTS), elsewhere to a temporary folder.

Chromium is the system's (`/usr/bin/chromium`, Debian's `chromium` package), driven by Playwright's
Python package: no browser is downloaded.
"""

from __future__ import annotations

import json
import os
import re
import socket
import tempfile
import time
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from playwright.async_api import Browser, Page, Route, async_playwright

from bot.web.auth import start_param
from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import (
    ANNA,
    BORIS,
    BOT_TOKEN,
    CLARA,
    DMITRY,
    GROUP,
    FakeTelegram,
    User,
)
from tests.e2e.harness import BotProcess, Member, contains, is_photo
from tests.web.signing import init_data

CHROMIUM = Path("/usr/bin/chromium")
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
PHONE = {"width": 390, "height": 844}
# `make screenshots` writes them to docs/img; a plain test run keeps the tree clean.
SHOTS = Path(os.environ.get("PREFBOT_SCREENSHOTS") or tempfile.mkdtemp(prefix="miniapp-"))
LINK = "https://t.me/pulka_test_bot/sheet"
PAGE_WAIT = 15_000  # ms: every wait in the browser is bounded
THEME = {"bg_color": "#ffffff", "text_color": "#1f2937", "button_color": "#2481cc",
         "button_text_color": "#ffffff", "hint_color": "#6b7280",
         "secondary_bg_color": "#eef1f5"}  # fmt: skip
DEALS = (
    (ANNA, "Anna 6♠ = vist:Boris pass:Clara"),
    (BORIS, "Boris 7♥ -1 vist:Anna pass:Clara"),
    (CLARA, "Clara misere 1"),
)
_AMOUNT = re.compile(r"([+\-−]?)(\d+)(?:[.,](\d))?")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def shown(text: str) -> Fraction:
    """A whists amount as the bot and the page show it (`+12.5`, `−4`, `12,5`)."""
    match = _AMOUNT.fullmatch(text.strip())
    assert match is not None, f"not an amount: {text!r}"
    sign, whole, tenths = match.groups()
    value = Fraction(int(whole) * 10 + int(tenths or 0), 10)
    return -value if sign in ("-", "−") else value


def score_balances(text: str, names: tuple[str, ...]) -> dict[str, Fraction]:
    found = {}
    for line in text.splitlines():
        match = re.fullmatch(rf"({'|'.join(names)}):\s*(\S+)", line.strip())
        if match:
            found.setdefault(match.group(1), shown(match.group(2)))
    return found


def app_url(port: int, user: User, game_id: int = 1, *, signed: bool = True) -> str:
    """The page as Telegram opens a direct-link Mini App: initData in the fragment."""
    raw = {"id": user.id, "first_name": user.first_name, "username": user.username,
           "language_code": user.language_code}  # fmt: skip
    data = init_data(BOT_TOKEN, raw, int(time.time()), start_param(BOT_TOKEN, game_id))
    fragment = f"tgWebAppData={quote(data, safe='')}" if signed else "x=1"
    theme = quote(json.dumps(THEME), safe="")
    return (
        f"http://127.0.0.1:{port}/app#{fragment}&tgWebAppVersion=8.0"
        f"&tgWebAppPlatform=android&tgWebAppThemeParams={theme}"
    )


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail("/usr/bin/chromium is missing: apt-get install -y chromium (.ci/run does)")
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        await chromium.close()


async def open_page(browser: Browser, url: str) -> Page:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1)

    async def refuse(route: Route) -> None:  # telegram-web-app.js cannot be loaded
        await route.abort()

    await context.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), refuse)
    page = await context.new_page()
    page.set_default_timeout(PAGE_WAIT)
    await page.goto(url)
    return page


async def play_three_deals(bot: BotProcess) -> dict[str, Member]:
    members = {u.first_name: Member(bot, GROUP, u) for u in (ANNA, BORIS, CLARA, DMITRY)}
    anna, boris, clara = members["Anna"], members["Boris"], members["Clara"]
    await anna.say("/lang en", contains("English"))  # else the opener's, Russian (issue 13)
    opened = await anna.say("/newgame sochi pool 10", lambda s: bool(s.buttons))
    await anna.press(opened, 0)
    await boris.press(opened, 0)
    await clara.say("/join", contains("Clara"))
    for user, line in DEALS:
        await members[user.first_name].say(f"/deal {line}", is_photo)
    return members


async def page_balances(page: Page, names: tuple[str, ...]) -> dict[str, Fraction]:
    out = {}
    for name in names:
        text = await page.locator(f'#balances li[data-player="{name}"] .balance').inner_text()
        out[name] = shown(text)
    return out


async def test_the_live_sheet_shows_the_score_explains_a_number_and_records_a_deal(
    start_bot: StartBot, server: FakeTelegram, browser: Browser
) -> None:
    port = free_port()
    env = {"WEB_LISTEN": f"127.0.0.1:{port}", "MINIAPP_LINK": LINK}
    bot = await start_bot(locale="en", env=env)
    members = await play_three_deals(bot)
    names = ("Anna", "Boris", "Clara")
    score = await members["Clara"].say("/score", contains("Anna:", "Boris:", "Clara:"))
    expected = score_balances(score.text, names)
    assert set(expected) == set(names)

    page = await open_page(browser, app_url(port, CLARA))
    await page.wait_for_selector("#balances li[data-player]")
    assert await page.locator("#balances li").count() == 3
    assert await page_balances(page, names) == expected  # the page equals /score
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(238, 241, 245)"  # Telegram's secondary_bg_color from the URL
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "miniapp-sheet.png"))

    # A tap on a number of deal 2 shows that deal and the entries it wrote, as the chat did.
    chat_reply = next(s for s in server.sent[GROUP.id] if s.is_photo and s.text.startswith("#2 "))
    await page.locator("#zoom").click()  # the sheet at a readable size, scrolled sideways
    number = page.locator('#sheet text[data-deal="2"]').first
    await number.click()
    panel = page.locator("#deal-panel")
    await panel.wait_for(state="visible")
    assert await page.locator("#deal-title").inner_text() == "Deal #2"
    line = await page.locator("#deal-line").inner_text()
    assert chat_reply.text.splitlines()[0] == f"#2 {line}"
    entries = await page.locator("#deal-entries .entry").all_inner_texts()
    assert entries and any("Boris: mountain +4 (undertricks)" in e for e in entries)
    for entry in entries:
        if "→" not in entry:  # pool and mountain entries read as in the chat
            assert entry.strip() in chat_reply.text
    await page.screenshot(path=str(SHOTS / "miniapp-deal.png"))
    await page.locator("#deal-close").click()
    await panel.wait_for(state="hidden")

    # The form: big buttons build the line; it is recorded and the chat shows it.
    form = page.locator("#deal-form")
    await form.scroll_into_view_if_needed()
    await form.locator('[data-choice="kind"] [data-value="contract"]').click()
    await form.locator('[data-choice="declarer"] [data-value="Boris"]').click()
    await form.locator('[data-choice="level"] [data-value="6"]').click()
    await form.locator('[data-choice="suit"] [data-value="♣"]').click()
    await form.locator('[data-choice="role-Anna"] [data-value="pass"]').click()
    await form.locator('[data-choice="role-Clara"] [data-value="pass"]').click()
    assert await page.locator("#line").input_value() == "Boris 6♣ = pass:Anna pass:Clara"
    await page.locator("#steps").scroll_into_view_if_needed()
    await page.screenshot(path=str(SHOTS / "miniapp-form.png"))
    since = server.cursor(GROUP)
    await page.locator("#send").click()
    await page.wait_for_selector("#form-message.ok")
    assert await page.locator("#form-message").inner_text() == "Deal #4 recorded."
    photo = await members["Anna"].wait(is_photo, since=since)
    echo = photo.text.splitlines()[0].removeprefix("#4 ")
    assert sorted(echo.split()) == sorted(["Boris", "6♣", "=", "pass:Anna", "pass:Clara"])
    await page.wait_for_selector('body[data-deals="4"]')  # the page updated

    score = await members["Anna"].say("/score", contains("Anna:", "Boris:", "Clara:"))
    assert await page_balances(page, names) == score_balances(score.text, names)
    history = await page.locator("#history").inner_text()
    assert echo in history
    bot.assert_alive()


async def test_the_page_refuses_what_telegram_did_not_sign_and_a_bad_line_changes_nothing(
    start_bot: StartBot, server: FakeTelegram, browser: Browser
) -> None:
    port = free_port()
    bot = await start_bot(locale="en", env={"WEB_LISTEN": f"127.0.0.1:{port}"})
    await play_three_deals(bot)
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/healthz") as health,  # the same listener
    ):
        assert health.status == 200 and (await health.json())["database"] == "ok"

    page = await open_page(browser, app_url(port, CLARA, signed=False))
    await page.wait_for_selector("#status.error")
    assert "Telegram" in await page.locator("#status").inner_text()

    forged = app_url(port, CLARA).replace("Clara", "Clarissa")
    page = await open_page(browser, forged)
    await page.wait_for_selector("#status.error")
    assert "signature" in await page.locator("#status").inner_text()

    page = await open_page(browser, app_url(port, ANNA))  # Anna reads Russian
    await page.wait_for_selector("#balances li[data-player]")
    assert await page.locator("h1").inner_text() == "Живая пулька"
    since = server.cursor(GROUP)
    await page.locator("#line").fill("Anna 11♠ = vist:Boris pass:Clara")
    await page.locator("#send").click()
    await page.wait_for_selector("#form-message.error")
    message = await page.locator("#form-message").inner_text()
    assert "11" in message and re.search("[а-я]", message)
    await server.wait_idle()
    assert server.sent[GROUP.id][since:] == []  # nothing was posted
    assert await page.get_attribute("body", "data-deals") == "3"
    await page.screenshot(path=str(SHOTS / "miniapp-error-ru.png"))
    bot.assert_alive()
