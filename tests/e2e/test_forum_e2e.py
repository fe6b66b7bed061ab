"""End-to-end: a forum supergroup whose topics are tables. Two topics of one forum hold a game
each, played at the same time; every answer — the lobby, its buttons, the sheets, /score — lands in
the topic it answers, and nothing in the General topic."""

from __future__ import annotations

import pytest

from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, FORUM, Sent
from tests.e2e.harness import BotProcess, Member, contains, is_photo

pytestmark = pytest.mark.asyncio(loop_scope="module")


def in_topic(topic: int, *fragments: str) -> object:
    wanted = contains(*fragments)
    return lambda sent: sent.thread_id == topic and wanted(sent)


async def open_table(bot: BotProcess, topic: int, args: str) -> dict[str, Member]:
    members = {u.first_name: Member(bot, FORUM, u, topic) for u in (ANNA, BORIS, CLARA)}
    anna, boris, clara = members.values()
    opened = await anna.say(f"/newgame {args}", lambda s: bool(s.buttons))
    assert opened.thread_id == topic, f"the lobby of topic {topic} went to {opened.thread_id}"
    await anna.press(opened, 0)
    await boris.press(opened, 0)
    started: Sent = await clara.say("/join", contains("Clara"))
    assert started.thread_id == topic
    return members


async def test_two_topics_of_one_forum_hold_a_game_each_and_answers_stay_in_their_topic(
    shared_bot: BotProcess,
) -> None:
    server = shared_bot.server
    first = server.open_topic(FORUM, "Стол 1")
    second = server.open_topic(FORUM, "Стол 2")
    one = await open_table(shared_bot, first, "sochi pool 10")
    two = await open_table(shared_bot, second, "leningrad pool 20")

    sheet = await one["Anna"].say("/deal Anna 6♠ = vist:Boris pass:Clara", is_photo)
    assert sheet.thread_id == first and "#1" in sheet.text
    other = await two["Boris"].say("/deal Boris 7♥ -1 vist:Anna pass:Clara", is_photo)
    assert other.thread_id == second and "#1" in other.text

    rules_one = await one["Clara"].say("/rules", lambda s: s.thread_id == first)
    rules_two = await two["Clara"].say("/rules", lambda s: s.thread_id == second)
    assert "sochi" in rules_one.text.casefold() or "сочи" in rules_one.text.casefold()
    assert "leningrad" in rules_two.text.casefold() or "ленинград" in rules_two.text.casefold()

    await server.wait_idle()
    shown = server.sent[FORUM.id]
    assert shown, "the bot said nothing in the forum"
    misplaced = [s for s in shown if s.thread_id not in (first, second)]
    assert not misplaced, f"answers outside the tables' topics: {misplaced}"
