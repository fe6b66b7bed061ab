"""Issue 13 item 6: texts that say the real reason (undo after a penalty, a late deal that shifts
a 4-player rotation, the last round's start, the score once the end rule is met)."""

from __future__ import annotations

from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, FakeClock
from tests.bot.test_disputes import buttons


async def test_undo_after_a_penalty_says_the_pencil_time_is_over(
    chat: ChatDriver, clock: FakeClock
) -> None:
    await chat.send(ANNA, "/newgame russian pool 10")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")
    await chat.send(ANNA, "/deal Boris 6♠ -1 vist:Anna pass:Clara")
    clock.advance(200)
    first = await chat.send(BORIS, "/dispute 1 Boris 6♠ = vist:Anna pass:Clara")
    await chat.press(CLARA, buttons(first)[0])
    await chat.send(ANNA, "/deal Clara 7♦ -1 vist:Anna pass:Boris")
    clock.advance(200)
    second = await chat.send(CLARA, "/dispute 2 Clara 7♦ = vist:Anna pass:Boris")
    await chat.press(BORIS, buttons(second)[0])  # a penalty on Anna is now the last record
    refused = await chat.say(ANNA, "/undo")
    assert "The pencil time" in refused and "<code>/undo" in refused
    assert "Only the author" not in refused and "adjust" not in refused


async def test_a_late_deal_that_shifts_the_rotation_names_the_later_deal(
    chat: ChatDriver,
) -> None:
    """4 players: Anna deals #1 (sits out), Boris #2. A deal forgotten before #2 fits its slot
    (Boris deals it), but then #2 is dealt by Clara, who plays in it."""
    await chat.send(ANNA, "/newgame sochi me Boris Clara Dmitry")
    await chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Dmitry")
    await chat.send(ANNA, "/deal Clara 6♠ = vist:Dmitry pass:Anna")
    refused = await chat.say(ANNA, "/deal Anna 6♥ = vist:Clara pass:Dmitry late")
    assert "moves the dealer on by one" in refused
    assert "deal #2" in refused and "dealt by Clara, who plays in it" in refused


async def test_the_last_round_says_where_it_starts_and_how_many_remain(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame odessa me Boris Clara")
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")  # Anna dealt #1
    answer = await chat.say(ANNA, "/lastround")
    # Boris deals #2, Clara #3, Anna (the first dealer) #4: the round is #4–#6
    assert "starts at deal #4, dealt by Anna" in answer and "5 deals remain" in answer


async def test_the_score_after_the_end_rule_is_the_final_one(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 2 me Boris Clara")
    for line in (
        "Anna 8♠ = vist:Boris pass:Clara",
        "Boris 8♠ = vist:Clara pass:Anna",
        "Clara 8♠ = vist:Anna pass:Boris",
    ):
        await chat.send(ANNA, f"/deal {line}")
    score = await chat.say(DMITRY, "/score")
    assert "the end rule is met" in score and "if it ended now" not in score
