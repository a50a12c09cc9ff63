"""Gul bara (crazy narde, table nebun), RULES.md §4.

Long-nardy movement (no hitting: any opponent checker holds a point) without the head rule or
the prime rule; bearing off only with the exact number; no moves inside the home (a checker there
only bears off; ``home_moves = forbidden``, the default, or ``allowed``); and the **doubles cascade**:

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

from collections.abc import Iterator, Mapping, Sequence

from rules.errors import IllegalPlay, InvalidDice, InvalidPosition
from rules.position import Position, opponent_point
from rules.steps import Dice, Play, Step
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
        Option(
            "home_moves",
            "forbidden",
            "Moves inside the home: forbidden (a checker in its home only bears off, with the exact "
            "number) or allowed.",
            ("forbidden", "allowed"),
        ),
    ) + NARDY_SCORING

    def legal_results(
        self,
        position: Position,
        dice: Dice,
        *,
        first_turn: bool = False,
        options: Mapping[str, object] | None = None,
        roll_number: int | None = None,
    ) -> dict[Position, Play] | None:
        """A cascading roll (a double from the fourth roll on) is this module's; others are plain."""
        if roll_number is None or not cascades(dice, roll_number):
            return None
        return legal_results(position, dice, roll_number=roll_number, options=options)

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
        if roll_number is None or not cascades(dice, roll_number):
            return None
        return judge(before, after, dice, roll_number=roll_number, options=options)


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
    from rules.plays import legal_results as plain_results

    _check_variant(position)
    if not cascades(dice, roll_number):
        return plain_results(position, dice, options=options)
    return dict(iter_ordered_results(position, roll_steps(dice, roll_number), options=options))


def iter_legal_results(
    position: Position,
    dice: Dice | Sequence[int] | str,
    *,
    roll_number: int | None = None,
    options: Mapping[str, object] | None = None,
) -> Iterator[tuple[Position, Play]]:
    """:func:`legal_results` one at a time, in bounded memory however many there are."""
    _check_variant(position)
    if not cascades(dice, roll_number):
        yield from legal_results(position, dice, roll_number=roll_number, options=options).items()
        return
    yield from iter_ordered_results(position, roll_steps(dice, roll_number), options=options)


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
    _check_variant(position)
    _check_steps(steps)
    return dict(iter_ordered_results(position, tuple(steps), options=options))


def judge(
    before: Position,
    after: Position,
    dice: Dice | Sequence[int] | str,
    *,
    roll_number: int | None = None,
    options: Mapping[str, object] | None = None,
) -> Play:
    """The roller's play from ``before`` to ``after``; IllegalPlay (why, where) when there is none.

    A cascade is judged without listing every result (a 1-1 cascade early in the game has millions):
    a directed search for ``after``, then a search for any longer play.
    """
    from rules.plays import judge as plain_judge

    _check_variant(before)
    if not cascades(dice, roll_number):
        return plain_judge(before, after, dice, options=options)
    return _judge_ordered(before, after, roll_steps(dice, roll_number), _home_locked(options))


def judge_remainder(
    before: Position,
    after: Position,
    steps: Sequence[int],
    *,
    options: Mapping[str, object] | None = None,
) -> Play:
    """The opponent's play of the handed-on ``steps``; IllegalPlay when ``after`` is not legal."""
    _check_variant(before)
    _check_steps(steps)
    return _judge_ordered(before, after, tuple(steps), _home_locked(options))


def find_variant_options(options: Mapping[str, object] | None) -> None:
    """Validate ``options`` (an unknown name or value is an InvalidOption)."""
    GulBara().validate_options(options)


def _home_locked(options: Mapping[str, object] | None) -> bool:
    """``home_moves = forbidden`` (the default): a checker in its home only bears off (RULES.md §4.3)."""
    return GulBara().validate_options(options)["home_moves"] == "forbidden"


# --- judging ordered steps without enumerating them ----------------------------------------------

Counts = list[int]  # the mover's checkers on points 1..24 (index 0..23)


