"""GNU Backgammon (Debian ``gnubg``) as a live oracle for the backgammon rules engine.

Test-only.  gnubg runs non-interactively with its embedded Python (``gnubg -t -q -r -p``) on the
script :mod:`tests.rules.gnubg_inside`, which answers jobs:

* :func:`selfplay_cases`: seeded games gnubg plays against itself at 0-ply, analysed by gnubg at
  0-ply; each turn is a case (position before it, the dice, and gnubg's full set of legal
  results).  gnubg waits ~10 ms on its worker thread for every move it chooses, so the games are
  spread over a few gnubg processes that mostly sleep; each game is seeded on its own, so the
  corpus does not depend on how the games are spread.
* :func:`hint_results`: any (position, dice) through ``set board`` / ``set dice`` / ``hint``.

Results are gnubg Position IDs seen from the mover (not swapped), the form ``legal_results``
keys use.  A roll that cannot be played has no results (``legal_results`` gives the unchanged
position with an empty play; :func:`our_results` maps that to the empty set).
"""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

GNUBG = Path(os.environ.get("REFEREE_GNUBG", "/usr/games/gnubg"))
INSIDE = Path(__file__).with_name("gnubg_inside.py")
#: Games and first seed of the cross-check corpus: about 55 turns a game, > 2,000 distinct cases.
GAMES = 44
FIRST_SEED = 20261201
PROCESSES = 6
OPENING_ID = "4HPwATDgc/ABMA"


class OracleError(RuntimeError):
    """gnubg failed or answered something the oracle cannot use."""


def available() -> bool:
    return GNUBG.is_file() and os.access(GNUBG, os.X_OK)


@dataclass(frozen=True)
class Case:
    """One (position, roll) with gnubg's answer: every legal result, mover's view."""

    position: str
    dice: tuple[int, int]
    results: frozenset[str]
    played: str | None = None
    source: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[str, tuple[int, int]]:
        return self.position, (max(self.dice), min(self.dice))

    @property
    def roll(self) -> str:
        return f"{self.dice[0]}{self.dice[1]}"


def run_job(job: dict[str, Any], timeout: float = 300.0) -> dict[str, Any]:
    """Run one job in one gnubg process and return its JSON answer."""
    if not available():
        raise OracleError(f"{GNUBG} is not installed")
    with tempfile.TemporaryDirectory(prefix="referee-gnubg-") as folder:
        job_path = Path(folder) / "job.json"
        out_path = Path(folder) / "answer.json"
        job_path.write_text(json.dumps({**job, "out": str(out_path)}), encoding="utf-8")
        env = {**os.environ, "REFEREE_GNUBG_JOB": str(job_path), "HOME": folder}
        completed = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-p", str(INSIDE)],
            cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, timeout=timeout, check=False,
        )
        if not out_path.exists():
            tail = completed.stderr.decode(errors="replace").strip().splitlines()[-5:]
            raise OracleError(f"gnubg exited {completed.returncode} without an answer: {tail}")
        answer: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    if "error" in answer:
        raise OracleError(f"gnubg job {job['kind']} failed: {answer['error']}")
    return answer


def _case(raw: dict[str, Any], source: str) -> Case:
    d1, d2 = raw["dice"]
    return Case(raw["position"], (int(d1), int(d2)), frozenset(raw["results"]), raw.get("played"), source)


def selfplay_cases(games: int = GAMES, first_seed: int = FIRST_SEED,
                   processes: int = PROCESSES) -> list[Case]:
    """Distinct (position, roll) cases from ``games`` seeded gnubg self-play games, in game order."""
    seeds = list(range(first_seed, first_seed + games))
    chunks = [seeds[i::processes] for i in range(processes) if seeds[i::processes]]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        answers = list(pool.map(lambda chunk: run_job({"kind": "selfplay", "seeds": chunk}), chunks))
    raw = sorted((c for a in answers for c in a["cases"]), key=lambda c: (c["seed"], c["turn"]))
    cases: dict[tuple[str, tuple[int, int]], Case] = {}
    for item in raw:
        case = _case(item, f"seed {item['seed']} turn {item['turn']}")
        if case.played is not None and case.played not in case.results:
            raise OracleError(f"{case.source}: gnubg's own play {case.played} is not in its list")
        cases.setdefault(case.key, case)
    return list(cases.values())


