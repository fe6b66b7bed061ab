"""End-to-end: the Mini App in a real headless Chromium against the real bot process.

The bot runs as `python -m bot` on the fake Telegram server with `WEB_LISTEN` set; three players
open a game and record deals in the group. Clara then opens the page as Telegram opens a Mini App:
`/app` with a signed `#tgWebAppData=…` in the URL fragment, and telegram-web-app.js cannot be
loaded (its requests are refused). The page shows each player's balance equal to /score; a tap on a
number shows the deal that wrote it with its entries; the form records a deal that the chat then
shows with its picture, and the page updates. Screenshots at phone size (390×844) go to docs/img/
with `make screenshots` (PREFBOT_SCREENSHOTS), elsewhere to a temporary folder.

On a phone inside Telegram (`test_inside_telegram_…`) the page is given a stub `Telegram.WebApp`
before its own script runs, which records what the page asks of Telegram (MainButton, BackButton,
HapticFeedback) and fires `themeChanged`; the page's text is at least 14 CSS px and its sheet zooms
and moves.

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
from urllib.parse import quote, unquote

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


async def open_page(browser: Browser, url: str, init_script: str | None = None) -> Page:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1)
    if init_script is not None:  # runs in the page before any of its own scripts
        await context.add_init_script(init_script)

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
    for _ in range(3):  # the sheet at a readable size, scrolled sideways
        await page.locator("#zoom-in").click()
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


# -- inside Telegram, on a phone ----------------------------------------------------------------

# `Telegram.WebApp` as telegram-web-app.js gives it to a page, recording every call the page
# makes in `window.__tg.calls`; `__tg.fire(event)` fires one of Telegram's events (after
# `__tg.theme(params, scheme)` set a new theme), `__tg.tap("main" | "back")` taps a button.
STUB = """
(() => {
  const calls = [];
  const handlers = {};
  const taps = { main: [], back: [] };
  const log = (name, ...args) => calls.push([name, ...args]);
  const button = (name, tap) => ({
    text: "", isVisible: false, isActive: true, isProgressVisible: false,
    setText(text) { log(name + ".setText", text); this.text = text; return this; },
    show() { log(name + ".show"); this.isVisible = true; return this; },
    hide() { log(name + ".hide"); this.isVisible = false; return this; },
    enable() { log(name + ".enable"); this.isActive = true; return this; },
    disable() { log(name + ".disable"); this.isActive = false; return this; },
    showProgress(leaveActive) {
      log(name + ".showProgress", leaveActive); this.isProgressVisible = true; return this;
    },
    hideProgress() { log(name + ".hideProgress"); this.isProgressVisible = false; return this; },
    onClick(fn) { log(name + ".onClick"); taps[tap].push(fn); return this; },
    offClick(fn) { taps[tap] = taps[tap].filter((f) => f !== fn); return this; },
  });
  const webApp = {
    initData: __INIT_DATA__,
    version: "8.0",
    platform: "ios",
    colorScheme: "light",
    themeParams: __THEME__,
    MainButton: button("MainButton", "main"),
    BackButton: button("BackButton", "back"),
    HapticFeedback: {
      notificationOccurred(kind) { log("HapticFeedback.notificationOccurred", kind); return this; },
      impactOccurred(style) { log("HapticFeedback.impactOccurred", style); return this; },
      selectionChanged() { log("HapticFeedback.selectionChanged"); return this; },
    },
    ready() { log("ready"); },
    expand() { log("expand"); },
    onEvent(name, fn) { log("onEvent", name); (handlers[name] = handlers[name] || []).push(fn); },
    offEvent(name, fn) { handlers[name] = (handlers[name] || []).filter((f) => f !== fn); },
  };
  window.Telegram = { WebApp: webApp };
  window.__tg = {
    calls,
    theme(params, scheme) { webApp.themeParams = params; webApp.colorScheme = scheme; },
    fire(name) { for (const fn of handlers[name] || []) fn.call(webApp); },
    tap(which) { for (const fn of taps[which]) fn(); },
  };
})();
"""
DARK = {"bg_color": "#17212b", "text_color": "#f5f5f5", "button_color": "#5288c1",
        "button_text_color": "#ffffff", "hint_color": "#708499",
        "secondary_bg_color": "#232e3c"}  # fmt: skip
# Every element with text of its own outside the sheet, and its font size in CSS px.
FONT_SIZES = """
() => [...document.querySelectorAll("body *")]
  .filter((el) => !el.closest("svg") && el.offsetParent !== null)
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((el) => [el.tagName + (el.id ? "#" + el.id : ""), parseFloat(getComputedStyle(el).fontSize),
                el.textContent.trim().slice(0, 30)])
