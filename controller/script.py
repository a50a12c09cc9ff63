"""The built-in scripted games of ``referee demo``: whole games, turn by turn, with incidents.

A script is made from seeded dice and two simple playing policies, so it is a real game the rules
engine checked step by step; then the incidents the demo must show are woven in: a void (cocked)
roll, an illegal play that is then corrected, a hand over the board mid-play, a double and a take,
and for long nardy the first-turn head exception and a refused six-point block.
:func:`describe` lists what a script contains, so tests can check every incident is there.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules import plays
from rules.plays import legal_results
from rules.position import Position, starting_position
from rules.steps import Dice, Play
from rules.variants import find_variant


@dataclass
class Turn:
    """One player's turn in a script; ``result`` is seen from ``player``."""

    player: int
    dice: tuple[int, int]
    before: Position
    result: Position
    play: Play
    cube: list[tuple[str, int]] = field(default_factory=list)  # before the roll: ("double", 0) …
    void_first: str | None = None  # a void roll (its reason) before the valid one
    illegal_first: Position | None = None  # an illegal board shown before the right one
    illegal_reason: str = ""


@dataclass
class GameScript:
    variant: str
    options: dict[str, object]
    match_length: int
    players: tuple[str, str]
    opening: tuple[int, int] | None  # (player 0's die, player 1's die); None without an opening roll
    turns: list[Turn]
    title: str = ""


def _pips(side: tuple[int, ...]) -> int:
    return sum(count * (i + 1) for i, count in enumerate(side))


def _backgammon_choice(player: int, results: dict[Position, Play]) -> Position:
    """Player 0 plays a sound racing/hitting game; player 1 keeps its back checkers back."""
    def score(result: Position) -> float:
        mover, opponent = result.mover, result.opponent
        blots = sum(1 for i in range(24) if mover[i] == 1)
        if player == 0:
            return -_pips(mover) + 25 * opponent[24] - 4 * blots + 2 * sum(1 for i in range(6) if mover[i] >= 2)
        back = sum(mover[17:24]) + mover[24]
        return 10 * back + _pips(mover) * 0.1 - blots
    return max(results, key=lambda r: (score(r), r.id))


def _nardy_choice(rng: random.Random, results: dict[Position, Play]) -> Position:
    ordered = sorted(results, key=lambda r: (_pips(r.mover), r.id))
    return ordered[0] if rng.random() < 0.7 else rng.choice(ordered)


def _illegal_variant(before: Position, legal: dict[Position, Play], result: Position) -> Position | None:
    """``result`` with one checker moved one pip further: a clear, physically possible illegal play."""
    mover = list(result.mover)
    for point in range(24, 1, -1):
        if mover[point - 1] and mover[point - 1] != before.mover[point - 1]:
            target = point - 1
            opp = plays.to_boards(result)[1]
            if opp[target]:
                continue
            changed = list(mover)
            changed[point - 1] -= 1
            changed[target - 1] += 1
            candidate = Position(tuple(changed), result.opponent, result.variant)
            if candidate not in legal and candidate.is_valid():
                return candidate
    return None


def _refused_block(before: Position, dice: Dice, legal: dict[Position, Play], options: dict[str, object]) -> Position | None:
    """A result that uses the whole roll but closes an illegal six-point block, if this roll has one."""
    variant = find_variant(before.variant)
    rules = plays.Ruleset.of(variant, variant.validate_options(options))
    steps = (dice.first,) * 4 if dice.is_double else (dice.first, dice.second)
    search = plays._search(before, steps, False, rules, 1, frozenset(), max(steps))
    most = max(len(p.steps) for p in legal.values())
    path = plays._opponent_path(before.variant)
    for (me, opp), node in sorted(search.nodes.items(), key=lambda kv: kv[0]):
        if node.violations or node.used != most:
            continue
        if plays.illegal_block(me, opp, path, rules.prime_needs_home):
            return plays.from_boards(me, opp, before.variant)
    return None


def backgammon_game(seed: int = 5, match_length: int = 7) -> GameScript:
    """A backgammon game with a hit and bar entry, a cocked roll, an illegal play corrected, a
    double and a take, to a gammon.  The first seed from ``seed`` on that gives all of it."""
    for attempt in range(seed, seed + 200):
        script = _backgammon_attempt(attempt, match_length)
        facts = describe(script)
        if facts["gammon"] and facts["hit"] and facts["bar_entry"] and len(script.turns) <= 70:
            return script
    raise RuntimeError("no scripted backgammon game found")  # pragma: no cover


