"""Malformed commands (issue 4 "Done when", bad input): each gets one localised error that quotes the
part at fault, nothing is recorded, the bot keeps answering, and no traceback reaches the chat."""

from __future__ import annotations

import html

import pytest

from bot.storage import SqliteStore
from bot.telegram.keyboards import JoinCb
from bot.texts.i18n import translator
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, TgUser, sent, texts

# (who, command, error code, the part at fault as the reply must quote it)
IN_A_GAME: tuple[tuple[TgUser, str, str, str], ...] = (
    (ANNA, "/deal Anna 11♠ = vist:Boris pass:Clara", "bad-level", "11♠"),
    (ANNA, "/deal Anna 5♠ = vist:Boris pass:Clara", "bad-level", "5♠"),
    (ANNA, "/deal Zed 7♠ = vist:Boris pass:Clara", "unknown-player", "Zed"),
    (ANNA, "/deal Anna 7♠ = vist:Anna pass:Clara", "declarer-defends", "vist:Anna"),
    (ANNA, "/deal Anna 7♠ = vist:Boris pass:Boris", "same-player-twice", "pass:Boris"),
    (ANNA, "/deal Anna 7♠ = vist:Boris", "missing-defenders", "Anna 7♠ = vist:Boris"),
    (ANNA, "/deal Anna 7♠ vist:Boris pass:Clara", "missing-result", "7♠"),
    (ANNA, "/deal pass Anna/2 Boris/3 Clara/4", "tricks-not-ten", "Anna/2 Boris/3 Clara/4"),
    (ANNA, "/deal Anna 8♠ = half:Boris pass:Clara", "half-whist-on-high", "half:Boris"),
    (ANNA, "/deal Anna 6♠ = half:Boris vist:Clara", "half-beside-whist", "half:Boris"),
    (ANNA, "/deal Anna 6♠ = half:Boris half:Clara", "two-half-whists", "half:Clara"),
    (ANNA, "/deal Anna misere 11", "bad-misere-tricks", "11"),
    (ANNA, "/deal Anna 7♠ = vist:Boris pass:Clara prikup:2", "prikup-not-allowed", "prikup:2"),
    (ANNA, "/deal Anna 7♠ = vist:Boris pass:Clara wat", "unknown-player", "wat"),
    (ANNA, "/deal Anna 7♠ = vist:Boris pass:Clara colour:red", "unknown-word", "colour:red"),
    (ANNA, "/deal Anna 7♠ -1 = vist:Boris pass:Clara", "repeated-word", "="),
    (ANNA, "/deal Anna 7♠ = vist:Boris/3 vist:Clara/3", "result-contradicts-tricks", "="),
    (ANNA, "/deal adjust Anna pool +5", "adjust-by-vote", "adjust Anna pool +5"),
    (ANNA, "/deal Anna 6♠ = pass:Boris pass:Clara/2", "not-played-with-tricks", "pass:Clara/2"),
    (ANNA, "/deal pass Anna/2 Boris/8", "bad-tricks", "Anna/2 Boris/8"),
    (ANNA, "/deal pass Anna/2 Anna/3 Clara/5", "same-player-twice", "Anna/3"),
    (ANNA, "/deal Anna 7♠ = vist:Zed pass:Clara", "unknown-player", "Zed"),
    (ANNA, "/deal Anna 7♠ = vist:Boris vist:Clara", "missing-tricks", "vist:Boris vist:Clara"),
    (ANNA, "/deal Anna 7♠ = vist:Boris pass:Clara closed open", "repeated-word", "open"),
    (DMITRY, "/deal Anna 7♠ = vist:Boris pass:Clara", "not-a-player", "Dmitry"),
    (DMITRY, "/deal me 7♠ = vist:Boris pass:Clara", "not-a-player", "Dmitry"),
    (BORIS, "/undo", "not-author", "Boris 6♣ ="),
    (CLARA, "/edit Boris 6♣ -1 vist:Anna pass:Clara", "not-author", "Boris 6♣"),
    (BORIS, "/edit Boris 11♣ = pass:Anna pass:Clara", "not-author", "Boris 6♣"),
    (ANNA, "/edit Boris 11♣ = pass:Anna pass:Clara", "bad-level", "11♣"),
    (ANNA, "/edit Boris misere 0 dealer:Zed", "unknown-player", "Zed"),
    (ANNA, "/newgame sochi", "game-exists", ""),
    (ANNA, "/join", "already-joined", "Anna"),
    (DMITRY, "/join", "no-open-game", "Dmitry"),
    (BORIS, "/leave", "no-open-game", "Boris"),
    (ANNA, "/lastround", "last-round-not-allowed", "/lastround"),
    (ANNA, "/lang fr", "bad-locale", "fr"),
    (DMITRY, "/endgame", "endgame-players-only", "Dmitry"),  # issue 13: the real reason
)

