"""Gul bara (crazy narde, table nebun), RULES.md §4.

Long-nardy movement (no hitting: any opponent checker holds a point) without the head rule or
the prime rule; bearing off only with the exact number; and the **doubles cascade**:

* during the game's first three rolls (both players together) a double is four steps, as in nardy;
* afterwards d-d is four steps of d, then four of d+1, ..., up to four sixes, taken in that order;
  the roller plays the longest beginning of it that can be played (RULES.md §1.3);
* the steps the roller could not play go to the opponent, who plays them from where the roller
  stopped, with their own checkers, as far as they can (``cascade_unplayed = opponent``, the
  default), or are lost (``lost``); what the opponent cannot play either is lost; then the opponent
  rolls as usual.

A cascading turn is therefore judged in two parts: the roller's part (:func:`legal_results`,
:func:`judge`, with ``roll_number``), then, when :func:`handed_on` is not empty, the opponent's
part (:func:`remainder_results`, :func:`judge_remainder`) from the position seen from the opponent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.errors import IllegalPlay, InvalidDice, InvalidPosition
from rules.position import Position
from rules.steps import Dice, Play
from rules.variants import COMMON_OPTIONS, Option, Variant, register
from rules.variants.nardy import NARDY_DICE_HALF, NARDY_SCORING

#: The game's first rolls (of both players together) in which a double does not cascade.
PLAIN_ROLLS = 3


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


def cascades(dice: Dice | Sequence[int] | str, roll_number: int | None) -> bool:
    """Whether this roll is played as a cascade: a double after the game's first three rolls.

    ``roll_number`` counts the game's rolls from 1 (both players together; the opening roll that
    only decides who starts is not counted).  None means "later in the game".
    """
    roll = Dice.parse(dice)
    return roll.is_double and (roll_number is None or roll_number > PLAIN_ROLLS)


def roll_steps(dice: Dice | Sequence[int] | str, roll_number: int | None) -> tuple[int, ...]:
    """The steps a roll gives, in order: two dice, four for a plain double, or the cascade."""
    roll = Dice.parse(dice)
    if not roll.is_double:
        return (roll.first, roll.second)
    if not cascades(roll, roll_number):
        return (roll.first,) * 4
    return tuple(value for value in range(roll.first, 7) for _ in range(4))


def legal_results(
    position: Position,
    dice: Dice | Sequence[int] | str,
    *,
    roll_number: int | None = None,
    options: Mapping[str, object] | None = None,
) -> dict[Position, Play]:
    """The roller's legal results (seen from the roller, not swapped), each with its play.

    A cascade is played as far as it can go; every result uses the same number of steps, so
    :func:`handed_on` tells what is left for the opponent.  An unplayable roll gives the unchanged
    position with an empty play.
    """
    from rules.plays import generate
    from rules.plays import legal_results as plain_results

    _check_variant(position)
    if not cascades(dice, roll_number):
        return plain_results(position, dice, options=options)
    return generate(position, roll_steps(dice, roll_number), ordered=True, options=options)


def handed_on(
    dice: Dice | Sequence[int] | str,
    play: Play,
    *,
    roll_number: int | None = None,
    options: Mapping[str, object] | None = None,
) -> tuple[int, ...]:
    """The cascade steps the opponent must play after the roller's ``play`` (empty: none)."""
    if not cascades(dice, roll_number):
        return ()
    values = GulBara().validate_options(options)
    if values["cascade_unplayed"] == "lost":
        return ()
    return roll_steps(dice, roll_number)[play.dice_used :]


def remainder_results(
    position: Position,
    steps: Sequence[int],
    *,
    options: Mapping[str, object] | None = None,
) -> dict[Position, Play]:
    """The opponent's legal results for the handed-on ``steps`` (``position`` seen from them).

    The steps are played in order, as far as they can go; the rest is lost.  When none can be
    played the only result is the unchanged position with an empty play.
    """
    from rules.plays import generate

    _check_variant(position)
    _check_steps(steps)
    return generate(position, tuple(steps), ordered=True, options=options)


def judge(
    before: Position,
    after: Position,
    dice: Dice | Sequence[int] | str,
    *,
    roll_number: int | None = None,
    options: Mapping[str, object] | None = None,
) -> Play:
    """The roller's play from ``before`` to ``after``; IllegalPlay (why, where) when there is none."""
    from rules.plays import explain
    from rules.plays import judge as plain_judge

    _check_variant(before)
    if not cascades(dice, roll_number):
        return plain_judge(before, after, dice, options=options)
    steps = roll_steps(dice, roll_number)
    legal = legal_results(before, dice, roll_number=roll_number, options=options)
    play = legal.get(after)
    if play is not None:
        return play
    raise explain(before, after, steps, ordered=True, options=options, legal=legal)


def judge_remainder(
    before: Position,
    after: Position,
    steps: Sequence[int],
    *,
    options: Mapping[str, object] | None = None,
) -> Play:
    """The opponent's play of the handed-on ``steps``; IllegalPlay when ``after`` is not legal."""
    from rules.plays import explain

    legal = remainder_results(before, steps, options=options)
    play = legal.get(after)
    if play is not None:
        return play
    raise explain(before, after, tuple(steps), ordered=True, options=options, legal=legal)


def _check_variant(position: Position) -> None:
    if position.variant != GulBara.name:
        raise InvalidPosition(f"the position is a {position.variant} position, not gul bara")


def _check_steps(steps: Sequence[int]) -> None:
    for value in steps:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
            raise InvalidDice(f"cascade steps must be 1..6, got {list(steps)}")
