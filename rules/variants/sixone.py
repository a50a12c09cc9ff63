"""Six-one (șase-unu), the children's race, RULES.md §5 — every rule of it is in this module.

The source text is short, so this is our reading of it; a club that plays it differently changes
the options below (or this module):

* 15 checkers each start on their own head (point 24); both sides move the same way round the
  board (the nardy geometry); the first mover is decided by the opening roll.
* No hitting: a point holding any opponent checker is closed.  No head rule, no prime rule.
* Each die is one step (a double gives four) and the maximum-use rule of RULES.md §1.3 applies.
* **The head shortcut**: a 6 or a 1 may take one checker straight from the head into home instead
  of moving a checker that many points.  Option ``shortcut_home``: ``any`` (default) — onto any open
  home point; ``die`` — onto the point numbered by the die (the 6-point or the 1-point).  Option
  ``shortcuts``: ``each_die`` (default) — every 6 and every 1 of a roll may be used so;
  ``one_per_roll`` — at most one checker per roll.
* Any other use of a die moves a checker exactly that many points (a 6 or a 1 too, for a checker
  that is not on the head, or when the player prefers); no checker moves past point 1 — there is no
  bearing off.
* The first player with all 15 checkers in home (points 1-6) wins, 1 point (``rules.match``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.errors import IllegalPlay
from rules.position import Position, opponent_point
from rules.steps import Dice, Play, Step
from rules.variants import COMMON_OPTIONS, Option, OptionValue, Variant, register
from rules.variants.nardy import NARDY_DICE_HALF

HEAD = 24
HOME = (1, 2, 3, 4, 5, 6)
#: The numbers that may take a checker from the head straight into home.
SHORTCUT_NUMBERS = (6, 1)

SHORTCUT_HOME = Option(
    "shortcut_home",
    "any",
    "Where a 6 or a 1 puts a checker taken from the head: any open home point, or the point "
    "with the die's number.",
    ("any", "die"),
)
SHORTCUTS = Option(
    "shortcuts",
    "each_die",
    "How many checkers a roll may take from the head into home: one for every 6 and 1 rolled, or "
    "one per roll.",
    ("each_die", "one_per_roll"),
)


@register
class SixOne(Variant):
    name = "sixone"
    title = "Six-one"
    aliases = ("six-one", "six one", "sase-unu", "șase-unu", "sase unu")
    options = COMMON_OPTIONS + (NARDY_DICE_HALF, SHORTCUT_HOME, SHORTCUTS)

    def legal_results(
        self,
        position: Position,
        dice: Dice,
        *,
        first_turn: bool = False,
        options: Mapping[str, object] | None = None,
        roll_number: int | None = None,
    ) -> dict[Position, Play] | None:
        return legal_results(position, dice, options=options)

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
        return judge(before, after, dice, options=options)


def legal_results(
    position: Position,
    dice: Dice | Sequence[int] | str,
    *,
    options: Mapping[str, object] | None = None,
) -> dict[Position, Play]:
    """Every legal result (seen from the mover, not swapped), each with a play.

    An unplayable roll gives one result, the unchanged position, with an empty play.
    """
    roll = Dice.parse(dice)
    settings = SixOne().validate_options(options)
    values = (roll.first,) * 4 if roll.is_double else (roll.first, roll.second)
    found = _Search(position, settings).run(values)
    most = max(len(trail) for trail, _ in found.values())
    if most == 0:
        return {position: Play(())}
    chosen = {board: trail for board, (trail, _) in found.items() if len(trail) == most}
    if not roll.is_double and most == 1:
        larger = {board: found[board][0] for board in chosen if found[board][1]}
        chosen = larger or chosen
    return {Position(board + (0,), position.opponent, position.variant): Play(trail)
            for board, trail in chosen.items()}


def judge(
    before: Position,
    after: Position,
    dice: Dice | Sequence[int] | str,
    *,
    options: Mapping[str, object] | None = None,
) -> Play:
    """The play turning ``before`` into ``after``; IllegalPlay (why, where) when there is none."""
    from rules.plays import difference, nearest

    legal = legal_results(before, dice, options=options)
    play = legal.get(after)
    if play is not None:
        return play
    close = nearest(after, legal)
    points = difference(after, close) if close is not None else ()
    raise IllegalPlay(_reason(before, after, Dice.parse(dice), legal), points, close)


def _reason(before: Position, after: Position, roll: Dice, legal: Mapping[Position, Play]) -> str:
    """Why ``after`` is not legal, in the players' words (the first reason that applies)."""
    if after.opponent != before.opponent:
        return "checkers changed that this roll cannot move"
    if sum(after.mover) < sum(before.mover):
        return "there is no bearing off in six-one"
    for point in range(1, 25):
        if after.mover[point - 1] and before.opponent[opponent_point(before.variant, point) - 1]:
            return f"point {point} is held by the opponent"
    left_head = before.mover[HEAD - 1] - after.mover[HEAD - 1]
    shortcuts = sum(1 for die in (roll.first, roll.second) if die in SHORTCUT_NUMBERS)
    if left_head and not shortcuts and any(after.mover[p - 1] > before.mover[p - 1] for p in HOME):
        return "only a 6 or a 1 takes a checker from the head into home"
    if after == before:
        return "the roll can be played: no checker has moved"
    most = max((play.dice_used for play in legal.values()), default=0)
    if most > 1:
        return "more of the roll could be played"
    return "this is not a legal six-one play for these dice"


