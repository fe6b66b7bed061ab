"""The Mini App's archive and statistics JSON (`/api/games`, `/api/stats`): the same functions as
/games and /stats, for the chat of the game the start parameter names, to whoever may see it."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from bot.web.auth import start_param
from tests.bot.archive_games import short_game
from tests.bot.factories import ANNA, DMITRY, ChatDriver
from tests.web.conftest import TOKEN, auth, member_answer

Client = TestClient[Any, Any]
NAMED = "me Boris Clara"


async def get(client: Client, path: str, header: str | None) -> tuple[int, Any]:
    headers = {"Authorization": header} if header is not None else {}
    response = await client.get(path, headers=headers)
    return response.status, await response.json()


async def test_the_archive_is_the_chat_s_games_newest_first_with_their_balances(
    chat: ChatDriver, client: Client
) -> None:
    await short_game(chat, "a", seats=NAMED)
    await short_game(chat, "b", seats=NAMED)
    await chat.send(ANNA, "/newgame sochi pool 10 me Boris Clara")
    status, body = await get(client, f"/api/games?start={start_param(TOKEN, 3)}", auth(ANNA))
    assert status == 200
    assert (body["page"], body["pages"], body["total"], body["zone"]) == (0, 1, 3, "UTC")
    live, second, first = body["games"]
    assert [g["number"] for g in body["games"]] == [3, 2, 1]
    assert live["status"] == "playing" and live["balances"] is None
    assert first["status"] == "ended" and first["deals"] == 4 and first["reason"] == "end_rule"
    assert first["players"] == ["Anna", "Boris", "Clara"] and first["date"] == "2026-01-01"
    assert abs(sum(first["balances"].values())) < 1e-9
    status, sheet = await get(client, f"/api/sheet?start={second['start']}", auth(ANNA))
    assert status == 200 and sheet["balances"] == second["balances"]  # the game it names


async def test_the_stats_are_the_standings_with_every_number_of_a_player(
    chat: ChatDriver, client: Client
) -> None:
    for which in ("a", "b", "c"):
        await short_game(chat, which, seats=NAMED)
    start = start_param(TOKEN, 1)
    status, body = await get(client, f"/api/stats?start={start}", auth(ANNA))
    assert status == 200 and body["games"] == 3 and body["period"] == "all"
    players = body["players"]
    assert [p["place"] for p in players] == [1, 2, 3]
    assert [p["total"] for p in players] == sorted((p["total"] for p in players), reverse=True)
    assert abs(sum(p["total"] for p in players)) < 1e-9
    anna = next(p for p in players if p["name"] == "Anna")
    assert anna["games"] == 3 and set(anna["contracts"]) == {"6", "7", "8", "9", "10"}
    assert anna["best"]["game"] in (1, 2, 3) and isinstance(anna["rating"], int)
    assert sum(p["rating"] for p in players) in range(4498, 4503)  # zero-sum, each rounded
    status, sochi = await get(client, f"/api/stats?start={start}&convention=rostov", auth(ANNA))
    assert status == 200 and sochi["games"] == 0 and sochi["players"] == []


async def test_a_bad_page_or_filter_is_refused_and_a_stranger_is_not_let_in(
    chat: ChatDriver, client: Client
) -> None:
    await short_game(chat, "a", seats=NAMED)
    start = start_param(TOKEN, 1)
    for path in (
        f"/api/games?start={start}&page=-1",
        f"/api/games?start={start}&page=x",
        f"/api/stats?start={start}&period=decade",
        f"/api/stats?start={start}&convention=poker",
    ):
        status, body = await get(client, path, auth(ANNA))
        assert status == 400 and body["error"] == "bad-query", path
    status, body = await get(client, f"/api/stats?start={start}", None)
    assert status == 401
    member_answer(chat.bot, DMITRY, status="left")
    status, body = await get(client, f"/api/games?start={start}", auth(DMITRY))
    assert status == 403 and body["error"] == "not-member"
