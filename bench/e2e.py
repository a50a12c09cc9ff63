"""End-to-end: latency from the frame that ends a turn to the LED frame reaching the (simulated)
controller, and the frame rate the referee loop sustains at 1280x720.

Runs the built-in backgammon script through the real pipeline (renderer → gate → reader →
referee → journal → serial link → simulated controller on a pseudo-terminal).  Rendering the
frames is not part of the loop and is timed apart.  Usage: python bench/e2e.py [turns]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The repository first: bench/rules.py must not shadow the rules package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.demo import play_script  # noqa: E402
from controller.script import backgammon_game  # noqa: E402
from controller.table import Table  # noqa: E402
from firmware_bridge import open_leds  # noqa: E402


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    leds = open_leds("sim")
    feed_started: list[float] = []
    verdicts: list[tuple[float, float]] = []  # (feed start, verdict emitted)
    loop_seconds: list[float] = []

    def on_table(table: Table) -> None:
        original = table.feed

        def timed(frame: Any, now: float | None = None) -> Any:
            t0 = time.monotonic()
            feed_started.append(t0)
            try:
                return original(frame, now)
            finally:
                loop_seconds.append(time.monotonic() - t0)

        table.feed = timed  # type: ignore[method-assign]

    def listener(kind: str, data: dict[str, Any]) -> None:
        if kind in ("play", "illegal"):
            verdicts.append((feed_started[-1], time.monotonic()))

    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run = play_script(backgammon_game(), Path(out), leds, max_turns=turns, listeners=[listener],
                          on_table=on_table)
        total = time.perf_counter() - t0
        leds.wait_synced(2.0)
        shown = leds.history()
    leds.close()
    latencies = []
    for started, _ in verdicts:
        after = [s.t for s in shown if s.t >= started]
        if after:
            latencies.append((min(after) - started) * 1000)
    latencies.sort()
    loop = sum(loop_seconds)
    print(f"turns refereed: {turns}; frames: {run.frames}; verdicts: {len(verdicts)}")
    if latencies:
        p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
        print(f"turn-end frame -> LED frame at the controller: median {statistics.median(latencies):.1f} ms, "
              f"p95 {p95:.1f} ms (goal: median <= 300 ms)")
    print(f"referee loop: {run.frames / loop:.1f} frames/s at 1280x720 ({1000 * loop / run.frames:.1f} ms per frame, "
          f"gate on every frame, a read per settled spell)")
    print(f"whole run incl. rendering the frames: {total:.1f} s; rendering: {total - loop:.1f} s")
    print("note: a turn is judged once the scene has been still for settle_seconds (0.6 s of camera time);"
          " that wait is a setting, not processing, and is not in the latency above")


if __name__ == "__main__":
    main()