OPENING: tuple[tuple[str, str, str], ...] = (
    ("/newgame sochy", "unknown-convention", "sochy"),
    ("/newgame sochi whist_split=nice", "bad-option-value", "whist_split=nice"),
    ("/newgame sochi colour=red", "unknown-option", "colour"),
    # conventions.md §2.1: exact lower-case names, values exactly as written, one refused pair
    ("/newgame sochi Whist_Split=greedy", "unknown-option", "Whist_Split"),
    ("/newgame sochi three_down=yes", "bad-option-value", "three_down=yes"),
    ("/newgame sochi remise_factor=3", "bad-option-value", "remise_factor=3"),
    ("/newgame sochi dealer_whist=true", "unknown-option", "dealer_whist"),
    ("/newgame odessa made_game=mountain_first", "incoherent-options", "made_game"),
    ("/newgame sochi stake 1/2", "bad-stake", "1/2"),
    ("/newgame sochi pool", "bad-pool", "pool"),
    ("/newgame sochi pool ten", "bad-pool", "pool ten"),
    ("/newgame sochi stake -1", "bad-stake", "-1"),
    ("/newgame sochi stake 0", "bad-stake", "0"),
    ("/newgame sochi players=5", "bad-player-count", "players=5"),
    ("/newgame sochi Anna Boris Clara Dmitry Eva", "bad-player-count", "Anna Boris Clara"),
    ("/newgame sochi Anna anna Boris", "same-name", "anna"),
    ("/newgame sochi dealer=Zed Anna Boris Clara", "unknown-dealer", "Zed"),
    ("/newgame sochi Anna B Clara", "bad-name", "B"),
    ("/newgame sochi Anna Bo:ris Clara", "bad-name", "Bo:ris"),
    ("/newgame sochi @x Boris Clara", "bad-name", "@x"),
    ("/join", "no-game", ""),
    ("/deal Anna 6♠ = vist:Boris pass:Clara", "no-game", ""),
    ("/score", "no-game", ""),
)


def static_part(lang: str, code: str) -> str:
    """The words of an error text before its first parameter, as sent (HTML)."""
    return translator(lang).template(f"error-{code}").split("{")[0]


async def count_events(store: SqliteStore) -> int:
    async with store.reading() as repo:
        return await repo.count_events()


async def started_game(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10")
    for user in (ANNA, BORIS):
        await chat.press(user, JoinCb(game=1))
    await chat.send(CLARA, "/join")
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    await chat.send(ANNA, "/deal Boris 6♣ = pass:Anna pass:Clara")


def assert_refused(answer: str, lang: str, code: str, span: str) -> None:
    assert static_part(lang, code) in answer, f"not error-{code}:\n{answer}"
    if span:
        assert f"<code>{html.escape(span, quote=False)}" in answer, (
            f"{span!r} not quoted:\n{answer}"
        )
    assert "Traceback" not in answer


@pytest.mark.parametrize(
    ("user", "command", "code", "span"), IN_A_GAME, ids=[c for _, c, _, _ in IN_A_GAME]
)
async def test_a_malformed_command_in_a_game_is_refused_and_records_nothing(
    chat: ChatDriver, store: SqliteStore, user: TgUser, command: str, code: str, span: str
) -> None:
    await started_game(chat)
    before = await count_events(store)
    answer = await chat.send(user, command)
    assert len(sent(answer)) == 1, "one message"
    assert_refused(texts(answer), "en", code, span)
    assert await count_events(store) == before
    assert "#3" in await chat.say(CLARA, "/deal Clara 6♥ = pass:Anna pass:Boris"), "still alive"


@pytest.mark.parametrize(("command", "code", "span"), OPENING, ids=[c for c, _, _ in OPENING])
async def test_a_malformed_command_without_a_game_is_refused_and_records_nothing(
    chat: ChatDriver, store: SqliteStore, command: str, code: str, span: str
) -> None:
    answer = await chat.send(ANNA, command)
    assert len(sent(answer)) == 1
    assert_refused(texts(answer), "en", code, span)
    assert await count_events(store) == 0


async def test_errors_speak_the_chats_language(chat: ChatDriver, store: SqliteStore) -> None:
    await started_game(chat)
    await chat.send(ANNA, "/lang ru")
    answer = await chat.say(ANNA, "/deal Anna 11♠ = vist:Boris pass:Clara")
    assert_refused(answer, "ru", "bad-level", "11♠")
    assert "Например:" in answer
