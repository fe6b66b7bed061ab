"""A deal by buttons (`/deal` without arguments, notation.md "Canonical form"): the pure step machine,
then the steps through the real dispatcher with a mocked Bot."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from aiogram import Dispatcher
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendPhoto, TelegramMethod
from aiogram.types import InlineKeyboardMarkup

from bot.app import build_dispatcher
from bot.core import Core, looks, records
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.telegram.inbound.fsm import STEPS, OpenSteps, fsm_backend
from bot.telegram.keyboards import Act, DealCb, deal_keyboard
from bot.texts.deal_steps import (
    KINDS,
    ROLES,
    SHORTCUT_WORDS,
    BadPress,
    DealKind,
    DealStep,
    Draft,
    Extra,
    choices,
    extras,
    label,
    notation,
    press,
    record,
    step,
    step_text,
    toggle,
    with_note,
)
from bot.texts.i18n import LANGUAGES, load, translator
from scoring import offers
from scoring.deal import Role
from scoring.notation import Table, parse_record
from scoring.offers import SUITS
from scoring.seating import Seating
from tests.bot.factories import (
    ANNA,
    BORIS,
    CLARA,
    DMITRY,
    EVA,
    START,
    ChatDriver,
    FakeClock,
    TgUser,
    texts,
)

THREE = Seating(("Anna", "Boris", "Clara"), dealer=0)
FOUR = Seating(("Anna", "Boris", "Clara", "Dmitry"), dealer=1)


def walk(seating: Seating, *labels: str, lang: str = "en") -> Draft:
    """The draft after pressing the buttons labelled so, in order."""
    t = translator(lang)
    draft = Draft()
    for text in labels:
        found = [c for c in choices(seating, draft) if label(t, c) == text]
        assert found, f"no button {text!r} at {step(seating, draft)}"
        draft = press(seating, draft, found[0].value)
    return draft


def labels(seating: Seating, draft: Draft, lang: str = "en") -> list[str]:
    t = translator(lang)
    return [label(t, c) for c in choices(seating, draft)]


def every_draft(seating: Seating) -> Iterator[Draft]:
    """Every draft the buttons can reach, each once."""
    todo, seen = [Draft()], {Draft()}
    while todo:
        draft = todo.pop()
        yield draft
        for choice in choices(seating, draft):
            after = press(seating, draft, choice.value)
            if after not in seen:
                seen.add(after)
                todo.append(after)


# -- the machine -----------------------------------------------------------------------------
def test_a_contract_by_buttons_is_the_typed_line_of_the_spec_example() -> None:
    """notation.md "Examples": `/deal 7♠ -1 vist:A pass:B` — Clara plays 7♠ and takes 6."""
    draft = walk(THREE, "Contract", "Clara", "7♠", "Whist", "Pass", "−1")
    assert step(THREE, draft) is DealStep.CONFIRM
    assert notation(THREE, draft) == "Clara 7♠ -1 vist:Anna pass:Boris"
    assert record(THREE, draft) == parse_record("/deal 7♠ -1 vist:A pass:B", Table(THREE.names))


def test_defenders_are_asked_clockwise_from_the_declarer() -> None:
    draft = walk(THREE, "Contract", "Boris", "8♥")
    assert "Clara's word on 8♥?" in step_text(translator("en"), THREE, draft)
    draft = walk(THREE, "Contract", "Boris", "8♥", "Pass")
    assert "Anna's word on 8♥?" in step_text(translator("en"), THREE, draft)


def test_two_whisters_give_the_result_then_each_ones_tricks() -> None:
    """notation.md: `/deal C 6п = вист:A/2 вист:B/2` — both whist, 2 tricks each."""
    draft = walk(THREE, "Contract", "Clara", "6♠", "Whist", "Whist", "=")
    assert step(THREE, draft) is DealStep.SPLIT
    assert labels(THREE, draft) == ["0 : 4", "1 : 3", "2 : 2", "3 : 1", "4 : 0"]
    draft = press(THREE, draft, 2)
    assert notation(THREE, draft) == "Clara 6♠ = vist:Anna/2 vist:Boris/2"


def test_a_declarer_who_took_every_trick_leaves_the_whisters_nothing_to_split() -> None:
    """notation.md: `/deal Anna 8бк vist:B/1 vist:C/0` reads the same way when tricks are 0."""
    draft = walk(THREE, "Contract", "Anna", "6 NT", "Whist", "Whist", "+4")
    assert step(THREE, draft) is DealStep.CONFIRM
    assert notation(THREE, draft) == "Anna 6NT +4 vist:Boris/0 vist:Clara/0"


def test_half_whist_is_offered_only_on_a_six_or_a_seven_beside_a_pass() -> None:
    six = walk(THREE, "Contract", "Clara", "6♦")
    assert labels(THREE, six) == ["Whist", "Pass", "Half-whist"]
    assert labels(THREE, walk(THREE, "Contract", "Clara", "8♦")) == ["Whist", "Pass"]
    assert labels(THREE, walk(THREE, "Contract", "Clara", "7♦", "Whist")) == ["Whist", "Pass"]
    assert "Half-whist" in labels(THREE, walk(THREE, "Contract", "Clara", "7♦", "Pass"))
    assert "Half-whist" not in labels(THREE, walk(THREE, "Contract", "Clara", "8♦", "Pass"))


def test_a_half_whist_leaves_the_other_defender_a_pass_and_asks_no_tricks() -> None:
    """notation.md: `/deal 7♦ pass:A half:B` — made without play."""
    draft = walk(THREE, "Contract", "Clara", "7♦", "Half-whist")
    assert draft.words == (Role.HALF, Role.PASS)
    assert step(THREE, draft) is DealStep.CONFIRM
    assert notation(THREE, draft) == "Clara 7♦ = half:Anna pass:Boris"


def test_a_deal_passed_by_both_defenders_asks_no_tricks() -> None:
    draft = walk(THREE, "Contract", "Clara", "6♥", "Pass", "Pass")
    assert notation(THREE, draft) == "Clara 6♥ = pass:Anna pass:Boris"


def test_misere_asks_the_declarer_then_his_tricks_from_0_to_10() -> None:
    draft = walk(THREE, "Misère", "Boris")
    assert labels(THREE, draft) == [str(n) for n in range(11)]
    assert notation(THREE, press(THREE, draft, 2)) == "Boris misere 2"


def test_raspasy_offers_only_the_counts_that_can_still_make_ten() -> None:
    draft = walk(THREE, "Raspasy", "6")
    assert labels(THREE, draft) == [str(n) for n in range(5)]
    draft = press(THREE, draft, 3)
    assert step(THREE, draft) is DealStep.CONFIRM, "the last player has the rest"
    assert notation(THREE, draft) == "pass Anna/6 Boris/3 Clara/1"
    assert notation(THREE, walk(THREE, "Raspasy", "10")) == "pass Anna/10 Boris/0 Clara/0"


def test_with_four_players_the_dealer_sits_out_of_every_step() -> None:
    """notation.md "Players": with 4 players the dealer sits the deal out."""
    assert labels(FOUR, walk(FOUR, "Contract")) == ["Anna", "Clara", "Dmitry"]
    assert labels(FOUR, walk(FOUR, "Misère")) == ["Anna", "Clara", "Dmitry"]
    draft = walk(FOUR, "Contract", "Dmitry", "7♣", "Whist", "Pass", "=")
    assert notation(FOUR, draft) == "Dmitry 7♣ = vist:Anna pass:Clara"
    raspasy = walk(FOUR, "Raspasy", "2", "3")
    assert notation(FOUR, raspasy) == "pass Anna/2 Clara/3 Dmitry/5"
    assert "Boris deals and sits out" in step_text(translator("en"), FOUR, raspasy)


def test_a_value_the_step_does_not_offer_is_refused() -> None:
    with pytest.raises(BadPress):
        press(THREE, Draft(), 7)
    with pytest.raises(BadPress):
        press(THREE, walk(THREE, "Contract"), 3)  # no seat D at a table of three
    with pytest.raises(BadPress):
        press(THREE, walk(THREE, "Contract", "Clara", "8♠", "Pass"), ROLES.index(Role.HALF))
    with pytest.raises(BadPress):
        press(THREE, walk(THREE, "Raspasy", "8"), 3)
    with pytest.raises(BadPress):
        press(THREE, walk(THREE, "Misère", "Anna", "0"), 0)


@pytest.mark.parametrize("seating", [THREE, FOUR], ids=["three", "four"])
def test_every_deal_the_buttons_can_make_reads_back_as_the_same_record(seating: Seating) -> None:
    """The canonical line is what `Core.record` reads: it must parse to the same deal."""
    table = Table(seating.names, dealer=seating.dealer)
    finished = 0
    for draft in every_draft(seating):
        if step(seating, draft) is DealStep.CONFIRM:
            assert parse_record(notation(seating, draft), table) == record(seating, draft)
            finished += 1
    # 3 declarers × 25 contracts × words and tricks (2 × 91 + 3 × 89 per suit), 3 × 11 misères,
    # 66 ways to split 10 raspasy tricks among three.
    assert finished == 3 * 5 * (2 * 91 + 3 * 89) + 3 * 11 + 66


@cache
def shapes(seating: Seating) -> tuple[Draft, ...]:
    """One draft per step, kind, defenders' words and set of buttons: every text and keyboard
    the steps can show, without the thousands of drafts that differ only in numbers."""
    found: dict[object, Draft] = {}
    for draft in every_draft(seating):
        shape = (step(seating, draft), draft.kind, draft.words, choices(seating, draft))
        found.setdefault(shape, draft)
    return tuple(found.values())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_button_label_and_question_has_a_text_in_both_languages(lang: str) -> None:
    t, messages = translator(lang), load(lang)
    for seating in (THREE, FOUR):
        for draft in shapes(seating):
            for choice in choices(seating, draft):
                assert choice.key is None or choice.key in messages, choice.key
                assert label(t, choice).strip()
            assert "steps-" not in step_text(t, seating, draft)
    for key in ("steps-record", "steps-cancel", "steps-back"):
        assert key in messages


@pytest.mark.parametrize("seating", [THREE, FOUR], ids=["three", "four"])
def test_callback_data_fits_in_64_bytes_for_every_button_of_every_step(seating: Seating) -> None:
    t = translator("ru")
    for draft in shapes(seating):
        markup = deal_keyboard(t, 2**62, 2**62, 10**9, seating, draft, back=True)
        for row in markup.inline_keyboard:
            for button in row:
                assert button.callback_data is not None
                assert len(button.callback_data.encode()) <= 64, button.callback_data
                assert DealCb.unpack(button.callback_data).game == 2**62


def engine_answers(seating: Seating, draft: Draft) -> set[int]:
    """The button values of `scoring.offers`' answers at the draft's step."""
    current = step(seating, draft)
    if current is DealStep.KIND:
        return set(range(len(KINDS)))
    if current is DealStep.DECLARER:
        return set(seating.active)
    if current is DealStep.CONTRACT:
        return {level * 10 + SUITS.index(suit) for level, suit in offers.contracts()}
    if current is DealStep.WORD:
        assert draft.level is not None
        return {ROLES.index(r) for r in offers.words(draft.level, draft.words)}
    if current is DealStep.RESULT:
        assert draft.level is not None
        return set(offers.declarer_tricks())
    if current is DealStep.SPLIT:
        assert draft.taken is not None
        return set(offers.first_whister_tricks(draft.taken))
    if current is DealStep.MISERE:
        return set(offers.declarer_tricks())
    if current is DealStep.RASPASY:
        return set(offers.raspasy_tricks(len(seating.active), draft.tricks))
    return set()


@pytest.mark.parametrize("seating", [THREE, FOUR], ids=["three", "four"])
def test_each_step_offers_exactly_the_answers_the_engine_gives(seating: Seating) -> None:
    """The buttons are scoring.offers' answers, no more and no fewer (tests/scoring/test_offers.py
    shows those are what the engine accepts)."""
    for draft in shapes(seating):
        assert {c.value for c in choices(seating, draft)} == engine_answers(seating, draft)


@pytest.mark.parametrize("seating", [THREE, FOUR], ids=["three", "four"])
def test_an_open_step_message_keeps_in_the_fsm_as_json_and_reads_back(seating: Seating) -> None:
    """The FSM data is plain JSON, so a storage that serialises it (a database) can hold it."""
    for draft in shapes(seating):
        entry = OpenSteps(10_001, "Anna", 7, "0123abcd", seating, START, [Draft(), draft], 3)
        assert STEPS.validate_python(json.loads(json.dumps(entry.to_data()))) == entry


# -- through the dispatcher ----------------------------------------------------------------
OTHER_GROUP = -1009876543210


async def open_game(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")


class StepMessage:
    """The bot's step message in a chat: its id and the buttons it shows now."""

    def __init__(self, chat: ChatDriver, answer: list[TelegramMethod[Any]]) -> None:
        self.chat = chat
        self.message_id = chat.bot.session.message_ids[chat.chat_id]
        markup = getattr(answer[-1], "reply_markup", None)
        assert isinstance(markup, InlineKeyboardMarkup), texts(answer)
        self.markup: InlineKeyboardMarkup | None = markup
        self.text = texts(answer)

    def button(self, text: str) -> DealCb:
        assert self.markup is not None, "no buttons any more"
        for row in self.markup.inline_keyboard:
            for button in row:
                if button.text == text:
                    return DealCb.unpack(button.callback_data or "")
        raise AssertionError(f"no button {text!r} in {self.markup}")

    async def press(self, user: TgUser, text: str) -> list[TelegramMethod[Any]]:
        answer = await self.chat.press(user, self.button(text), self.message_id)
        for request in answer:
            if isinstance(request, EditMessageText):
                self.text = request.text or ""
                markup = request.reply_markup
                self.markup = markup if isinstance(markup, InlineKeyboardMarkup) else None
        return answer

    async def presses(self, user: TgUser, *labels: str) -> list[TelegramMethod[Any]]:
        answer: list[TelegramMethod[Any]] = []
        for text in labels:
            answer = await self.press(user, text)
        return answer


