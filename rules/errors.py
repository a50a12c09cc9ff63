"""Every way input to the rules core can be wrong: one ValueError subclass per kind."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules core raises for bad input or an illegal action."""


class InvalidNotation(RulesError):
    """A position ID, match ID, dice string or play notation that cannot be parsed."""


class InvalidPosition(RulesError):
    """A position that breaks the physical rules (16 checkers, both sides on one point, ...)."""


class InvalidDice(RulesError):
    """Dice values outside 1..6 or the wrong number of dice."""


class UnknownVariant(RulesError):
    """A variant name the registry does not know."""


class InvalidOption(RulesError):
    """An option name or value a variant does not accept."""


class IllegalPlay(RulesError):
    """A play the rules forbid.

    ``reason`` is in the players' words; ``points`` are the mover's point numbers (1..24, 25 =
    bar, 0 = off) where the observed result differs from the nearest legal result, so LEDs can
    show them.  ``nearest`` is that nearest legal result (or None when no play exists).
    """

    def __init__(
        self,
        reason: str,
        points: tuple[int, ...] = (),
        nearest: object | None = None,
        detail: str = "",
    ) -> None:
        self.reason = reason
        self.points = points
        self.nearest = nearest
        self.detail = detail
        text = reason if not detail else f"{reason} ({detail})"
        super().__init__(text)


class IllegalEvent(RulesError):
    """A match event that is not allowed now (a double in the Crawford game, ...)."""
