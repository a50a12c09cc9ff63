"""A deliberately simple, slow reference for the nardy family, written from RULES.md alone.

It shares nothing with ``rules/plays.py`` or ``rules/variants`` except the :class:`Position`
container, so the differential test (``test_differential.py``) compares two independent readings
of RULES.md §1, §3, §4 and §5.  Everything is brute force: every sequence of steps is tried (states
already seen are skipped, which changes nothing but the running time), every rule is checked on
the whole board, and the maximum-use rule is applied to the finished list of candidate plays.

Conventions (INTERFACES.md §1): a side's tuple index 0..23 is its own point 1..24, index 24 the bar
(always empty here); the mover's point p is the opponent's ((p + 11) mod 24) + 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from rules.position import Position

HEAD = 24
HOME = range(1, 7)

Board = tuple[int, ...]


def their_number(point: int) -> int:
    """The opponent's number for the mover's ``point`` (and, symmetrically, the reverse)."""
    return (point + 11) % 24 + 1


@dataclass(frozen=True)
class Rules:
    """Everything about a variant the reference needs, as plain switches."""

    variant: str
    head_rule: bool = False
    prime_rule: bool = False
    prime_check: str = "end_of_turn"  # or "every_step"
    prime_condition: str = "opponent_ahead"  # or "opponent_home"
    bear_off: bool = True
    exact_bear_off_only: bool = False
    shortcut: bool = False  # six-one: a 6 or a 1 takes a head checker straight into home
    shortcut_home: str = "any"  # six-one: "any" home point, or "die" (the point numbered by the die)
    shortcut_limit: int = 99  # six-one: shortcuts per roll (each 6 or 1, or one per roll)
    home_moves: str = "allowed"  # gul bara: "forbidden" (a checker in its home only bears off)
    first_turn_exception: str = "general"  # long nardy: or "strict" (RULES.md §3.3)


def rules_for(variant: str, options: Mapping[str, str] | None = None) -> Rules:
    """The reference's reading of a variant and its options."""
    options = dict(options or {})
    if variant == "nardy":
        return Rules(
            "nardy",
            head_rule=True,
            prime_rule=True,
            prime_check=options.get("prime_check", "end_of_turn"),
            prime_condition=options.get("prime_condition", "opponent_ahead"),
            first_turn_exception=options.get("first_turn_exception", "general"),
        )
    if variant == "gulbara":
        return Rules("gulbara", exact_bear_off_only=True, home_moves=options.get("home_moves", "forbidden"))
    if variant == "sixone":
        per_roll = options.get("shortcuts", "each_die")
        return Rules(
            "sixone",
            bear_off=False,
            shortcut=True,
            shortcut_home=options.get("shortcut_home", "any"),
            shortcut_limit=1 if per_roll == "one_per_roll" else 99,
        )
    raise ValueError(f"the reference does not know {variant!r}")


# --- single steps ----------------------------------------------------------------------------


def blocked(opponent: Board, point: int) -> bool:
    """No hitting: a point holding any opponent checker is closed."""
    return opponent[their_number(point) - 1] > 0


def all_home(board: Board) -> bool:
    return all(board[index] == 0 for index in range(6, 25))


def steps_for_die(board: Board, opponent: Board, die: int, rules: Rules) -> Iterator[tuple[Board, bool]]:
    """Every board one step of ``die`` can produce, with whether it was a six-one shortcut."""
    home = all_home(board)
    for point in range(1, 25):
        if board[point - 1] == 0:
            continue
        target = point - die
        if target >= 1:
            if rules.home_moves == "forbidden" and point in HOME:
                continue  # RULES.md §4.3: no moves inside the home
            if not blocked(opponent, target):
                yield moved(board, point, target), False
        elif rules.bear_off and home:
            higher = any(board[p - 1] for p in range(point + 1, 7))
            if target == 0 or (not rules.exact_bear_off_only and not higher):
                yield moved(board, point, 0), False
        if rules.shortcut and point == HEAD and die in (1, 6):
            homes = [die] if rules.shortcut_home == "die" else list(HOME)
            for target in homes:
                if not blocked(opponent, target):
                    yield moved(board, point, target), True