def _judge_ordered(before: Position, after: Position, steps: tuple[int, ...], home_locked: bool) -> Play:
    from rules.plays import difference

    _check_variant(after)
    if after.opponent != before.opponent:
        raise IllegalPlay("checkers changed that this roll cannot move", difference(after, before))
    closed = [False] + [before.opponent[opponent_point(before.variant, q) - 1] > 0 for q in range(1, 25)]
    moved_pips = before.pips() - after.pips()
    prefix = 0
    count: int | None = 0 if moved_pips == 0 else None
    for index, value in enumerate(steps):
        prefix += value
        if prefix == moved_pips:
            count = index + 1
    points = difference(after, before)
    for point in range(1, 25):
        if after.mover[point - 1] and closed[point]:
            raise IllegalPlay(f"point {point} is held by the opponent", (point,))
    if count is None:
        raise IllegalPlay(f"the moves do not match the roll ({_spell(steps)}, in that order)", points)
    found = _find(list(before.mover[:24]), tuple(after.mover[:24]), steps[:count], closed, home_locked)
    if found is None:
        if home_locked and _find(list(before.mover[:24]), tuple(after.mover[:24]), steps[:count], closed, False):
            raise IllegalPlay("a checker in its home may only bear off (no moves inside the home)", points)
        raise IllegalPlay(f"the moves do not match the roll ({_spell(steps)}, in that order)", points)
    if count < len(steps) and _can_reach(list(before.mover[:24]), steps, count + 1, closed, home_locked):
        raise IllegalPlay("more of the roll could be played", points,
                          detail=f"{count} of the {len(steps)} steps played")
    return Play(found)


def _step_targets(board: Counts, die: int, closed: list[bool], home_locked: bool) -> list[tuple[int, int]]:
    """(start, end) for every checker ``die`` can move; end 0 = borne off with the exact number."""
    home = not any(board[6:24])
    out = []
    for start in range(24, 0, -1):
        if not board[start - 1]:
            continue
        end = start - die
        if end >= 1:
            if not closed[end] and not (home_locked and start <= 6):
                out.append((start, end))
        elif end == 0 and home:
            out.append((start, 0))
    return out


def _find(board: Counts, target: tuple[int, ...], steps: tuple[int, ...],
          closed: list[bool], home_locked: bool) -> tuple[Step, ...] | None:
    """A sequence of ``steps`` (in order) turning ``board`` into ``target``, or None.

    Checkers only move towards point 1, so a board that has fewer checkers on points ≥ t than the
    target, for some t, can never reach it: such branches are cut.
    """
    need = [0] * 26
    for point in range(24, 0, -1):
        need[point] = need[point + 1] + target[point - 1]
    dead: set[tuple[tuple[int, ...], int]] = set()
    trail: list[Step] = []

    def go(index: int) -> bool:
        if index == len(steps):
            return tuple(board) == target
        key = (tuple(board), index)
        if key in dead:
            return False
        die = steps[index]
        for start, end in _step_targets(board, die, closed, home_locked):
            board[start - 1] -= 1
            if end:
                board[end - 1] += 1
            above = 0
            fits = True
            for point in range(24, end, -1):
                above += board[point - 1]
                if above < need[point]:
                    fits = False
                    break
            if fits:
                trail.append(Step(start, end, die))
                if go(index + 1):
                    return True
                trail.pop()
            board[start - 1] += 1
            if end:
                board[end - 1] -= 1
        dead.add(key)
        return False

    return tuple(trail) if go(0) else None


def _can_reach(board: Counts, steps: tuple[int, ...], depth: int, closed: list[bool], home_locked: bool) -> bool:
    """Whether some sequence plays the first ``depth`` of ``steps`` (in order)."""
    dead: set[tuple[tuple[int, ...], int]] = set()

    def go(index: int) -> bool:
        if index == depth:
            return True
        key = (tuple(board), index)
        if key in dead:
            return False
        die = steps[index]
        for start, end in _step_targets(board, die, closed, home_locked):
            board[start - 1] -= 1
            if end:
                board[end - 1] += 1
            reached = go(index + 1)
            board[start - 1] += 1
            if end:
                board[end - 1] -= 1
            if reached:
                return True
        dead.add(key)
        return False

    return go(0)


