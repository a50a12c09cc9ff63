"""The board as the rules see it: checkers per point for each side, seen from the side on roll.

A :class:`Position` holds two 25-tuples, ``mover`` (the side on roll) and ``opponent``.  Each is in
that side's **own** numbering: index 0..23 are its points 1..24, index 24 is its bar.  Checkers
borne off are 15 minus those on the board.  How one side's numbering maps onto the other's
depends on the variant's geometry:

* backgammon (the sides move in opposite directions): my point n is the opponent's 25 - n;
* the nardy family (both sides move the same way round): my point p is the opponent's
  ((p + 11) mod 24) + 1, so my 24 (my head) is their 12 and my 13 is their 1.

``repr(position)`` is its ID, so a failing test prints a position one can paste into
``referee plays``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.errors import InvalidNotation, InvalidPosition

CHECKERS = 15
BAR = 25  # point number used for the bar in steps and notation
OFF = 0  # point number used for "borne off"
#: a side's home board: its points 1..HOME_BOARD in its own numbering, in every variant
HOME_BOARD = 6


def outside_home(side: Sequence[int]) -> int:
    """How many of a side's checkers (its 25 counts: points 1-24 in its own numbering, then the
    bar) lie outside its home board or on the bar: it bears off only when none does."""
    return sum(side[HOME_BOARD:])

#: Variants whose sides move in opposite directions (backgammon geometry).
OPPOSITE_DIRECTION = frozenset({"backgammon"})
#: Variants that share the nardy geometry and the prefixed ID form.
SAME_DIRECTION = frozenset({"nardy", "gulbara", "sixone"})
KNOWN_GEOMETRY = OPPOSITE_DIRECTION | SAME_DIRECTION


def opponent_point(variant: str, point: int) -> int:
    """The opponent's number for the mover's ``point`` (1..24) in ``variant``'s geometry."""
    if variant in OPPOSITE_DIRECTION:
        return 25 - point
    return ((point + 11) % 24) + 1


def _encode_key(first: tuple[int, ...], second: tuple[int, ...]) -> str:
    """80-bit key: per side and point, as many 1-bits as checkers then a 0, least significant first."""
    value = 0
    shift = 0
    for side in (first, second):
        for count in side:
            if count:
                value |= ((1 << count) - 1) << shift
            shift += count + 1
    return base64.b64encode((value & ((1 << 80) - 1)).to_bytes(10, "little")).decode("ascii")[:14]


