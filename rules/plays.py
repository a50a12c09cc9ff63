"""Legal plays of a roll, identified by the position they produce, and judging an observed result.

``legal_results(position, dice)`` enumerates step sequences depth-first, collects every position
reached, then applies the maximum-use rules (RULES.md §1.3) after generation, as GNU Backgammon
does: keep the results that use the most dice; of a non-double where only one die can be played,
keep those that use the larger one when any does.  Steps a variant forbids (closed points, the
head rule, the prime rule) never count as playable.

``judge(before, after, dice)`` returns the canonical play when ``after`` is one of those results,
otherwise raises :class:`~rules.errors.IllegalPlay` saying why in the players' words and which
points differ from the nearest legal result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from rules.errors import IllegalPlay, InvalidPosition
from rules.position import BAR, CHECKERS, OFF, Position, opponent_point
from rules.steps import Dice, Play, Step
from rules.variants import OptionValue, Variant, find_variant

# Internal board: a 26-tuple for the mover (index 0 = borne off, 1..24 = points, 25 = bar) and a
# 26-tuple for the opponent *in the mover's numbering* (index 1..24; index 0 = the opponent's bar).
Board = tuple[int, ...]

# Relaxations used only when explaining an illegal play.
CLOSED = "closed"
BAR_FIRST = "bar_first"
BEAR_OFF_HOME = "bear_off_home"
BEAR_OFF_HIGHER = "bear_off_higher"
HEAD = "head"
PRIME = "prime"
HOME_MOVE = "home_move"
ALL_RELAXED = frozenset({CLOSED, BAR_FIRST, BEAR_OFF_HOME, BEAR_OFF_HIGHER, HEAD, PRIME, HOME_MOVE})

Violation = tuple[str, int]  # (rule, point)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The switches of one call: the variant's own plus the chosen options."""

    hitting: bool
    head_rule: bool
    prime_rule: bool
    prime_every_step: bool
    prime_needs_home: bool
    exact_bear_off: bool
    opposite: bool
    #: Gul bara ``home_moves = forbidden``: a checker in its home only bears off (RULES.md §4.3).
    home_locked: bool = False
    #: Long nardy ``first_turn_exception = strict`` (RULES.md §3.3).
    strict_first_turn: bool = False

    @classmethod
    def of(cls, variant: Variant, options: Mapping[str, OptionValue]) -> Ruleset:
        return cls(
            hitting=variant.hitting,
            head_rule=variant.head_rule,
            prime_rule=variant.prime_rule,
            prime_every_step=options.get("prime_check") == "every_step",
            prime_needs_home=options.get("prime_condition") == "opponent_home",
            exact_bear_off=variant.exact_bear_off,
            opposite=variant.opposite_directions,
            home_locked=options.get("home_moves") == "forbidden",
            strict_first_turn=options.get("first_turn_exception") == "strict",
        )


# --- conversions ------------------------------------------------------------------------------

_MAPS: dict[str, tuple[int, ...]] = {}


def _point_map(variant: str) -> tuple[int, ...]:
    """``m[p]`` = the opponent's number for the mover's point p (index 0 unused)."""
    found = _MAPS.get(variant)
    if found is None:
        found = (0,) + tuple(opponent_point(variant, p) for p in range(1, 25))
        _MAPS[variant] = found
    return found


def to_boards(position: Position) -> tuple[Board, Board]:
    """The internal (mover, opponent-in-mover-numbering) boards of ``position``."""
    mover = position.mover
    opp_side = position.opponent
    pmap = _point_map(position.variant)
    me = (CHECKERS - sum(mover),) + mover
    opp = (opp_side[24],) + tuple(opp_side[pmap[p] - 1] for p in range(1, 25)) + (0,)
    return me, opp


_INVERSE: dict[str, tuple[int, ...]] = {}


def from_boards(me: Sequence[int], opp: Sequence[int], variant: str) -> Position:
    inverse = _INVERSE.get(variant)
    if inverse is None:
        pmap = _point_map(variant)
        mine = {pmap[p]: p for p in range(1, 25)}
        inverse = tuple(mine[q] for q in range(1, 25))
        _INVERSE[variant] = inverse
    opponent = tuple([opp[p] for p in inverse] + [opp[0]])
    return Position._trusted(tuple(me[1:26]), opponent, variant)


