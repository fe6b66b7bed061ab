"""End-to-end: the Mini App's "Debts" section in a real headless Chromium against the real bot
process. A game ends with debts; Boris opens the page at phone size: it lists the chat's open
debts with a "✅ paid" button on his own, his press is counted and the group is told, as a press
in the chat would be; Anna's press then closes the debt."""

from __future__ import annotations

from playwright.async_api import Browser

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, GROUP, FakeTelegram
from tests.e2e.harness import Member, contains
from tests.e2e.test_debts_e2e import FIRST, is_end
from tests.e2e.test_miniapp_e2e import (  # noqa: F401 (the browser fixture)
    LINK,
    SHOTS,
    app_url,
    browser,
    free_port,
    open_page,
)


async def test_the_debts_section_marks_a_debt_as_the_chats_button_does(
    start_bot: StartBot,
    server: FakeTelegram,
    browser: Browser,  # noqa: F811
) -> None:
    port = free_port()
    bot = await start_bot(
        locale="en", env={"WEB_LISTEN": f"127.0.0.1:{port}", "MINIAPP_LINK": LINK}
    )
    anna, boris, clara = (Member(bot, GROUP, u) for u in (ANNA, BORIS, CLARA))
    await anna.say("/lang en", contains("English"))
    opened = await anna.say("/newgame sochi pool 10 stake 0.1", lambda s: bool(s.buttons))
    for member in (anna, boris, clara):
        await member.press(opened, 0)
    for line in FIRST:
        await anna.say(f"/deal {line}", lambda s: s.is_photo)
    vote = await anna.say("/endgame", lambda s: bool(s.buttons))
    await boris.press(vote, 0)
    since = server.cursor(GROUP)
    await clara.press(vote, 0)
    await clara.wait(is_end, since=since)

    page = await open_page(browser, app_url(port, BORIS))
    await page.wait_for_selector("#balances li[data-player]")
    assert await page.locator("#debts-tab").is_hidden()
    await page.locator('.tabs [data-tab="debts"]').click()
    await page.wait_for_selector("#debts li[data-debt]")
    assert await page.locator("#main").is_hidden()
    rows = page.locator("#debts li[data-debt]")
    assert await rows.count() == 2
    assert await page.locator("#debts button.paid").count() == 2  # he owes both
    assert await page.locator("#debts-net li").count() == 2
    first = rows.filter(has_text="Boris → Anna")
    since = server.cursor(GROUP)
    await first.locator("button.paid").click()
    await page.wait_for_selector("#debts-message.ok")
    assert "вы заплатили" in await page.locator("#debts-message").inner_text()  # his language
    await anna.wait(contains("Boris has paid Anna"), since=since)
    await page.wait_for_selector("#debts .waiting")
    assert await page.locator("#debts button.paid").count() == 1  # his press is counted
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "miniapp-debts.png"))

    page = await open_page(browser, app_url(port, ANNA))
    await page.wait_for_selector("#balances li[data-player]")
    await page.locator('.tabs [data-tab="debts"]').click()
    await page.wait_for_selector("#debts li[data-debt]")
    assert await page.locator("#debts button.paid").count() == 1  # only what is owed to her
    await page.locator("#debts button.paid").click()
    await page.wait_for_selector("#debts-message.ok")
    await page.wait_for_function("document.querySelectorAll('#debts li[data-debt]').length === 1")
    await anna.wait(contains("settled"), since=since)
