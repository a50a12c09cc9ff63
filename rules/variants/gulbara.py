"""Gul bara (crazy narde, table nebun), RULES.md §4: nardy movement without head or prime rule,
exact-number bear-off, and the doubles cascade (being completed in issue 9)."""

from __future__ import annotations

from rules.variants import COMMON_OPTIONS, Option, Variant, register
from rules.variants.nardy import NARDY_DICE_HALF, NARDY_SCORING


@register
class GulBara(Variant):
    name = "gulbara"
    title = "Gul bara"
    aliases = ("gul bara", "gul-bara", "crazy narde", "crazy nardy", "table nebun")
    exact_bear_off = True
    options = COMMON_OPTIONS + (
        NARDY_DICE_HALF,
        Option(
            "cascade_unplayed",
            "opponent",
            "Cascade steps the roller cannot play: the opponent plays them, or they are lost.",
            ("opponent", "lost"),
        ),
    ) + NARDY_SCORING
