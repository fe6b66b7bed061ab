"""Two process-wide fixes made once at start-up (docs/decisions.md)."""

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
    classes = (value for _, value in inspect.getmembers(methods, inspect.isclass))
    return [
        kind for kind in classes if issubclass(kind, TelegramMethod) and kind is not TelegramMethod
    ]


def keep_response_types() -> int:
    """Build and keep `Response[T]` per method's return type, once a process; how many."""
    if not _kept:
        returning = {repr(kind.__returning__): kind.__returning__ for kind in method_types()}
        # what Response[returning] does
        _kept.extend(Response.__class_getitem__(kind) for kind in returning.values())
    return len(_kept)


def limit_malloc_arenas() -> bool:
    """`mallopt(M_ARENA_MAX, ARENAS)` on glibc; whether it was set."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, ARENAS))  # ctypes passes and returns C ints by default
