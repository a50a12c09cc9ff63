"""Benchmark of the club: many tables publishing into one Mosquitto and one club server on loopback.

Run: ``.venv/bin/python bench/club.py [--tables 5] [--minutes 0.5] [--speed 10]``; the full run of
issue 20 is ``--tables 50 --minutes 10``.  Each simulated table is the real referee side: a journal
that stores the events of a recorded match (tests/data/gnubg/sample_5pt.mat, 305 events; a new
match when it ends) at game speed times ``--speed`` (game speed: one event every
``--event-s`` seconds, a roll and a play per 16-second turn), each announcement waking the real
:class:`controller.club_link.ClubPublisher`.  The club server is the real ``referee club`` process.

Printed, from one run on this machine:

* **event -> dashboard**: from the moment an event is fsynced in a table's journal to the moment
  ``/club/state.json`` (polled every ``--poll-ms``) counts it; p50 / p95 / max per interval and
  overall (the poll interval is part of the figure: it is what a dashboard sees).
* **server**: the club server's CPU (% of one core) and resident memory per interval.
* **check**: at the end, every club copy is compared with its table's journal, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.club.broker import Broker, free_port, wait_port  # noqa: E402
from tests.club.tables import SimulatedTable, recorded_events  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def proc_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds used, resident kB) of a process."""
    with open(f"/proc/{pid}/stat") as stream:
        fields = stream.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    rss = 0
    with open(f"/proc/{pid}/status") as stream:
        for line in stream:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return cpu, rss


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Poller(threading.Thread):
    """A dashboard: polls state.json and notes when each table's event count first reaches each value.

    A table whose count drops has started its next match (``round`` counts them).
    """

    def __init__(self, port: int, every_s: float) -> None:
        super().__init__(daemon=True)
        self.url = f"http://127.0.0.1:{port}/club/state.json"
        self.every_s = every_s
        self.seen: dict[str, tuple[int, int]] = {}  # table -> (round, events counted)
        self.first_seen: dict[tuple[str, int, int], float] = {}  # (table, round, seq) -> wall time
        self.stop = threading.Event()
        self.errors = 0
        self.polls = 0
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    data = json.loads(response.read())
                now = time.time()
                self.polls += 1
                with self.lock:
                    for row in data["tables"]:
                        table, count = row["table"], int(row["events"])
                        rnd, before = self.seen.get(table, (0, 0))
                        if count < before:
                            rnd, before = rnd + 1, 0
                        for seq in range(before + 1, count + 1):
                            self.first_seen.setdefault((table, rnd, seq), now)
                        self.seen[table] = (rnd, max(before, count))
            except (OSError, ValueError):
                self.errors += 1
            self.stop.wait(max(0.0, self.every_s - (time.monotonic() - started)))

    def caught_up(self, table: SimulatedTable) -> bool:
        return self.seen.get(table.name, (0, 0)) >= (table.round, len(table.journal.records))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--minutes", type=float, default=0.5)
    parser.add_argument("--speed", type=float, default=10.0, help="times game speed (default 10)")
    parser.add_argument("--event-s", type=float, default=8.0, help="seconds between events at game speed")
    parser.add_argument("--poll-ms", type=float, default=100.0, help="the dashboard's polling interval")
    parser.add_argument("--interval-s", type=float, default=10.0, help="reporting interval")
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="bench-club-"))
    (work / "broker").mkdir()
    broker = Broker(work / "broker").start()
    web_port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with open(work / "club.log", "wb") as log:
        club = subprocess.Popen([sys.executable, "-m", "controller.cli", "club", "--broker", broker.url,
                                 "--host", "127.0.0.1", "--port", str(web_port), "--data-dir", str(work / "club")],
                                stdout=log, stderr=log, env=env, cwd=ROOT)
    wait_port(web_port, timeout=30)
    header, events = recorded_events(work)
    gap = args.event_s / args.speed
    print(f"club bench: {args.tables} tables, one event every {gap:.2f} s each (game speed x{args.speed:g}), "
          f"{args.minutes:g} min; broker {broker.url}; club server pid {club.pid}; work dir {work}", flush=True)
    tables: list[SimulatedTable] = []
    poller = Poller(web_port, args.poll_ms / 1000)
    poller.start()
    latencies: list[tuple[float, float]] = []  # (stored at, latency)
    samples: list[tuple[float, float, int, int, int]] = []
    try:
        for n in range(1, args.tables + 1):
            tables.append(SimulatedTable(f"T{n}", work / "tables" / f"T{n}", header, events, broker.url).start())
        due = {t.name: time.monotonic() + rng.uniform(0, gap) for t in tables}
        t0 = time.monotonic()
        end = t0 + args.minutes * 60
        next_sample = t0
        cpu0, _ = proc_usage(club.pid)
        last_cpu, last_t = cpu0, t0
        print(f"{'t (s)':>6} {'events':>7} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'server CPU %':>12} "
              f"{'RSS MB':>7} {'backlog':>7}", flush=True)
        interval_start = time.time()
        while time.monotonic() < end:
            now = time.monotonic()
            for table in tables:
                if now >= due[table.name]:
                    if table.done:
                        table.next_match()
                    table.step()
                    due[table.name] += gap * rng.uniform(0.5, 1.5)
            if now >= next_sample + args.interval_s:
                next_sample = now
                cpu, rss = proc_usage(club.pid)
                cpu_pct = 100 * (cpu - last_cpu) / (now - last_t)
                last_cpu, last_t = cpu, now
                window = collect(tables, poller, interval_start, time.time() - 2.0)
                latencies.extend(window)
                interval_start = time.time() - 2.0
                values = [lat for _, lat in window]
                backlog = sum(t.publisher.backlog() for t in tables)
                stored = sum(len(t.stored_at) for t in tables)
                samples.append((now - t0, cpu_pct, rss, stored, backlog))
                print(f"{now - t0:6.0f} {stored:7d} {pct(values, .5) * 1000:7.0f} {pct(values, .95) * 1000:7.0f} "
                      f"{(max(values) if values else float('nan')) * 1000:7.0f} {cpu_pct:12.1f} {rss / 1024:7.1f} "
                      f"{backlog:7d}", flush=True)
            time.sleep(0.01)
        # let the last events arrive, then check the copies
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(poller.caught_up(t) for t in tables):
            time.sleep(0.1)
        latencies.extend(collect(tables, poller, interval_start, time.time() + 1))
        cpu_end, rss_end = proc_usage(club.pid)
        values = [lat for _, lat in latencies]
        missing = [t.name for t in tables if not poller.caught_up(t)]
        journals = [path for t in tables for path in t.paths]
        equal = sum((work / "club" / path.parent.name / path.name).exists()
                    and (work / "club" / path.parent.name / path.name).read_bytes() == path.read_bytes()
                    for path in journals)
        seconds = time.monotonic() - t0
        print(f"\nevent -> dashboard over {len(values)} events: p50 {pct(values, .5) * 1000:.0f} ms, "
              f"p95 {pct(values, .95) * 1000:.0f} ms, max {max(values, default=float('nan')) * 1000:.0f} ms "
              f"(dashboard polls every {args.poll_ms:.0f} ms; {poller.polls} polls, {poller.errors} failed)")
        print(f"club server: CPU {100 * (cpu_end - cpu0) / seconds:.1f} % of one core on average, RSS {rss_end / 1024:.1f} MB "
              f"at the end (first sample {samples[0][2] / 1024 if samples else float('nan'):.1f} MB)")
        print(f"club copies equal to the tables' journals: {equal} of {len(journals)}; "
              f"tables behind on the dashboard: {missing or 'none'}")
        grid_ms = []
        for _ in range(5):
            started = time.perf_counter()
            with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/club/grid", timeout=30) as response:
                size = len(response.read())
            grid_ms.append((time.perf_counter() - started) * 1000)
        print(f"dashboard grid of {len(tables)} mini-boards: {pct(grid_ms, .5):.0f} ms to serve ({size // 1024} kB), "
              f"median of 5")
        own_cpu = os.times()
        print(f"the {len(tables)} simulated tables (this process): {own_cpu.user + own_cpu.system:.1f} s CPU")
        return 0 if equal == len(journals) and not missing else 1
    finally:
        poller.stop.set()
        for table in tables:
            table.close(timeout=2)
        club.terminate()
        club.wait(timeout=20)
        broker.stop()


def collect(tables: list[SimulatedTable], poller: Poller, since: float, until: float) -> list[tuple[float, float]]:
    """(stored at, latency) of the events stored in [since, until) that the dashboard has shown."""
    out = []
    with poller.lock:
        for table in tables:
            for seq, stored in table.stored_at.items():
                if since <= stored < until:
                    shown = poller.first_seen.get((table.name, seq[0], seq[1]))
                    if shown is not None:
                        out.append((stored, max(0.0, shown - stored)))
    return out


if __name__ == "__main__":
    sys.exit(main())
