"""/stats, /top and /me through the real dispatcher: totals are the sums of the final balances,
the standings go by total, the rating is `scoring.stats` over the games in the order they ended,
a player is his account where linked and his seat name otherwise, and a corrected deal counts as
corrected."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from fractions import Fraction

from aiogram.methods import SendPhoto

from bot.core import Core, archive
from bot.telegram.keyboards import VoteCb
from scoring.stats import ratings
from tests.bot.archive_games import short_game
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, FakeClock, texts

NAMED = "me Boris Clara"  # Anna's account, Boris and Clara by name (the scorekeeper records)


async def final_balances(game: Core, chat: ChatDriver, number: int) -> dict[str, Fraction]:
    snap = await archive.game_snapshot(game, chat.chat_id, number)
    assert snap.settlement is not None
    return dict(zip(snap.state.names, snap.settlement.balances, strict=True))


def shown(value: Fraction) -> str:
    """A balance as the texts show it (one decimal, a real minus)."""
    text = f"{float(value):+.1f}".rstrip("0").rstrip(".").replace("-", "−")
    return "0" if value == 0 else text


async def test_stats_totals_are_the_sums_of_the_final_balances_and_count_wins(
    chat: ChatDriver, game: Core
) -> None:
    for which in ("a", "b", "c"):
        await short_game(chat, which, seats=NAMED)
    finals = [await final_balances(game, chat, n) for n in (1, 2, 3)]
    answer = await chat.say(DMITRY, "/stats")
    assert "all time · 3 games" in answer
    for name in ("Anna", "Boris", "Clara"):
        total = sum((f[name] for f in finals), Fraction(0))
        wins = sum(1 for f in finals if f[name] == max(f.values()))
        line = next(x for x in answer.splitlines() if x.startswith(f"<b>{name}</b>"))
        assert f"3 games, won {wins} · total {shown(total)}" in line, line
        assert f"(average {shown(total / 3)})" in line


async def test_a_name_only_seat_in_two_games_is_one_player_and_an_account_is_one_across_names(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a", seats=NAMED)
    await short_game(chat, "b", seats="me @boris_p Clara")
    await chat.send(BORIS, "/score")  # nothing: the game is over, his seat stays unlinked
    await chat.send(ANNA, "/newgame sochi pool 2 me @boris_p Clara")
    await chat.send(BORIS, "/deal Anna 6♠ = vist:Boris pass:Clara")  # links @boris_p
    for line in ("Boris 6♠ = vist:Clara pass:Anna", "Clara 6♠ = vist:Anna pass:Boris"):
        await chat.send(ANNA, f"/deal {line}")
    await chat.send(ANNA, "/endgame")
    answer = await chat.say(ANNA, "/stats")
    players = re.findall(r"^<b>(\w+)</b>: (\d+) games?", answer, re.MULTILINE)
    assert dict(players)["Clara"] == "3"  # the name-only Clara of three games
    assert dict(players)["Anna"] == "3"
    # "Boris" by name in game 1; @boris_p unlinked in game 2, linked to his account in game 3:
    # the username joins the account, the name stays another player
    assert sorted(players) == [("Anna", "3"), ("Boris", "1"), ("Boris", "2"), ("Clara", "3")]


async def test_one_player_in_detail_by_username_or_name_and_an_unknown_one_refused(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a")
    await chat.send(BORIS, "/newgame sochi pool 2 @anna_p me Clara")
    for line in ("Anna 6♠ = vist:Boris pass:Clara", "Boris 6♠ = vist:Clara pass:Anna"):
        await chat.send(ANNA, f"/deal {line}")
    await chat.send(ANNA, "/deal Clara 6♠ = vist:Anna pass:Boris")
    await chat.send(ANNA, "/endgame")
    detail = await chat.say(DMITRY, "/stats @anna_p")
    assert "<b>Anna</b> · all time" in detail and "Games: 2, won" in detail
    assert "Rating: <b>" in detail and "of 4 by total" in detail
    assert "Contracts: made" in detail and "(6: " in detail
    assert detail == await chat.say(DMITRY, "/stats anna")
    unknown = await chat.say(DMITRY, "/stats Zoe")
    assert "Nobody of that name" in unknown and "<code>Zoe</code>" in unknown
    assert "For example: <code>/stats " in unknown


async def test_filters_keep_this_month_this_year_or_one_convention(
    chat: ChatDriver, clock: FakeClock
) -> None:
    clock.now = datetime(2025, 12, 30, 18, tzinfo=UTC)
    await short_game(chat, "a", seats=NAMED)
    clock.now = datetime(2026, 1, 20, 18, tzinfo=UTC)
    await short_game(chat, "b", seats=NAMED, convention="leningrad")
    clock.now = datetime(2026, 2, 3, 18, tzinfo=UTC)
    await short_game(chat, "c", seats=NAMED)
    assert "all time · 3 games" in await chat.say(ANNA, "/stats")
    assert "this year · 2 games" in await chat.say(ANNA, "/stats year")
    assert "this month · 1 game:" in await chat.say(ANNA, "/stats month")
    assert "all time · Sochi · 2 games" in await chat.say(ANNA, "/stats sochi")
    assert "this year · Leningrad · 1 game" in await chat.say(ANNA, "/stats year ленинградка")
    none = await chat.say(ANNA, "/stats month leningrad")
    assert "No finished games here (this month · Leningrad)" in none


async def test_top_is_a_picture_of_the_players_by_total_with_the_rating_of_the_formula(
    chat: ChatDriver, game: Core
) -> None:
    for which in ("a", "b", "c", "a"):
        await short_game(chat, which, seats=NAMED)
    finals = [await final_balances(game, chat, n) for n in (1, 2, 3, 4)]
    answer = await chat.send(DMITRY, "/top")
    (photo,) = [r for r in answer if isinstance(r, SendPhoto)]
    caption = photo.caption or ""
    rows = re.findall(r"^(\d)\. <b>(\w+)</b> ([+−][\d.]+|0) · 4 games · .* rating (\d+)$",
                      caption, re.MULTILINE)  # fmt: skip
    assert [r[0] for r in rows] == ["1", "2", "3"]
    totals = {name: sum((f[name] for f in finals), Fraction(0)) for name in finals[0]}
    assert [r[1] for r in rows] == sorted(totals, key=lambda n: -totals[n])
    rated = ratings([list(f.items()) for f in finals])
    assert {r[1]: r[3] for r in rows} == {n: str(round(v)) for n, v in rated.items()}
    assert photo.photo.data[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[union-attr]


async def test_me_in_a_private_chat_sums_the_account_over_every_chat(
    chat: ChatDriver, game: Core
) -> None:
    await short_game(chat, "a", seats=NAMED)
    await short_game(chat, "b", seats=NAMED)
    other = ChatDriver(chat.dispatcher, chat.bot, chat_id=-100999, title="Other table")
    await short_game(other, "c", seats=NAMED)  # another Boris and Clara: by name, in that chat
    here = [await final_balances(game, chat, n) for n in (1, 2)]
    there = await final_balances(game, other, 1)
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=ANNA.id, chat_type="private")
    answer = await private.say(ANNA, "/me")
    total = sum((f["Anna"] for f in here), Fraction(0)) + there["Anna"]
    assert "3 games finished · chats: 2" in answer and f"total {shown(total)}" in answer
    assert "«Friday pulka»: 2 games" in answer and "«Other table»: 1 game," in answer
    assert answer == await private.say(ANNA, "/stats")
    group = await chat.say(ANNA, "/me")  # in a group: his detail there
    assert "<b>Anna</b> · all time" in group and "Games: 2" in group
    nobody = ChatDriver(chat.dispatcher, chat.bot, chat_id=CLARA.id, chat_type="private")
    assert "not finished a game yet" in await nobody.say(CLARA, "/me")


async def test_a_deal_corrected_by_a_vote_counts_as_corrected(chat: ChatDriver) -> None:
    """Anna's 6♠ first written as made, then disputed and corrected to one down by the players'
    vote: the statistics count it down."""
    await chat.send(ANNA, "/newgame sochi pool 2 me @boris_p @clara_p")
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    opened = await chat.send(BORIS, "/dispute 1 Anna 6♠ -1 vist:Boris pass:Clara")
    markup = opened[0].reply_markup  # type: ignore[union-attr]
    yes = VoteCb.unpack(markup.inline_keyboard[0][0].callback_data)  # type: ignore[union-attr]
    await chat.press(CLARA, yes)
    for line in (
        "Anna 6♠ = vist:Boris pass:Clara",
        "Boris 6♠ = vist:Clara pass:Anna",
        "Clara 6♠ = vist:Anna pass:Boris",
    ):
        await chat.send(ANNA, f"/deal {line}")
    await chat.send(ANNA, "/endgame")
    detail = await chat.say(ANNA, "/stats Anna")
    assert "Contracts: made 1 of 2 (6: 1/2)" in detail, detail


async def test_statistics_speak_russian(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang ru")
    await short_game(chat, "a", seats=NAMED)
    await short_game(chat, "b", seats=NAMED)
    answer = await chat.say(ANNA, "/stats")
    assert "📈 <b>Статистика</b> · за всё время · 2 пульки:" in answer
    assert re.search(r"<b>Anna</b>: 2 пульки, побед \d · итог [+−][\d,]+", answer)
    assert "игр сыграно" in answer and "вистов за раздачу" in answer
    top = texts(await chat.send(ANNA, "/top год"))
    assert "🏆 <b>Турнирная таблица</b> · за этот год · 2 пульки" in top
    assert "· 2 пульки · в среднем" in top and "рейтинг 15" in top
    bad = await chat.say(ANNA, "/top Boris")
    assert "/top понимает период" in bad and "<code>/top year</code>" in bad
