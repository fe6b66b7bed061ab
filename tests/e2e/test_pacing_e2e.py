"""A reply for every deal, within Telegram's limits (docs/architecture.md "Delivery"): against a
fake Bot API that enforces Telegram's real rate limits (20 messages a minute per group, 30 a
second per bot) a burst of deals gets no 429, the sheets that waited go out as the newest with
every caption, and a picture Telegram refuses is answered with the text sheet."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import GROUP, FakeTelegram, Sent
from tests.e2e.harness import PACED, contains, is_photo
from tests.e2e.test_delivery_e2e import (
    PLAYERS,
    answered,
    check_against_replay,
    deal_line,
    open_table,
    wait_answered,
)
from tests.render.factories import picture


def deal_photos(server: FakeTelegram) -> list[Sent]:
    return [s for s in server.sent[GROUP.id] if s.method == "sendPhoto" and answered_in(s)]


def answered_in(sent: Sent) -> bool:
    return any(line.startswith("#") for line in sent.text.splitlines())


async def test_a_burst_of_30_deals_in_one_group_gets_no_429_and_the_last_picture_shows_the_last_deal(
    server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    """30 deals typed at once by three players in a group, the bot paced to Telegram's limits
    (the defaults) and the fake enforcing them from the first message: no call is refused,
    every deal is recorded once and told once, the last picture's caption names deal 30 and
    the picture is the sheet as /sheet draws it after deal 30."""
    server.limits.on = True
    bot = await start_bot(locale="en", pacing=PACED)
    members = await open_table(bot, GROUP)
    lines = [deal_line(i) for i in range(30)]
    started = time.monotonic()
    for i, line in enumerate(lines):
        members[PLAYERS[i % 3]].send(f"/deal {line}")
    await wait_answered(server, GROUP, 30, 90)
    took = time.monotonic() - started
    await check_against_replay(members, lines, tmp_path)
    assert answered(server, GROUP) == Counter(range(1, 31)), "a deal told twice or never"
    photos = deal_photos(server)
    last = photos[-1]
    assert "#30 " in last.text and last.text.rstrip().splitlines()[0].startswith("#")
    since = server.cursor(GROUP)
    sheet = await members["Anna"].say("/sheet", is_photo)
    assert sheet.photo is not None and last.photo is not None
    assert picture(sheet.photo) == picture(last.photo), "the last picture is not deal 30's sheet"
    assert server.cursor(GROUP) > since
    refused = [r for r in server.requests if r.status == 429]
    assert not refused and not server.limits.refused, f"429s: {refused}"
    assert server.limits.most_in_a_minute(GROUP.id) <= 20
    went = server.limits.went[GROUP.id]
    print(
        f"30 deals told in {took:.1f} s with {len(photos)} pictures;"
        f" {len(server.sent[GROUP.id])} messages in the group in all, at"
        f" {[round(t - went[0], 1) for t in went]} s:"
        f" {[s.method for s in server.sent[GROUP.id]]}"
    )
    bot.assert_alive()


async def test_a_photo_refused_with_400_still_gets_the_text_sheet(
    server: FakeTelegram, start_bot: StartBot
) -> None:
    """Telegram refuses the picture (its dimensions, then its processing): each deal is still
    answered, with its caption and the text sheet; the next picture goes as a photo again."""
    bot = await start_bot(locale="en")
    members = await open_table(bot, GROUP)
    anna = members["Anna"]
    await anna.say("/lang en")  # the players' Telegram is in Russian; the texts checked are not
    server.refuse_photos("PHOTO_INVALID_DIMENSIONS")
    server.refuse_photos("IMAGE_PROCESS_FAILED")
    for number in (1, 2):
        text = await anna.say(f"/deal {deal_line(number - 1)}", contains(f"#{number} "))
        assert text.method == "sendMessage", server.describe(GROUP)
        assert f"Game #1, {number} deals" in text.text and "Balances" in text.text
        assert deal_line(number - 1) in text.text
    photo = await anna.say(f"/deal {deal_line(2)}", is_photo)
    assert "#3 " in photo.text
    refused = [r.error for r in server.requests if r.status == 400]
    assert refused == [
        "Bad Request: PHOTO_INVALID_DIMENSIONS",
        "Bad Request: IMAGE_PROCESS_FAILED",
    ]
    await asyncio.sleep(0)
    bot.assert_alive()
