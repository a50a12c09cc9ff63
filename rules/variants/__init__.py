"""Variant registry: each game is a :class:`Variant` subclass with class-level switches.

``find_variant("long nardy")`` returns the variant object; options are validated against the
variant's ``options`` table (an unknown option or value is a one-line error naming the allowed
ones).  The move generator in ``rules.plays`` reads the switches; nothing else asks
``if variant == …``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rules.errors import InvalidOption, UnknownVariant

if TYPE_CHECKING:
    from rules.position import Position
    from rules.steps import Dice, Play

OptionValue = str | bool | int


@dataclass(frozen=True)
class Option:
    """One per-game setting the players choose at the board."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[str, ...] = ()  # for text options; empty for bool/int

    def parse(self, value: object) -> OptionValue:
        """Normalise ``value`` (text from the CLI or the page, or a Python value)."""
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise InvalidOption(f"option {self.name} takes true or false, not {value!r}")
        if isinstance(self.default, int):
            try:
                number = int(str(value).strip())
            except ValueError:
                raise InvalidOption(f"option {self.name} takes a whole number, not {value!r}") from None
            if number < 0:
                raise InvalidOption(f"option {self.name} takes a whole number ≥ 0, not {value!r}")
            return number
        text = str(value).strip().lower().replace("-", "_")
        if text not in self.choices:
            raise InvalidOption(
                f"option {self.name} takes {' or '.join(self.choices)}, not {value!r}"
            )
        return text


COMMON_OPTIONS: tuple[Option, ...] = (
    Option(
        "illegal_play",
        "must_correct",
        "What happens after an illegal play: the referee waits for a correction; the opponent "
        "may accept it; or the referee only alerts and records.",
        ("must_correct", "opponent_may_accept", "alert_only"),
    ),
)


class Variant:
    """Class-level switches that define a game; subclasses set them."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    #: Sides move in opposite directions (backgammon) or the same way round (nardy family).
    opposite_directions: ClassVar[bool] = False
    #: Landing on a lone opponent checker hits it (else any opponent checker blocks the point).
    hitting: ClassVar[bool] = False
    #: At most one checker leaves the head (point 24) per turn, with the first-turn exception.
    head_rule: ClassVar[bool] = False
    #: Six-point blocks with no opponent checker ahead are illegal.
    prime_rule: ClassVar[bool] = False
    #: Bearing off only with the exact number.
    exact_bear_off: ClassVar[bool] = False
    options: ClassVar[tuple[Option, ...]] = COMMON_OPTIONS

    # --- hooks for a variant whose steps rules.plays cannot express (six-one's head shortcut) ---
    def legal_results(
        self,
        position: Position,
        dice: Dice,
        *,
        first_turn: bool = False,
        options: Mapping[str, object] | None = None,
        roll_number: int | None = None,
    ) -> dict[Position, Play] | None:
        """The variant's own results, or None (the default): ``rules.plays`` generates them.

        ``roll_number`` counts the game's rolls from 1, both players together (gul bara's
        cascade begins with the fourth); None when the caller does not say.
        """
        return None

    def judge(
        self,
        before: Position,
        after: Position,
        dice: Dice,
        *,
        first_turn: bool = False,
        options: Mapping[str, object] | None = None,
        roll_number: int | None = None,
    ) -> Play | None:
        """The variant's own judgement (a Play or IllegalPlay), or None: ``rules.plays`` judges."""
        return None

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise InvalidOption(
            f"{self.name} has no option {name!r}; options: {', '.join(o.name for o in self.options)}"
        )

    def validate_options(self, given: Mapping[str, object] | None = None) -> dict[str, OptionValue]:
        """Every option with its default, overridden by ``given`` (validated)."""
        values: dict[str, OptionValue] = {o.name: o.default for o in self.options}
        for name, value in (given or {}).items():
            key = str(name).strip().lower().replace("-", "_")
            values[key] = self.option(key).parse(value)
        return values

    def __repr__(self) -> str:
        return f"<variant {self.name}>"


_REGISTRY: dict[str, Variant] = {}


def register(variant_class: type[Variant]) -> type[Variant]:
    """Class decorator adding a variant (and its aliases) to the registry."""
    instance = variant_class()
    for alias in (variant_class.name, *variant_class.aliases):
        _REGISTRY[_key(alias)] = instance
    return variant_class


def _key(name: str) -> str:
    return " ".join(name.strip().lower().replace("-", " ").replace("_", " ").split())


def find_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (any alias, any case); UnknownVariant names the known ones."""
    if isinstance(name, Variant):
        return name
    found = _REGISTRY.get(_key(str(name)))
    if found is None:
        known = sorted({v.name for v in _REGISTRY.values()})
        raise UnknownVariant(f"unknown variant {name!r}; known: {', '.join(known)}")
    return found


def all_variants() -> list[Variant]:
    seen: dict[str, Variant] = {}
    for variant in _REGISTRY.values():
        seen.setdefault(variant.name, variant)
    return list(seen.values())


# Import the variant modules so they register themselves.
from rules.variants import backgammon, gulbara, nardy, sixone  # noqa: E402, F401
