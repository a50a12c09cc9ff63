"""Turning a record's moves (``24/18 18/15``, SGF letter pairs) into checked match events.

Shared by the ``.mat`` and ``.sgf`` readers: hops are applied to the board, the result is judged by
the rules engine (an illegal play is an error naming it), and each game's events are folded into
the match state as they are produced so that a problem is reported where it occurs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules import match
from rules.errors import IllegalEvent, IllegalPlay, InvalidNotation, RulesError
from rules.plays import judge
from rules.position import BAR, OFF, Position
from rules.steps import Dice, Step


class RecordError(InvalidNotation):
    """A game record that cannot be read; the message names the line and the problem."""


class IllegalRecord(RecordError):
    """A record that is readable but holds an illegal play or event (``referee import`` exit 1)."""


@dataclass
class ImportedMatch:
    """What a reader produces: header fields and the events, already checked."""

    length: int = 0
    players: tuple[str, str] = ("White", "Black")
    options: dict[str, Any] = field(default_factory=dict)
    event: str = ""
    site: str = ""
    round: str = ""
    date: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    events: list[match.Event] = field(default_factory=list)
    state: match.MatchState | None = None


def apply_hops(position: Position, hops: list[tuple[int, int]]) -> tuple[Position, list[tuple[int, int, bool]]]:
    """Move checkers hop by hop (backgammon geometry), hitting lone opponent checkers landed on.

    Returns the result and (start, end, hit) per hop.  Raises IllegalPlay for a hop from an
    empty point or onto a closed point.
    """
    mover = list(position.mover)
    opponent = list(position.opponent)
    done: list[tuple[int, int, bool]] = []
    for start, end in hops:
        if not (1 <= start <= BAR) or not (OFF <= end <= 24) or (end >= start):
            raise IllegalPlay(f"{_name(start)}/{_name(end)} is not a move in the player's direction")
        if mover[start - 1] <= 0:
            raise IllegalPlay(f"there is no checker on {_name(start)} to move")
        mover[start - 1] -= 1
        hit = False
        if end != OFF:
            other = 25 - end
            if opponent[other - 1] >= 2:
                raise IllegalPlay(f"point {end} is closed")
            if opponent[other - 1] == 1:
                opponent[other - 1] = 0
                opponent[24] += 1
                hit = True
            mover[end - 1] += 1
        done.append((start, end, hit))
    return Position(tuple(mover), tuple(opponent), position.variant), done


def _name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def steps_for(hops: list[tuple[int, int, bool]], dice: tuple[int, int]) -> tuple[Step, ...] | None:
    """Steps with a die each when every hop is exactly one die (as gnubg writes), else None."""
    remaining = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    steps: list[Step] = []
    for start, end, hit in hops:
        distance = start - end
        if distance in remaining:
            die = distance
        elif end == OFF and any(d > distance for d in remaining):
            die = min(d for d in remaining if d > distance)
        else:
            return None
        remaining.remove(die)
        steps.append(Step(start, end, die, hit))
    return tuple(steps)


def play_event(
    state: match.MatchState, player: int, dice: tuple[int, int], hops: list[tuple[int, int]], where: str
) -> match.Play:
    """The checked Play event for ``hops``; IllegalRecord naming ``where`` when it is illegal."""
    before = state.position_for(player)
    text = " ".join(f"{_name(a)}/{_name(b)}" for a, b in hops) or "(no move)"
    try:
        after, done = apply_hops(before, hops)
        canonical = judge(before, after, Dice(dice[0], dice[1]), options=state.config.rule_options())
    except IllegalPlay as error:
        raise IllegalRecord(f"{where}: illegal play {dice[0]}{dice[1]}: {text}: {error}") from None
    steps = steps_for(done, dice)
    return match.Play(player=player, result=after, steps=steps if steps is not None else canonical.steps)


def fold(state: match.MatchState, event: match.Event, where: str) -> match.MatchState:
    """Apply ``event`` (plays already judged); IllegalRecord naming ``where`` when not allowed."""
    try:
        return match.apply(state, event)
    except IllegalEvent as error:
        raise IllegalRecord(f"{where}: {error}") from None
    except RulesError as error:
        raise RecordError(f"{where}: {error}") from None


def unchecked(state: match.MatchState) -> match.MatchState:
    """The same state with play checking off (plays are judged once, by :func:`play_event`)."""
    from dataclasses import replace

    return replace(state, config=replace(state.config, check_plays=False))


def checked(state: match.MatchState) -> match.MatchState:
    from dataclasses import replace

    return replace(state, config=replace(state.config, check_plays=True))