class _Search:
    """Every (board, steps) reachable with some of the dice; boards are the mover's 24 counts."""

    def __init__(self, position: Position, settings: Mapping[str, OptionValue]) -> None:
        variant = position.variant
        self.closed = [False] + [
            position.opponent[opponent_point(variant, point) - 1] > 0 for point in range(1, 25)
        ]
        self.board = list(position.mover[:24])
        self.homes: tuple[int, ...] = HOME if settings["shortcut_home"] == "any" else ()
        self.limit = 1 if settings["shortcuts"] == "one_per_roll" else 4
        # board -> (the longest trail reaching it, whether a one-step trail used the larger die)
        self.found: dict[tuple[int, ...], tuple[tuple[Step, ...], bool]] = {}
        self.seen: set[tuple[tuple[int, ...], tuple[int, ...], int]] = set()
        self.high = 0

    def run(self, dice: tuple[int, ...]) -> dict[tuple[int, ...], tuple[tuple[Step, ...], bool]]:
        self.high = max(dice)
        self._go(tuple(sorted(dice)), [], 0)
        return self.found

    def _targets(self, start: int, die: int, shortcuts: int) -> list[tuple[int, bool]]:
        """(end, is_shortcut) for a checker on ``start`` moved with ``die``."""
        out = []
        end = start - die
        if end >= 1 and not self.closed[end]:
            out.append((end, False))
        if start == HEAD and die in SHORTCUT_NUMBERS and shortcuts < self.limit:
            for home in self.homes or (die,):
                if not self.closed[home]:
                    out.append((home, True))
        return out

    def _go(self, remaining: tuple[int, ...], trail: list[Step], shortcuts: int) -> None:
        board = self.board
        key = tuple(board)
        mark = (key, remaining, shortcuts)
        if mark in self.seen:
            return
        self.seen.add(mark)
        known = self.found.get(key)
        used_high = len(trail) == 1 and trail[0].die == self.high
        if known is None or len(trail) > len(known[0]):
            self.found[key] = (tuple(trail), used_high or (known is not None and known[1]))
        elif used_high and not known[1]:
            self.found[key] = (known[0], True)
        for die in sorted(set(remaining), reverse=True):
            rest = list(remaining)
            rest.remove(die)
            after = tuple(rest)
            for start in range(24, 0, -1):
                if not board[start - 1]:
                    continue
                for end, shortcut in self._targets(start, die, shortcuts):
                    board[start - 1] -= 1
                    board[end - 1] += 1
                    trail.append(Step(start, end, die))
                    self._go(after, trail, shortcuts + shortcut)
                    trail.pop()
                    board[start - 1] += 1
                    board[end - 1] -= 1
