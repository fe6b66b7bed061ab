"""End-to-end: the Mini App's Archive and Stats tabs in Chromium against the real bot process.

A group plays a short game to its end (Sochi to a pool of 2) and opens a second; Clara opens the
live sheet of the second at phone size. The Archive tab lists both games newest first, the ended
one with the balances its final /score showed; the Stats tab ranks the players by total as /top
does, and its period buttons ask again. The sheet's MainButton steps aside on the other tabs, and no
text is under 14 CSS px. Screenshots go where the sheet's do (`make screenshots`: docs/img).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from playwright.async_api import Browser, Page

from tests.e2e import test_miniapp_e2e as sheet_page
from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, GROUP, FakeTelegram
from tests.e2e.harness import Member, contains, is_photo
from tests.e2e.test_miniapp_e2e import (
    FONT_SIZES,
    LINK,
    SHOTS,
    THEME,
    app_url,
    free_port,
    open_page,
    shown,
    stub,
)

GAME = (
    ("Anna", "Anna 6♠ = vist:Boris pass:Clara"),
    ("Boris", "Boris 6♠ = vist:Clara pass:Anna"),
    ("Clara", "Clara 6♠ -1 vist:Anna pass:Boris"),
    ("Anna", "Clara 6♠ = vist:Anna pass:Boris"),
)
NAMES = ("Anna", "Boris", "Clara")
browser = sheet_page.browser  # the sheet page's Chromium fixture


async def open_game(members: dict[str, Member]) -> None:
    anna, boris, clara = (members[n] for n in NAMES)
    opened = await anna.say("/newgame sochi pool 2", lambda s: bool(s.buttons))
    await anna.press(opened, 0)
    await boris.press(opened, 0)
    await clara.say("/join", contains("Clara"))


def final_balances(score: str) -> dict[str, str]:
    found = dict(re.findall(rf"^({'|'.join(NAMES)}): (\S+)$", score, re.MULTILINE))
    assert set(found) == set(NAMES), score
    return found


async def small_texts(page: Page) -> list[list[object]]:
    sizes: list[list[object]] = await page.evaluate(FONT_SIZES)
    return [s for s in sizes if float(str(s[1])) < 14]


async def test_the_archive_and_stats_tabs_show_the_chat_s_games_and_standings_on_a_phone(
    start_bot: StartBot, server: FakeTelegram, browser: Browser
) -> None:
    port = free_port()
    bot = await start_bot(env={"WEB_LISTEN": f"127.0.0.1:{port}", "MINIAPP_LINK": LINK})
    members = {u.first_name: Member(bot, GROUP, u) for u in (ANNA, BORIS, CLARA)}
    anna = members["Anna"]
    await anna.say("/lang en", contains("English"))
    await open_game(members)
    for who, line in GAME:
        await members[who].say(f"/deal {line}", is_photo)
    await anna.say("/endgame", contains("end rule is met"))
    ended = final_balances((await anna.say("/score", contains("📊"))).text)
    await open_game(members)
    await anna.say("/deal Anna 6♠ = vist:Boris pass:Clara", is_photo)

    url = app_url(port, CLARA, game_id=2)
    data = dict(part.split("=", 1) for part in url.split("#", 1)[1].split("&"))["tgWebAppData"]
    page = await open_page(browser, url, stub(unquote(data), THEME))
    await page.wait_for_selector("#balances li[data-player]")
    await page.locator("#line").fill("Boris 6♠ = vist:Clara pass:Anna")
    await page.locator("#line").dispatch_event("input")
    tg_calls = "window.__tg.calls.slice()"
    assert (await page.evaluate(tg_calls))[-1] == ["MainButton.show"]

    # The archive: newest first, the ended game with its final balances; the sheet steps aside.
    await page.locator('.tabs [data-tab="archive"]').click()
    await page.wait_for_selector('#archive li[data-game="1"]')
    assert await page.locator("#main").is_hidden()
    assert (await page.evaluate(tg_calls))[-1] == ["MainButton.hide"]
    numbers = await page.locator("#archive li[data-game]").evaluate_all(
        "items => items.map(i => i.dataset.game)"
    )
    assert numbers == ["2", "1"]
    first = await page.locator('#archive li[data-game="1"]').inner_text()
    assert "ended" in first and "Sochi" in first, first
    result = await page.locator('#archive li[data-game="1"] .result').inner_text()
    shown_balances = dict(part.rsplit(" ", 1) for part in result.split(" · "))
    assert {n: shown(v) for n, v in shown_balances.items()} == {
        n: shown(v) for n, v in ended.items()
    }
    assert "in play" in await page.locator('#archive li[data-game="2"]').inner_text()
    assert await page.locator("#page-label").inner_text() == "Page 1 of 1"
    assert not await small_texts(page), await small_texts(page)
    await page.screenshot(path=str(SHOTS / "miniapp-archive.png"), full_page=True)

    # The stats: ranked by total (the ended game only), as /top ranks them.
    await page.locator('.tabs [data-tab="stats"]').click()
    await page.wait_for_selector("#standings li[data-player]")
    assert await page.locator("#stats-head").inner_text() == "Finished games: 1"
    order = await page.locator("#standings li[data-player]").evaluate_all(
        "items => items.map(i => i.dataset.player)"
    )
    assert order == sorted(NAMES, key=lambda n: -shown(ended[n]))
    for name in NAMES:
        total = await page.locator(f'#standings li[data-player="{name}"] .total').inner_text()
        assert shown(total) == shown(ended[name])
    top = (await anna.say("/top", is_photo)).text
    assert re.findall(r"^\d\. (\w+) ", top, re.MULTILINE) == order, top
    await page.locator('#standings li[data-player="Anna"] summary').click()
    details = await page.locator('#standings li[data-player="Anna"] details').inner_text()
    assert "contracts made / declared: 6: " in details, details
    await page.locator('#periods [data-period="month"]').click()
    await page.wait_for_selector('#periods [data-period="month"][aria-pressed="true"]')
    assert not await small_texts(page), await small_texts(page)
    await page.screenshot(path=str(SHOTS / "miniapp-stats.png"), full_page=True)

    # Back on the sheet: the MainButton returns for the line still in the form.
    await page.locator('.tabs [data-tab="sheet"]').click()
    assert await page.locator("#main").is_visible()
    assert (await page.evaluate(tg_calls))[-1] == ["MainButton.show"]
