"""What the camera saw in one settled frame, and its conversion into a ``rules`` position.

Counts are physical: ``points[i]`` is (light, dark) on physical point P(i+1) (INTERFACES.md §3:
P1 bottom-right, P12 bottom-left, P13 top-left, P24 top-right).  Which side is which player and
how the players' own numbering lies on the board is an orientation chosen by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rules.position import CHECKERS, Position, opponent_point

__all__ = ["DICE_QUESTION_CONFIDENCE", "MOVED_AT_MOST", "may_bear_off", "QUESTION_CONFIDENCE", "CheckerTotals", "Observation", "ORIENTATIONS", "physical_point", "position_to_physical", "side_totals",
           "start_layouts"]

#: Where the light side's home board (its points 1..6) lies in the board frame.
ORIENTATIONS = ("bottom-right", "bottom-left", "top-left", "top-right")


def physical_point(own: int, orientation: str = "bottom-right") -> int:
    """The physical point P1..P24 holding the light side's own point ``own`` (1..24)."""
    if not 1 <= own <= 24:
        raise ValueError(f"point must be 1..24, not {own}")
    if orientation == "bottom-right":
        return own
    if orientation == "top-left":
        return (own + 11) % 24 + 1
    mirrored = 13 - own if own <= 12 else 37 - own
    if orientation == "bottom-left":
        return mirrored
    if orientation == "top-right":
        return (mirrored + 11) % 24 + 1
    raise ValueError(f"unknown orientation {orientation!r} (one of {', '.join(ORIENTATIONS)})")


def _sides(variant: str, orientation: str) -> tuple[list[int], list[int]]:
    """Physical point (1-based) of each own point 1..24, for light and for dark."""
    light = [physical_point(n, orientation) for n in range(1, 25)]
    # Dark's own point m is light's point opponent_point(variant, m) (the mapping is symmetric).
    dark = [light[opponent_point(variant, m) - 1] for m in range(1, 25)]
    return light, dark


def position_to_physical(
    position: Position, light_on_roll: bool = True, orientation: str = "bottom-right"
) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Physical (light, dark) counts per point and on the bar for ``position``."""
    light_side = position.mover if light_on_roll else position.opponent
    dark_side = position.opponent if light_on_roll else position.mover
    light_map, dark_map = _sides(position.variant, orientation)
    counts = [[0, 0] for _ in range(24)]
    for n in range(24):
        counts[light_map[n] - 1][0] += light_side[n]
        counts[dark_map[n] - 1][1] += dark_side[n]
    return [(a, b) for a, b in counts], (light_side[24], dark_side[24])


def start_layouts(variant: str) -> dict[str, list[tuple[int, int]]]:
    """``variant``'s starting position as it stands on the board in each orientation: physical
    (light, dark) counts per point (none on the bar), light on roll."""
    from rules.position import starting_position

    start = starting_position(variant)
    return {orientation: position_to_physical(start, True, orientation)[0] for orientation in ORIENTATIONS}


#: A turn moves at most this many checkers (a double's four), so it bears off at most as many.
MOVED_AT_MOST = 4


def may_bear_off(outside: int) -> int:
    """How many checkers a side with ``outside`` of them outside its home board (or on the bar)
    may bear off in its turn, as far as the game's totals go: `MOVED_AT_MOST` when it could bring
    them in and still bear one off, else none (it bears off only with all its checkers home, and
    a turn moves at most `MOVED_AT_MOST`)."""
    return MOVED_AT_MOST if outside < MOVED_AT_MOST else 0


class CheckerTotals(NamedTuple):
    """How many checkers each side has on the board and bar, as the game stands: ``light`` and
    ``dark`` are each (fewest, most).  The referee knows them: 15 less those borne off, the side
    whose turn it is perhaps up to `MOVED_AT_MOST` fewer by now (it may be bearing off), the other
    exactly.  The learned counter reads the board so that the totals fall within them
    (`vision.learned.within_checkers`)."""

    light: tuple[int, int]
    dark: tuple[int, int]

    @classmethod
    def in_turn(cls, light: int, dark: int, light_moves: bool, bears_off: int = MOVED_AT_MOST) -> CheckerTotals:
        """The totals while one side moves: the game's ``light`` and ``dark`` before the turn,
        the moving side's down to ``bears_off`` fewer, the other's as they are."""
        if not (0 <= light <= CHECKERS and 0 <= dark <= CHECKERS):
            raise ValueError(f"a side has 0 to {CHECKERS} checkers, not {light} and {dark}")
        if light_moves:
            return cls((max(0, light - bears_off), light), (dark, dark))
        return cls((light, light), (max(0, dark - bears_off), dark))

    def allows(self, light: int, dark: int) -> bool:
        """Whether a reading with these totals falls within them."""
        return self.light[0] <= light <= self.light[1] and self.dark[0] <= dark <= self.dark[1]


def side_totals(points: Sequence[tuple[int, int]], bar: tuple[int, int]) -> tuple[int, int]:
    """Each side's checkers on the points (light, dark per point) and the bar: (light, dark)."""
    return sum(p[0] for p in points) + bar[0], sum(p[1] for p in points) + bar[1]