# --- the prime rule -------------------------------------------------------------------------

_PATHS: dict[str, tuple[int, ...]] = {}


def _opponent_path(variant: str) -> tuple[int, ...]:
    """Mover's points in the order the opponent passes them (their 24 first, their 1 last)."""
    found = _PATHS.get(variant)
    if found is None:
        pmap = _point_map(variant)
        by_theirs = {pmap[p]: p for p in range(1, 25)}
        found = tuple(by_theirs[q] for q in range(24, 0, -1))
        _PATHS[variant] = found
    return found


def illegal_block(me: Sequence[int], opp: Sequence[int], path: tuple[int, ...], needs_home: bool) -> int:
    """The mover's point where an illegal six-point block starts (opponent's side), else 0.

    A block is six or more consecutive points along the opponent's path, each holding a mover
    checker.  It is illegal when the opponent has checkers on the board and none ahead of it
    (``opponent_ahead``), or, with ``needs_home``, while no opponent checker has reached home.
    """
    run = 0
    for index in range(24):
        if me[path[index]]:
            run += 1
            if run >= 6 and (index == 23 or not me[path[index + 1]]):
                on_board = sum(opp[1:25])
                if not on_board:
                    return 0
                if needs_home:
                    home = path[18:24]
                    if any(opp[p] for p in home) or on_board < CHECKERS:
                        continue
                    return path[index - run + 1]
                if not any(opp[path[k]] for k in range(index + 1, 24)):
                    return path[index - run + 1]
        else:
            run = 0
    return 0


# --- generation -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Node:
    used: int
    steps: tuple[Step, ...]
    used_high: bool
    head: int
    violations: frozenset[Violation]