def _backgammon_attempt(seed: int, match_length: int) -> GameScript:
    rng = random.Random(seed)
    while True:
        opening = (rng.randint(1, 6), rng.randint(1, 6))
        if opening[0] != opening[1]:
            break
    player = 0 if opening[0] > opening[1] else 1
    dice = Dice(max(opening), min(opening))
    position = starting_position()
    turns: list[Turn] = []
    doubled = False
    for index in range(200):
        legal = legal_results(position, dice)
        result = _backgammon_choice(player, legal)
        turn = Turn(player, (dice.first, dice.second), position, result, legal[result])
        if index == 5:
            turn.void_first = "cocked"
        if index == 6 and player == 0 or index == 7 and player == 0:
            bad = _illegal_variant(position, legal, result)
            if bad is not None and not any(t.illegal_first for t in turns):
                turn.illegal_first = bad
        if not doubled and player == 0 and index >= 8 and _pips(position.opponent) - _pips(position.mover) > 12:
            turn.cube = [("double", 0), ("take", 1)]
            doubled = True
        turns.append(turn)
        if result.borne_off() == 15:
            break
        position = result.swapped()
        player = 1 - player
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
    return GameScript("backgammon", {}, match_length, ("Ana", "Ion"), opening, turns, "Backgammon: Ana v Ion")


def nardy_game(seed: int = 11) -> GameScript:
    """A long nardy game opening with 6-6 (two checkers leave the head) and with a refused block."""
    for attempt in range(seed, seed + 300):
        script = _nardy_attempt(attempt)
        facts = describe(script)
        if facts["head_exception"] and facts["refused_block"]:
            return script
    raise RuntimeError("no scripted nardy game found")  # pragma: no cover


def _nardy_attempt(seed: int) -> GameScript:
    rng = random.Random(seed)
    opening = (5, 2)
    player = 0
    position = starting_position("nardy")
    turns: list[Turn] = []
    first = [True, True]
    dice = Dice(6, 6)  # the starter's first roll: the head exception
    refused = False
    for _ in range(400):
        legal = legal_results(position, dice, first_turn=first[player])
        result = _nardy_choice(rng, legal)
        turn = Turn(player, (dice.first, dice.second), position, result, legal[result])
        if not refused and not first[player]:
            block = _refused_block(position, dice, legal, {})
            if block is not None:
                turn.illegal_first = block
                turn.illegal_reason = "six-point block"
                refused = True
        first[player] = False
        turns.append(turn)
        if result.borne_off() == 15:
            break
        position = result.swapped()
        player = 1 - player
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
    return GameScript("nardy", {}, 0, ("Aziz", "Lola"), opening, turns, "Long nardy: Aziz v Lola")


def describe(script: GameScript) -> dict[str, bool | int]:
    """What a script contains (used by tests and printed by the demo)."""
    hit = bar_entry = gammon = head_exception = False
    for turn in script.turns:
        steps = turn.play.steps
        hit = hit or any(s.hit for s in steps)
        bar_entry = bar_entry or any(s.start == 25 for s in steps)
        if script.variant == "nardy" and turn is script.turns[0]:
            head_exception = sum(1 for s in steps if s.start == 24) == 2
    last = script.turns[-1] if script.turns else None
    if last is not None and last.result.borne_off() == 15:
        gammon = last.result.borne_off(False) == 0
    return {
        "turns": len(script.turns),
        "hit": hit,
        "bar_entry": bar_entry,
        "void_roll": any(t.void_first for t in script.turns),
        "illegal_corrected": any(t.illegal_first is not None for t in script.turns),
        "double_take": any(t.cube for t in script.turns),
        "gammon": gammon,
        "head_exception": head_exception,
        "refused_block": any(t.illegal_reason == "six-point block" for t in script.turns),
        "finished": bool(last is not None and last.result.borne_off() == 15),
    }


def script_events(script: GameScript) -> list[Any]:
    """The game as the match events a perfect referee would record (no camera involved)."""
    from rules import match

    events: list[match.Event] = []
    if script.opening is not None:
        events.append(match.OpeningRoll(die0=script.opening[0], die1=script.opening[1]))
    for index, turn in enumerate(script.turns):
        for action, player in turn.cube:
            kinds = {"double": match.Double, "take": match.Take, "drop": match.Drop}
            events.append(kinds[action](player=player))
        if not (index == 0 and script.variant == "backgammon" and script.opening is not None):
            events.append(match.Roll(player=turn.player, dice=turn.dice))
        events.append(match.Play(player=turn.player, result=turn.result, steps=turn.play.steps))
    return events
