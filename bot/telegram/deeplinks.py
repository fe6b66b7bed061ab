"""Telegram's deep links to the bot: `t.me/<bot>?start=<payload>` opens the private chat with
`/start <payload>`, `?startgroup=<payload>` asks which group to add the bot to.

A game's payload is `game_<chat>_<number>` (the chat's id, minus sign kept: Telegram allows
`A–Z a–z 0–9 _ -` up to 64 characters). It names a game, it grants nothing: the private `/start`
shows the game only to one of its players."""

from __future__ import annotations

import re
from typing import Final

GAME_PREFIX: Final = "game_"
GROUP_PAYLOAD: Final = "added"  # ?startgroup=: the bot was added from its private /start
_GAME: Final = re.compile(r"game_(?P<chat>-?\d{1,20})_(?P<number>\d{1,9})")


def game_payload(chat_id: int, number: int) -> str:
    return f"{GAME_PREFIX}{chat_id}_{number}"


def read_game_payload(payload: str) -> tuple[int, int] | None:
    """(chat id, game number) of a game's payload; None for any other payload."""
    match = _GAME.fullmatch(payload.strip())
    if match is None:
        return None
    return int(match["chat"]), int(match["number"])


def start_url(username: str, payload: str) -> str:
    return f"https://t.me/{username}?start={payload}"


def add_to_group_url(username: str) -> str:
    return f"https://t.me/{username}?startgroup={GROUP_PAYLOAD}"
