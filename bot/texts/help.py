"""/help as a short screen with topics, the commands menus, and the greetings: the private
/start's and the one a group gets when the bot is added to it. Pure functions of the translator.

Every example a topic shows is a whole command or line the bot accepts in that language
(tests/bot/test_help.py reads each one with the real parsers)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from bot.texts.i18n import Safe, Translator


class Topic(StrEnum):
    """A screen of /help; HOME is the short one /help opens with."""

    HOME = "h"
    RECORDING = "r"
    CORRECTIONS = "c"
    SETTLEMENT = "s"
    OPTIONS = "o"
    MINIAPP = "m"


TOPICS: Final = (
    Topic.RECORDING,
    Topic.CORRECTIONS,
    Topic.SETTLEMENT,
    Topic.OPTIONS,
    Topic.MINIAPP,
)
_KEYS: Final = {
    Topic.HOME: "home",
    Topic.RECORDING: "recording",
    Topic.CORRECTIONS: "corrections",
    Topic.SETTLEMENT: "settlement",
    Topic.OPTIONS: "options",
    Topic.MINIAPP: "miniapp",
}

# The group menu: the game's commands, in the order a game meets them.
GROUP_COMMANDS: Final = (
    "newgame",
    "join",
    "leave",
    "deal",
    "undo",
    "edit",
    "score",
    "sheet",
    "history",
    "rules",
    "rule",
    "lastround",
    "dispute",
    "arbiter",
    "export",
    "endgame",
    "games",
    "game",
    "stats",
    "top",
    "debts",
    "paid",
    "remind",
    "calc",
    "lang",
    "tz",
    "help",
)
# The private chat's menu: what one person does alone. A command is listed once its text
# (`command-<name>`) exists in the locales, so a command still to come is never offered.
PRIVATE_COMMANDS: Final = ("start", "games", "me", "calc", "debts")


def topic_text(t: Translator, topic: Topic, bot: str) -> Safe:
    """A topic's screen; `bot` the bot's username for the inline example."""
    return t(f"helpscreen-{_KEYS[topic]}", bot=bot or "bot")


def topic_label(t: Translator, topic: Topic) -> str:
    return t.template(f"help-button-{_KEYS[topic]}")


def menu_commands(t: Translator, private: bool) -> list[tuple[str, str]]:
    """(command, description) of a menu, in the menu's order; a private chat's description
    where a command means something else there (`command-private-games`: your games, not the
    chat's)."""
    names = PRIVATE_COMMANDS if private else GROUP_COMMANDS
    menu: list[tuple[str, str]] = []
    for name in names:
        if not t.has(f"command-{name}"):
            continue
        key = f"command-private-{name}" if private and t.has(f"command-private-{name}") else ""
        menu.append((name, t.template(key or f"command-{name}")))
    return menu
