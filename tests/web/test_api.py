"""The Mini App's API (issue 15, Deliver 3, 4, 6): every answer, 401 and 403 included, over a game
played through the real dispatcher; deals from the page go through the same service as /deal."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from aiogram.methods import GetChatMember, SendPhoto
from aiohttp.test_utils import TestClient

from bot.core import looks
from bot.storage.sqlite import SqliteRepo
from bot.web.auth import start_param
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, texts
from tests.bot.mocked_bot import MockedBot
from tests.web.conftest import TOKEN, auth, member_answer, play

Client = TestClient[Any, Any]
DEALS = (
    (ANNA, "Anna 6♠ = vist:Boris pass:Clara"),
    (BORIS, "Boris 7♥ -1 vist:Anna pass:Clara"),
    (CLARA, "Clara misere 1"),
    (ANNA, "pass Anna/2 Boris/3 Clara/5"),
)


async def get(client: Client, path: str, header: str | None) -> tuple[int, Any]:
    headers = {"Authorization": header} if header is not None else {}
    response = await client.get(path, headers=headers)
    body = await response.json() if "json" in response.content_type else await response.text()
    return response.status, body


async def test_the_sheet_is_json_with_every_number_and_its_why(
    chat: ChatDriver, client: Client
) -> None:
    start = await play(chat, DEALS)
    score = await chat.say(ANNA, "/score")
    status, body = await get(client, f"/api/sheet?start={start}", auth(ANNA))
    assert status == 200
    assert body["convention"] == "sochi" and body["players"] == ["Anna", "Boris", "Clara"]
    assert set(body) >= {
        "pool", "mountain", "whists", "balances", "money", "transfers", "finished", "deals"
    }  # fmt: skip
    assert body["pool"]["Anna"] == 2 and body["mountain"]["Boris"] >= 2
    assert set(body["whists"]["Anna"]) == {"Boris", "Clara"}
    assert abs(sum(body["balances"].values())) < 1e-9 and body["money"] is None
    for name, balance in body["balances"].items():  # as /score shows it, one decimal
        shown = f"{balance:+.1f}".rstrip("0").rstrip(".").replace("-", "−")
        assert f"{name}: {shown if balance else '0'}" in score
    assert body["finished"] is False and body["next_dealer"] == "Boris"
    assert [d["number"] for d in body["deals"]] == [1, 2, 3, 4]
    first = body["deals"][0]
    assert first["line"] == "Anna 6♠ = vist:Boris pass:Clara" and first["author"] == "Anna"
    assert {"player": "Anna", "column": "pool", "target": None, "amount": 2} in [
        {k: e[k] for k in ("player", "column", "target", "amount")} for e in first["entries"]
    ]
    assert all(e["reason"] and e["why"] for d in body["deals"] for e in d["entries"])
    debts = sum(t["amount"] for t in body["transfers"])
    assert abs(debts - sum(b for b in body["balances"].values() if b > 0)) < 1e-9


async def test_deal_lines_come_in_the_chats_language(chat: ChatDriver, client: Client) -> None:
    start = await play(chat, DEALS[:2])
    await chat.send(ANNA, "/lang ru")
    status, body = await get(client, f"/api/sheet?start={start}", auth(ANNA))
    assert status == 200
    assert body["deals"][0]["line"] == "Anna 6♠ = вист:Boris пас:Clara"
    assert body["deals"][0]["entries"][0]["why"] == "сыгранная игра" or all(
        re.search("[а-я]", e["why"]) for e in body["deals"][0]["entries"]
    )


async def test_without_a_signature_or_with_a_forged_or_stale_one_the_answer_is_401(
    chat: ChatDriver, client: Client
) -> None:
    start = await play(chat, DEALS[:1])
    path = f"/api/sheet?start={start}"
    for header, code in (
        (None, "auth-missing"),
        ("Bearer x", "auth-missing"),
        (auth(ANNA, token="43:OTHER"), "auth-forged"),
        (auth(ANNA).replace("Anna", "Boris"), "auth-forged"),
        (auth(ANNA, age=24 * 3600 + 60), "auth-stale"),
    ):
        status, body = await get(client, path, header)
        assert (status, body["error"]) == (401, code), header
        assert body["message"]
    response = await client.post("/api/deal", json={"start": start, "line": "x"})
    assert response.status == 401
    stale_ru = auth(ANNA, language_code="ru", age=2 * 24 * 3600)  # worded in the user's language
    status, body = await get(client, path, stale_ru)
    assert status == 401 and re.search("[а-я]", body["message"])


async def test_a_stranger_gets_403_and_a_chat_member_may_look(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    start = await play(chat, DEALS[:1])
    member_answer(bot, DMITRY, "left")
    status, body = await get(client, f"/api/sheet?start={start}", auth(DMITRY))
    assert (status, body["error"]) == (403, "not-member")
    asked = [r for r in bot.requests if isinstance(r, GetChatMember)]
    assert [(r.chat_id, r.user_id) for r in asked] == [(chat.chat_id, DMITRY.id)]
    status, _ = await get(client, f"/api/sheet?start={start}", auth(DMITRY))
    assert status == 403  # the answer is cached: Telegram is not asked again
    assert len([r for r in bot.requests if isinstance(r, GetChatMember)]) == 1


async def test_a_member_of_the_chat_who_does_not_play_may_look(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    start = await play(chat, DEALS[:1])
    member_answer(bot, DMITRY)
    status, body = await get(client, f"/api/sheet?start={start}", auth(DMITRY))
    assert status == 200 and body["players"] == ["Anna", "Boris", "Clara"]


async def test_a_start_parameter_of_no_game_is_403_and_a_missing_game_404(
    chat: ChatDriver, client: Client
) -> None:
    await play(chat, DEALS[:1])
    for start in ("g1_AAAAAAAAAAAAAAAA", "1", ""):
        status, body = await get(client, f"/api/sheet?start={start}", auth(ANNA))
        assert (status, body["error"]) == (403, "game-unknown")
    status, body = await get(client, f"/api/sheet?start={start_param(TOKEN, 99)}", auth(ANNA))
    assert (status, body["error"]) == (404, "game-gone")


async def test_a_game_not_started_is_409(chat: ChatDriver, client: Client) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10")
    status, body = await get(client, f"/api/sheet?start={start_param(TOKEN, 1)}", auth(ANNA))
    assert (status, body["error"]) == (409, "not-started")
    assert "3" in body["message"]


async def test_the_svg_links_each_number_to_its_deal(chat: ChatDriver, client: Client) -> None:
    start = await play(chat, DEALS)
    status, svg = await get(client, f"/api/sheet.svg?start={start}", auth(ANNA))
    assert status == 200 and svg.startswith("<svg")
    deals = {int(n) for n in re.findall(r'data-deal="(\d+)"', svg)}
    assert deals == {1, 2, 3, 4}
    assert re.search(r'data-band="0:pool"[^>]*data-record="0" data-deal="1">2<', svg)
    status, _ = await get(client, f"/api/sheet.svg?start={start}", None)
    assert status == 401


async def test_history_shows_records_and_votes(chat: ChatDriver, client: Client) -> None:
    start = await play(chat, DEALS[:2])
    await chat.send(BORIS, "/dispute 1 Anna 6♠ -1 vist:Boris pass:Clara")
    status, body = await get(client, f"/api/history?start={start}", auth(ANNA))
    assert status == 200
    history = "\n".join(body["lines"])
    assert "Anna 6♠ = vist:Boris pass:Clara" in history
    assert "Anna 6♠ -1 vist:Boris pass:Clara" in history  # the proposed correction
    assert "<" not in history  # plain text, no Telegram HTML


async def test_the_pages_history_shows_times_in_the_chats_zone(
    chat: ChatDriver, client: Client
) -> None:
    """The clock says 18:00 UTC: a chat in Moscow time reads 21:00 (and the start's date)."""
    await chat.send(ANNA, "/tz Europe/Moscow")
    start = await play(chat, DEALS[:1])
    status, body = await get(client, f"/api/history?start={start}", auth(ANNA))
    assert status == 200
    history = "\n".join(body["lines"])
    assert "2026-01-01 21:00" in history and "18:00" not in history


async def test_a_deal_from_the_page_is_recorded_and_shown_in_the_chat(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    start = await play(chat, DEALS[:1])
    before = len(bot.requests)
    response = await client.post(
        "/api/deal",
        json={"start": start, "line": "Boris 7♥ -1 vist:Anna pass:Clara"},
        headers={"Authorization": auth(BORIS)},
    )
    assert response.status == 200
    body = await response.json()
    assert body["number"] == 2 and len(body["sheet"]["deals"]) == 2
    posted = bot.requests[before:]
    assert any(isinstance(r, SendPhoto) for r in posted)
    line = body["sheet"]["deals"][1]["line"]
    assert line.startswith("Boris 7♥ -1") and f"#2</b> <code>{line}" in texts(posted)
    assert line in await chat.say(ANNA, "/history")


async def test_a_bad_line_from_the_page_is_refused_localised_and_changes_nothing(
    chat: ChatDriver, client: Client, bot: MockedBot, game: Any
) -> None:
    start = await play(chat, DEALS[:1])
    before = len(bot.requests)
    response = await client.post(
        "/api/deal",
        json={"start": start, "line": "Anna 11♠ = vist:Boris pass:Clara"},
        headers={"Authorization": auth(ANNA, language_code="ru")},
    )
    assert response.status == 400
    body = await response.json()
    assert body["error"] == "bad-level" or body["error"]
    assert "11" in body["message"] and re.search("[а-я]", body["message"])
    assert bot.requests[before:] == []
    assert len((await looks.snapshot(game, chat.chat_id)).state.records) == 1
    for bad in ({"start": start}, {"start": start, "line": ""}, "nonsense"):
        response = await client.post("/api/deal", json=bad, headers={"Authorization": auth(ANNA)})
        assert response.status == 400 and (await response.json())["error"] == "bad-request"


async def test_only_players_record_from_the_page(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    start = await play(chat, DEALS[:1])
    member_answer(bot, DMITRY)
    response = await client.post(
        "/api/deal",
        json={"start": start, "line": "Boris 7♥ -1 vist:Anna pass:Clara"},
        headers={"Authorization": auth(DMITRY)},
    )
    assert response.status == 403
    body = await response.json()
    assert body["error"] == "not-a-player" and "Anna" in body["message"]


async def test_texts_healthz_and_the_page(client: Client, game: Any) -> None:
    response = await client.get("/api/texts?lang=ru")
    texts_ru = (await response.json())["texts"]
    assert texts_ru["miniapp-title"] == "Живая пулька" and "reason-remise" in texts_ru
    response = await client.get("/api/texts?lang=xx")
    assert (await response.json())["lang"] == "en"
    response = await client.get("/healthz")
    assert response.status == 200 and (await response.json())["ok"] is True
    page = await client.get("/app")
    assert page.status == 200 and "app.js" in await page.text()
    script = await client.get("/app/static/app.js")
    assert script.status == 200
    await game.store.close()
    response = await client.get("/healthz")
    assert response.status == 503


async def test_the_same_submission_twice_is_recorded_once(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    start = await play(chat, DEALS[:1])
    deal = {"start": start, "line": "Boris 7♥ -1 vist:Anna pass:Clara", "nonce": "n-1"}
    headers = {"Authorization": auth(BORIS)}
    first = await client.post("/api/deal", json=deal, headers=headers)
    assert first.status == 200
    again = await client.post("/api/deal", json=deal, headers=headers)
    assert again.status == 409 and (await again.json())["error"] == "already-recorded"
    other = await client.post("/api/deal", json={**deal, "nonce": "n-2"}, headers=headers)
    assert other.status == 200 and (await other.json())["number"] == 3


async def test_an_ended_game_stays_readable_and_takes_no_deal(
    chat: ChatDriver, client: Client
) -> None:
    """A game ended at once (its end rule met, /endgame): the page reads it, records nothing."""
    await chat.send(ANNA, "/newgame sochi pool 2 Anna Boris Clara")
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    await chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Anna")
    await chat.send(ANNA, "/deal Clara 6♠ = vist:Anna pass:Boris")
    assert "Game #1 is over" in await chat.say(ANNA, "/endgame")
    start = start_param(TOKEN, 1)
    status, body = await get(client, f"/api/sheet?start={start}", auth(ANNA))
    assert status == 200 and body["finished"] is True and len(body["deals"]) == 3
    response = await client.post(
        "/api/deal",
        json={"start": start, "line": "Anna 6♠ = vist:Boris pass:Clara"},
        headers={"Authorization": auth(ANNA)},
    )
    assert response.status == 409 and (await response.json())["error"] == "ended"


async def test_a_deal_from_the_page_and_its_chat_reply_commit_together_or_not_at_all(
    chat: ChatDriver, client: Client, bot: MockedBot, game: Any, monkeypatch: Any
) -> None:
    """The page's deal and the sheet it owes the chat are one unit of work: when the reply
    cannot be written, the deal is not recorded either (503 after the tries, the page says to
    send again); sent again, it is recorded once and the chat gets its sheet."""
    start = await play(chat, DEALS[:1])
    original = SqliteRepo.owe

    async def locked(repo: SqliteRepo, rows: Any) -> None:
        raise sqlite3.OperationalError("database is locked")

    body = {"start": start, "line": "Boris 7♥ -1 vist:Anna pass:Clara", "nonce": "n-1"}
    before = len(bot.requests)
    monkeypatch.setattr(SqliteRepo, "owe", locked)
    response = await client.post("/api/deal", json=body, headers={"Authorization": auth(BORIS)})
    assert response.status == 503 and (await response.json())["error"] == "busy"
    assert len((await looks.snapshot(game, chat.chat_id)).state.records) == 1
    assert bot.requests[before:] == []
    monkeypatch.setattr(SqliteRepo, "owe", original)
    response = await client.post("/api/deal", json=body, headers={"Authorization": auth(BORIS)})
    assert response.status == 200 and (await response.json())["number"] == 2
    assert any(isinstance(r, SendPhoto) for r in bot.requests[before:])
    again = await client.post("/api/deal", json=body, headers={"Authorization": auth(BORIS)})
    assert again.status == 409  # the same submission: recorded once
    assert len((await looks.snapshot(game, chat.chat_id)).state.records) == 2


async def test_a_deal_from_the_page_of_a_topics_game_is_answered_in_that_topic(
    chat: ChatDriver, client: Client, bot: MockedBot
) -> None:
    from tests.bot.test_forum_topics import TopicDriver

    topic = TopicDriver(chat.dispatcher, chat.bot, chat.chat_id, title="Club", topic=31)
    start = await play(topic, DEALS[:1])
    before = len(bot.requests)
    response = await client.post(
        "/api/deal",
        json={"start": start, "line": "Boris 7♥ -1 vist:Anna pass:Clara"},
        headers={"Authorization": auth(BORIS)},
    )
    assert response.status == 200
    photos = [r for r in bot.requests[before:] if isinstance(r, SendPhoto)]
    assert [p.message_thread_id for p in photos] == [31]