class _Search:
    """Depth-first enumeration of step sequences from one board."""

    def __init__(
        self,
        rules: Ruleset,
        variant: str,
        head_limit: int,
        relax: frozenset[str] = frozenset(),
        high_die: int = 0,
    ) -> None:
        self.rules = rules
        self.variant = variant
        self.path = _opponent_path(variant)
        self.head_limit = head_limit
        self.relax = relax
        self.high_die = high_die
        self.nodes: dict[tuple[Board, Board], _Node] = {}
        self.seen: set[tuple[object, ...]] = set()

    def record(self, me: Board, opp: Board, steps: tuple[Step, ...], head: int,
               violations: frozenset[Violation]) -> None:
        key = (me, opp)
        used_high = len(steps) == 1 and steps[0].die == self.high_die
        node = self.nodes.get(key)
        if node is None:
            self.nodes[key] = _Node(len(steps), steps, used_high, head, violations)
            return
        if used_high:
            node.used_high = True
        better = (len(violations), -len(steps)) < (len(node.violations), -node.used)
        if better:
            node.used, node.steps, node.head, node.violations = len(steps), steps, head, violations

    def step(self, me: Board, opp: Board, start: int, die: int, head: int,
             violations: frozenset[Violation]) -> tuple[Board, Board, Step, int, frozenset[Violation]] | None:
        """Move one checker from ``start`` by ``die``; None when the rules forbid it."""
        rules = self.rules
        relax = self.relax
        end = (25 - die) if start == BAR else start - die
        hit = False
        if end >= 1 and rules.home_locked and start <= 6:
            if HOME_MOVE not in relax:
                return None
            violations = violations | {(HOME_MOVE, start)}
        if end >= 1:
            there = opp[end]
            if there:
                if rules.hitting and there == 1:
                    hit = True
                elif CLOSED in relax:
                    violations = violations | {(CLOSED, end)}
                else:
                    return None
        else:
            if sum(me[7:26]):
                if BEAR_OFF_HOME not in relax:
                    return None
                violations = violations | {(BEAR_OFF_HOME, start)}
            if end < 0:
                if rules.exact_bear_off or any(me[p] for p in range(start + 1, 7)):
                    if BEAR_OFF_HIGHER not in relax:
                        return None
                    violations = violations | {(BEAR_OFF_HIGHER, start)}
            end = OFF
        if start == 24 and rules.head_rule:
            head += 1
            if head > self.head_limit:
                if HEAD not in relax:
                    return None
                violations = violations | {(HEAD, 24)}
        new_me = list(me)
        new_me[start] -= 1
        new_me[end] += 1
        me2 = tuple(new_me)
        if hit:
            new_opp = list(opp)
            new_opp[end] = 0
            new_opp[0] += 1
            opp2 = tuple(new_opp)
        else:
            opp2 = opp
        if rules.prime_rule and rules.prime_every_step:
            where = illegal_block(me2, opp2, self.path, rules.prime_needs_home)
            if where:
                if PRIME not in relax:
                    return None
                violations = violations | {(PRIME, where)}
        return me2, opp2, Step(start, end, die, hit), head, violations

    def starts(self, me: Board) -> Iterable[int]:
        if me[BAR] and BAR_FIRST not in self.relax:
            return (BAR,)
        return [p for p in range(25, 0, -1) if me[p]]

    def run_unordered(self, me: Board, opp: Board, dice: tuple[int, ...], canonical: bool) -> None:
        self._unordered(me, opp, dice, (), 0, 26, frozenset(), canonical)

    def _unordered(self, me: Board, opp: Board, remaining: tuple[int, ...], steps: tuple[Step, ...],
                   head: int, ceiling: int, violations: frozenset[Violation], canonical: bool) -> None:
        key = (me, opp, remaining, head, ceiling, violations)
        if key in self.seen:
            return
        self.seen.add(key)
        self.record(me, opp, steps, head, violations)
        if not remaining:
            return
        for die in sorted(set(remaining), reverse=True):
            rest = list(remaining)
            rest.remove(die)
            rest_t = tuple(rest)
            for start in self.starts(me):
                if canonical and start > ceiling:
                    continue
                if me[BAR] and start != BAR and BAR_FIRST in self.relax:
                    violations_here = violations | {(BAR_FIRST, BAR)}
                else:
                    violations_here = violations
                moved = self.step(me, opp, start, die, head, violations_here)
                if moved is not None:
                    me2, opp2, step, head2, violations2 = moved
                    self._unordered(me2, opp2, rest_t, steps + (step,), head2,
                                    start if canonical else 26, violations2, canonical)

    def run_ordered(self, me: Board, opp: Board, dice: Sequence[int]) -> None:
        """Steps in the given order (a cascade of rising doubles)."""
        self._ordered(me, opp, tuple(dice), (), 0, frozenset())

    def _ordered(self, me: Board, opp: Board, remaining: tuple[int, ...], steps: tuple[Step, ...],
                 head: int, violations: frozenset[Violation]) -> None:
        key = (me, opp, len(remaining), head, violations)
        if key in self.seen:
            return
        self.seen.add(key)
        self.record(me, opp, steps, head, violations)
        if not remaining:
            return
        die = remaining[0]
        for start in self.starts(me):
            moved = self.step(me, opp, start, die, head, violations)
            if moved is not None:
                me2, opp2, step, head2, violations2 = moved
                self._ordered(me2, opp2, remaining[1:], steps + (step,), head2, violations2)


Trail = tuple[tuple[int, int, int, bool], ...]


class _Rec:
    """What the strict search knows of one reached board."""

    __slots__ = ("used", "trail", "used_high", "head")

    def __init__(self, used: int, trail: Trail, used_high: bool, head: int) -> None:
        self.used = used
        self.trail = trail
        self.used_high = used_high
        self.head = head


