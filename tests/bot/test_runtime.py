"""Issue 12: aiogram's response models survive the garbage collector once kept at start-up."""

from __future__ import annotations

import gc
import platform

from aiogram.methods import SendMessage, SendPhoto
from aiogram.methods.base import Response

from bot.telegram.runtime import keep_response_types, limit_malloc_arenas, method_types


def test_the_response_models_are_the_same_classes_after_a_collection() -> None:
    assert keep_response_types() >= 10
    before = {id(Response[m.__returning__]) for m in (SendMessage, SendPhoto)}  # type: ignore[misc]
    gc.collect()
    after = {id(Response[m.__returning__]) for m in (SendMessage, SendPhoto)}  # type: ignore[misc]
    assert before == after


def test_every_method_the_bot_sends_is_among_those_kept() -> None:
    kinds = set(method_types())
    assert {SendMessage, SendPhoto} <= kinds


def test_the_arena_limit_is_set_on_glibc() -> None:
    on_glibc = platform.libc_ver()[0] == "glibc"
    assert limit_malloc_arenas() is on_glibc  # elsewhere it is a no-op