def moved(board: Board, start: int, end: int) -> Board:
    cells = list(board)
    cells[start - 1] -= 1
    if end:
        cells[end - 1] += 1
    return tuple(cells)


# --- the prime rule --------------------------------------------------------------------------


def illegal_block(board: Board, opponent: Board, rules: Rules) -> bool:
    """RULES.md §3.4, checked on six-point windows of the opponent's path (their 24 → 1)."""
    if not rules.prime_rule:
        return False
    held = [False] * 25  # index = the opponent's point number
    for point in range(1, 25):
        if board[point - 1]:
            held[their_number(point)] = True
    opponent_on_board = sum(opponent[:24]) > 0
    reached_home = any(opponent[p - 1] for p in HOME) or sum(opponent) < 15
    for low in range(1, 20):
        if not all(held[low : low + 6]):
            continue
        if rules.prime_condition == "opponent_home":
            if not reached_home:
                return True
        else:
            ahead = any(opponent[p - 1] for p in range(1, low))
            if opponent_on_board and not ahead:
                return True
    return False


# --- whole rolls -----------------------------------------------------------------------------


class TooLarge(Exception):
    """The search met more states than the caller's budget allows (a long gul bara cascade)."""


@dataclass(frozen=True)
class Candidate:
    """A way to stop: the board reached and the dice used, in the order used."""

    board: Board
    used: tuple[int, ...]


def _explore(
    start: Board,
    opponent: Board,
    rules: Rules,
    dice: Sequence[int],
    ordered: bool,
    budget: int | None = None,
) -> set[Candidate]:
    """Every (board, dice used) reachable by playing some of ``dice`` one step at a time.

    ``ordered``: the dice must be used in the given order (the gul bara cascade); otherwise in any
    order.  Under ``every_step`` a step that leaves an illegal block is not a step at all.
    More than ``budget`` states raises TooLarge.
    """
    seen: set[tuple[Board, tuple[int, ...], int]] = set()
    found: set[Candidate] = set()
    stack: list[tuple[Board, tuple[int, ...], tuple[int, ...], int]] = [(start, tuple(dice), (), 0)]
    while stack:
        board, remaining, used, shortcuts = stack.pop()
        key = (board, remaining if ordered else tuple(sorted(remaining)), shortcuts)
        if key in seen:
            continue
        seen.add(key)
        if budget is not None and len(seen) > budget:
            raise TooLarge(f"more than {budget} states")
        found.add(Candidate(board, used if ordered else tuple(sorted(used))))
        dice_now = remaining[:1] if ordered else tuple(sorted(set(remaining)))
        for die in dice_now:
            rest = list(remaining)
            rest.remove(die)
            for after, was_shortcut in steps_for_die(board, opponent, die, rules):
                count = shortcuts + was_shortcut
                if count > rules.shortcut_limit:
                    continue
                if rules.prime_check == "every_step" and illegal_block(after, opponent, rules):
                    continue
                if rules.head_rule and start[HEAD - 1] - after[HEAD - 1] > 2:
                    continue  # never more than two, even on a first turn
                stack.append((after, tuple(rest), used + (die,), count))
    return found


def _best(candidates: Iterable[Candidate], dice: Sequence[int], larger_die_rule: bool) -> dict[Board, int]:
    """RULES.md §1.3 on candidates that already satisfy every other rule."""
    pool = list(candidates)
    most = max((len(c.used) for c in pool), default=0)
    if most == 0:
        return {}
    pool = [c for c in pool if len(c.used) == most]
    if larger_die_rule and most == 1 and len(set(dice)) == 2:
        larger = [c for c in pool if c.used[0] == max(dice)]
        if larger:
            pool = larger
    return {c.board: most for c in pool}