def hint_results(queries: Iterable[tuple[str, int, int]], processes: int = 1) -> list[Case]:
    """gnubg's legal results for each (position ID, die, die) through its 0-ply hint, in order."""
    items = [(str(p), int(a), int(b)) for p, a, b in queries]
    chunks = [items[i::processes] for i in range(processes) if items[i::processes]]
    if not chunks:
        return []
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        answers = list(pool.map(lambda chunk: run_job({"kind": "hint", "cases": chunk}), chunks))
    found = {(c["position"], tuple(c["dice"])): c for a in answers for c in a["cases"]}
    return [_case(found[(p, (a, b))], "hint") for p, a, b in items]


def random_queries(seed: int, count: int) -> list[tuple[str, int, int]]:
    """Seeded random legal-looking positions with a roll, weighted towards the rare rules.

    Self-play seldom meets some situations (a bear-off where only the larger die may take the
    highest checker, several checkers on the bar against a closed board, a few checkers left); a
    third of these positions are bear-offs, a third have checkers on the bar, the rest anything.
    """
    rng = random.Random(seed)
    queries: list[tuple[str, int, int]] = []
    while len(queries) < count:
        kind = len(queries) % 3
        mover = [0] * 25
        if kind == 0:
            spots = list(range(6)) if rng.random() < 0.75 else list(range(9))
            for _ in range(rng.randint(1, 15)):
                mover[rng.choice(spots)] += 1
        else:
            spots = rng.sample(range(24), rng.randint(1, 10))
            total = rng.randint(2, 15)
            mover[24] = rng.randint(1, 3) if kind == 1 else 0
            for _ in range(total - mover[24]):
                mover[rng.choice(spots)] += 1
        free = [j for j in range(24) if mover[23 - j] == 0]  # opponent's own index j = my point 24 - j
        if kind == 1:
            spots = [j for j in free if j < 6] + rng.sample(free, min(len(free), 2))
        else:
            spots = rng.sample(free, rng.randint(1, min(len(free), 10)))
        opponent = [0] * 25
        opponent[24] = rng.choice([0, 0, 0, 1, 2])
        for _ in range(rng.randint(opponent[24] + 1, 15) - opponent[24]):
            opponent[rng.choice(spots)] += 1
        queries.append((encode(mover, opponent), rng.randint(1, 6), rng.randint(1, 6)))
    return queries


@cache
def cached_selfplay_cases() -> tuple[Case, ...]:
    """The cross-check corpus, computed once per test session."""
    return tuple(selfplay_cases())


# --- our side ---------------------------------------------------------------------------------

def our_results(position_id: str, dice: Sequence[int]) -> frozenset[str]:
    """Result IDs of ``rules.plays.legal_results``; an unplayable roll gives the empty set."""
    from rules.plays import legal_results
    from rules.position import Position

    found = legal_results(Position.from_id(position_id), tuple(dice))
    return frozenset(result.id for result, play in found.items() if play.steps)


