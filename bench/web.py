"""Benchmark of the companion page: event -> browser DOM latency, and simultaneous SSE viewers.

Run: ``.venv/bin/python bench/web.py [--events N] [--max-viewers N]``.  Everything stays on
loopback; loops are bounded.  Figures printed side by side come from one run on this machine:

Both measure the server the referee really runs: :func:`controller.web.start_page` (the page's
event-driven server, :mod:`web_ui.server`) over the real referee (``tests.webref.table.RealTable``:
journal, referee, signals, hub), fed what a camera would read.

* **latency**: a player rolls at the real referee; Chromium (Debian's, through Playwright) shows the
  new dice in the DOM.  Median and p95 over ``--events`` rolls, next to the same latency seen by a
  bare SSE client (no browser), so the browser's share is visible.
* **viewers**: for 8, 16, 32, … up to ``--max-viewers`` open event streams on one server (its
  usual 8 threads: a viewer holds none), the time until every viewer has received the referee's
  roll.  A level is sustained when every viewer gets the event within one second; ``--viewers N``
  measures one level only (the issue's goal: 100).
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
DICE = [(a, b) for a in range(1, 7) for b in range(1, 7) if a != b]


class Server:
    """The referee's page server over the real referee (see the module docstring)."""

    def __init__(self, data: Path) -> None:
        from tests.webref.table import RealTable

        self.table = RealTable(data, players=("Ana", "Ion"), pin="2468")
        self.hub = self.table.hub
        self.app = None
        self.port = self.table.port
        self.table.start(3, 1)
        self.table.play("8/5 6/5")

    def roll(self, a: int, b: int) -> int:
        """The player on roll rolls; the id of the referee's ``roll`` event."""
        before = self.hub.latest_event_id()
        self.table.roll(a, b)
        for event_id, kind, _ in self.hub.events_since(before, 0):
            if kind == "roll":
                return event_id
        raise RuntimeError(f"the referee did not take the roll {a}-{b}: {self.table.referee.message}")

    def play(self, rng: random.Random) -> None:
        self.table.play_any(rng)

    def close(self) -> None:
        self.table.close()


class Viewer(threading.Thread):
    """A bare SSE client on a socket: notes when each ``log`` event arrives (wall clock, ms)."""

    def __init__(self, port: int, last: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.last = last
        self.seen: dict[int, float] = {}
        self.ready = threading.Event()
        self.stop = False
        self.busy = False

    def run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Accept: text/event-stream\r\n\r\n")
            buffer = b""
            while not self.stop:
                try:
                    chunk = sock.recv(65536)
                except (TimeoutError, OSError):
                    return
                if not chunk:
                    return
                now = time.time() * 1000
                buffer += chunk
                if b"retry:" in buffer:
                    self.ready.set()
                if b'"busy":true' in buffer:
                    self.busy = True
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    if b"event: log" in block:
                        for line in block.split(b"\n"):
                            if line.startswith(b"id: "):  # EPOCH-N
                                self.seen.setdefault(int(line[4:].rsplit(b"-", 1)[-1]), now)


def latency(events: int, data: Path) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    server = Server(data / "latency")
    rng = random.Random(2024)
    url = f"http://127.0.0.1:{server.port}/"
    browser_ms: list[float] = []
    bare_ms: list[float] = []
    bare = Viewer(server.port, server.hub.latest_event_id())
    bare.start()
    bare.ready.wait(5)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("#conn[data-state=live]")
            page.evaluate("""() => {
                window.__seen = {};
                new MutationObserver(() => {
                    const d = document.querySelector('.dice-text');
                    if (d && !(d.textContent in window.__seen)) window.__seen[d.textContent] = Date.now();
                }).observe(document.querySelector('#live'), {childList: true, subtree: true});
            }""")
            for _i in range(events):
                dice = DICE[rng.randrange(len(DICE))]
                text = f"{dice[0]}-{dice[1]}"
                page.evaluate(f"() => {{ delete window.__seen['{text}']; }}")
                sent = time.time() * 1000
                event_id = server.roll(*dice)
                deadline = time.monotonic() + 5
                shown = None
                while shown is None and time.monotonic() < deadline:
                    shown = page.evaluate(f"() => window.__seen['{text}'] ?? null")
                    if shown is None:
                        time.sleep(0.002)
                if shown is not None:
                    browser_ms.append(float(shown) - sent)
                while event_id not in bare.seen and time.monotonic() < deadline:
                    time.sleep(0.001)
                if event_id in bare.seen:
                    bare_ms.append(bare.seen[event_id] - sent)
                server.play(rng)
                time.sleep(0.05)
            browser.close()
    finally:
        bare.stop = True
        server.close()
    return browser_ms, bare_ms


def viewers(level: int, data: Path) -> dict[str, Any]:
    server = Server(data / f"viewers-{level}")
    clients = [Viewer(server.port, server.hub.latest_event_id()) for _ in range(level)]
    try:
        for client in clients:
            client.start()
        deadline = time.monotonic() + 15
        for client in clients:
            client.ready.wait(max(0.0, deadline - time.monotonic()))
        time.sleep(0.3)
        sent = time.time() * 1000
        event_id = server.roll(6, 5)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(event_id in c.seen for c in clients):
            time.sleep(0.005)
        delays = sorted(c.seen[event_id] - sent for c in clients if event_id in c.seen)
        return {
            "viewers": level,
            "received": len(delays),
            "busy": sum(c.busy for c in clients),
            "median_ms": statistics.median(delays) if delays else float("nan"),
            "last_ms": delays[-1] if delays else float("nan"),
        }
    finally:
        for client in clients:
            client.stop = True
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=25)
    parser.add_argument("--max-viewers", type=int, default=256)
    parser.add_argument("--viewers", type=int, default=0, help="measure this many viewers only")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium latency")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        if args.viewers:
            row = viewers(args.viewers, data)
            print(f"{row['viewers']} viewers: {row['received']} received the roll, {row['busy']} turned away; "
                  f"median {row['median_ms']:.1f} ms, last {row['last_ms']:.1f} ms")
            return 0 if row["received"] == args.viewers and not row["busy"] else 1
        if args.no_browser:
            pass
        elif Path("/usr/bin/chromium").exists():
            browser_ms, bare_ms = latency(args.events, data)
            print(f"event -> DOM (Chromium):   median {statistics.median(browser_ms):6.1f} ms   "
                  f"p95 {sorted(browser_ms)[int(0.95 * (len(browser_ms) - 1))]:6.1f} ms   ({len(browser_ms)} events)")
            print(f"event -> bare SSE client:  median {statistics.median(bare_ms):6.1f} ms   "
                  f"p95 {sorted(bare_ms)[int(0.95 * (len(bare_ms) - 1))]:6.1f} ms")
        else:
            print("event -> DOM: skipped (no /usr/bin/chromium)")
        print("viewers  received  median ms  last ms")
        sustained = 0
        level = 8
        while level <= args.max_viewers:
            row = viewers(level, data)
            print(f"{row['viewers']:7d}  {row['received']:8d}  {row['median_ms']:9.1f}  {row['last_ms']:7.1f}")
            if row["received"] == level and row["last_ms"] <= 1000 and not row["busy"]:
                sustained = level
            else:
                break
            level *= 2
        print(f"simultaneous SSE viewers sustained (all get an event within 1 s): {sustained}"
              f"{' (the largest level tried)' if sustained >= args.max_viewers else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
