"""Events <-> JSON objects, the one encoding every journal line and ``.json`` export uses.

An event becomes ``{"type": "Play", "player": 0, "result": "4HPwATDgc/ABMA", "steps": [[8, 5, 3],
[6, 5, 1]]}``: positions as their IDs (``nardy:…`` for the nardy family), steps as
``[start, end, die]`` with a fourth element ``true`` for a hit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rules import match
from rules.errors import InvalidNotation
from rules.position import Position
from rules.steps import Step


class BadEvent(InvalidNotation):
    """A JSON object that is not a valid event."""


def event_to_json(event: match.Event) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event.kind}
    for item in dataclasses.fields(event):
        value = getattr(event, item.name)
        if isinstance(value, Position):
            data[item.name] = value.id
        elif item.name == "steps":
            data[item.name] = [
                [s.start, s.end, s.die, True] if s.hit else [s.start, s.end, s.die] for s in value
            ]
        elif isinstance(value, tuple):
            data[item.name] = list(value)
        else:
            data[item.name] = value
    return data


def _position(value: Any, variant: str | None) -> Position:
    if not isinstance(value, str):
        raise BadEvent(f"position {value!r} is not an ID")
    return Position.from_id(value, variant)


def event_from_json(data: Any, variant: str | None = None) -> match.Event:
    """The event an object describes; BadEvent naming what is wrong."""
    if not isinstance(data, dict):
        raise BadEvent("an event must be a JSON object")
    kind = data.get("type")
    cls = match.EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadEvent(f"unknown event type {kind!r}")
    kwargs: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.name not in data:
            if item.default is dataclasses.MISSING:
                raise BadEvent(f"{kind} event lacks {item.name!r}")
            continue
        value = data[item.name]
        kwargs[item.name] = _field(str(kind), item.name, str(item.type), value, variant)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise BadEvent(f"{kind} event: {error}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _field(kind: str, name: str, annotation: str, value: Any, variant: str | None) -> Any:
    """Check and convert one field by its declared type."""
    if annotation == "Position":
        return _position(value, variant)
    if annotation == "tuple[Step, ...]":
        if not isinstance(value, list):
            raise BadEvent(f"{kind} event has malformed steps")
        steps = []
        for item in value:
            if (
                not isinstance(item, list)
                or len(item) not in (3, 4)
                or not all(_is_int(v) for v in item[:3])
                or not 0 <= item[0] <= 25
                or not 0 <= item[1] <= 25
                or not 1 <= item[2] <= 6
            ):
                raise BadEvent(f"{kind} event has malformed steps")
            steps.append(Step(item[0], item[1], item[2], bool(item[3]) if len(item) == 4 else False))
        return tuple(steps)
    if annotation.startswith("tuple[int"):
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise BadEvent(f"{kind} event: {name} must be a list of whole numbers")
        if annotation == "tuple[int, int]" and len(value) != 2:
            raise BadEvent(f"{kind} event: {name} must have two numbers")
        return tuple(value)
    if annotation == "int":
        if not _is_int(value):
            raise BadEvent(f"{kind} event: {name} must be a whole number")
        return value
    if annotation == "int | None":
        if value is not None and not _is_int(value):
            raise BadEvent(f"{kind} event: {name} must be a whole number or null")
        return value
    if annotation == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise BadEvent(f"{kind} event: {name} must be a number")
        return float(value)
    if annotation == "str":
        if not isinstance(value, str):
            raise BadEvent(f"{kind} event: {name} must be text")
        return value
    raise BadEvent(f"{kind} event: cannot read field {name}")  # pragma: no cover
