"""Long nardy (long table, long tavla, table lung), RULES.md §3.

No hitting; the head rule (one checker off the head per turn, with the first-turn exception,
``first_turn_exception = general`` or ``strict``);
the prime rule (no six-point block with no opponent checker ahead of it); oin/mars scoring.
"""

from __future__ import annotations

from rules.variants import COMMON_OPTIONS, Option, Variant, register

NARDY_DICE_HALF = Option(
    "dice_half",
    "either",
    "Where the dice must come to rest: both in the roller's right-hand half, or both in either half.",
    ("right", "either"),
)

NARDY_SCORING: tuple[Option, ...] = (
    Option("koks", False, "Koks: 3 points when the loser has borne off none and has not brought a "
           "single checker into their own home."),
    Option("home_mars", False, "Home mars: 4 points when the loser has all 15 checkers home but has "
           "borne off none."),
    Option("last_roll_draw", False, "Federation rule: when the first mover bears off the last checker, "
           "the second player gets one more turn; bearing everything off with it is a draw "
           "(implies white_always_starts)."),
    Option("draw_points", "half", "Points each player gets for a draw: a half or one.", ("half", "one")),
    Option("white_always_starts", False, "Federation rule: white begins every game (no opening roll)."),
    Option("match_length", 0, "Points needed to win the match (0 = single games)."),
)


@register
class LongNardy(Variant):
    name = "nardy"
    title = "Long nardy"
    aliases = (
        "long nardy",
        "long-nardy",
        "nardi",
        "long nardi",
        "narde",
        "tavla",
        "long tavla",
        "table lung",
        "tabla lunga",
        "uzun tavla",
        "длинные нарды",
    )
    head_rule = True
    prime_rule = True
    options = COMMON_OPTIONS + (
        NARDY_DICE_HALF,
        Option(
            "prime_check",
            "end_of_turn",
            "When a six-point block is judged: at the end of the turn (a block closed and opened "
            "again within the turn is allowed) or after every single step.",
            ("end_of_turn", "every_step"),
        ),
        Option(
            "prime_condition",
            "opponent_ahead",
            "A six-point block is legal when at least one opponent checker is ahead of it, or "
            "only once an opponent checker has reached the opponent's home.",
            ("opponent_ahead", "opponent_home"),
        ),
        Option(
            "first_turn_exception",
            "general",
            "When two checkers may leave the head on the first turn: whenever one alone cannot use "
            "as many dice (general), or strictly as the rule page says: the first checker goes as "
            "far as the roll allows and the second takes only the rest (3-3: 24/21 24/15).",
            ("general", "strict"),
        ),
    ) + NARDY_SCORING
