"""The per-game options of RULES.md, as the new-game form shows them.

The variant registry of ``rules.variants`` is the source when it offers one (names, defaults,
choices, English explanations); the table below is the same list, used when it does not.
Translations of labels and explanations live in the page's translation files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from web_ui.view import OptionValue

VARIANTS = ("backgammon", "nardy", "gulbara", "sixone")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    default: OptionValue
    help: str
    choices: tuple[str, ...] = ()

    def parse(self, value: object) -> OptionValue:
        """Normalise form text; ``ValueError`` with a sentence when it does not fit."""
        if isinstance(self.default, bool):
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(f"option {self.name} takes on or off, not {str(value)[:20]!r}")
        if isinstance(self.default, int):
            try:
                number = int(str(value).strip())
            except ValueError:
                raise ValueError(f"option {self.name} takes a whole number, not {str(value)[:20]!r}") from None
            if not 0 <= number <= 99:
                raise ValueError(f"option {self.name} takes a whole number from 0 to 99")
            return number
        text = str(value).strip().lower().replace("-", "_")
        if text not in self.choices:
            raise ValueError(f"option {self.name} takes {' or '.join(self.choices)}, not {str(value)[:20]!r}")
        return text


_ILLEGAL = OptionSpec(
    "illegal_play",
    "must_correct",
    "What happens after an illegal play: the referee waits for a correction; the opponent may accept "
    "it; or the referee only alerts and records.",
    ("must_correct", "opponent_may_accept", "alert_only"),
)
_HALF_BG = OptionSpec("dice_half", "right", "Where the dice must come to rest.", ("right", "either"))
_HALF_N = OptionSpec("dice_half", "either", "Where the dice must come to rest.", ("right", "either"))
_WHITE = OptionSpec("white_always_starts", False, "Federation rule: white begins every game (no opening roll).")

FALLBACK: dict[str, tuple[OptionSpec, ...]] = {
    "backgammon": (
        _ILLEGAL,
        _HALF_BG,
        OptionSpec("crawford", True, "No doubling in the one game after a player first reaches N-1."),
        OptionSpec("jacoby", False, "Money play: gammons and backgammons count single while the cube is centred."),
        OptionSpec("beavers", False, "Money play: a player who is doubled may redouble at once, keeping the cube."),
    ),
    "nardy": (
        _ILLEGAL,
        _HALF_N,
        OptionSpec("prime_check", "end_of_turn", "When a six-point block is judged.", ("end_of_turn", "every_step")),
        OptionSpec("prime_condition", "opponent_ahead", "When a six-point block is legal.",
                   ("opponent_ahead", "opponent_home")),
        OptionSpec("first_turn_exception", "general", "When two checkers may leave the head on the first turn.",
                   ("general", "strict")),
        OptionSpec("koks", False, "Koks: 3 points when the loser has not brought a single checker home."),
        OptionSpec("home_mars", False, "Home mars: 4 points when the loser has all 15 home but none off."),
        OptionSpec("last_roll_draw", False, "The second player gets one more turn; all off with it is a draw."),
        OptionSpec("draw_points", "half", "Points each player gets for a draw.", ("half", "one")),
        _WHITE,
    ),
    "gulbara": (
        _ILLEGAL,
        _HALF_N,
        OptionSpec("cascade_unplayed", "opponent", "Cascade steps the roller cannot play.", ("opponent", "lost")),
        OptionSpec("home_moves", "forbidden", "Moves inside the home (forbidden: a checker there only bears off).",
                   ("forbidden", "allowed")),
        _WHITE,
    ),
    "sixone": (_ILLEGAL, _HALF_N),
}

#: Options the form shows elsewhere (match length has its own field).
_SEPARATE = {"match_length"}


def options_for(variant: str) -> tuple[OptionSpec, ...]:
    """The options of ``variant``: from the rules registry when it has them, else :data:`FALLBACK`."""
    try:
        from rules.variants import find_variant

        found = find_variant(variant)
        specs = tuple(
            OptionSpec(o.name, o.default, o.help, tuple(o.choices))
            for o in found.options
            if o.name not in _SEPARATE
        )
        if specs:
            return specs
    except (ImportError, AttributeError, ValueError):
        pass
    return FALLBACK.get(variant, (_ILLEGAL,))


def parse_options(variant: str, form: Mapping[str, object]) -> dict[str, OptionValue]:
    """Every option of ``variant`` from fields named ``<variant>.<name>``; a missing one keeps its default.

    Fields of other variants are ignored (the form holds every variant's options).
    """
    specs = {spec.name: spec for spec in options_for(variant)}
    values: dict[str, OptionValue] = {name: spec.default for name, spec in specs.items()}
    prefix = f"{variant}."
    for key, value in form.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if name not in specs:
            raise ValueError(f"{variant} has no option {name[:30]!r}")
        values[name] = specs[name].parse(value)
    return values