def cascade(dice: tuple[int, int]) -> tuple[int, ...]:
    """Gul bara: d-d becomes four d, four d+1, ..., four 6."""
    low = dice[0]
    return tuple(value for value in range(low, 7) for _ in range(4))


def reference_plays(
    position: Position,
    dice: tuple[int, int],
    *,
    first_turn: bool = False,
    options: Mapping[str, str] | None = None,
    cascades: bool = False,
    budget: int | None = None,
) -> dict[Position, int]:
    """Every legal result of ``dice`` (seen from the mover, not swapped) -> dice/steps it uses.

    ``cascades``: gul bara after the game's first three rolls (a double plays the cascade; the
    roller plays the longest possible beginning of it).  An empty dict: the dice cannot be played.
    """
    rules = rules_for(position.variant, options)
    board, opponent = position.mover, position.opponent
    double = dice[0] == dice[1]
    if cascades and double:
        sequence: tuple[int, ...] = cascade(dice)
        candidates = _explore(board, opponent, rules, sequence, ordered=True, budget=budget)
        found = _best(candidates, sequence, larger_die_rule=False)
    else:
        rolled = [dice[0]] * 4 if double else list(dice)
        candidates = _explore(board, opponent, rules, rolled, ordered=False, budget=budget)
        legal = [c for c in candidates if not illegal_block(c.board, opponent, rules)]
        if rules.head_rule:
            limit = 1
            if first_turn:
                one = max((len(c.used) for c in legal if departures(board, c.board) <= 1), default=0)
                two = max((len(c.used) for c in legal if departures(board, c.board) == 2), default=0)
                limit = 2 if two > one else 1
            legal = [c for c in legal if departures(board, c.board) <= limit]
            if limit == 2 and rules.first_turn_exception == "strict":
                far = farthest_single(opponent, rolled)
                legal = [c for c in legal if departures(board, c.board) < 2 or c.board[far - 1] > board[far - 1]]
        found = _best(legal, rolled, larger_die_rule=True)
    return {Position(b, opponent, position.variant): n for b, n in found.items()}


def reference_remainder(
    position: Position,
    steps: Sequence[int],
    options: Mapping[str, str] | None = None,
    budget: int | None = None,
) -> dict[Position, int]:
    """Gul bara: the opponent plays the rest of a cascade, in order, as far as possible.

    ``position`` is seen from the player who now moves (the roller's opponent).  Results map to the
    number of steps played; an empty dict: not one of the steps can be played.
    """
    rules = rules_for(position.variant, options)
    candidates = _explore(position.mover, position.opponent, rules, tuple(steps), ordered=True, budget=budget)
    found = _best(candidates, steps, larger_die_rule=False)
    return {Position(b, position.opponent, position.variant): n for b, n in found.items()}


def farthest_single(opponent: Board, dice: Sequence[int]) -> int:
    """RULES.md §3.3 strict: the farthest point one checker from the head reaches with the dice."""
    best = HEAD
    frontier = [(HEAD, tuple(dice))]
    while frontier:
        point, left = frontier.pop()
        best = min(best, point)
        for die in set(left):
            target = point - die
            if target >= 1 and not blocked(opponent, target):
                rest = list(left)
                rest.remove(die)
                frontier.append((target, tuple(rest)))
    return best


def departures(before: Board, after: Board) -> int:
    """Checkers that left the head (nothing ever moves onto it)."""
    return before[HEAD - 1] - after[HEAD - 1]


def game_over(position: Position) -> bool:
    """A side has finished: borne everything off (nardy, gul bara) or brought all 15 home (six-one)."""
    for side in (position.mover, position.opponent):
        if position.variant == "sixone":
            if sum(side[p - 1] for p in HOME) == 15:
                return True
        elif sum(side) == 0:
            return True
    return False
