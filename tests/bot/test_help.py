"""/help fits a phone: a short screen whose topic buttons edit the same message, every example
valid in the chat's language (read with the real parsers), and the commands menus per scope
and language."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, SetMyCommands
from aiogram.types import (
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardMarkup,
)

from bot.app import set_commands
from bot.core import Player, parse_newgame
from bot.core.newgame import parse_arbiter
from bot.core.records import split_late
from bot.core.zones import parse_zone
from bot.telegram.keyboards import HelpCb
from bot.texts.help import GROUP_COMMANDS, PRIVATE_COMMANDS, TOPICS, Topic, topic_text
from bot.texts.i18n import LANGUAGES, translator
from scoring.calc import parse_calc
from scoring.notation import Table, parse_record
from scoring.pricing import price_deal
from scoring.rules import parse_option
from tests.bot.factories import ANNA, ChatDriver, TgUser, texts
from tests.bot.mocked_bot import BOT_USER, MockedBot

BOT = str(BOT_USER["username"])
NAMES = {"en": ("Anna", "Boris", "Clara"), "ru": ("Анна", "Борис", "Клара")}
EXAMPLE = re.compile(r"<(code|pre)>(.*?)</\1>", re.S)
COMMAND = re.compile(r"(?<![\w@<])/([a-z]+)")
# Words of English notation a Russian example must not show (and Russian letters an English one).
ENGLISH_WORDS = re.compile(r"\b(vist|pass|half|misere|pool|stake|mountain|whists|late)\b")
CYRILLIC = re.compile(r"[а-яё]", re.I)
GREETINGS = ("group-greeting", "start-private", "inline-usage")


def screens(lang: str) -> list[str]:
    t = translator(lang)
    shown = [topic_text(t, topic, BOT) for topic in Topic]
    return shown + [t(key, bot=BOT) for key in GREETINGS]


def examples(lang: str) -> list[str]:
    return [html.unescape(m.group(2)) for text in screens(lang) for m in EXAMPLE.finditer(text)]


def check_example(example: str, lang: str) -> None:
    """Read `example` as the bot would: a command with its arguments, a deal typed inline, or a
    piece of a deal line (a result, `me`) put into a whole line."""
    names = NAMES[lang]
    table = Table(names, sender=0)
    me = Player(names[0], ANNA.id)
    if example.startswith(f"@{BOT}"):
        query = example.removeprefix(f"@{BOT}").strip()
        if query:  # alone, it offers the sender's games
            price_deal(query, lang)
        return
    if not example.startswith("/"):  # a piece of a deal line
        role = "вист" if lang == "ru" else "vist"
        if example in ("я", "me"):
            parse_record(
                f"{names[1]} 7♠ = {role}:{example} pass:{names[2]}".replace(
                    "pass:", "пас:" if lang == "ru" else "pass:"
                ),
                table,
            )
        else:
            parse_record(f"{names[0]} 7♠ {example} {role}:{names[1]} {role}:{names[2]}/1", table)
        return
    command, _, args = example.partition(" ")
    name = command[1:]
    if name == "newgame":
        parse_newgame(args, me)
    elif name in ("deal", "edit"):
        line, _ = split_late(args)
        parse_record(line, table)
    elif name == "dispute":
        number, _, line = args.partition(" ")
        assert int(number) > 0
        parse_record(line, table)
    elif name == "calc":
        parse_calc(example)
    elif name == "rule":
        option, _, value = args.partition("=")
        parse_option(option, value)
    elif name == "arbiter":
        parse_arbiter(args, me)
    elif name == "lang":
        assert args in LANGUAGES
    elif name == "tz":
        parse_zone(args)
    elif name == "sheet":
        assert args == "full"
    elif name == "game":
        assert int(args) > 0
    else:
        raise AssertionError(f"no parser reads the example {example!r}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_of_every_help_topic_is_read_by_the_real_parsers(lang: str) -> None:
    found = examples(lang)
    assert len(found) >= 20
    for example in found:
        try:
            check_example(example, lang)
        except Exception as error:
            raise AssertionError(f"{example!r}: {error!r}") from error


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_is_in_the_chats_language(lang: str) -> None:
    for example in examples(lang):
        if lang == "ru":
            assert ENGLISH_WORDS.search(example) is None, example
        else:
            assert CYRILLIC.search(example) is None, example


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_command_help_names_is_one_the_bot_has(lang: str) -> None:
    known = {*GROUP_COMMANDS, *PRIVATE_COMMANDS, "start"}
    for text in screens(lang):
        for name in COMMAND.findall(text):
            assert name in known, f"/{name} in {text!r}"


def keyboard(request: Any) -> list[tuple[str, str]]:
    markup = request.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    return [
        (b.text, b.callback_data or b.url or "") for row in markup.inline_keyboard for b in row
    ]


@pytest.mark.parametrize(("lang", "back"), [("en", "◀ Back"), ("ru", "◀ Назад")])
async def test_help_is_a_short_screen_whose_topics_edit_the_same_message(
    chat: ChatDriver, lang: str, back: str
) -> None:
    await chat.send(ANNA, f"/lang {lang}")
    sent = await chat.send(ANNA, "/help")
    assert len(sent) == 1 and isinstance(sent[0], SendMessage)
    home = sent[0]
    assert home.text.count("\n") <= 4 and len(html.unescape(home.text)) <= 400
    buttons = keyboard(home)
    assert [data for _, data in buttons] == [HelpCb(topic=t).pack() for t in TOPICS]
    message_id = chat.bot.session.message_ids[chat.chat_id]
    t = translator(lang)
    for topic in TOPICS:
        pressed = await chat.press(ANNA, HelpCb(topic=topic), message_id)
        edits = [r for r in pressed if isinstance(r, EditMessageText)]
        assert len(edits) == 1 and edits[0].message_id == message_id
        assert edits[0].text == topic_text(t, topic, BOT)
        assert keyboard(edits[0]) == [(back, HelpCb(topic=Topic.HOME).pack())]
        assert any(isinstance(r, AnswerCallbackQuery) for r in pressed)  # the press answered
        assert not any(isinstance(r, SendMessage) for r in pressed)  # no new message
        assert len(html.unescape(edits[0].text)) <= 1000  # a phone screen, not a wall
    again = await chat.press(ANNA, HelpCb(topic=Topic.HOME), message_id)
    assert [r.text for r in again if isinstance(r, EditMessageText)] == [home.text]


async def test_anyone_may_press_help_topics_and_a_forged_topic_is_ignored(
    chat: ChatDriver,
) -> None:
    await chat.send(ANNA, "/help")
    message_id = chat.bot.session.message_ids[chat.chat_id]
    eva = TgUser(1099, "Eva")
    pressed = await chat.press(eva, HelpCb(topic=Topic.OPTIONS), message_id)
    assert "/rules" in texts(pressed)
    forged = await chat.press(eva, "hp:zz", message_id)
    assert not any(isinstance(r, EditMessageText) for r in forged)


async def test_the_menus_are_set_per_scope_and_language() -> None:
    """Groups: the game's commands; private chats: /start, /games, /me, /calc (and /debts once
    the bot has it); each in Russian, in English, and in the default language for the rest."""
    bot = MockedBot()
    await set_commands(bot, "en")
    calls = [r for r in bot.requests if isinstance(r, SetMyCommands)]
    menus = {
        (type(c.scope).__name__, c.language_code): [x.command for x in c.commands] for c in calls
    }
    group, private = BotCommandScopeAllGroupChats.__name__, BotCommandScopeAllPrivateChats.__name__
    assert set(menus) == {(s, lang) for s in (group, private) for lang in ("ru", "en", None)}
    for lang in ("ru", "en", None):
        assert menus[group, lang][:4] == ["newgame", "join", "leave", "deal"]
        assert "help" in menus[group, lang] and "start" not in menus[group, lang]
        assert menus[private, lang][:4] == ["start", "games", "me", "calc"]
        assert "deal" not in menus[private, lang]
    russian = next(c for c in calls if c.language_code == "ru" and type(c.scope).__name__ == group)
    assert russian.commands[0].description.startswith("открыть пульку")
    alone = next(c for c in calls if c.language_code == "en" and type(c.scope).__name__ == private)
    assert alone.commands[1].description == "every game you sat in"  # not the chat's games
