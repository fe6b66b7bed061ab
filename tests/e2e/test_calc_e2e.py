"""End-to-end: `/calc` settles a game played on paper through the real bot process (issue 16).

One message in a group and in a private chat gives settlement.md E3's balances, money and payments;
the step-by-step form is walked with buttons and replies while another member's press is refused;
ten malformed sheets are each answered with the part at fault and an example. Nothing is kept: the
database holds no event afterwards and the group has no game.
"""

from __future__ import annotations

import sqlite3

import pytest

from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, Chat, private_chat
from tests.e2e.harness import BotProcess, Member, contains

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one bot process for the module

GROUP = Chat(-1001500000161, "supergroup", "Paper pulka")
STEPS_GROUP = Chat(-1001500000162, "supergroup", "Paper pulka, step by step")
BAD_GROUP = Chat(-1001500000163, "supergroup", "Paper pulka, typos")

E3 = (
    "/calc sochi pool 10 stake 0.1\n"
    "Anna pool 10 mountain 14 whists Boris 30 Clara 16\n"
    "Boris pool 10 mountain 20 whists Anna 10 Clara 24\n"
    "Clara pool 6 mountain 4 whists Anna 40 Boris 8"
)
E3_LINES = (
    "Anna: −4 · money −0.40",
    "Boris: −64 · money −6.40",
    "Clara: +68 · money +6.80",
    "Boris → Clara: 6.40 (64 whists)",
    "Anna → Clara: 0.40 (4 whists)",
)

# A malformed sheet, the part at fault, and a word of the example the answer must show.
MALFORMED: tuple[tuple[str, str], ...] = (
    ("/calc sochi\nAnna pool -3\nBoris\nClara", "-3"),
    ("/calc\nAnna whists Anna 5\nBoris\nClara", "Anna"),
    ("/calc\nAnna whists Zed 5\nBoris\nClara", "Zed"),
    ("/calc\nA\nB\nC\nD\nE", "E"),
    ("/calc\nAnna\nBoris\nanna", "anna"),
    ("/calc sochy\nA\nB\nC", "sochy"),
    ("/calc sochi pool ten\nA\nB\nC", "ten"),
    ("/calc sochi stake 1/2\nA\nB\nC", "1/2"),
    ("/calc\nAnna hill 3\nBoris\nClara", "hill"),
    ("/calc whist_split=nice\nA\nB\nC", "nice"),
)


