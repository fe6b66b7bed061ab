"""The text defects four phone games found (issue 27, Deliver 8), each held by a test through
the real Dispatcher: gender-neutral wording, Russian notation in Russian examples, options in the
chat's words, ✎ only where a value differs from the preset, no example under a pressed button,
the arbiter by his name, the bot's own examples valid, the pool's limit said."""

from __future__ import annotations

import re

from bot.core import Core, looks
from bot.core.newgame import ARBITER_EXAMPLE, parse_arbiter, parse_newgame
from bot.core.state import Player
from locales.catalog import LOCALES_DIR
from scoring.notation import Table, parse_record
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, TgUser
from tests.bot.test_disputes import EVA_ARBITER, buttons, edited, toast
from tests.bot.test_game_flow import open_game

OLYA = TgUser(3001, "Оля", "olya_s", "ru")
PETYA = TgUser(3002, "Петя", "petya_s", "ru")
VANYA = TgUser(3003, "Ваня", "vanya_s", "ru")
KATYA = TgUser(3004, "Катя", "katya_s", "ru")


async def open_russian(chat: ChatDriver, args: str) -> str:
    """A Russian group's game opened by Оля with Петя and Ваня (and Катя with four)."""
    await chat.send(OLYA, "/lang ru")
    return await chat.say(OLYA, f"/newgame {args}")


async def test_the_four_player_steps_title_says_the_dealer_sits_out_without_a_gender(
    chat: ChatDriver,
) -> None:
    await open_russian(chat, "сочи me @petya_s @vanya_s @katya_s")
    steps = await chat.say(OLYA, "/deal")
    assert "сдаёт Оля" in steps and "не участвует" in steps
    assert "он не играет" not in steps


async def test_a_dealer_in_play_error_in_russian_has_no_gender(chat: ChatDriver) -> None:
    await open_russian(chat, "сочи me Петя=@petya_s Ваня=@vanya_s Катя=@katya_s")
    refused = await chat.say(OLYA, "/deal Петя 6п = вист:Оля пас:Ваня")
    assert "сдаёт Оля" in refused and "он не играет" not in refused


async def test_the_russian_deal_hint_uses_russian_notation_that_parses(chat: ChatDriver) -> None:
    opened = await open_russian(chat, "сочи me @petya_s @vanya_s")
    hint = re.search(r"Записывайте каждую раздачу: <code>/deal ([^<]+)</code>", opened)
    assert hint is not None, opened
    line = hint.group(1)
    assert "vist:" not in line and "pass:" not in line and "вист:" in line and "пас:" in line
    parse_record(line, Table(("Оля", "petya_s", "vanya_s"), ("olya_s", "petya_s", "vanya_s")))


async def test_a_russian_screen_names_options_in_words_not_codes(chat: ChatDriver) -> None:
    opened = await open_russian(chat, "сочи whist_split=gentleman me @petya_s @vanya_s")
    assert "вист при ремизе: джентльменский" in opened
    assert "whist_split" not in opened and "gentleman" not in opened


async def test_a_russian_no_trump_deal_is_echoed_as_bk(chat: ChatDriver) -> None:
    await open_russian(chat, "сочи me Петя=@petya_s Ваня=@vanya_s")
    recorded = await chat.say(OLYA, "/deal Оля 8бк = вист:Петя/1 вист:Ваня/1")
    assert "8бк" in recorded and "NT" not in recorded


async def test_rules_mark_no_option_given_at_its_preset_value(chat: ChatDriver) -> None:
    """Sochi's pool is 20: `pool 20` at /newgame is no change, so /rules marks nothing."""
    await open_game(chat, "sochi pool 20")
    rules = await chat.say(DMITRY, "/rules")
    pool_line = next(line for line in rules.split("\n") if "pool_target=" in line)
    assert "✎" not in pool_line
    assert "✎" not in rules.split("\n", 1)[1]


async def test_rules_mark_an_option_that_differs_from_the_preset(chat: ChatDriver) -> None:
    await open_game(chat, "sochi pool 30")
    rules = await chat.say(DMITRY, "/rules")
    pool_line = next(line for line in rules.split("\n") if "pool_target=" in line)
    assert "pool size per player: 30 ✎" in pool_line


