"""Seeded random self-play through our own engine: positions for property tests and benches."""

from __future__ import annotations

import random
from collections.abc import Iterator

from rules.plays import legal_results
from rules.position import Position, starting_position
from rules.steps import Dice


def random_positions(seed: int, count: int, variant: str = "backgammon",
                     options: dict[str, str] | None = None) -> Iterator[tuple[Position, Dice, bool]]:
    """``count`` (position, dice, first_turn) cases met in random games, seeded."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        position = starting_position(variant)
        turns = [True, True]  # each side's first turn still to come
        side = 0
        for _ in range(400):
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            first = turns[side]
            yield position, dice, first
            made += 1
            if made >= count:
                return
            results = list(legal_results(position, dice, first_turn=first, options=options))
            turns[side] = False
            position = rng.choice(results).swapped()
            side = 1 - side
            if position.borne_off(False) == 15 or position.borne_off(True) == 15:
                break