async def open_steps(chat: ChatDriver, user: TgUser = ANNA) -> StepMessage:
    return StepMessage(chat, await chat.send(user, "/deal"))


def toast(answer: list[TelegramMethod[Any]]) -> str:
    found = [r.text or "" for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert len(found) == 1, answer
    return found[0]


def edits(answer: list[TelegramMethod[Any]]) -> list[EditMessageText]:
    return [r for r in answer if isinstance(r, EditMessageText)]


async def lines(game: Core, chat_id: int) -> list[str]:
    return [item.line for item in (await looks.snapshot(game, chat_id)).state.records]


async def count_events(store: SqliteStore) -> int:
    async with store.reading() as repo:
        return await repo.count_events()


BY_BUTTONS = (
    (("Contract", "Clara", "7♠", "Whist", "Pass", "−1"), "Clara 7♠ -1 vist:Anna pass:Boris"),
    (("Contract", "Anna", "6♠", "Whist", "Whist", "=", "2 : 2"), "Anna 6♠ = vist:B/2 vist:C/2"),
    (("Contract", "Boris", "7♦", "Pass", "Half-whist"), "Boris 7♦ pass:Clara half:Anna"),
    (("Misère", "Boris", "1"), "Boris misere 1"),
    (("Raspasy", "2", "3"), "рас 2 3 5"),
)


@pytest.mark.parametrize(
    ("buttons", "typed"),
    BY_BUTTONS,
    ids=["contract", "two-whists", "half-whist", "misere", "raspasy"],
)
async def test_a_deal_by_buttons_is_recorded_as_the_same_typed_deal(
    chat: ChatDriver, game: Core, buttons: tuple[str, ...], typed: str
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    assert "Deal #1" in steps.text and "What was played?" in steps.text
    await steps.presses(ANNA, *buttons)
    assert steps.markup is not None and "Record this deal?" in steps.text
    answer = await steps.press(ANNA, "✅ Record")
    assert steps.markup is None and "#1" in steps.text, "the step message becomes the result"
    photos = [r for r in answer if isinstance(r, SendPhoto)]
    assert len(photos) == 1, "the normal /deal reply: the sheet with the deal's entries"

    typed_chat = ChatDriver(chat.dispatcher, chat.bot, chat_id=OTHER_GROUP)
    await open_game(typed_chat)
    typed_photos = [
        r for r in await typed_chat.send(ANNA, f"/deal {typed}") if isinstance(r, SendPhoto)
    ]
    assert await lines(game, chat.chat_id) == await lines(game, OTHER_GROUP)
    assert photos[0].caption == typed_photos[0].caption
    by_buttons = await looks.snapshot(game, chat.chat_id)
    by_typing = await looks.snapshot(game, OTHER_GROUP)
    assert by_buttons.settlement is not None and by_typing.settlement is not None
    assert by_buttons.settlement.balances == by_typing.settlement.balances


async def test_the_steps_speak_the_chats_language(chat: ChatDriver, game: Core) -> None:
    await open_game(chat)
    await chat.send(ANNA, "/lang ru")
    steps = await open_steps(chat)
    assert "Раздача #1" in steps.text and "Что играли?" in steps.text
    await steps.presses(ANNA, "Игра", "Clara", "7 БК", "Вист", "Пас", "=")
    assert "<code>Clara 7бк = вист:Anna пас:Boris</code>" in steps.text
    await steps.press(ANNA, "✅ Записать")
    assert await lines(game, chat.chat_id) == ["Clara 7NT = vist:Anna pass:Boris"]


async def test_back_returns_to_the_previous_step_and_cancel_records_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    before = await count_events(store)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Contract", "Clara", "8♣")
    await steps.press(ANNA, "↩ Back")
    assert "Clara's contract?" in steps.text
    await steps.presses(ANNA, "9♣", "Pass", "Pass")
    assert "Clara 9♣ = pass:Anna pass:Boris" in steps.text
    answer = await steps.press(ANNA, "✖ Cancel")
    assert steps.markup is None and "nothing was recorded" in steps.text
    assert toast(answer) == ""
    assert await count_events(store) == before


async def test_only_the_player_who_opened_the_steps_may_press_them(
    chat: ChatDriver, game: Core
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    refused = await steps.press(BORIS, "Misère")
    assert "These buttons are Anna's" in toast(refused)
    assert edits(refused) == []
    await steps.presses(ANNA, "Misère", "Anna", "0", "✅ Record")
    assert await lines(game, chat.chat_id) == ["Anna misere 0"]


async def test_anyone_who_does_not_play_gets_a_short_answer_and_nothing_changes(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Misère", "Anna", "0")
    before = await count_events(store)
    refused = await steps.press(DMITRY, "✅ Record")
    assert "Only the game's players" in toast(refused)
    assert edits(refused) == [] and await count_events(store) == before
    opened = await chat.send(DMITRY, "/deal")
    assert "Only the game's players" in texts(opened)
    assert not any(getattr(r, "reply_markup", None) for r in opened)


async def test_forged_buttons_are_refused_and_change_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    before = await count_events(store)
    kind = steps.button("Contract")
    other_game = kind.model_copy(update={"game": 99})
    assert "out of date" in toast(await chat.press(ANNA, other_game, steps.message_id))
    not_offered = kind.model_copy(update={"v": 55})
    assert "already answered" in toast(await chat.press(ANNA, not_offered, steps.message_id))
    skipping = kind.model_copy(update={"act": Act.RECORD, "step": DealStep.CONFIRM})
    assert "already answered" in toast(await chat.press(ANNA, skipping, steps.message_id))
    other_message = await chat.press(ANNA, kind, steps.message_id + 5)
    assert "out of date" in toast(other_message)
    unreadable = await chat.press(ANNA, "ds:zz:top", steps.message_id)
    assert "out of date" in toast(unreadable)
    assert await count_events(store) == before
    assert "What was played?" in steps.text
    answer = await steps.press(ANNA, "Contract")
    assert "Who played the contract?" in steps.text and edits(answer)


def test_the_dispatcher_keeps_the_steps_in_the_storage_fsm_py_chooses(
    dispatcher: Dispatcher, settings: Settings
) -> None:
    assert type(dispatcher.fsm.storage) is type(fsm_backend(settings)[0])


async def test_a_press_that_names_someone_else_as_opener_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    """Who opened the steps is read from the message Telegram sends, not from the pressed data."""
    await open_game(chat)
    steps = await open_steps(chat)
    before = await count_events(store)
    forged = steps.button("Contract").model_copy(update={"by": BORIS.id})
    refused = await chat.press(BORIS, forged, steps.message_id)
    assert "These buttons are Anna's" in toast(refused)
    assert edits(refused) == [] and await count_events(store) == before
    await steps.press(ANNA, "Contract")
    assert "Who played the contract?" in steps.text


async def test_steps_opened_before_another_deal_are_stale_and_say_to_start_again(
    chat: ChatDriver, game: Core
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Contract", "Clara", "7♠")
    await chat.send(BORIS, "/deal Anna 6♠ = vist:Boris pass:Clara")
    refused = await steps.press(ANNA, "Whist")
    assert "out of date" in toast(refused)
    assert steps.markup is None and "send /deal to start again" in steps.text
    assert await lines(game, chat.chat_id) == ["Anna 6♠ = vist:Boris pass:Clara"]


async def test_steps_opened_before_a_restart_are_stale(
    chat: ChatDriver, settings: Settings, store: SqliteStore, clock: FakeClock
) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.press(ANNA, "Raspasy")
    chat.dispatcher = build_dispatcher(settings, store, clock)  # the bot was restarted
    refused = await steps.press(ANNA, "5")
    assert "out of date" in toast(refused)
    assert steps.markup is None and "send /deal to start again" in steps.text


async def test_a_second_record_press_records_nothing_more(chat: ChatDriver, game: Core) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Misère", "Clara", "0")
    record = steps.button("✅ Record")
    await chat.press(ANNA, record, steps.message_id)
    again = await chat.press(ANNA, record, steps.message_id)
    assert "already answered" in toast(again) and edits(again) == []
    assert await lines(game, chat.chat_id) == ["Clara misere 0"]


async def test_two_record_presses_at_once_record_the_deal_once(
    chat: ChatDriver, game: Core
) -> None:
    """One user's updates in a chat are handled one at a time (bot/telegram/fsm.py, the isolation)."""
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Misère", "Clara", "0")
    record = steps.button("✅ Record")
    await asyncio.gather(*(chat.press(ANNA, record, steps.message_id) for _ in range(3)))
    assert await lines(game, chat.chat_id) == ["Clara misere 0"]


async def test_the_scorekeeper_records_by_buttons_and_the_dealer_of_four_sits_out(
    chat: ChatDriver, game: Core
) -> None:
    await chat.send(EVA, "/newgame sochi players=4 Anna Boris Clara Dmitry")
    steps = await open_steps(chat, EVA)
    assert "Anna deals and sits out" in steps.text
    await steps.press(EVA, "Contract")
    names = [b.text for b in steps.markup.inline_keyboard[0]] if steps.markup else []
    assert names == ["Boris", "Clara", "Dmitry"]
    await steps.presses(EVA, "Boris", "6♠", "Whist", "Pass", "=", "✅ Record")
    assert await lines(game, chat.chat_id) == ["Boris 6♠ = vist:Clara pass:Dmitry"]


async def test_without_a_started_game_the_steps_do_not_open(chat: ChatDriver) -> None:
    assert "There is no game" in await chat.say(ANNA, "/deal")
    await chat.send(ANNA, "/newgame sochi")
    assert "has not started yet" in await chat.say(ANNA, "/deal")


async def test_steps_left_open_for_hours_are_stale(chat: ChatDriver, clock: FakeClock) -> None:
    await open_game(chat)
    steps = await open_steps(chat)
    clock.advance(6 * 3600 + 1)
    assert "out of date" in toast(await steps.press(ANNA, "Misère"))
    assert steps.markup is None


async def test_a_deal_the_service_refuses_closes_the_steps_with_the_same_error(
    chat: ChatDriver, game: Core, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever `Core.record` refuses is shown as a typed /deal's refusal would be."""
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Contract", "Anna", "10♥", "Whist", "Pass", "−3")
    before = await count_events(store)
    sent: list[str] = []
    record = records.record

    async def refused(uow: Any, caller: Any, text: str) -> Any:
        sent.append(text)
        return await record(uow, caller, "adjust Anna pool +5")  # a line the service refuses

    monkeypatch.setattr(records, "record", refused)
    answer = await steps.press(ANNA, "✅ Record")
    assert sent == ["Anna 10♥ -3 vist:Boris pass:Clara"]
    assert "Adjustments are made only through a vote" in toast(answer)
    assert steps.markup is None and "send /deal to start again" in steps.text
    assert "Adjustments are made only through a vote" in steps.text
    assert await count_events(store) == before


async def test_the_confirmation_adds_open_or_closed_play_and_a_note(
    chat: ChatDriver, game: Core
) -> None:
    """Issue 13 item 4: open/closed and a note by buttons (the note typed as a reply)."""
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Contract", "Clara", "7♠", "Whist", "Pass", "−1")
    await steps.press(ANNA, "🌑 closed")
    assert "closed" in steps.text and steps.button("✓ 🌑 closed")
    await steps.press(ANNA, "✓ 🌑 closed")  # a second press clears it
    assert "closed" not in steps.text.split("Record this deal?")[0]
    await steps.press(ANNA, "☀️ open")
    asked = await steps.press(ANNA, "📝 note")
    assert "reply to this message with the note" in texts(asked)
    noted = await chat.send(ANNA, 'Клара "забыла" козыря')
    edited = edits(noted)
    assert len(edited) == 1 and "Noted" in texts(noted)
    steps.text = edited[0].text or ""
    markup = edited[0].reply_markup
    steps.markup = markup if isinstance(markup, InlineKeyboardMarkup) else None
    assert steps.button("✓ 📝 note")
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == [
        "Clara 7♠ -1 vist:Anna pass:Boris open note:\"Клара 'забыла' козыря\""
    ]


def test_extras_are_offered_only_at_the_confirmation() -> None:
    draft = walk(THREE, "Contract", "Clara", "7♠", "Whist")
    assert extras(THREE, draft) == ()
    done = walk(THREE, "Misère", "Boris", "1")
    assert [c.value for c in extras(THREE, done)] == [Extra.NOTE]
    with pytest.raises(BadPress):
        toggle(THREE, done, Extra.OPEN)
    line = notation(THREE, with_note(done, "x" * 300))
    assert parse_record(line, Table(THREE.names)) == record(THREE, with_note(done, "x" * 300))


async def test_the_concession_by_buttons_where_the_convention_allows_it(
    chat: ChatDriver, game: Core
) -> None:
    await open_game(chat)  # Sochi: «без трёх» allowed
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Contract", "Clara", "7♠", "🏳 conceded «three down»")
    assert "Record this deal?" in steps.text and "three_down" in steps.text
    with pytest.raises(AssertionError):
        steps.button("☀️ open")  # not played: no open/closed
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == ["Clara 7♠ = three_down"]
    odessa = ChatDriver(chat.dispatcher, chat.bot, chat_id=OTHER_GROUP)
    await odessa.send(ANNA, "/newgame odessa pool 10")
    for user in (ANNA, BORIS, CLARA):
        await odessa.send(user, "/join")
    there = await open_steps(odessa)
    await there.presses(ANNA, "Contract", "Clara", "7♠")
    with pytest.raises(AssertionError):
        there.button("🏳 conceded «three down»")


async def test_odessa_prikup_quick_tricks_by_buttons_at_a_table_of_four(
    chat: ChatDriver, game: Core
) -> None:
    await chat.send(ANNA, "/newgame odessa me Boris Clara Dmitry")  # the scorekeeper records
    steps = await open_steps(chat)  # Anna deals #1 and sits out
    await steps.presses(ANNA, "Contract", "Boris", "7♠", "Whist", "Pass", "=")
    await steps.press(ANNA, "🃏 prikup 2")
    assert steps.button("🃏 prikup ✓ 2") and "prikup:2" in steps.text
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == ["Boris 7♠ = vist:Clara pass:Dmitry prikup:2"]


async def test_conventions_2_2_prikup_on_a_concession_by_buttons(
    chat: ChatDriver, game: Core
) -> None:
    """conventions.md §2.2: "`prikup:N` on a concession is scored", so the steps offer it there."""
    await chat.send(ANNA, "/newgame odessa me Boris Clara Dmitry three_down=true")
    steps = await open_steps(chat)  # Anna deals #1 and sits out
    await steps.presses(ANNA, "Contract", "Boris", "6♠", "🏳 conceded «three down»")
    await steps.press(ANNA, "🃏 prikup 2")
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == ["Boris 6♠ = three_down prikup:2"]
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.sheet is not None and snap.sheet.totals.whists[0][1] == 2 * 4  # Anna on Boris


async def test_the_common_contract_deal_takes_three_taps(chat: ChatDriver, game: Core) -> None:
    """Issue 13 item 4: declarer → contract → "both pass" (or who whisted → the result)."""
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Clara", "7♠", "⏩ both pass")
    assert "Record this deal?" in steps.text
    await steps.press(ANNA, "✅ Record")
    steps = await open_steps(chat)
    await steps.presses(ANNA, "Anna", "8♥", "⏩ Boris whists", "−1")
    assert "Record this deal?" in steps.text
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == [
        "Clara 7♠ = pass:Anna pass:Boris",
        "Anna 8♥ -1 vist:Boris pass:Clara",
    ]


def test_a_dealer_whist_by_buttons_reads_back_as_the_same_record() -> None:
    for dealer in range(4):
        seating = Seating(FOUR.names, dealer)
        table = Table(seating.names, dealer=dealer)
        for seat in seating.active:
            both = walk(seating, "Contract", seating.names[seat], "7♠", "Pass", "Pass")
            for x in seating.defenders(seat):
                whisted = toggle(seating, both, Extra.DEALER_WHISTS + x, odessa=True)
                done = press(seating, whisted, 5)
                assert parse_record(notation(seating, done), table) == record(seating, done)


def test_every_shortcut_lands_where_the_long_way_does() -> None:
    for seating in (THREE, FOUR):
        for seat in seating.active:
            name = seating.names[seat]
            short = toggle(seating, Draft(), Extra.DECLARER + seat)
            assert short == walk(seating, "Contract", name)
            at_word = walk(seating, "Contract", name, "7♠")
            for extra, words in SHORTCUT_WORDS.items():
                quick = toggle(seating, at_word, extra)
                assert quick.words == words and quick.kind is DealKind.CONTRACT


async def test_the_odessa_dealer_whists_by_buttons_after_two_passes(
    chat: ChatDriver, game: Core
) -> None:
    """conventions.md §6: both active defenders passed, the dealer whists — vist:DEALER pass:X."""
    await chat.send(ANNA, "/newgame odessa me Boris Clara Dmitry")
    steps = await open_steps(chat)  # Anna deals #1 and sits out
    await steps.presses(ANNA, "Boris", "7♠", "⏩ both pass")
    assert steps.button("🎴 the dealer whists, Dmitry passes")
    await steps.presses(ANNA, "🎴 the dealer whists, Clara passes", "−1")
    with pytest.raises(AssertionError):
        steps.button("🃏 prikup 1")  # no quick tricks when the dealer whists
    await steps.press(ANNA, "✅ Record")
    assert await lines(game, chat.chat_id) == ["Boris 7♠ -1 pass:Clara vist:Anna"]
    sochi = ChatDriver(chat.dispatcher, chat.bot, chat_id=OTHER_GROUP)
    await sochi.send(ANNA, "/newgame sochi me Boris Clara Dmitry")
    there = await open_steps(sochi)
    await there.presses(ANNA, "Boris", "7♠", "⏩ both pass")
    with pytest.raises(AssertionError):
        there.button("🎴 the dealer whists, Clara passes")