class _Fast:
    """The strict search, tuned: one mutable board, steps done and undone in place.

    Records every node reached as ``key -> [used, trail, used_high, head]``, ``key`` being the
    mover's and the opponent's counts in one tuple.  ``trail`` holds (start, end, die, hit).
    """

    __slots__ = ("me", "opp", "rules", "path", "head_limit", "high", "nodes", "seen", "canonical")

    def __init__(self, me: Board, opp: Board, rules: Ruleset, path: tuple[int, ...],
                 head_limit: int, high: int, canonical: bool, dedupe: bool) -> None:
        self.me = list(me)
        self.opp = list(opp)
        self.rules = rules
        self.path = path
        self.head_limit = head_limit
        self.high = high
        self.nodes: dict[tuple[int, ...], _Rec] = {}
        self.seen: set[tuple[object, ...]] | None = set() if dedupe else None
        self.canonical = canonical

    def run(self, dice: tuple[int, ...], ordered: bool) -> None:
        self._go(dice, 0 if ordered else -1, [], 0, 26)

    def _go(self, remaining: tuple[int, ...], index: int, trail: list[tuple[int, int, int, bool]],
            head: int, ceiling: int) -> None:
        me = self.me
        opp = self.opp
        key = (*me, *opp)
        depth = len(trail)
        if self.seen is not None:
            # The ceiling prunes only canonical (unordered double) searches; elsewhere it would
            # split identical states and make long cascades explode.
            mark = (key, depth, head, ceiling if self.canonical else 0)
            if mark in self.seen:
                return
            self.seen.add(mark)
        node = self.nodes.get(key)
        used_high = depth == 1 and trail[0][2] == self.high
        if node is None:
            self.nodes[key] = _Rec(depth, tuple(trail), used_high, head)
        else:
            if used_high:
                node.used_high = True
            if depth > node.used:
                node.used = depth
                node.trail = tuple(trail)
        if index >= 0:
            if index >= len(remaining):
                return
            choices: tuple[int, ...] = (remaining[index],)
        else:
            if not remaining:
                return
            choices = tuple(sorted(set(remaining), reverse=True))
        rules = self.rules
        hitting = rules.hitting
        head_rule = rules.head_rule
        prime_now = rules.prime_rule and rules.prime_every_step
        home_locked = rules.home_locked
        canonical = self.canonical
        for die in choices:
            if index >= 0:
                rest = remaining
                next_index = index + 1
            else:
                as_list = list(remaining)
                as_list.remove(die)
                rest = tuple(as_list)
                next_index = -1
            if me[25]:
                starts: list[int] | tuple[int, ...] = (25,)
            else:
                top = ceiling if canonical else 24
                starts = [p for p in range(min(top, 24), 0, -1) if me[p]]
            for start in starts:
                end = (25 - die) if start == 25 else start - die
                hit = False
                if end >= 1:
                    if home_locked and start <= 6:
                        continue
                    there = opp[end]
                    if there:
                        if hitting and there == 1:
                            hit = True
                        else:
                            continue
                else:
                    if any(me[7:26]):
                        continue
                    if end < 0:
                        if rules.exact_bear_off or any(me[start + 1:7]):
                            continue
                    end = 0
                new_head = head
                if start == 24 and head_rule:
                    new_head += 1
                    if new_head > self.head_limit:
                        continue
                me[start] -= 1
                me[end] += 1
                if hit:
                    opp[end] = 0
                    opp[0] += 1
                if prime_now and illegal_block(me, opp, self.path, rules.prime_needs_home):
                    pass
                else:
                    trail.append((start, end, die, hit))
                    self._go(rest, next_index, trail, new_head, start)
                    trail.pop()
                if hit:
                    opp[end] = 1
                    opp[0] -= 1
                me[start] += 1
                me[end] -= 1


def _dice_values(dice: Dice | Sequence[int] | str) -> Dice:
    return Dice.parse(dice)


def _search(position: Position, dice_steps: Sequence[int], ordered: bool, rules: Ruleset,
            head_limit: int, relax: frozenset[str], high_die: int) -> _Search:
    search = _Search(rules, position.variant, head_limit, relax, high_die)
    me, opp = to_boards(position)
    if ordered:
        search.run_ordered(me, opp, dice_steps)
    else:
        is_double = len(set(dice_steps)) == 1 and len(dice_steps) > 1
        canonical = is_double and not (rules.prime_rule and rules.prime_every_step)
        search.run_unordered(me, opp, tuple(dice_steps), canonical)
    return search


def _final_ok(rules: Ruleset, variant: str, me: Board, opp: Board) -> bool:
    if rules.prime_rule and not rules.prime_every_step:
        return not illegal_block(me, opp, _opponent_path(variant), rules.prime_needs_home)
    return True


def _best(nodes: dict[tuple[Board, Board], _Node], rules: Ruleset, variant: str,
          is_double: bool) -> dict[tuple[Board, Board], _Node]:
    """Apply the maximum-use and larger-die rules to the valid nodes."""
    valid = {k: n for k, n in nodes.items() if not n.violations and _final_ok(rules, variant, *k)}
    if not valid:
        return valid
    most = max(n.used for n in valid.values())
    chosen = {k: n for k, n in valid.items() if n.used == most}
    if not is_double and most == 1 and any(n.used_high for n in chosen.values()):
        chosen = {k: n for k, n in chosen.items() if n.used_high}
    return chosen


