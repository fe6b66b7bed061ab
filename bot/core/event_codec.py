"""The JSON payload of each typed event (`bot.core.events`), both ways."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from enum import StrEnum
from typing import Any, Final

from bot.core import events as ev
from bot.core.events import Kind, Player
from scoring.notation import parse_rule_change
from scoring.voting import Threshold

Payload = dict[str, Any]

SCHEMA_VERSION: Final = 1
"""The events table's `schema_version`: a later version adds a branch to `decode`, never changes 1
(the shape written before the typed log, so no stored event is rewritten)."""

# Every typed event by its kind (`RuleChanged` is stored as a deal: `decode` tells it apart).
_CLASSES: Final[dict[Kind, type[ev.Event]]] = {
    cls.KIND: cls
    for cls in vars(ev).values()
    if isinstance(cls, type)
    and issubclass(cls, ev.Event)
    and cls not in (ev.Event, ev.RuleChanged)
}
_REASONS: Final[dict[Kind, type[StrEnum]]] = {
    Kind.GAME_ENDED: ev.EndReason,
    Kind.VOTE_REFERRED: ev.ReferReason,
    Kind.VOTE_CLOSED: ev.CloseReason,
}


# How a stored value reads back into its field, by the field's name (others are kept as stored).
_READERS: Final[dict[str, Callable[[Any], object]]] = {
    **dict.fromkeys(
        ("player", "arbiter", "scorekeeper", "debtor", "creditor"),
        lambda raw: Player.of(raw) if raw else None,
    ),
    **dict.fromkeys(("yes", "passed", "pencil", "warning", "money"), bool),
    **dict.fromkeys(("overrides", "rules"), lambda raw: {str(k): str(v) for k, v in raw.items()}),
    "players": lambda raw: tuple(map(Player.of, raw)),
    "threshold": Threshold,
    "side": ev.DebtSide,
}


def _json(value: object) -> object:
    if isinstance(value, Player):
        return value.payload()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def encode(event: ev.Event) -> tuple[Kind, Payload]:
    """The event's kind and its JSON payload (version `SCHEMA_VERSION`)."""
    if isinstance(event, ev.RuleChanged):
        payload: Payload = {"line": event.line}
        if event.vote is not None:
            payload["vote"] = event.vote
        return Kind.DEAL, payload
    payload = {}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in event.OMIT and (value is None or value is False):
            continue
        payload[f.name] = _json(value)
    return event.KIND, payload


class UnknownSchema(ValueError):
    """An event written by a newer bot than this one (its schema_version is unknown)."""


def decode(
    kind: str, payload: Mapping[str, Any], schema_version: int = SCHEMA_VERSION
) -> ev.Event:
    """The typed event of a stored row."""
    if schema_version != 1:
        raise UnknownSchema(f"event schema {schema_version} (this bot reads 1)")
    which = Kind(kind)
    if which is Kind.DEAL:
        change = parse_rule_change(str(payload["line"]))
        if change is not None:
            return ev.RuleChanged(change.option, change.value, payload.get("vote"))
    cls = _CLASSES[which]
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in payload:
            read = _REASONS[which] if f.name == "reason" else _READERS.get(f.name)
            values[f.name] = payload[f.name] if read is None else read(payload[f.name])
        elif f.name == "threshold":  # v1 votes had none: they were unanimous
            values[f.name] = Threshold.ALL
    return cls(**values)
