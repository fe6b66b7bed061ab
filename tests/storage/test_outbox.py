"""The outbox on both backends: what the bot owes, claimed with a lease so that two senders never
send one row, in order per chat (docs/architecture.md "Delivery")."""

from __future__ import annotations

import asyncio

from bot.domain import Owed, OwedKind, Store
from tests.storage.conftest import Backend

NOW = 1_800_000_000.0


def text(chat_id: int, body: str) -> Owed:
    return Owed(chat_id, OwedKind.TEXT, body, "en", markup='{"inline_keyboard":[]}')


async def owe(store: Store, *rows: Owed) -> None:
    async with store.transaction() as repo:
        await repo.owe(list(rows))


async def claim(store: Store, claimant: str, now: float = NOW) -> list[tuple[int, str]]:
    async with store.transaction() as repo:
        rows = await repo.claim_owed(claimant, now, now + 30)
    return [(row.owed.chat_id, row.owed.text) for row in rows]


async def test_a_claim_takes_the_first_owed_row_of_each_chat(store: Store) -> None:
    await owe(store, text(1, "a1"), text(2, "b1"), text(1, "a2"))
    assert await claim(store, "s1") == [(1, "a1"), (2, "b1")]


async def test_a_claimed_row_is_not_claimed_again_while_its_lease_holds(store: Store) -> None:
    await owe(store, text(1, "a1"), text(1, "a2"))
    assert await claim(store, "s1") == [(1, "a1")]
    assert await claim(store, "s2") == []  # a1 is in flight: the chat waits, a2 too
    assert await claim(store, "s2", NOW + 31) == [(1, "a1")]  # the lease ran out


async def test_a_row_marked_sent_lets_the_chat_s_next_row_go(store: Store) -> None:
    await owe(store, text(1, "a1"), text(1, "a2"))
    async with store.transaction() as repo:
        (row,) = await repo.claim_owed("s1", NOW, NOW + 30)
        assert row.owed.markup == '{"inline_keyboard":[]}'
        assert await repo.owed_sent(row.id, "s2", 77, NOW) is False  # not s2's claim
        assert await repo.owed_sent(row.id, "s1", 77, NOW) is True
        assert await repo.owed_sent(row.id, "s1", 77, NOW) is False  # sent once
        assert await repo.owed_count() == 1
    assert await claim(store, "s1") == [(1, "a2")]


async def test_a_failed_row_waits_for_its_back_off_and_keeps_its_place(store: Store) -> None:
    await owe(store, text(1, "a1"), text(1, "a2"))
    async with store.transaction() as repo:
        (row,) = await repo.claim_owed("s1", NOW, NOW + 30)
        await repo.owed_retry(row.id, "s1", NOW + 5, "429: retry after 5")
    assert await claim(store, "s1", NOW + 1) == []
    async with store.transaction() as repo:
        (again,) = await repo.claim_owed("s1", NOW + 5, NOW + 35)
    assert (again.id, again.attempts, again.owed.text) == (row.id, 1, "a1")


async def test_a_dead_sender_s_claims_are_released(store: Store) -> None:
    await owe(store, text(1, "a1"), text(2, "b1"))
    await claim(store, "host/1/x")
    async with store.transaction() as repo:
        assert await repo.owed_claimants() == ["host/1/x"]
        assert await repo.release_claims("host/1/x") == 2
        assert await repo.owed_claimants() == []
    assert await claim(store, "host/2/y") == [(1, "a1"), (2, "b1")]


async def test_every_owed_field_reads_back(store: Store) -> None:
    owed = Owed(
        -100,
        OwedKind.DOCUMENT,
        "<b>protocol</b>",
        "ru",
        None,
        7,
        12,
        501,
        500,
        b"\x00deal Anna 6\xe2\x99\xa0 =",
        "game-7.pref",
    )
    await owe(store, owed)
    async with store.transaction() as repo:
        (row,) = await repo.claim_owed("s1", NOW, NOW + 30)
        assert row.owed == owed
        await repo.owed_as_text(row.id)
        await repo.owed_retry(row.id, "s1", NOW, "time-out")
        (row,) = await repo.claim_owed("s1", NOW, NOW + 30)
        assert row.owed.kind is OwedKind.TEXT
        assert await repo.owed_sent(row.id, "s1", 9, NOW)
        assert await repo.prune_sent(NOW + 1) == 1


