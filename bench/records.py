"""Benchmark of the game records: journal appends with fsync, replay, and exports of a 25-game match.

Run: ``.venv/bin/python bench/records.py [--dir DIR] [--events N]``.  ``--dir`` should be on the
storage the referee writes to (an SD card on the Pi; ``/tmp`` may be a RAM disk).  Figures printed
side by side come from one run on this machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recording.export import render  # noqa: E402
from recording.journal import Header, Journal, replay  # noqa: E402
from rules import match  # noqa: E402
from rules.plays import legal_results  # noqa: E402


def random_match(games: int, seed: int = 7) -> list[match.Event]:
    """``games`` money games of backgammon with random legal plays and the odd cube action."""
    rng = random.Random(seed)
    state = match.new_match("backgammon", 0, check_plays=False)
    events: list[match.Event] = []

    def add(event: match.Event) -> None:
        nonlocal state
        state = match.apply(state, event)
        events.append(event)

    while len(state.results) < games:
        if state.phase in (match.OPENING, match.GAME_OVER):
            if state.results and state.phase == match.GAME_OVER and not state.result_confirmed:
                last = state.last_result
                assert last is not None
                add(match.GameEnd(last.winner, last.points, last.result))
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            add(match.OpeningRoll(a, b))
            continue
        assert state.turn is not None
        if state.phase == match.ROLL:
            if state.may_double(state.turn) == "" and state.cube < 4 and rng.random() < 0.02:
                taker = state.turn ^ 1
                add(match.Double(state.turn))
                add(match.Take(taker) if rng.random() < 0.7 else match.Drop(taker))
                continue
            add(match.Roll(state.turn, (rng.randint(1, 6), rng.randint(1, 6))))
            continue
        assert state.dice is not None
        results = legal_results(state.position, state.dice)
        result = rng.choice(sorted(results, key=lambda p: p.id))
        add(match.Play(state.turn, result, results[result].steps))
    last = state.last_result
    if last is not None and not state.result_confirmed:
        add(match.GameEnd(last.winner, last.points, last.result))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", default=None, help="where to write the journals (default: a temp dir)")
    parser.add_argument("--events", type=int, default=300, help="events appended one by one")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="referee-bench-", dir=args.dir))
    print(f"journal directory: {folder} (filesystem of {args.dir or tempfile.gettempdir()})")

    started = time.perf_counter()
    events = random_match(25)
    generated = time.perf_counter() - started
    print(f"25-game money match (random legal plays): {len(events)} events, generated in {generated:.2f} s")

    header = Header(players=("White", "Black"), device="bench")
    path = folder / "one-by-one.jsonl"
    journal = Journal.create(path, header, check_plays=False)
    sample = events[: args.events]
    times: list[float] = []
    for event in sample:
        start = time.perf_counter()
        journal.append(event)
        times.append(time.perf_counter() - start)
    journal.close()
    total = sum(times)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(
        f"append + fsync, one event at a time: {len(sample) / total:8.0f} events/s   "
        f"(mean {statistics.mean(times) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms per event)"
    )

    path = folder / "batch.jsonl"
    journal = Journal.create(path, header, check_plays=False)
    start = time.perf_counter()
    journal.append_many(events)
    batch = time.perf_counter() - start
    journal.close()
    print(f"append_many (one fsync for {len(events)} events): {len(events) / batch:8.0f} events/s   "
          f"(ratio to one-by-one: {len(events) / batch / (len(sample) / total):.1f}x)")

    for check in (False, True):
        start = time.perf_counter()
        opened = replay(path, check_plays=check)
        took = time.perf_counter() - start
        label = "judging every play" if check else "trusting the stored plays"
        print(f"replay of the 25-game journal ({label}): {took * 1e3:8.1f} ms")
    assert len(opened.state.results) == 25

    for fmt in ("mat", "sgf", "json", "txt"):
        start = time.perf_counter()
        text = render(opened, fmt)
        took = time.perf_counter() - start
        print(f"export {fmt:4s} of the 25-game match: {took * 1e3:8.1f} ms  ({len(text) / 1024:.0f} kB)")

    for item in folder.iterdir():
        os.unlink(item)
    folder.rmdir()


if __name__ == "__main__":
    main()
