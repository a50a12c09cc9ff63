"""LED link round trip through a pseudo-terminal: show() -> ACK time, clean and under faults.

Run: .venv/bin/python bench/leds.py [--states N] [--seed S]
Prints median and p95 of the time from show() until the controller acked that state, and the
retries needed with 10% of frames dropped and 1% of bytes corrupted (the simulated controller).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.link import SerialLink  # noqa: E402
from firmware_bridge.protocol import Led, LedState  # noqa: E402
from firmware_bridge.sim import Faults, SimulatedController  # noqa: E402


def _state(rng: random.Random) -> LedState:
    leds = {rng.randrange(29): Led((rng.randrange(1, 256), 0, rng.randrange(256)), rng.random() < 0.3)
            for _ in range(rng.randint(1, 6))}
    return LedState.of(leds, 128)


def run(label: str, faults: Faults, states: int, seed: int, ack_timeout: float) -> None:
    rng = random.Random(seed)
    times: list[float] = []
    with SimulatedController(30, seed=seed, faults=faults) as sim, \
            SerialLink(sim.port, ack_timeout=ack_timeout, heartbeat_s=1.0) as link:
        link.wait_synced(5.0)
        base = link.status()["retries"]
        per_state: list[int] = []
        for _ in range(states):
            state = _state(rng)
            before = link.status()["retries"]
            started = time.perf_counter()
            link.show(state)
            if not link.wait_synced(10.0):
                print(f"{label}: state not acked within 10 s", file=sys.stderr)
                continue
            times.append(time.perf_counter() - started)
            per_state.append(link.status()["retries"] - before)
            if sim.shown.state != state:
                print(f"{label}: acked state not on display!", file=sys.stderr)
        status = link.status()
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"{label:<28} states={len(times):4d}  show->ack median={statistics.median(times) * 1e3:7.2f} ms"
          f"  p95={p95 * 1e3:7.2f} ms  max={times[-1] * 1e3:7.2f} ms")
    print(f"{'':<28} retries total={status['retries'] - base}  per state mean={statistics.mean(per_state):.2f}"
          f" max={max(per_state)}  naks={status['naks']}  bad frames={status['bad_frames']}"
          f"  (sim: {sim.stats.dropped_in + sim.stats.dropped_out} frames dropped,"
          f" {sim.stats.bytes_corrupted} bytes corrupted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ack-timeout", type=float, default=0.05,
                        help="link ack timeout in s (the production default is 0.25)")
    args = parser.parse_args()
    run("clean pty", Faults(), args.states, args.seed, args.ack_timeout)
    run("10% drop + 1% byte corrupt", Faults(drop=0.10, corrupt=0.01), args.states, args.seed, args.ack_timeout)


if __name__ == "__main__":
    main()
