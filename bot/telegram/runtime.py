"""Two process-wide fixes made once at start-up (docs/decisions.md).

`keep_response_types()`: aiogram checks every Bot API answer with the pydantic model
`Response[method.__returning__]`; pydantic keeps parametrised generic models in a
`WeakValueDictionary`, and such a class lives in reference cycles, so every collection of the
cyclic garbage collector drops it and the next request builds the model again (~4 ms instead of
~0.03 ms). Building each of them once here and holding them keeps them alive.

`limit_malloc_arenas()`: glibc gives each thread that allocates its own malloc arena (up to 8 per
core), and the render threads' pictures left some 40 MB in them; two arenas are plenty for a bot
whose threads only draw. A no-op where glibc's `mallopt` is not there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import inspect
from typing import Any, Final

from aiogram import methods
from aiogram.methods.base import Response, TelegramMethod

M_ARENA_MAX: Final = -8  # glibc's malloc.h
ARENAS: Final = 2

_kept: list[Any] = []  # the response models, held so that the garbage collector keeps them


def method_types() -> list[type[TelegramMethod[Any]]]:
    """Every Bot API method aiogram knows."""
    found = []
    for _, value in inspect.getmembers(methods, inspect.isclass):
        if issubclass(value, TelegramMethod) and value is not TelegramMethod:
            found.append(value)
    return found


def keep_response_types(kinds: list[type[TelegramMethod[Any]]] | None = None) -> int:
    """Build `Response[T]` for the return type of each method (by default every method) and
    keep it (once a process); how many models are kept."""
    if _kept and kinds is None:
        return len(_kept)
    seen: set[str] = set()
    for kind in method_types() if kinds is None else kinds:
        returning: Any = kind.__returning__
        if repr(returning) in seen:
            continue
        seen.add(repr(returning))
        _kept.append(Response.__class_getitem__(returning))  # what Response[returning] does
    return len(_kept)


def start_up() -> None:
    """Both, once at start-up (`bot.app.build_dispatcher`)."""
    keep_response_types()
    limit_malloc_arenas()


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """`mallopt(M_ARENA_MAX, arenas)` on glibc; whether it was set."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))


__all__ = ["keep_response_types", "limit_malloc_arenas", "method_types", "start_up"]