async def test_a_vote_alert_carries_no_example_to_type(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang ru")
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    yes, _ = buttons(await chat.send(ANNA, "/endgame"))
    again = toast(await chat.press(ANNA, yes))
    assert "Ваш голос уже учтён" in again
    assert "Например" not in again and "/history" not in again


async def test_the_arbiter_is_shown_by_his_name_once_he_acted(
    chat: ChatDriver, game: Core
) -> None:
    await open_game(chat, "sochi pool 10 players=4 arbiter=@eva_arbiter")
    await chat.send(TgUser(1004, "Dmitry", "dmitry_p"), "/join")
    assert "Arbiter: @eva_arbiter" in await chat.say(DMITRY, "/arbiter")
    await chat.send(EVA_ARBITER, "/score")  # his first act in the chat links him
    assert "Arbiter: Eva" in await chat.say(DMITRY, "/arbiter")
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert state.arbiter == Player("Eva", EVA_ARBITER.id, "eva_arbiter")
    assert state.is_arbiter(EVA_ARBITER.id, "eva_arbiter")
    assert "@eva_arbiter is linked to the account: Eva" in await chat.say(DMITRY, "/history")


async def test_the_arbiter_decides_under_his_name(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10 players=4 arbiter=@eva_arbiter")
    for user in (ANNA, BORIS, CLARA, DMITRY):
        await chat.send(user, "/join")
    await chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Dmitry")
    yes, no = buttons(await chat.send(BORIS, "/dispute 1 Boris 6♠ -1 vist:Clara pass:Dmitry"))
    await chat.press(CLARA, yes)
    await chat.press(ANNA, no)
    tied = await chat.press(DMITRY, no)
    assert "arbiter @eva_arbiter" in edited(tied)
    decided = edited(await chat.press(EVA_ARBITER, yes))
    assert "The arbiter Eva" in decided and "@eva_arbiter" not in decided


async def test_the_bad_arbiter_answer_suggests_an_example_the_bot_accepts(
    chat: ChatDriver,
) -> None:
    refused = await chat.say(ANNA, "/newgame sochi arbiter=eva")
    example = re.search(r"<code>(/newgame [^<]+)</code>", refused)
    assert example is not None and example.group(1) == ARBITER_EXAMPLE
    spec = parse_newgame(ARBITER_EXAMPLE.removeprefix("/newgame "), Player("Anna", 1, "anna_p"))
    assert spec.arbiter == Player("eva_arbiter", None, "eva_arbiter")
    assert "@eva" not in refused.replace("@eva_arbiter", "")


def test_every_arbiter_example_in_the_texts_is_one_the_bot_accepts() -> None:
    """The texts (help included) name arbiters the parser takes: no `arbiter=@eva`."""
    for lang in ("ru", "en"):
        text = (LOCALES_DIR / f"{lang}.toml").read_text(encoding="utf-8")
        refs = re.findall(r"arbiter=(@\w+)", text)
        assert refs, lang
        for ref in refs:
            assert parse_arbiter(ref, Player("Anna", 1, "anna_p")).username == ref[1:]


async def test_a_pool_too_large_is_answered_with_the_limit(chat: ChatDriver) -> None:
    refused = await chat.say(ANNA, "/newgame sochi pool 100000")
    assert "1 to 9999" in refused and "positive" not in refused
    await chat.send(ANNA, "/lang ru")
    assert "от 1 до 9999" in await chat.say(ANNA, "/newgame сочи pool 100000")


async def test_the_english_deal_hint_keeps_english_notation(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi me @boris_p @clara_p")
    assert CLARA.username is not None and BORIS.username is not None
    opened = "\n".join(r.text for r in chat.bot.requests if hasattr(r, "text") and r.text)
    assert "vist:" in opened and "pass:" in opened


async def test_a_russian_rule_vote_and_its_history_say_the_option_in_words(
    chat: ChatDriver,
) -> None:
    await chat.send(ANNA, "/lang ru")
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    vote = await chat.say(ANNA, "/rule whist_split=gentleman")
    assert "вист при ремизе: жлобский → <b>джентльменский</b>" in vote
    assert "whist_split" not in vote and "greedy" not in vote
    history = await chat.say(DMITRY, "/history")
    assert "<b>вист при ремизе: джентльменский</b> (было жлобский)" in history
    assert "whist_split" not in history


async def test_a_russian_dispute_error_shows_a_russian_example(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang ru")
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    refused = await chat.say(ANNA, "/dispute")
    example = re.search(r"Например: <code>(/dispute [^<]+)</code>", refused)
    assert example is not None, refused
    assert "вист:" in example.group(1) and "vist:" not in example.group(1)


async def test_the_opened_game_names_only_options_that_differ_from_the_preset(
    chat: ChatDriver,
) -> None:
    opened = await chat.say(
        ANNA, "/newgame sochi whist_split=greedy misere_price=20 me Boris Clara"
    )
    assert "mountain per trick of a failed misère: 20" in opened
    assert "greedy" not in opened  # Sochi's own split: no change to tell