def farthest_from_head(me: Board, opp: Board, steps: Sequence[int]) -> int:
    """The farthest point one checker from the head (24) can reach with ``steps`` (any order for two
    dice, in turn for a double), landing only on open points; 24 when it cannot leave."""
    values = tuple(steps)
    orders = [values] if len(set(values)) <= 1 else [values, values[::-1]]
    best = 24
    for order in orders:
        point = 24
        for die in order:
            end = point - die
            if end < 1 or opp[end]:
                break
            point = end
        best = min(best, point)
    return best


def dice_steps(variant: Variant, dice: Dice) -> tuple[tuple[int, ...], bool]:
    """The steps a roll gives (four for a double) and whether they must be taken in order."""
    if dice.is_double:
        return (dice.first,) * 4, False
    return (dice.first, dice.second), False


def generate(
    position: Position,
    steps: Sequence[int],
    *,
    ordered: bool = False,
    first_turn: bool = False,
    options: Mapping[str, object] | None = None,
) -> dict[Position, Play]:
    """Every legal result of playing ``steps`` (die values) from ``position``.

    The building block for :func:`legal_results`; variants whose rolls are not plain two dice
    (the gul bara cascade) call it with their own step list, ``ordered`` when the steps must be
    taken in the order given.
    """
    variant = find_variant(position.variant)
    opts = variant.validate_options(options)
    rules = Ruleset.of(variant, opts)
    return _generate(position, tuple(steps), ordered, first_turn, rules)


def _generate(position: Position, steps: tuple[int, ...], ordered: bool, first_turn: bool,
              rules: Ruleset) -> dict[Position, Play]:
    is_double = len(set(steps)) <= 1
    high = max(steps) if steps else 0
    first_exception = rules.head_rule and first_turn
    limit = 2 if first_exception else 1
    every_step = rules.prime_rule and rules.prime_every_step
    canonical = is_double and len(steps) > 1 and not every_step and not ordered
    dedupe = every_step or ordered or (is_double and not canonical)
    me, opp = to_boards(position)
    path = _opponent_path(position.variant)
    search = _Fast(me, opp, rules, path, limit, high, canonical, dedupe)
    search.run(steps, ordered)
    nodes = search.nodes
    end_check = rules.prime_rule and not every_step
    needs_home = rules.prime_needs_home
    if end_check:
        nodes = {k: n for k, n in nodes.items() if not illegal_block(k[:26], k[26:], path, needs_home)}
    if first_exception and nodes:
        # The first-turn exception: two may leave the head only when no play taking at most
        # one uses as many dice as some play taking two (RULES.md §3.3).
        with_one = [n.used for n in nodes.values() if n.head <= 1]
        with_two = [n.used for n in nodes.values() if n.head == 2]
        if not with_two or (with_one and max(with_one) >= max(with_two)):
            nodes = {k: n for k, n in nodes.items() if n.head <= 1}
        elif rules.strict_first_turn:
            # Strict: the first checker goes as far as the roll allows, the second takes the rest.
            reach = farthest_from_head(me, opp, steps)
            nodes = {k: n for k, n in nodes.items() if n.head <= 1 or k[reach] > me[reach]}
    if not nodes:
        # Every sequence, even playing nothing, leaves an illegal block (possible only when the
        # opponent has just borne off its last checker ahead of one): the turn passes.
        return {position: Play(())}
    most = max(n.used for n in nodes.values())
    chosen = [(k, n) for k, n in nodes.items() if n.used == most]
    if not is_double and most == 1 and any(n.used_high for _, n in chosen):
        chosen = [(k, n) for k, n in chosen if n.used_high]
    variant_name = position.variant
    out: dict[Position, Play] = {}
    for key, node in chosen:
        play = Play(tuple(map(Step._make, node.trail)))
        out[from_boards(key[:26], key[26:], variant_name)] = play
    return out