def gnubg_nn_results(position_id: str, dice: Sequence[int]) -> frozenset[str] | None:
    """The same set from the PyPI ``gnubg_nn`` move generator, or None when it is not installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    board = gnubg_nn.board_from_position_id(position_id)
    keys = gnubg_nn.moves(board, int(dice[0]), int(dice[1]))
    boards = (gnubg_nn.board_from_position_key(key) for key in keys)
    return frozenset(gnubg_nn.position_id([list(side) for side in after]) for after in boards)


# --- IDs and coverage ------------------------------------------------------------------------

def encode(mover: Sequence[int], opponent: Sequence[int]) -> str:
    """gnubg Position ID of 25-count sides (points 1..24, bar), the side not on roll first."""
    bits: list[int] = []
    for side in (opponent, mover):
        for count in side:
            bits += [1] * count + [0]
    if len(bits) > 80:
        raise ValueError(f"{len(bits) - 50} checkers do not fit in a position ID (at most 30)")
    data = bytearray(10)
    for i, bit in enumerate(bits):
        data[i // 8] |= bit << (i % 8)
    return base64.b64encode(bytes(data)).decode("ascii")[:14]


def _sides(position_id: str) -> tuple[list[int], list[int]]:
    """(mover, opponent) 25-lists decoded without the project's code (gnubg's bit layout)."""
    data = base64.b64decode(position_id + "==")
    bits = [(data[i // 8] >> (i % 8)) & 1 for i in range(80)]
    sides: list[list[int]] = [[], []]
    side = count = 0
    for bit in bits:
        if side > 1:
            break
        if bit:
            count += 1
        else:
            sides[side].append(count)
            count = 0
            if len(sides[side]) == 25:
                side += 1
    return sides[1], sides[0]


def coverage(cases: Iterable[Case]) -> dict[str, int]:
    """How many cases exercise each rule the issue names."""
    counts = {"cases": 0, "bar_entry": 0, "hit": 0, "bear_off": 0, "no_move": 0, "doubles": 0,
              "partial": 0}
    for case in cases:
        counts["cases"] += 1
        mover, opponent = _sides(case.position)
        if mover[24]:
            counts["bar_entry"] += 1
        if case.dice[0] == case.dice[1]:
            counts["doubles"] += 1
        if not case.results:
            counts["no_move"] += 1
            continue
        after = [_sides(r) for r in case.results]
        if any(o[24] > opponent[24] for _, o in after):
            counts["hit"] += 1
        if any(sum(m) < sum(mover) for m, _ in after):
            counts["bear_off"] += 1
        pips = sum(n * (i + 1) for i, n in enumerate(mover))
        total = 4 * case.dice[0] if case.dice[0] == case.dice[1] else case.dice[0] + case.dice[1]
        if all(sum(m) == sum(mover) and pips - sum(n * (i + 1) for i, n in enumerate(m)) < total
               for m, _ in after):
            counts["partial"] += 1  # some dice could not be played (and nothing was borne off)
    return counts


def describe_mismatch(case: Case, ours: frozenset[str]) -> str:
    """One line to paste into ``referee plays``: what gnubg allows that we do not, and the reverse."""
    from rules.plays import legal_results
    from rules.position import Position

    missing = sorted(case.results - ours)
    found = legal_results(Position.from_id(case.position), case.dice)
    notation = {result.id: play.notation() for result, play in found.items()}
    extra = [f"{result} ({notation.get(result, '?')})" for result in sorted(ours - case.results)]
    return (f"position {case.position} dice {case.roll} ({case.source}): "
            f"missing (gnubg allows) {missing or '-'}; extra (gnubg forbids) {extra or '-'}")


# --- match play: the cube and resignations ------------------------------------------------------

def cube_answers(situations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each situation (length, score, cube, owner, crawford, player): does gnubg let the player
    on roll double?  Each answer is the situation plus ``allowed`` and gnubg's ``words``."""
    answer = run_job({"kind": "cube", "cases": list(situations)})
    cases: list[dict[str, Any]] = answer["cases"]
    return cases


def resign_answers(situations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each situation (length, score, cube, owner, jacoby, value, player): the player on roll
    resigns ``value`` and the other accepts; each answer adds gnubg's ``winner`` and ``points``."""
    answer = run_job({"kind": "resign", "cases": list(situations)})
    cases: list[dict[str, Any]] = answer["cases"]
    return cases