def _decode_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if len(text) != 14:
        raise InvalidNotation(f"position ID {text!r} must have 14 characters, not {len(text)}")
    try:
        data = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidNotation(f"position ID {text!r} is not base64") from None
    sides: list[list[int]] = [[], []]
    side = 0
    count = 0
    for i in range(80):
        if side > 1:
            break
        if data[i // 8] >> (i % 8) & 1:
            count += 1
            if count > CHECKERS:
                raise InvalidNotation(f"position ID {text!r} has more than 15 checkers on a point")
        else:
            sides[side].append(count)
            count = 0
            if len(sides[side]) == 25:
                side += 1
    if side < 2:
        raise InvalidNotation(f"position ID {text!r} does not describe two full sides")
    return tuple(sides[0]), tuple(sides[1])


@dataclass(frozen=True, slots=True)
class Position:
    """Checkers of both sides, each in its own numbering, seen from the side on roll."""

    mover: tuple[int, ...]
    opponent: tuple[int, ...]
    variant: str = "backgammon"

    def __post_init__(self) -> None:
        for name in ("mover", "opponent"):
            side = getattr(self, name)
            if not isinstance(side, tuple):
                side = tuple(side)
                object.__setattr__(self, name, side)
            if len(side) != 25:
                raise InvalidPosition(f"{name} must list 25 counts (points 1..24 and the bar)")
            for count in side:
                if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                    raise InvalidPosition(f"{name} has a count that is not a whole number ≥ 0")
        if self.variant not in KNOWN_GEOMETRY:
            raise InvalidPosition(f"unknown variant {self.variant!r}")

    @classmethod
    def _trusted(cls, mover: tuple[int, ...], opponent: tuple[int, ...], variant: str) -> Position:
        """Build without checks: for boards the engine itself derived from a checked one."""
        position = object.__new__(cls)
        object.__setattr__(position, "mover", mover)
        object.__setattr__(position, "opponent", opponent)
        object.__setattr__(position, "variant", variant)
        return position

    # --- IDs -------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        """gnubg Position ID (backgammon) or ``variant:`` + the same 80-bit key."""
        key = _encode_key(self.opponent, self.mover)
        if self.variant == "backgammon":
            return key
        return f"{self.variant}:{key}"

    @classmethod
    def from_id(cls, text: str, variant: str | None = None, *, strict: bool = True) -> Position:
        """Parse an ID; a ``nardy:``-style prefix names the variant (else ``variant`` or backgammon).

        Raises InvalidNotation for a malformed ID and InvalidPosition for an impossible one.  With
        ``strict=False`` a board that is merely wrong (both sides on one point, as a camera may see
        after an illegal play) is accepted; more than 15 checkers a side never is.
        """
        if not isinstance(text, str):
            raise InvalidNotation("a position ID must be text")
        text = text.strip()
        if ":" in text:
            prefix, _, key = text.partition(":")
            prefix = prefix.strip().lower()
            if prefix not in KNOWN_GEOMETRY:
                raise InvalidNotation(f"position ID {text!r} has an unknown variant prefix")
            if variant is not None and _family_name(variant) != prefix:
                raise InvalidNotation(f"position ID {text!r} is not a {variant} position")
            name = prefix
        else:
            key = text
            name = _family_name(variant) if variant else "backgammon"
        opponent, mover = _decode_key(key)
        position = cls(mover, opponent, name)
        problem = position.problem()
        if problem and (strict or "checkers on the board" in problem):
            raise InvalidPosition(f"position ID {text!r}: {problem}")
        return position

    def __repr__(self) -> str:
        return self.id

    def __str__(self) -> str:
        return self.id

    # --- derived facts ---------------------------------------------------------------------
    def swapped(self) -> Position:
        """The same board seen from the other side (the other side on roll)."""
        return Position._trusted(self.opponent, self.mover, self.variant)

    def with_variant(self, variant: str) -> Position:
        return Position(self.mover, self.opponent, variant)

    def borne_off(self, mover: bool = True) -> int:
        side = self.mover if mover else self.opponent
        return CHECKERS - sum(side)

    def pips(self, mover: bool = True) -> int:
        """Pip count: pips the side still has to travel to bear everything off."""
        side = self.mover if mover else self.opponent
        return sum(count * (i + 1) for i, count in enumerate(side))

    def problem(self) -> str:
        """Empty when the position is physically possible, else a short description."""
        for name, side in (("the side on roll", self.mover), ("the other side", self.opponent)):
            total = sum(side)
            if total > CHECKERS:
                return f"{name} has {total} checkers on the board (at most 15)"
        if self.variant in SAME_DIRECTION and (self.mover[24] or self.opponent[24]):
            return f"{self.variant} has no bar"
        for point in range(1, 25):
            if self.mover[point - 1] and self.opponent[opponent_point(self.variant, point) - 1]:
                return f"both sides have checkers on point {point}"
        return ""

    def is_valid(self) -> bool:
        return not self.problem()

    # --- JSON board (INTERFACES.md §1) -----------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "mover": list(self.mover), "opponent": list(self.opponent)}

    @classmethod
    def from_json(cls, data: Any) -> Position:
        if not isinstance(data, dict):
            raise InvalidNotation("a JSON board must be an object")
        try:
            variant = _family_name(str(data.get("variant", "backgammon")))
            mover = tuple(data["mover"])
            opponent = tuple(data["opponent"])
        except (KeyError, TypeError):
            raise InvalidNotation("a JSON board needs 'mover' and 'opponent' lists") from None
        position = cls(mover, opponent, variant)
        problem = position.problem()
        if problem:
            raise InvalidPosition(problem)
        return position

    @classmethod
    def parse(cls, text: str, variant: str | None = None, *, strict: bool = True) -> Position:
        """An ID or a JSON board, whichever ``text`` is."""
        stripped = text.strip() if isinstance(text, str) else text
        if isinstance(stripped, str) and stripped.startswith("{"):
            import json

            try:
                data = json.loads(stripped)
            except json.JSONDecodeError:
                raise InvalidNotation("the JSON board is not valid JSON") from None
            except RecursionError:
                raise InvalidNotation("the JSON board is nested too deeply") from None
            if variant and "variant" not in data:
                data["variant"] = variant
            return cls.from_json(data)
        return cls.from_id(text, variant, strict=strict)


_ALIASES = {
    "backgammon": "backgammon",
    "bg": "backgammon",
    "short table": "backgammon",
    "table": "backgammon",
    "nardy": "nardy",
    "gulbara": "gulbara",
    "sixone": "sixone",
}


def _family_name(variant: str) -> str:
    """Canonical variant name for geometry purposes; the registry knows the full alias list."""
    name = variant.strip().lower()
    if name in KNOWN_GEOMETRY:
        return name
    if name in _ALIASES:
        return _ALIASES[name]
    # Avoid importing the registry at module import time (it imports us).
    from rules.variants import find_variant

    return find_variant(name).name


def starting_position(variant: str = "backgammon") -> Position:
    """The variant's starting position, first mover on roll."""
    side = [0] * 25
    if variant == "backgammon":
        side[23], side[12], side[7], side[5] = 2, 5, 3, 5
    else:
        side[23] = CHECKERS
    return Position(tuple(side), tuple(side), variant)
