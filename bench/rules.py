"""Speed and memory of `rules.plays.legal_results` (not a test; prints).

    .venv/bin/python bench/rules.py [--cases 2400] [--seed 2026] [--passes 5] [--no-cli] [--gnubg-corpus]

Backgammon: a fixed corpus of (position, roll) cases met in seeded random self-play through our
own engine (no gnubg needed), timed call by call: mean and p99 microseconds per call.  In the same
run the same corpus goes through the PyPI package `gnubg-nn` (`gnubg_nn.moves(board, d1, d2)`,
GNU Backgammon's move generator; x86 test extra) when it is installed, and the ratio is printed
(issue 2's goal: ours within 5x).  Boards are converted before timing on both sides.  Then the
same for long nardy (first turns included) when the registry has it, `referee plays --batch` on
the backgammon corpus (one process, as outside checks run it), and tracemalloc peaks over repeated
passes: they must not grow (no unbounded caches).  ``--gnubg-corpus`` times the backgammon engine
on the cross-check corpus instead (positions from gnubg's 0-ply self-play; needs /usr/games/gnubg),
whose positions are more like real games than random self-play's.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.plays import legal_results  # noqa: E402
from rules.position import Position, starting_position  # noqa: E402
from rules.steps import Dice  # noqa: E402
from rules.variants import all_variants  # noqa: E402

Case = tuple[Position, Dice, bool]
GOAL_RATIO = 5.0


def corpus(variant: str, seed: int, count: int) -> list[Case]:
    """``count`` distinct (position, dice, first_turn) cases from seeded random self-play.

    Moves are drawn uniformly among the legal results sorted by ID, so the corpus depends only on
    the seed and on the rules (not on the order the engine happens to list results in).
    """
    rng = random.Random(seed)
    seen: set[tuple[str, int, int, bool]] = set()
    cases: list[Case] = []
    while len(cases) < count:
        position = starting_position(variant)
        first = [True, True]
        for turn in range(600):
            side = turn % 2
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            key = (position.id, dice.high, dice.low, first[side])
            if key not in seen:
                seen.add(key)
                cases.append((position, dice, first[side]))
                if len(cases) == count:
                    break
            results = sorted(legal_results(position, dice, first_turn=first[side]), key=lambda p: p.id)
            first[side] = False
            position = rng.choice(results)
            if position.borne_off(True) == 15:
                break
            position = position.swapped()
    return cases


def gnubg_corpus() -> list[Case]:
    """The live cross-check corpus (tests/rules/gnubg_oracle.py): gnubg self-play positions."""
    from tests.rules.gnubg_oracle import selfplay_cases

    return [(Position.from_id(c.position), Dice(*c.dice), False) for c in selfplay_cases()]


def time_calls(call: Callable[[int], object], n: int, passes: int) -> list[float]:
    """Microseconds of every call over ``passes`` passes (after one untimed warm-up pass)."""
    clock = time.perf_counter_ns
    for i in range(n):
        call(i)
    samples: list[float] = []
    for _ in range(passes):
        for i in range(n):
            start = clock()
            call(i)
            samples.append((clock() - start) / 1000)
    return samples


def summary(samples: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.fmean(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def line(label: str, samples: Sequence[float], n: int) -> float:
    mean, p99 = summary(samples)
    print(f"  {label:<34} mean {mean:8.1f} us   p99 {p99:8.1f} us   ({n} cases x {len(samples) // n} passes)")
    return mean


def bench_backgammon(cases: list[Case], passes: int) -> None:
    print(f"backgammon: {len(cases)} distinct cases")
    ours = line("rules.plays.legal_results", time_calls(
        lambda i: legal_results(cases[i][0], cases[i][1]), len(cases), passes), len(cases))
    try:
        import gnubg_nn  # GPL test extra, never imported by the project
    except ImportError:
        print("  gnubg_nn not installed (x86 test extra): no ratio")
        return
    boards = [gnubg_nn.board_from_position_id(p.id) for p, _, _ in cases]
    rolls = [(d.first, d.second) for _, d, _ in cases]
    theirs = line("gnubg_nn.moves", time_calls(
        lambda i: gnubg_nn.moves(boards[i], *rolls[i]), len(cases), passes), len(cases))
    same = sum(
        len(legal_results(p, d)) == max(1, len(gnubg_nn.moves(b, d.first, d.second)))
        for (p, d, _), b in zip(cases, boards, strict=True)
    )
    ratio = ours / theirs
    verdict = "goal met" if ratio <= GOAL_RATIO else "goal NOT met"
    print(f"  ratio ours / gnubg-nn (mean): {ratio:.2f}x  ({verdict}: within {GOAL_RATIO:g}x)")
    ids = [p.id for p, _, _ in cases]

    def ours_by_id(i: int) -> object:
        return [r.id for r in legal_results(Position.from_id(ids[i]), rolls[i])]

    def theirs_by_id(i: int) -> object:
        board = gnubg_nn.board_from_position_id(ids[i])
        return [gnubg_nn.position_id([list(side) for side in gnubg_nn.board_from_position_key(key)])
                for key in gnubg_nn.moves(board, *rolls[i])]

    by_id = line("ID -> result IDs, ours", time_calls(ours_by_id, len(cases), 1), len(cases))
    by_id_theirs = line("ID -> result IDs, gnubg-nn", time_calls(theirs_by_id, len(cases), 1), len(cases))
    print(f"  ratio ours / gnubg-nn, IDs in and out (mean): {by_id / by_id_theirs:.2f}x")
    print(f"  result counts agree with gnubg-nn on {same} of {len(cases)} cases")


def bench_variant(variant: str, cases: list[Case], passes: int) -> None:
    firsts = sum(first for _, _, first in cases)
    print(f"{variant}: {len(cases)} distinct cases ({firsts} first turns)")
    line(f"rules.plays.legal_results ({variant})", time_calls(
        lambda i: legal_results(cases[i][0], cases[i][1], first_turn=cases[i][2]), len(cases), passes),
        len(cases))


def bench_cli(cases: list[Case]) -> None:
    """`referee plays --batch` over the corpus: one process, start-up included."""
    script = Path(sys.executable).with_name("referee")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "controller.cli"]
    with tempfile.TemporaryDirectory() as folder:
        queries = Path(folder) / "queries.jsonl"
        queries.write_text("".join(
            json.dumps({"variant": p.variant, "position": p.id, "dice": [d.first, d.second],
                        "first_turn": first, "options": {}}) + "\n"
            for p, d, first in cases), encoding="utf-8")
        start = time.perf_counter()
        done = subprocess.run([*command, "plays", "--batch", str(queries)], capture_output=True,
                              text=True, cwd=ROOT, check=False)
        elapsed = time.perf_counter() - start
    answers = done.stdout.splitlines()
    errors = sum('"error"' in a for a in answers)
    print(f"  referee plays --batch: {elapsed:.2f} s for {len(cases)} queries "
          f"({elapsed / len(cases) * 1e6:.0f} us per query incl. start-up; exit {done.returncode}, "
          f"{len(answers)} answers, {errors} errors)")


def bench_memory(groups: list[list[Case]], rounds: int) -> None:
    """tracemalloc peak of each round over the corpora: bounded means later rounds stay flat.

    The first round may keep a little (lookup tables built once); later rounds must not.
    """
    tracemalloc.start()
    peaks: list[float] = []
    currents: list[float] = []
    for _ in range(rounds):
        tracemalloc.reset_peak()
        for cases in groups:
            for position, dice, first in cases:
                legal_results(position, dice, first_turn=first)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        peaks.append(peak / 1024)
        currents.append(current / 1024)
    tracemalloc.stop()
    growth = currents[-1] - currents[1]
    bounded = peaks[-1] <= peaks[1] * 1.05 + 64 and growth < 64
    print("memory (tracemalloc, KiB): peak per round " + " ".join(f"{p:.0f}" for p in peaks)
          + "; retained after each round " + " ".join(f"{c:.0f}" for c in currents)
          + f"  -> {'bounded' if bounded else 'GROWING'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2400, help="cases per variant (at least 2000)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--passes", type=int, default=5, help="timed passes over each corpus")
    parser.add_argument("--rounds", type=int, default=4, help="memory rounds (at least 2)")
    parser.add_argument("--memory-cases", type=int, default=600, help="cases per corpus in each memory round")
    parser.add_argument("--no-cli", action="store_true", help="skip the `referee plays --batch` timing")
    parser.add_argument("--gnubg-corpus", action="store_true",
                        help="backgammon cases from gnubg self-play (needs /usr/games/gnubg)")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    backgammon = gnubg_corpus() if args.gnubg_corpus else corpus("backgammon", args.seed, args.cases)
    names = {v.name for v in all_variants()}
    nardy = corpus("nardy", args.seed, args.cases) if "nardy" in names else []
    print(f"corpora built in {time.perf_counter() - start:.1f} s (seed {args.seed})")

    bench_backgammon(backgammon, args.passes)
    if not args.no_cli:
        bench_cli(backgammon)
    if nardy:
        bench_variant("nardy", nardy, args.passes)
    else:
        print("nardy: not in rules.variants yet")
    start = time.perf_counter()
    bench_memory([backgammon[:args.memory_cases], nardy[:args.memory_cases]], args.rounds)
    print(f"  ({time.perf_counter() - start:.1f} s under tracemalloc)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
