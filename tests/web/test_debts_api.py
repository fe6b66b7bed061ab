"""The Mini App's "Debts" section: the chat's open debts with the viewer's part in each, and the
same press as the chat's "✅ paid" button (the same command, its checks, and the chat told)."""

from __future__ import annotations

from typing import Any

from aiogram.methods import SendMessage
from aiohttp.test_utils import TestClient

from bot.web.auth import start_param
from tests.bot.factories import ANNA, BORIS, DMITRY, ChatDriver
from tests.bot.test_debts import FIRST, play
from tests.web.conftest import TOKEN, auth, member_answer

Client = TestClient[Any, Any]


async def call(
    client: Client, user: Any, body: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": auth(user)}
    if body is None:
        response = await client.get(f"/api/debts?start={start_param(TOKEN, 1)}", headers=headers)
    else:
        response = await client.post("/api/debt", json=body, headers=headers)
    return response.status, await response.json()


async def test_the_debts_of_the_chat_show_whose_press_counts(
    chat: ChatDriver, client: Client
) -> None:
    await play(chat, 1, FIRST)
    status, body = await call(client, ANNA)
    assert status == 200
    debts = body["debts"]
    assert {(d["debtor"], d["creditor"]) for d in debts} == {("Boris", "Anna"), ("Boris", "Clara")}
    roles = {d["creditor"]: d["role"] for d in debts}
    assert roles == {"Anna": "creditor", "Clara": None}
    assert all(d["amount"] and d["number"] == 1 and d["paid"] is False for d in debts)
    assert len(body["net"]) == 2


async def test_a_press_from_the_page_marks_the_debt_and_tells_the_chat(
    chat: ChatDriver, client: Client
) -> None:
    await play(chat, 1, FIRST)
    _, body = await call(client, ANNA)
    debt = next(d for d in body["debts"] if d["creditor"] == "Anna")
    press = {"start": start_param(TOKEN, 1), "game": debt["game"], "debt": debt["debt"]}
    member_answer(chat.bot, DMITRY)
    status, refused = await call(client, DMITRY, press)
    assert status == 403 and "Only" in refused["message"]
    before = len(chat.bot.requests)
    status, said = await call(client, BORIS, press)
    assert status == 200 and said["side"] == "paid"
    told = [r for r in chat.bot.requests[before:] if isinstance(r, SendMessage)]
    assert told and "has paid" in told[0].text and told[0].chat_id == chat.chat_id
    _, body = await call(client, ANNA)
    assert next(d for d in body["debts"] if d["creditor"] == "Anna")["paid"] is True
    status, closed = await call(client, ANNA, press)
    assert status == 200 and closed["side"] == "received"
    _, body = await call(client, ANNA)
    assert [d["creditor"] for d in body["debts"]] == ["Clara"]
    status, again = await call(client, ANNA, press)
    assert status == 400 and "already settled" in again["message"]


async def test_a_press_with_a_bad_body_or_a_forged_debt_is_refused(
    chat: ChatDriver, client: Client
) -> None:
    await play(chat, 1, FIRST)
    status, _ = await call(client, ANNA, {"start": start_param(TOKEN, 1), "game": "1"})
    assert status == 400
    forged = {"start": start_param(TOKEN, 1), "game": 1, "debt": 1}
    status, body = await call(client, ANNA, forged)
    assert status == 400 and "another game" in body["message"]
