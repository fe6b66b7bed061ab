"""The token buckets that keep what the bot sends within Telegram's limits (bot/telegram/pacing.py,
docs/decisions.md "Pacing"): about 30 messages a second per bot, 20 a minute per group."""

from __future__ import annotations

import random
from bisect import bisect_right

import pytest
from pydantic import ValidationError

from bot.settings import Settings, settings_error_lines
from bot.telegram.outbound.pacing import KEPT_BUCKETS, Limit, Pacing, TokenBucket

GROUP, OTHER_GROUP, PRIVATE = -1001, -1002, 42


def most_in_any_window(times: list[float], window: float) -> int:
    """The largest number of `times` inside one window [t, t + window), over every t."""
    times = sorted(times)
    return max(
        (bisect_right(times, t + window - 1e-9) - i for i, t in enumerate(times)), default=0
    )


def paced(pacing: Pacing, asks: list[tuple[float, int]]) -> list[float]:
    """When each call goes: a call asked at `at` for chat `chat` waits for its tokens, chat's
    first, then the bot's (as the sender does); calls of one chat go in the order asked."""
    went: list[float] = []
    ready: dict[int, float] = {}
    for at, chat in sorted(asks):
        now = max(at, ready.get(chat, at))
        now += pacing.take_chat(chat, now)
        now += pacing.take_bot(now)
        ready[chat] = now
        went.append(now)
    return went


def telegram() -> Pacing:
    return Pacing.of(Settings(bot_token="42:TEST"))


def test_no_minute_in_a_group_holds_more_than_20_messages_however_they_are_asked() -> None:
    rng = random.Random(7)
    asks = [(rng.uniform(0, 300), GROUP) for _ in range(200)]
    went = paced(telegram(), asks)
    assert most_in_any_window(went, 60.0) <= 20
    assert len(went) == 200  # nothing dropped: late, never lost


def test_the_first_ten_messages_of_a_quiet_group_go_at_once() -> None:
    went = paced(telegram(), [(100.0, GROUP)] * 12)
    assert went[:10] == [100.0] * 10
    assert went[10] == pytest.approx(106.0)  # then one every 6 s: 10 more in the minute
    assert went[11] == pytest.approx(112.0)


def test_no_second_holds_more_than_30_messages_of_the_bot_across_chats() -> None:
    rng = random.Random(3)
    asks = [(rng.uniform(0, 2), chat) for chat in range(1, 400)]
    went = paced(telegram(), asks)
    assert most_in_any_window(went, 1.0) <= 30


def test_a_private_chat_gets_a_short_burst_then_one_a_second() -> None:
    went = paced(telegram(), [(0.0, PRIVATE)] * 5)
    assert went == pytest.approx([0.0, 0.0, 0.0, 1.0, 2.0])


def test_one_group_s_burst_does_not_hold_another_group() -> None:
    pacing = telegram()
    paced(pacing, [(0.0, GROUP)] * 15)
    assert pacing.ready_in(GROUP, 0.0) > 0
    assert pacing.ready_in(OTHER_GROUP, 0.0) == 0


def test_a_429_holds_the_chat_for_retry_after_and_leaves_its_bucket_empty() -> None:
    bucket = TokenBucket.full(Limit.window(20, 60.0, 10), 0.0)
    bucket.pause(0.0, 7.0)
    assert bucket.delay(0.0) == pytest.approx(7.0 + 6.0)  # the pause, then a token's refill
    assert bucket.delay(13.0) == 0
    pacing = telegram()
    pacing.pause(GROUP, 0.0, 7.0)
    assert pacing.ready_in(GROUP, 5.0) > 0 and pacing.ready_in(GROUP, 13.0) == 0


def test_ready_in_takes_nothing_and_take_reserves_in_order() -> None:
    bucket = TokenBucket.full(Limit(2, 1.0), 0.0)
    assert bucket.delay(0.0, 2) == 0 and bucket.delay(0.0, 3) == pytest.approx(1.0)
    assert [bucket.take(0.0) for _ in range(4)] == pytest.approx([0.0, 0.0, 1.0, 2.0])


def test_a_row_of_more_calls_than_a_burst_waits_for_a_full_bucket_not_for_ever() -> None:
    pacing = telegram()
    pacing.take_chat(PRIVATE, 0.0)
    assert pacing.ready_in(PRIVATE, 0.0, 7) == pytest.approx(1.0)  # a burst is 3


def test_idle_chats_are_forgotten_when_many_are_kept() -> None:
    pacing = telegram()
    for chat in range(1, KEPT_BUCKETS + 1):
        pacing.take_chat(-chat, 0.0)
    assert pacing.kept == KEPT_BUCKETS
    pacing.take_chat(-(KEPT_BUCKETS + 1), 600.0)  # all full again by now: the old ones go
    assert pacing.kept == 1
    assert pacing.ready_in(-1, 600.0) == 0  # a chat forgotten starts full, as it would be


def test_unlimited_pacing_never_waits() -> None:
    pacing = Pacing.unlimited()
    assert all(pacing.take_chat(GROUP, 0.0) == 0 for _ in range(100))
    assert pacing.take_bot(0.0) == 0 and pacing.ready_in(GROUP, 0.0, 50) == 0


def test_a_burst_must_be_below_its_count() -> None:
    with pytest.raises(ValidationError) as error:
        Settings(bot_token="42:TEST", pace_group_per_minute=8)  # the default burst is 10
    assert settings_error_lines(error.value) == [
        "PACE_GROUP_BURST is invalid: must be below PACE_GROUP_PER_MINUTE (8)."
    ]
    with pytest.raises(ValidationError):
        Settings(bot_token="42:TEST", pace_bot_per_second=30, pace_bot_burst=30)
    ok = Settings(bot_token="42:TEST", pace_group_per_minute=8, pace_group_burst=4)
    assert Pacing.of(ok).group == Limit(4, 4 / 60)