"""
SCROLL = "(() => { const box = document.getElementById('sheet'); return [box.scrollLeft, box.scrollTop]; })()"
# The smallest total of the sheet as drawn on the screen now, in CSS px.
SMALLEST_TOTAL = """
() => {
  const svg = document.querySelector("#sheet svg");
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll("text.total")].map((t) => Number(t.getAttribute("font-size")));
  return Math.min(...sizes) * scale;
}
"""


def stub(data: str, theme: dict[str, str]) -> str:
    return STUB.replace("__INIT_DATA__", json.dumps(data)).replace("__THEME__", json.dumps(theme))


async def calls(page: Page) -> list[list[object]]:
    found: list[list[object]] = await page.evaluate("window.__tg.calls.slice()")
    return found


async def test_inside_telegram_on_a_phone_the_page_uses_telegrams_buttons_haptics_and_theme(
    start_bot: StartBot, server: FakeTelegram, browser: Browser
) -> None:
    """A Russian chat; Anna's fourth deal closes her pool and helps Boris's. At 390×844 inside
    Telegram (a stub `Telegram.WebApp`): every text is at least 14 CSS px; the sheet zooms
    (+, −, two fingers) until its smallest total is 14 px on the screen, and moves by dragging;
    the help entry names its helper and the history its game's number in the chat; the
    MainButton records the deal the form built and a recorded deal is felt (haptic success);
    the BackButton closes a deal's panel; a theme changed while the page is open is followed."""
    port = free_port()
    bot = await start_bot(
        locale="ru", env={"WEB_LISTEN": f"127.0.0.1:{port}", "MINIAPP_LINK": LINK}
    )
    members = {u.first_name: Member(bot, GROUP, u) for u in (ANNA, BORIS, CLARA)}
    anna, boris, clara = members["Anna"], members["Boris"], members["Clara"]
    opened = await anna.say("/newgame sochi pool 10", lambda s: bool(s.buttons))
    await anna.press(opened, 0)
    await boris.press(opened, 0)
    await clara.say("/join", contains("Clara"))
    for user, line in (*DEALS, (ANNA, "Anna 10♠ = pass:Boris pass:Clara")):
        await members[user.first_name].say(f"/deal {line}", is_photo)

    url = app_url(port, ANNA)
    data = dict(part.split("=", 1) for part in url.split("#", 1)[1].split("&"))["tgWebAppData"]
    page = await open_page(browser, url, stub(unquote(data), THEME))
    await page.wait_for_selector("#balances li[data-player]")
    assert await page.locator("h1").inner_text() == "Живая пулька"
    assert ["ready"] in await calls(page) and ["onEvent", "themeChanged"] in await calls(page)

    # Phone first: no text of the page under 14 CSS px.
    sizes = await page.evaluate(FONT_SIZES)
    assert sizes and not [s for s in sizes if s[1] < 14], [s for s in sizes if s[1] < 14]

    # The two text defects: the help entry names its helper, the history heading the game.
    history = await page.locator("#history li").first.inner_text()
    assert history.startswith("📜 Пулька #1"), history
    await page.locator('#sheet text[data-deal="4"]').first.dispatch_event("click")
    await page.locator("#deal-panel").wait_for(state="visible")
    entries = await page.locator("#deal-entries .entry").all_inner_texts()
    assert any("(помощь от игрока Anna)" in e for e in entries), entries
    # The BackButton closes the panel; the MainButton is not shown over it.
    assert ["BackButton.show"] in await calls(page)
    await page.evaluate("window.__tg.tap('back')")
    await page.locator("#deal-panel").wait_for(state="hidden")
    assert (await calls(page))[-2:] == [["BackButton.hide"], ["MainButton.hide"]]

    # Zoom and pan: + and −, two fingers, a drag.
    box = page.locator("#sheet")
    width = (await box.bounding_box() or {"width": 0.0})["width"]
    for _ in range(5):
        await page.locator("#zoom-in").click()
    assert await box.get_attribute("data-zoom") == "6"
    assert await page.evaluate(SMALLEST_TOTAL) >= 14  # zoomed in, the smallest reads
    await page.locator("#zoom-out").click()
    assert await box.get_attribute("data-zoom") == "4"
    svg_width = await page.evaluate(
        "document.querySelector('#sheet svg').getBoundingClientRect().width"
    )
    assert svg_width == pytest.approx(4 * width, rel=0.02)
    before = await page.evaluate(SCROLL)
    middle = await box.bounding_box()
    assert middle is not None
    x, y = middle["x"] + middle["width"] / 2, middle["y"] + middle["height"] / 2
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x - 120, y - 80, steps=5)
    await page.mouse.up()
    after = await page.evaluate(SCROLL)
    assert after[0] > before[0] + 100 and after[1] > before[1] + 60  # dragged left and up
    await page.locator("#zoom-fit").click()
    await page.evaluate(PINCH, [x, y, 40, 120])  # two fingers 40 px apart, then 120
    assert float(await box.get_attribute("data-zoom") or 0) == pytest.approx(3, rel=0.05)
    await box.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "miniapp-zoomed.png"))
    await page.locator("#zoom-fit").click()

    # The MainButton records the line the form builds; the page's own button steps aside.
    form = page.locator("#deal-form")
    await form.scroll_into_view_if_needed()
    assert not await page.locator("#send").is_visible()
    await form.locator('[data-choice="declarer"] [data-value="Boris"]').click()
    await form.locator('[data-choice="level"] [data-value="6"]').click()
    await form.locator('[data-choice="suit"] [data-value="♣"]').click()
    await form.locator('[data-choice="role-Anna"] [data-value="pass"]').click()
    await form.locator('[data-choice="role-Clara"] [data-value="pass"]').click()
    assert await page.locator("#line").input_value() == "Boris 6♣ = pass:Anna pass:Clara"
    made = await calls(page)
    assert ["MainButton.setText", "Записать сдачу"] in made and made[-1] == ["MainButton.show"]
    since = server.cursor(GROUP)
    await page.evaluate("window.__tg.tap('main')")
    await page.wait_for_selector("#form-message.ok")
    assert await page.locator("#form-message").inner_text() == "Сдача №5 записана."
    await members["Anna"].wait(is_photo, since=since)
    await page.wait_for_selector('body[data-deals="5"]')
    made = await calls(page)
    assert ["HapticFeedback.notificationOccurred", "success"] in made
    assert made.index(["MainButton.showProgress", False]) < made.index(["MainButton.hideProgress"])
    assert made[-1] == ["MainButton.hide"]  # the form is empty again

    # themeChanged: the page takes Telegram's new colours and redraws the sheet for them.
    await page.evaluate(f"window.__tg.theme({json.dumps(DARK)}, 'dark')")
    await page.evaluate("window.__tg.fire('themeChanged')")
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(35, 46, 60)"  # the dark theme's secondary_bg_color
    assert await page.get_attribute("html", "data-scheme") == "dark"
    dimmed = await page.evaluate("getComputedStyle(document.querySelector('#sheet svg')).filter")
    assert "brightness" in dimmed
    await page.locator("#sheet-section").scroll_into_view_if_needed()
    await page.screenshot(path=str(SHOTS / "miniapp-dark.png"))
    bot.assert_alive()


# Two touch pointers on the sheet at (x ± d/2, y), moved apart to (x ± e/2, y).
PINCH = """
([x, y, d, e]) => {
  const box = document.getElementById("sheet");
  const fire = (type, id, px) => box.dispatchEvent(new PointerEvent(type, {
    pointerId: id, pointerType: "touch", clientX: px, clientY: y, bubbles: true, cancelable: true,
    isPrimary: id === 1 }));
  fire("pointerdown", 1, x - d / 2);
  fire("pointerdown", 2, x + d / 2);
  for (let step = 1; step <= 4; step += 1) {
    const half = (d + ((e - d) * step) / 4) / 2;
    fire("pointermove", 1, x - half);
    fire("pointermove", 2, x + half);
  }
  fire("pointerup", 1, x - e / 2);
  fire("pointerup", 2, x + e / 2);
}
"""