# --- listing the results of ordered steps in bounded memory ----------------------------------------
#
# The steps come in blocks of one value (1111 2222 ... 6666).  Within a block the order of the moves
# does not matter and the result fixes which checkers moved (the block's moves can be read back
# from the boards before and after it), so each block is played with the starts in falling order
# and each board after it is kept once, with the board it came from.  The boards after the last
# block (the results; three million for 1-1 from the start) are never all held: moving by d keeps
# every checker's point modulo d (bearing off is exact: from d to 0), so two results of the last
# block can be equal only when their boards before it have the same count of checkers on each
# residue modulo d.  The last block is played one such class at a time, each result given out as
# soon as it is found, and only one class's results are remembered to drop repeats.

Code = int  # a board (the mover's 24 counts) as one number, four bits a point


def _code(board: Sequence[int]) -> Code:
    value = 0
    for count in board:
        value = (value << 4) | count
    return value


def _board(code: Code) -> Counts:
    return [(code >> (4 * (23 - index))) & 15 for index in range(24)]


def _blocks(steps: Sequence[int]) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    for value in steps:
        if blocks and blocks[-1][0] == value:
            blocks[-1] = (value, blocks[-1][1] + 1)
        else:
            blocks.append((value, 1))
    return blocks


class _Block:
    """Plays ``count`` moves of one die from a board, the starts in falling order."""

    __slots__ = ("die", "closed", "home_locked")

    def __init__(self, die: int, closed: list[bool], home_locked: bool) -> None:
        self.die = die
        self.closed = closed
        self.home_locked = home_locked

    def boards(self, board: Counts, count: int) -> Iterator[Code]:
        """The boards after exactly ``count`` moves (each once for this board)."""
        outside = sum(board[6:24])
        yield from self._go(board, count, 24, outside)

    def _go(self, board: Counts, left: int, ceiling: int, outside: int) -> Iterator[Code]:
        if left == 0:
            yield _code(board)
            return
        die = self.die
        closed = self.closed
        for start in range(ceiling, 0, -1):
            if not board[start - 1]:
                continue
            end = start - die
            if end >= 1:
                if closed[end] or (self.home_locked and start <= 6):
                    continue
                board[start - 1] -= 1
                board[end - 1] += 1
                gone = 1 if start > 6 >= end else 0
                yield from self._go(board, left - 1, start, outside - gone)
                board[start - 1] += 1
                board[end - 1] -= 1
            elif end == 0 and not outside:
                board[start - 1] -= 1
                yield from self._go(board, left - 1, start, outside)
                board[start - 1] += 1

    def most(self, board: Counts, count: int) -> int:
        """How many of ``count`` moves can be played from ``board`` (at most ``count``)."""
        return self._most(board, count, 24, sum(board[6:24]))

    def _most(self, board: Counts, left: int, ceiling: int, outside: int) -> int:
        if left == 0:
            return 0
        best = 0
        die = self.die
        for start in range(ceiling, 0, -1):
            if not board[start - 1]:
                continue
            end = start - die
            if end >= 1:
                if self.closed[end] or (self.home_locked and start <= 6):
                    continue
                board[start - 1] -= 1
                board[end - 1] += 1
                got = 1 + self._most(board, left - 1, start, outside - (1 if start > 6 >= end else 0))
                board[start - 1] += 1
                board[end - 1] -= 1
            elif end == 0 and not outside:
                board[start - 1] -= 1
                got = 1 + self._most(board, left - 1, start, outside)
                board[start - 1] += 1
            else:
                continue
            best = max(best, got)
            if best == left:
                break
        return best

    def moves(self, before: Code, after: Code) -> list[Step]:
        """The block's moves from ``before`` to ``after``, starts falling (the order they are legal in)."""
        old, new = _board(before), _board(after)
        die = self.die
        moved = [0] * 25  # checkers that moved from each point
        for point in range(24, 0, -1):
            arrived = moved[point + die] if point + die <= 24 else 0
            moved[point] = old[point - 1] + arrived - new[point - 1]
        steps: list[Step] = []
        for point in range(24, 0, -1):
            end = point - die
            steps.extend([Step(point, end if end > 0 else 0, die)] * moved[point])
        return steps


