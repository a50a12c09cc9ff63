"""Step and Play value types and their notation (``24/21 6/5``, ``13/7(2)``, ``6/off``, ``bar/22*``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules.errors import InvalidDice, InvalidNotation
from rules.position import BAR, OFF


class Step(NamedTuple):
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    start: int
    end: int
    die: int
    hit: bool = False

    def __repr__(self) -> str:
        return f"Step({self.start}, {self.end}, {self.die}{', hit=True' if self.hit else ''})"


def _name(point: int, bar_name: str = "bar") -> str:
    if point == BAR:
        return bar_name
    if point == OFF:
        return "off"
    return str(point)


@dataclass(frozen=True, slots=True)
class Play:
    """Everything one player does with one roll: the steps in the order taken."""

    steps: tuple[Step, ...] = ()

    @property
    def dice_used(self) -> int:
        return len(self.steps)

    def notation(self, bar_name: str = "bar") -> str:
        """Notation as players write it: checkers moved on together are joined (``24/13``)."""
        if not self.steps:
            return "no play"
        # Chain steps of one checker: a step starting where an earlier one ended continues it.
        chains: list[list[Step]] = []
        for step in self.steps:
            for chain in chains:
                last = chain[-1]
                if last.end == step.start and last.end not in (OFF,):
                    chain.append(step)
                    break
            else:
                chains.append([step])
        parts: list[str] = []
        for chain in chains:
            text = _name(chain[0].start, bar_name)
            for index, step in enumerate(chain):
                is_last = index == len(chain) - 1
                if step.hit or is_last:
                    text += "/" + _name(step.end, bar_name) + ("*" if step.hit else "")
            parts.append(text)
        parts.sort(key=_sort_key)
        merged: list[str] = []
        for part in parts:
            if merged and merged[-1].split("(")[0] == part:
                head, _, count = merged[-1].partition("(")
                merged[-1] = f"{head}({int(count.rstrip(')') or 1) + 1})"
            else:
                merged.append(part)
        return " ".join(merged)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Play({self.notation()!r})"


def _sort_key(part: str) -> tuple[int, int]:
    first, _, rest = part.partition("/")
    start = BAR if first == "bar" else int(first)
    end_text = rest.split("/")[0].rstrip("*")
    end = OFF if end_text == "off" else (BAR if end_text == "bar" else int(end_text))
    return (-start, -end)


@dataclass(frozen=True, slots=True)
class Dice:
    """A roll of two dice (order irrelevant for play, kept for the record)."""

    first: int
    second: int

    def __post_init__(self) -> None:
        for value in (self.first, self.second):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise InvalidDice(f"dice must be 1..6, got {self.first} and {self.second}")

    @property
    def is_double(self) -> bool:
        return self.first == self.second

    @property
    def high(self) -> int:
        return max(self.first, self.second)

    @property
    def low(self) -> int:
        return min(self.first, self.second)

    def __str__(self) -> str:
        return f"{self.first}{self.second}"

    def __repr__(self) -> str:
        return f"Dice({self.first}, {self.second})"

    @classmethod
    def parse(cls, text: object) -> Dice:
        """``"31"``, ``"3-1"``, ``"3 1"``, ``[3, 1]`` or a Dice."""
        if isinstance(text, Dice):
            return text
        if isinstance(text, (list, tuple)):
            values = list(text)
        elif isinstance(text, str):
            digits = [c for c in text if not c.isspace() and c not in "-,/x"]
            values = [int(c) if c in "0123456789" else c for c in digits]  # not int("٣"): ASCII digits only
        else:
            raise InvalidDice(f"cannot read dice from {text!r}")
        if len(values) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise InvalidDice(f"dice {text!r} must be two numbers 1..6, such as 31")
        return cls(values[0], values[1])


def parse_notation(text: str) -> list[tuple[int, int]]:
    """Parse ``24/18 13/11*`` style text into (start, end) hops, expanding ``(2)`` repeats.

    Intermediate points (``24/18/13``) become separate hops.  Points: ``bar``/25, ``off``/0.
    """
    hops: list[tuple[int, int]] = []
    for part in text.replace(",", " ").split():
        repeat = 1
        if "(" in part:
            part, _, count = part.partition("(")
            try:
                repeat = int(count.rstrip(")")) if count.isascii() else int("not ASCII")
            except ValueError:
                raise InvalidNotation(f"bad repeat count in {text!r}") from None
        names = [name.rstrip("*").lower() for name in part.split("/")]
        if len(names) < 2:
            raise InvalidNotation(f"{part!r} in {text!r} is not start/end")
        points: list[int] = []
        for name in names:
            if name in ("bar", "b"):
                points.append(BAR)
            elif name in ("off", "o"):
                points.append(OFF)
            elif name.isascii() and name.isdigit() and 0 <= int(name) <= 25:
                points.append(int(name))
            else:
                raise InvalidNotation(f"{name!r} in {text!r} is not a point")
        for _ in range(repeat):
            hops.extend(zip(points, points[1:], strict=False))
    return hops
