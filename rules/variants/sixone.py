"""Six-one (șase-unu), the children's race, RULES.md §5 (being completed in issue 9)."""

from __future__ import annotations

from rules.variants import COMMON_OPTIONS, Variant, register
from rules.variants.nardy import NARDY_DICE_HALF


@register
class SixOne(Variant):
    name = "sixone"
    title = "Six-one"
    aliases = ("six-one", "six one", "sase-unu", "șase-unu", "sase unu")
    options = COMMON_OPTIONS + (NARDY_DICE_HALF,)