def _residues(code: Code, die: int) -> tuple[int, ...]:
    """How many checkers stand on each point modulo ``die`` (borne off counts as 0): what moves
    by ``die`` keep."""
    counts = [0] * die
    board = _board(code)
    for point in range(1, 25):
        counts[point % die] += board[point - 1]
    counts[0] += 15 - sum(board)
    return tuple(counts)


def iter_ordered_results(
    position: Position,
    steps: tuple[int, ...],
    *,
    options: Mapping[str, object] | None = None,
) -> Iterator[tuple[Position, Play]]:
    """Every legal result of playing ``steps`` in order (as far as they go), each once, with a play.

    Memory stays bounded by the boards between blocks and one class of results (see above),
    however many results there are; they come out as they are found.
    """
    _check_variant(position)
    _check_steps(steps)
    if position.mover[24] or position.opponent[24]:
        raise InvalidPosition("gul bara has no bar: no checker can be on it")
    home_locked = _home_locked(options)
    closed = [False] + [position.opponent[opponent_point(position.variant, q) - 1] > 0 for q in range(1, 25)]
    blocks = [_Block(die, closed, home_locked) for die, _ in _blocks(steps)]
    counts = [count for _, count in _blocks(steps)]
    layers: list[dict[Code, Code]] = [{_code(position.mover[:24]): -1}]
    last = len(blocks) - 1
    for index, block in enumerate(blocks[:-1]):
        after: dict[Code, Code] = {}
        for code in layers[-1]:
            for reached in block.boards(_board(code), counts[index]):
                if reached not in after:
                    after[reached] = code
        if not after:
            last = index
            break
        layers.append(after)
    block = blocks[last]
    target = counts[last]
    parents = layers[-1]
    if last < len(blocks) - 1 or not any(block.most(_board(code), target) == target for code in parents):
        target = max(block.most(_board(code), target) for code in parents)
    opponent = position.opponent
    variant = position.variant

    def trail(code: Code) -> list[Step]:
        chain = [code]
        for layer in reversed(layers[1:]):
            chain.append(layer[chain[-1]])
        chain.reverse()
        out: list[Step] = []
        for number in range(len(chain) - 1):
            out.extend(blocks[number].moves(chain[number], chain[number + 1]))
        return out

    def result(code: Code, steps_so_far: list[Step]) -> tuple[Position, Play]:
        mover = (*_board(code), 0)
        return Position(mover, opponent, variant), Play(tuple(steps_so_far))

    if target == 0:
        for code in parents:  # the boards the earlier blocks reached; nothing more can be played
            yield result(code, trail(code))
        return
    classes: dict[tuple[int, ...], list[Code]] = {}
    for code in parents:
        classes.setdefault(_residues(code, block.die), []).append(code)
    for members in classes.values():
        seen: set[Code] = set()
        for code in members:
            before = trail(code)
            for reached in block.boards(_board(code), target):
                if reached in seen:
                    continue
                seen.add(reached)
                yield result(reached, before + block.moves(code, reached))


def _spell(steps: Sequence[int]) -> str:
    """``four 4s, four 5s, four 6s``."""
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    parts: list[str] = []
    index = 0
    while index < len(steps):
        value = steps[index]
        run = 1
        while index + run < len(steps) and steps[index + run] == value:
            run += 1
        parts.append(f"{words.get(run, str(run))} {value}{'s' if run > 1 else ''}")
        index += run
    return ", ".join(parts)


def _check_variant(position: Position) -> None:
    if position.variant != GulBara.name:
        raise InvalidPosition(f"the position is a {position.variant} position, not gul bara")


def _check_steps(steps: Sequence[int]) -> None:
    for value in steps:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
            raise InvalidDice(f"cascade steps must be 1..6, got {list(steps)}")
