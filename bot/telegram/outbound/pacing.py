"""Telegram's limits on what a bot sends, kept before each call rather than learnt from 429s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from bot.settings import Settings

KEPT_BUCKETS: Final = 4096  # chat buckets kept before the idle (full) ones are forgotten


@dataclass(frozen=True, slots=True)
class Limit:
    """`burst` calls at once, then `rate` a second."""

    burst: float
    rate: float

    @classmethod
    def window(cls, count: float, seconds: float, burst: float) -> Limit:
        """At most `count` calls in any `seconds`, `burst` of them at once."""
        return cls(burst, (count - burst) / seconds)


@dataclass(slots=True)
class TokenBucket:
    """One limit's bucket on the sender's clock (seconds)."""

    limit: Limit
    tokens: float
    at: float

    @classmethod
    def full(cls, limit: Limit, now: float) -> TokenBucket:
        return cls(limit, limit.burst, now)

    def _fill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(self.limit.burst, self.tokens + (now - self.at) * self.limit.rate)
            self.at = now

    def delay(self, now: float, need: float = 1) -> float:
        """Seconds until `need` tokens are there (0: now); nothing is taken."""
        self._fill(now)
        missing = max(0.0, need - self.tokens)
        return max(0.0, self.at - now) + (missing / self.limit.rate if missing else 0.0)

    def take(self, now: float) -> float:
        """Reserve a token; the seconds to wait before the call may go (0: at once)."""
        wait = self.delay(now)
        self.tokens -= 1
        return wait

    def pause(self, now: float, seconds: float) -> None:
        """Telegram said "retry after `seconds`": the bucket is empty until then."""
        self._fill(now)
        self.tokens = min(self.tokens, 0.0)
        self.at = max(self.at, now + seconds)

    def idle(self, now: float) -> bool:
        """Full again: as good as a new bucket."""
        self._fill(now)
        return self.tokens >= self.limit.burst


@dataclass(slots=True)
class Pacing:
    """The bot's bucket and one per chat (group or private limit); `unlimited()` paces nothing."""

    group: Limit | None
    private: Limit | None
    bot: Limit | None
    _chats: dict[int, TokenBucket] = field(default_factory=dict)
    _bot: TokenBucket | None = None

    @classmethod
    def unlimited(cls) -> Pacing:
        return cls(None, None, None)

    @classmethod
    def of(cls, settings: Settings) -> Pacing:
        return cls(
            group=Limit.window(settings.pace_group_per_minute, 60.0, settings.pace_group_burst),
            private=Limit(settings.pace_private_burst, settings.pace_private_per_second),
            bot=Limit.window(settings.pace_bot_per_second, 1.0, settings.pace_bot_burst),
        )

    @property
    def kept(self) -> int:
        return len(self._chats)

    def _chat(self, chat_id: int, now: float) -> TokenBucket | None:
        limit = self.group if chat_id < 0 else self.private
        if limit is None:
            return None
        bucket = self._chats.get(chat_id)
        if bucket is None:
            if len(self._chats) >= KEPT_BUCKETS:
                self._chats = {k: b for k, b in self._chats.items() if not b.idle(now)}
            bucket = self._chats[chat_id] = TokenBucket.full(limit, now)
        return bucket

    def ready_in(self, chat_id: int, now: float, calls: int = 1) -> float:
        """Seconds until the chat may take `calls` calls (0: now); nothing is taken."""
        bucket = self._chat(chat_id, now)
        return 0.0 if bucket is None else bucket.delay(now, min(calls, bucket.limit.burst))

    def take_chat(self, chat_id: int, now: float) -> float:
        bucket = self._chat(chat_id, now)
        return bucket.take(now) if bucket is not None else 0.0

    def take_bot(self, now: float) -> float:
        """Reserve one call of the bot's (after the chat's); seconds to wait before it may go."""
        if self._bot is None and self.bot is not None:
            self._bot = TokenBucket.full(self.bot, now)
        return self._bot.take(now) if self._bot is not None else 0.0

    def pause(self, chat_id: int, now: float, seconds: float) -> None:
        bucket = self._chat(chat_id, now)
        if bucket is not None:
            bucket.pause(now, seconds)
