"""/help's topics and the commands menus (tests/bot/test_help.py reads every example a topic shows
with the real parsers: each is a command or line the bot accepts in that language)."""

from enum import StrEnum
from typing import Final

from bot.texts.i18n import Safe, Translator


class Topic(StrEnum):
    """A screen of /help (text `helpscreen-<name>`); HOME is the short one /help opens with."""

    HOME = "h"
    RECORDING = "r"
    CORRECTIONS = "c"
    SETTLEMENT = "s"
    OPTIONS = "o"
    MINIAPP = "m"


TOPICS: Final = tuple(Topic)[1:]
# The group menu: the game's commands, in the order a game meets them.
_GROUP: Final = """newgame join leave deal undo edit score sheet history rules rule lastround
dispute arbiter export endgame games game stats top debts paid remind calc lang tz help"""
GROUP_COMMANDS: Final = tuple(_GROUP.split())
# The private chat's menu: what one person does alone. A command is listed once its text
# (`command-<name>`) exists in the locales, so a command still to come is never offered.
PRIVATE_COMMANDS: Final = ("start", "games", "me", "calc", "debts")


def topic_text(t: Translator, topic: Topic, bot: str) -> Safe:
    """A topic's screen; `bot` the bot's username for the inline example."""
    return t(f"helpscreen-{topic.name.lower()}", bot=bot or "bot")


def topic_label(t: Translator, topic: Topic) -> str:
    return t.template(f"help-button-{topic.name.lower()}")


def menu_commands(t: Translator, private: bool) -> list[tuple[str, str]]:
    """(command, description) of a menu; in private `command-private-<name>` where it differs."""
    menu: list[tuple[str, str]] = []
    for name in PRIVATE_COMMANDS if private else GROUP_COMMANDS:
        own = f"command-private-{name}"
        if t.has(f"command-{name}"):
            menu.append((name, t.template(own if private and t.has(own) else f"command-{name}")))
    return menu