def legal_results(
    position: Position,
    dice: Dice | Sequence[int] | str,
    *,
    first_turn: bool = False,
    options: Mapping[str, object] | None = None,
    roll_number: int | None = None,
) -> dict[Position, Play]:
    """Every position the side on roll can produce with ``dice``, each with a canonical play.

    Results are seen from the mover's side (not swapped).  An unplayable roll gives one result,
    the unchanged position, with an empty play.  ``roll_number`` (the game's Nth roll, both
    players together) matters only to gul bara, whose doubles cascade from the fourth roll on;
    without it a double is four steps.
    """
    roll = _dice_values(dice)
    variant = find_variant(position.variant)
    own = variant.legal_results(position, roll, first_turn=first_turn, options=options,
                                roll_number=roll_number)
    if own is not None:
        return own
    steps, ordered = dice_steps(variant, roll)
    return generate(position, steps, ordered=ordered, first_turn=first_turn, options=options)


def iter_results(
    position: Position,
    dice: Dice | Sequence[int] | str,
    *,
    first_turn: bool = False,
    options: Mapping[str, object] | None = None,
    roll_number: int | None = None,
) -> Iterator[tuple[Position, Play]]:
    """:func:`legal_results` one at a time: a gul bara cascade (millions of results) is listed in
    bounded memory, each result given out as soon as it is found; other rolls as the dict has them."""
    roll = _dice_values(dice)
    if position.variant == "gulbara" and roll_number is not None:
        from rules.variants import gulbara

        if gulbara.cascades(roll, roll_number):
            find_variant("gulbara").validate_options(options)
            yield from gulbara.iter_legal_results(position, roll, roll_number=roll_number, options=options)
            return
    yield from legal_results(position, roll, first_turn=first_turn, options=options,
                             roll_number=roll_number).items()


def apply_play(position: Position, play: Play) -> Position:
    """The position after ``play`` (mover's view), without checking legality."""
    me, opp = to_boards(position)
    board = list(me)
    other = list(opp)
    for step in play.steps:
        if board[step.start] <= 0:
            raise InvalidPosition(f"no checker on point {step.start} to move in {position.id}")
        board[step.start] -= 1
        board[step.end] += 1
        if step.end and 1 <= step.end <= 24 and other[step.end] == 1 and step.hit:
            other[step.end] = 0
            other[0] += 1
    return from_boards(tuple(board), tuple(other), position.variant)


# --- judging --------------------------------------------------------------------------------


def difference(a: Position, b: Position) -> tuple[int, ...]:
    """Mover's point numbers (25 = bar, 0 = off, opponent bar as 25 too) where a and b differ."""
    me_a, opp_a = to_boards(a)
    me_b, opp_b = to_boards(b)
    points = set()
    for p in range(26):
        if me_a[p] != me_b[p]:
            points.add(p)
    for p in range(1, 25):
        if opp_a[p] != opp_b[p]:
            points.add(p)
    if opp_a[0] != opp_b[0]:
        points.add(BAR)
    return tuple(sorted(points))


def _distance(a: Position, b: Position) -> int:
    me_a, opp_a = to_boards(a)
    me_b, opp_b = to_boards(b)
    return sum(abs(x - y) for x, y in zip(me_a, me_b, strict=True)) + sum(
        abs(x - y) for x, y in zip(opp_a, opp_b, strict=True)
    )


def nearest(after: Position, results: Iterable[Position]) -> Position | None:
    """The legal result closest to ``after`` (fewest checkers out of place)."""
    best: Position | None = None
    best_distance = 0
    for result in results:
        distance = _distance(after, result)
        if best is None or distance < best_distance or (
            distance == best_distance and result.id < best.id
        ):
            best, best_distance = result, distance
    return best


_REASONS = {
    BAR_FIRST: "a checker on the bar must enter first",
    BEAR_OFF_HOME: "bearing off before all checkers are home",
    HEAD: "only one checker may leave the head",
    PRIME: "this closes a six-point block with no opponent checker ahead of it",
    HOME_MOVE: "a checker in its home may only bear off (no moves inside the home)",
}


def _violation_reason(violation: Violation, rules: Ruleset) -> str:
    rule, point = violation
    if rule == CLOSED:
        return f"point {point} is closed" if rules.hitting else f"point {point} is held by the opponent"
    if rule == BEAR_OFF_HIGHER:
        if rules.exact_bear_off:
            return "bearing off needs the exact number"
        return "a larger die bears off only from the highest occupied point"
    return _REASONS[rule]


