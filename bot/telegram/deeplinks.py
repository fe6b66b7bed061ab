"""Telegram's deep links to the bot; a game's payload `game_<chat>_<number>` grants nothing."""

from __future__ import annotations

import re
from typing import Final

GROUP_PAYLOAD: Final = "added"  # ?startgroup=: the bot was added from its private /start
_GAME: Final = re.compile(r"game_(?P<chat>-?\d{1,20})_(?P<number>\d{1,9})")


def game_url(username: str, chat_id: int, number: int) -> str:
    """The private /start that opens the game."""
    return f"https://t.me/{username}?start=game_{chat_id}_{number}"


def read_game_payload(payload: str) -> tuple[int, int] | None:
    """(chat id, game number) of a game's payload; None for any other payload."""
    match = _GAME.fullmatch(payload.strip())
    return None if match is None else (int(match["chat"]), int(match["number"]))


def add_to_group_url(username: str) -> str:
    return f"https://t.me/{username}?startgroup={GROUP_PAYLOAD}"
