"""Backgammon (short table), RULES.md §2: hitting, the bar, the doubling cube."""

from __future__ import annotations

from rules.variants import COMMON_OPTIONS, Option, Variant, register


@register
class Backgammon(Variant):
    name = "backgammon"
    title = "Backgammon"
    aliases = ("bg", "short table", "table", "tavla short", "tabla")
    opposite_directions = True
    hitting = True
    options = COMMON_OPTIONS + (
        Option(
            "dice_half",
            "right",
            "Where the dice must come to rest: both in the roller's right-hand half, or both in "
            "either half.",
            ("right", "either"),
        ),
        Option("crawford", True, "No doubling in the one game after a player first reaches N-1."),
        Option(
            "jacoby",
            False,
            "Money play: gammons and backgammons count single while the cube is centred.",
        ),
        Option("beavers", False, "Money play: a player who is doubled may redouble at once, keeping the cube."),
        Option("match_length", 0, "Points needed to win the match (0 = money play, single games)."),
    )
