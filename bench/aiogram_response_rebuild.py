"""A minimal reproduction of aiogram rebuilding `Response[Message]` after a garbage collection
(issue 12, docs/decisions.md), and of the fix: holding the model from start-up.

aiogram's `BaseSession.check_response` validates each answer with `Response[method.__returning__]`;
pydantic caches parametrised generic models in a `WeakValueDictionary` and the model sits in
reference cycles, so a collection of the cyclic GC frees it and the next request builds it again.
The script times `check_response` on one sendMessage answer, each call after `gc.collect()` (a
busy bot collects every few requests), without the fix and then with it.

    .venv/bin/python bench/aiogram_response_rebuild.py [--calls 200]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from typing import Any

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.methods import SendMessage
from aiogram.methods.base import Response
from aiogram.types import Message

ANSWER = json.dumps(
    {
        "ok": True,
        "result": {
            "message_id": 1,
            "date": 1_767_225_600,
            "chat": {"id": -1, "type": "supergroup", "title": "t"},
            "text": "hi",
        },
    }
)


def per_call_ms(calls: int) -> float:
    bot = Bot("42:TEST")
    session = AiohttpSession()
    method = SendMessage(chat_id=-1, text="hi")
    times = []
    for _ in range(calls):
        gc.collect()
        start = time.perf_counter()
        session.check_response(bot, method, 200, ANSWER)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    before = per_call_ms(args.calls)
    kept: Any = Response[Message]  # the fix: one strong reference, held for the process's life
    after = per_call_ms(args.calls)
    print(f"check_response after gc.collect(), median of {args.calls} calls:")
    print(f"  without a reference to Response[Message]: {before:.3f} ms")
    print(f"  with Response[Message] held from start-up: {after:.3f} ms")
    assert kept is Response[Message]


if __name__ == "__main__":
    main()