#: Below this overall confidence the referee does not judge a reading; it waits, then asks (the
#: referee's default ``min_confidence``; `referee vision eval` reports how well it separates
#: wrong readings from right ones).
QUESTION_CONFIDENCE = 0.3
#: Below this, a die's value is not sure: when the play then looks illegal for the roll as read,
#: the referee asks about the dice rather than crying foul (the referee's default
#: ``min_dice_confidence``).  Chosen on tuning sets (3-D held-out designs at seeds 31007 and
#: 31009, learned dice reader, 98 valid rolls read valid): 13 of the 18 misread rolls fall below
#: it and 9 of the 80 read right; on the 2-D renderer (seed 22999) no roll read right by either
#: dice reader does.  The classical reader's confidences never fall below it (a one is exactly
#: 0.6), so only the learned reader's dice are ever doubted.  `referee vision eval` reports it as ``dice_wrong_doubted`` /
#: ``dice_right_doubted``.
DICE_QUESTION_CONFIDENCE = 0.6


@dataclass
class Observation:
    """One frame read: physical counts, dice, roll validity, occlusion, confidence, timings.

    ``refused`` is True when the frame must not be read as a position (a hand over the board, no
    calibration); then ``points`` is None.
    """

    points: list[tuple[int, int]] | None
    bar: tuple[int, int] = (0, 0)
    dice: list[dict[str, Any]] = field(default_factory=list)
    roll: str = "none"
    void_reason: str | None = None
    dice_half: str | None = None
    occluded: bool = False
    refused: bool = False
    reason: str | None = None
    confidence: float = 0.0
    point_confidence: list[float] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    #: doubts the reader has about the whole reading (e.g. no photo of the empty board to compare
    #: with): each is a problem, so the referee asks rather than judges
    doubts: list[str] = field(default_factory=list)

    @property
    def totals(self) -> tuple[int, int]:
        """Checkers seen on the surface per colour (not forced to 15: borne off or in a hand)."""
        if self.points is None:
            return (0, 0)
        return side_totals(self.points, self.bar)

    @property
    def dice_confidence(self) -> float:
        """The confidence of the least sure die read (1.0 with no die, or dice that carry none)."""
        return min((float(d.get("confidence", 1.0)) for d in self.dice if isinstance(d, dict) and "value" in d),
                   default=1.0)

    def problems(self) -> list[str]:
        """Human-readable doubts: the reader's own, more than 15 of a colour, mixed points."""
        if self.points is None:
            return [self.reason or "frame not read"]
        out: list[str] = list(self.doubts)
        for name, total in zip(("light", "dark"), self.totals, strict=True):
            if total > CHECKERS:
                out.append(f"{total} {name} checkers seen (at most {CHECKERS})")
        for i, (a, b) in enumerate(self.points):
            if a and b:
                out.append(f"both colours seen on P{i + 1}")
        return out

    def is_sure(self, min_confidence: float = QUESTION_CONFIDENCE) -> bool:
        """Whether the referee may judge this reading without asking: read, confident enough and
        with no problem."""
        return self.points is not None and self.confidence >= min_confidence and not self.problems()

    def to_position(
        self, variant: str = "backgammon", light_on_roll: bool = True, orientation: str = "bottom-right"
    ) -> Position:
        """The position in ``rules`` terms, seen from the side on roll.

        Raises ValueError when the frame was refused or the counts cannot be a position.
        """
        if self.points is None:
            raise ValueError(f"frame was not read: {self.reason or 'refused'}")
        light_map, dark_map = _sides(variant, orientation)
        light = [self.points[light_map[n] - 1][0] for n in range(24)] + [self.bar[0]]
        dark = [self.points[dark_map[n] - 1][1] for n in range(24)] + [self.bar[1]]
        mover, opponent = (light, dark) if light_on_roll else (dark, light)
        return Position(tuple(mover), tuple(opponent), variant)

    def to_json(self) -> dict[str, Any]:
        return {
            "points": None if self.points is None else [list(p) for p in self.points],
            "bar": {"light": self.bar[0], "dark": self.bar[1]},
            "dice": self.dice,
            "roll": self.roll,
            "void_reason": self.void_reason,
            "dice_half": self.dice_half,
            "occluded": self.occluded,
            "refused": self.refused,
            "reason": self.reason,
            "totals": {"light": self.totals[0], "dark": self.totals[1]},
            "problems": self.problems(),
            "sure": self.is_sure(),
            "confidence": round(self.confidence, 3),
            "point_confidence": [round(c, 3) for c in self.point_confidence],
            "timings_ms": {k: round(v, 2) for k, v in self.timings.items()},
        }