def explain(
    before: Position,
    after: Position,
    steps: Sequence[int],
    *,
    ordered: bool = False,
    first_turn: bool = False,
    options: Mapping[str, object] | None = None,
    legal: Mapping[Position, Play] | None = None,
) -> IllegalPlay:
    """Why ``after`` is not a legal result of ``steps`` from ``before``, as an IllegalPlay."""
    variant = find_variant(before.variant)
    opts = variant.validate_options(options)
    rules = Ruleset.of(variant, opts)
    if legal is None:
        legal = generate(before, steps, ordered=ordered, first_turn=first_turn, options=opts)
    close = nearest(after, legal)
    points = difference(after, close) if close is not None else ()

    def fail(reason: str, detail: str = "") -> IllegalPlay:
        return IllegalPlay(reason, points, close, detail)

    for name, who in (("the side on roll", after.mover), ("the other side", after.opponent)):
        if sum(who) > CHECKERS:
            return fail(f"{name} has more than 15 checkers on the board")
    if after.borne_off(False) != before.borne_off(False) or after.opponent[24] < before.opponent[24]:
        return fail("checkers changed that this roll cannot move")
    key = to_boards(after)
    if after == before:
        return fail("the roll can be played: no checker has moved")
    is_double = len(set(steps)) <= 1
    high = max(steps) if steps else 0
    limit = 2 if (rules.head_rule and first_turn) else 1
    strict = _search(before, steps, ordered, rules, limit, frozenset(), high)
    node = strict.nodes.get(key)
    if node is not None and _final_ok(rules, before.variant, *key):
        if rules.head_rule and first_turn and node.head == 2:
            if rules.strict_first_turn and after in _generate(before, tuple(steps), ordered, True,
                                                              replace(rules, strict_first_turn=False)):
                reach = farthest_from_head(*to_boards(before), steps)
                return fail(f"first turn, strict rule: the first checker must go as far as the roll "
                            f"allows (to point {reach}); the second takes only the rest")
            return fail(_REASONS[HEAD])
        most = max(n.used for n in _best(strict.nodes, rules, before.variant, is_double).values())
        if node.used < most:
            if is_double and len(steps) > 2:
                return fail("more of the roll could be played", f"{node.used} of {most} steps")
            return fail("both dice could be played")
        return fail("the larger die must be played")
    if node is not None:
        where = illegal_block(*key, _opponent_path(before.variant), rules.prime_needs_home)
        return fail(_REASONS[PRIME], f"block from point {where}")
    relaxed = _search(before, steps, ordered, rules, limit, ALL_RELAXED, high)
    found = relaxed.nodes.get(key)
    if found is not None:
        violations = set(found.violations)
        if rules.prime_rule and not rules.prime_every_step:
            where = illegal_block(*key, _opponent_path(before.variant), rules.prime_needs_home)
            if where:
                violations.add((PRIME, where))
        if violations:
            order = [BAR_FIRST, CLOSED, HEAD, HOME_MOVE, BEAR_OFF_HOME, BEAR_OFF_HIGHER, PRIME]
            first = min(violations, key=lambda v: (order.index(v[0]), -v[1]))
            return fail(_violation_reason(first, rules))
    return fail("checkers changed that this roll cannot move")


def judge(
    before: Position,
    after: Position,
    dice: Dice | Sequence[int] | str,
    *,
    first_turn: bool = False,
    options: Mapping[str, object] | None = None,
    roll_number: int | None = None,
) -> Play:
    """The canonical play that turns ``before`` into ``after``; IllegalPlay (why, where) if none."""
    if after.variant != before.variant:
        raise IllegalPlay(f"the position after is a {after.variant} position, not {before.variant}")
    roll = _dice_values(dice)
    variant = find_variant(before.variant)
    own = variant.judge(before, after, roll, first_turn=first_turn, options=options,
                        roll_number=roll_number)
    if own is not None:
        return own
    steps, ordered = dice_steps(variant, roll)
    legal = generate(before, steps, ordered=ordered, first_turn=first_turn, options=options)
    play = legal.get(after)
    if play is not None:
        return play
    raise explain(before, after, steps, ordered=ordered, first_turn=first_turn, options=options,
                  legal=legal)