def events_in(bot: BotProcess) -> int:
    with sqlite3.connect(f"file:{bot.db_path}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


def assert_e3(text: str) -> None:
    for line in E3_LINES:
        assert line in text, f"{line!r} not in:\n{text}"


async def test_one_message_settles_a_paper_sheet_in_a_group_and_in_private(
    shared_bot: BotProcess,
) -> None:
    shared_bot.server.add_chat(GROUP)
    answer = await Member(shared_bot, GROUP, CLARA).say(E3, contains("balances"))
    assert answer.is_photo  # the sheet as written, the answer as its caption
    assert_e3(answer.text)
    alone = Member(shared_bot, private_chat(CLARA), CLARA)
    assert_e3((await alone.say(E3, contains("balances"))).text)
    assert events_in(shared_bot) == 0


async def test_step_by_step_only_the_opener_answers(shared_bot: BotProcess) -> None:
    shared_bot.server.add_chat(STEPS_GROUP)
    anna = Member(shared_bot, STEPS_GROUP, ANNA)
    boris = Member(shared_bot, STEPS_GROUP, BORIS)
    await anna.say("/lang en", contains("English"))  # else Anna's own, Russian
    steps = await anna.say("/calc", contains("Which convention"))
    toast = await boris.press(steps, "Sochi")
    assert "Only Anna answers" in str(toast.get("text"))
    await anna.press(steps, "Sochi", contains("How many players"))
    await anna.press(steps, "3", contains("The pool to"))
    await anna.press(steps, "10", contains("Reply to this message"))
    prompt = await anna.say("Anna Boris Clara", contains("(1 of 3)"), reply_to=steps.message_id)
    server = shared_bot.server
    since = server.cursor(STEPS_GROUP)
    boris.send("pool 1", reply_to=prompt.message_id)  # not his steps: no answer
    for numbers, asked in (
        ("pool 10 mountain 14 whists Boris 30 Clara 16", "(2 of 3)"),
        ("pool 10 mountain 20 whists Anna 10 Clara 24", "(3 of 3)"),
    ):
        prompt = await anna.say(numbers, contains(asked), reply_to=prompt.message_id)
    await server.wait_idle()
    shown = [sent.text for sent in server.sent[STEPS_GROUP.id][since:]]
    assert len(shown) == 2 and "(2 of 3)" in shown[0] and "(3 of 3)" in shown[1], shown
    answer = await anna.say(
        "pool 6 mountain 4 whists Anna 40 Boris 8",
        contains("balances"),
        reply_to=prompt.message_id,
    )
    for line in ("Anna: −4", "Boris: −64", "Clara: +68", "Boris → Clara: 64 whists"):
        assert line in answer.text
    assert events_in(shared_bot) == 0


async def test_ten_malformed_sheets_are_answered_with_the_fault_and_an_example(
    shared_bot: BotProcess,
) -> None:
    shared_bot.server.add_chat(BAD_GROUP)
    anna = Member(shared_bot, BAD_GROUP, ANNA)
    await anna.say("/lang en", contains("English"))  # else Anna's own, Russian
    for text, span in MALFORMED:
        answer = await anna.say(text, contains("For example"))
        assert f"At fault: {span}" in answer.text, f"{text!r}:\n{answer.text}"
    assert events_in(shared_bot) == 0
    nothing = await anna.say("/score", contains("no game"))
    assert "/newgame" in nothing.text
    shared_bot.assert_alive()


ALOUD_GROUP = Chat(-1001500000164, "supergroup", "Пулька на бумаге")
EN_ALOUD_GROUP = Chat(-1001500000165, "supergroup", "Paper, read aloud")


async def test_a_sheet_read_aloud_is_settled_in_russian_and_a_stray_answer_gets_a_hint(
    shared_bot: BotProcess,
) -> None:
    """«гора 42, висты: Боря 170, Вова 60», «висты на Олю 64» — settled as settlement.md E1
    written plainly; in the steps, an answer that is not a reply gets one line on how to reply."""
    shared_bot.server.add_chat(ALOUD_GROUP)
    anna = Member(shared_bot, ALOUD_GROUP, ANNA)
    await anna.say("/lang ru", contains("по-русски"))
    plain = await anna.say(
        "/calc сочи\nОля гора 42 висты Боря 170 Вова 60\nБоря гора 96 висты Оля 64 Вова 178\n"
        "Вова гора 132 висты Оля 88 Боря 95",
        contains("Бумажный лист"),
    )
    aloud = await anna.say(
        "/calc сочи,\nОля: гора 42, висты: Боря 170, Вова 60\n"
        "Боря: гора 96; висты на Олю 64 и на Вову 178\nВова — гора 132, висты: на Олю 88, на Борю 95",
        contains("Бумажный лист"),
    )
    assert aloud.text == plain.text
    steps = await anna.say("/calc", contains("Какая конвенция"))
    await anna.press(steps, "Сочи", contains("Сколько игроков"))
    await anna.press(steps, "3", contains("Пуля до"))
    await anna.press(steps, "20", contains("Ответьте на это сообщение"))
    hint = await anna.say("Оля, Боря, Вова", contains("ответьте на мой вопрос"))
    assert "\n" not in hint.text
    prompt = await anna.say("Оля, Боря, Вова", contains("(1 из 3)"), reply_to=steps.message_id)
    for numbers, asked in (
        ("гора 42, висты: Боря 170, Вова 60", "(2 из 3)"),
        ("гора 96; висты на Олю 64 и на Вову 178", "(3 из 3)"),
    ):
        prompt = await anna.say(numbers, contains(asked), reply_to=prompt.message_id)
    answer = await anna.say(
        "гора 132, висты: на Олю 88, на Борю 95",
        contains("Бумажный лист"),
        reply_to=prompt.message_id,
    )
    assert answer.text == plain.text
    assert events_in(shared_bot) == 0


async def test_a_sheet_read_aloud_in_english(shared_bot: BotProcess) -> None:
    shared_bot.server.add_chat(EN_ALOUD_GROUP)
    clara = Member(shared_bot, EN_ALOUD_GROUP, CLARA)
    aloud = await clara.say(
        "/calc sochi, pool: 10, stake: 0.1\n"
        "Anna: pool 10, mountain 14, whists: on Boris 30, and on Clara 16\n"
        "Boris: pool 10; mountain 20; whists: Anna 10, Clara 24\n"
        "Clara — pool 6, mountain 4, whists on Anna 40 and on Boris 8",
        contains("balances"),
    )
    assert_e3(aloud.text)
