"""A database written before the typed log (tests/data/db/v1.sqlite3, made by make_v1.py with the
code of commit 1ac257a) reads with today's code: the same folded state, the same balances."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import fields
from fractions import Fraction
from pathlib import Path

import pytest

from bot.core import Core, events, looks, votes
from bot.core.events import (
    SCHEMA_VERSION,
    Dealt,
    Event,
    LastRoundMarked,
    RuleChanged,
    UnknownSchema,
    decode,
    encode,
)
from bot.core.votes import corrections_count
from bot.domain import GameStatus
from bot.storage import SqliteStore
from bot.storage.migrations import EVENT_SCHEMA_VERSION
from scoring.notation import parse_protocol
from scoring.replay import replay
from scoring.settle import settle

V1 = Path(__file__).parents[1] / "data" / "db" / "v1.sqlite3"
CHAT, OTHER = -100111, -100222
BALANCES = (Fraction(-518, 3), Fraction(-11, 3), Fraction(529, 3))


@pytest.fixture
async def old_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    path = tmp_path / "v1.sqlite3"
    shutil.copyfile(V1, path)
    store = await SqliteStore.open(path)
    yield store
    await store.close()


async def test_the_v1_game_folds_to_the_state_it_had(old_store: SqliteStore) -> None:
    game = Core(old_store)
    snap = await looks.snapshot(game, CHAT)
    state = snap.state
    assert state.status is GameStatus.ENDED and state.ended_reason == "agreed"
    assert state.names == ("Anna", "Boris", "Clara")
    assert state.arbiter is not None and state.arbiter.username == "eva_arbiter"
    assert state.rules is not None and state.rules.convention == "russian"
    assert state.stake == Fraction(1, 10)
    lines = [item.line for item in state.records]
    assert lines == [
        "Boris 6♠ = pass:Clara vist:Anna",
        "Clara 7♦ = vist:Anna pass:Boris",
        'adjust Clara whists:Anna +8 note:"penalty"',
        "Anna 6♥ = vist:Boris pass:Clara",
        "Clara misere 0",
        "Boris 7♣ = vist:Clara pass:Anna",
        "option whist_split=gentleman",
        "Anna 8♠ -1 vist:Boris pass:Clara",
    ]
    assert [item.seq for item in state.items if item.undone] == [21]
    assert [r.change for r in state.records if r.change] == [("whist_split", "gentleman")]
    rules_now = state.rules_now()
    assert rules_now is not None and str(rules_now.whist_split) == "gentleman"
    assert str(state.rules.whist_split) == "greedy"  # the frozen start stays
    reasons = {seq: (v.kind.value, v.passed, v.reason) for seq, v in state.votes.items()}
    assert reasons == {
        9: ("correction_proposed", True, "certain"),
        15: ("correction_proposed", True, "certain"),
        26: ("late_deal_proposed", True, "certain"),
        32: ("rule_change_proposed", True, "certain"),
        38: ("arbiter_proposed", True, "certain"),
        45: ("correction_proposed", True, "arbiter"),
        52: ("end_proposed", True, "certain"),
    }
    assert state.votes[45].referred == "timeout" and state.votes[45].message_id == 777
    assert state.votes[45].decided_by == 1006
    assert corrections_count(state, 1001) == 2  # the pencil-time one is free
    assert not state.open_votes()
    assert snap.sheet is not None and snap.sheet.deals == 6
    assert snap.settlement is not None and snap.settlement.balances == BALANCES


async def test_the_v1_game_replays_offline_to_the_same_balances(old_store: SqliteStore) -> None:
    game = Core(old_store)
    exported = await looks.export(game, CHAT)
    protocol = parse_protocol(exported.protocol)
    played = protocol.game()
    sheet = replay(played, [record for _, record in protocol.records])
    assert settle(sheet.rules, sheet.totals, played.stake).balances == BALANCES
    assert "first corrected error" in exported.protocol


async def test_the_cancelled_v1_game_and_the_chat_settings_read_back(
    old_store: SqliteStore,
) -> None:
    game = Core(old_store)
    snap = await looks.snapshot(game, OTHER)
    assert snap.state.status is GameStatus.ENDED and snap.state.ended_reason == "cancelled"
    assert snap.state.rules is None and snap.sheet is None
    assert snap.state.arbiter is not None and snap.state.arbiter.name == "eva_arbiter"
    assert await looks.locale(game, CHAT) == "en"
    assert await votes.watch_open_votes(game) == 0


def stored_events() -> list[tuple[str, dict[str, object], int]]:
    with sqlite3.connect(V1) as db:
        rows = db.execute("SELECT kind, payload, schema_version FROM events ORDER BY game_id, seq")
        return [(kind, json.loads(payload), version) for kind, payload, version in rows]


def test_every_v1_event_decodes_to_its_typed_event_and_encodes_back_byte_for_byte() -> None:
    kinds = set()
    for kind, payload, version in stored_events():
        event = decode(kind, payload, version)
        assert type(event).__name__ != "Event"
        again_kind, again = encode(event)
        assert (again_kind.value, again) == (kind, payload)
        assert list(again) == list(payload)  # the same keys in the same order
        assert decode(kind, again) == event
        kinds.add(type(event))
    # every kind of event, a rule change among them, but the last-round mark (Odessa's alone)
    assert len(kinds) == 20 and LastRoundMarked not in kinds
    assert decode(*encode_row(LastRoundMarked("last-round"))) == LastRoundMarked("last-round")


def test_every_event_field_reads_back_by_its_annotation_or_is_stored_as_json_already() -> None:
    """`decode` picks a field's reader by its annotation as written: a field spelt otherwise would
    silently keep the raw JSON (a dict for a `Player`), so every annotation is one it knows."""
    plain = {"int", "int | None", "str", "str | None"}
    classes = {*events._CLASSES.values(), events.RuleChanged}
    annotations = {str(f.type) for cls in classes for f in fields(cls)}
    assert annotations - plain <= set(events._READERS), annotations - plain - set(events._READERS)
    assert "Player | None" in annotations and "tuple[Player, ...]" in annotations


def encode_row(event: Event) -> tuple[str, dict[str, object]]:
    kind, payload = encode(event)
    return kind.value, payload


def test_a_rule_change_is_known_by_its_type_not_by_its_text() -> None:
    changes = [decode(k, p, v) for k, p, v in stored_events() if k == "deal"]
    rule = [e for e in changes if isinstance(e, RuleChanged)]
    assert rule == [RuleChanged("whist_split", "gentleman", 32)]
    assert all(isinstance(e, Dealt) for e in changes if e not in rule)


def test_an_event_of_an_unknown_schema_version_is_refused() -> None:
    with pytest.raises(UnknownSchema):
        decode("deal", {"line": "Anna 6♠ = vist:Boris pass:Clara"}, SCHEMA_VERSION + 1)


def test_the_storage_writes_the_schema_version_the_codec_reads() -> None:
    assert EVENT_SCHEMA_VERSION == SCHEMA_VERSION