async def claim_and_send(store: Store, claimant: str, sent: list[str]) -> None:
    async with store.transaction() as repo:
        rows = await repo.claim_owed(claimant, NOW, NOW + 30)
    async with store.transaction() as repo:
        for row in rows:
            sent.append(row.owed.text)
            assert await repo.owed_sent(row.id, claimant, row.id, NOW)


async def test_two_stores_claiming_at_once_never_share_a_row(backend: Backend) -> None:
    """Two processes, as it were, claim and send 40 chats' rows at the same instants: each row
    goes out once, and each chat's rows in order."""
    stores = [await backend.open(), await backend.open()]
    try:
        await owe(stores[0], *(text(chat, f"{chat}-{n}") for n in range(3) for chat in range(40)))
        sent: list[str] = []
        for _ in range(6):
            await asyncio.gather(*(claim_and_send(s, f"s{i}", sent) for i, s in enumerate(stores)))
        assert sorted(sent) == sorted(f"{chat}-{n}" for n in range(3) for chat in range(40))
        for chat in range(40):
            assert [t for t in sent if t.startswith(f"{chat}-")] == [
                f"{chat}-{n}" for n in range(3)
            ]
    finally:
        for s in stores:
            await s.close()


def sheet(chat_id: int, seq: int, caption: str) -> Owed:
    return Owed(chat_id, OwedKind.SHEET, caption, "en", None, 7, seq, reply_to=500 + seq)


async def test_a_row_given_back_for_its_chat_s_pace_waits_and_counts_no_attempt(
    store: Store,
) -> None:
    await owe(store, text(1, "a1"), text(1, "a2"))
    async with store.transaction() as repo:
        (row,) = await repo.claim_owed("s1", NOW, NOW + 30)
        assert await repo.owed_release(row.id, "s2", NOW + 4) is False  # not s2's claim
        assert await repo.owed_release(row.id, "s1", NOW + 4) is True
    assert await claim(store, "s1", NOW + 3) == []  # a2 waits behind a1: the order holds
    async with store.transaction() as repo:
        (again,) = await repo.claim_owed("s1", NOW + 4, NOW + 34)
    assert (again.id, again.attempts) == (row.id, 0)


async def test_the_rows_behind_a_claimed_one_are_read_in_order_and_rewritten_in_place(
    store: Store,
) -> None:
    """Coalescing: the claimed sheet owes the newest picture, the skipped rows are done, a row
    of another kind stays owed, in its place."""
    await owe(store, sheet(1, 3, "#1"), sheet(1, 4, "#2"), text(2, "b1"), sheet(1, 5, "#3"))
    await owe(store, text(1, "after"))
    async with store.transaction() as repo:
        first = next(r for r in await repo.claim_owed("s1", NOW, NOW + 30) if r.owed.chat_id == 1)
        behind = await repo.owed_after(1, first.id, 10)
        assert [r.owed.text for r in behind] == ["#2", "#3", "after"]
        assert [r.owed.text for r in await repo.owed_after(1, first.id, 1)] == ["#2"]
        merged = sheet(1, 5, "#1\n\n#2\n\n#3")
        assert await repo.owed_replace(first.id, merged, "s2") is False  # not s2's claim
        assert await repo.owed_replace(first.id, merged, "s1") is True
        assert await repo.owed_done([r.id for r in behind[:2]], NOW) == 2
        assert await repo.owed_done([], NOW) == 0
        assert await repo.owed_count() == 3  # the merged row, b1, "after"
        assert await repo.owed_sent(first.id, "s1", 900, NOW)
        (next_row,) = [
            r for r in await repo.claim_owed("s1", NOW, NOW + 30) if r.owed.chat_id == 1
        ]
        assert next_row.owed.text == "after"
        assert await repo.owed_replace(behind[0].id, merged) is False  # done rows stay done
    async with store.transaction() as repo:
        await repo.owed_sent(next_row.id, "s1", 901, NOW)
    async with store.reading() as repo:
        assert await repo.owed_count() == 1  # b1 alone


async def test_a_sender_gives_back_its_claims_but_those_it_keeps(store: Store) -> None:
    await owe(store, text(1, "a1"), text(2, "b1"), text(3, "c1"))
    async with store.transaction() as repo:
        rows = await repo.claim_owed("s1", NOW, NOW + 30)
        kept = [r.id for r in rows if r.owed.chat_id == 2]
        assert await repo.release_claims("s1", keep=kept) == 2
    assert await claim(store, "s2") == [(1, "a1"), (3, "c1")]
