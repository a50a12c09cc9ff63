"""The real Python serial link talking to the C controller core through a pseudo-terminal.

Usage: python linkcheck.py BUILD/proto_pipe
The C core (proto_pipe --fd) is the controller; firmware_bridge.SerialLink opens the pty's slave
as it would /dev/ttyACM0.  Every state shown must end up on the C side exactly, HELLO must give
the firmware version, and a restarted controller must get the state again.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.link import SerialLink  # noqa: E402


class Controller:
    """proto_pipe --fd on a fresh pty; collects the display lines it prints."""

    def __init__(self, pipe: str) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.proc = subprocess.Popen([pipe, "--fd", str(self.master)], pass_fds=[self.master],
                                     stdout=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.strip())
                self.cond.notify_all()

    def wait_for(self, state: p.LedState, timeout: float = 5.0) -> bool:
        want = " ".join(p.set_frame(0, state).args)
        with self.cond:
            return self.cond.wait_for(lambda: bool(self.lines) and self.lines[-1].split(" ", 3)[3] == want, timeout)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)
        os.close(self.master)
        os.close(self.slave)


def main() -> int:
    pipe = sys.argv[1]
    rng = random.Random(3)
    controller = Controller(pipe)
    link = SerialLink(controller.port, ack_timeout=0.1, heartbeat_s=0.2, reconnect_s=0.05)
    failures: list[str] = []
    try:
        for i in range(40):
            leds = {rng.randrange(30): p.Led((rng.randrange(1, 256), rng.randrange(256), rng.randrange(256)),
                                             rng.random() < 0.3) for _ in range(rng.randint(1, 8))}
            state = p.LedState.of(leds, rng.randrange(256))
            link.show(state)
            if not (link.wait_synced(5.0) and controller.wait_for(state)):
                failures.append(f"state {i} not shown by the C controller: {state}")
                break
        status = link.status()
        if status["firmware"] != "referee-leds-1.0" or status["led_count"] != 30 or not status["connected"]:
            failures.append(f"status after HELLO: {status}")
        if status["retries"] or status["bad_frames"] or status["naks"]:
            failures.append(f"a clean line needed retries: {status}")
        # A controller that restarts (new process on the same pty) gets the state again.
        controller.proc.terminate()
        controller.proc.wait(5)
        controller.proc = subprocess.Popen([pipe, "--fd", str(controller.master)], pass_fds=[controller.master],
                                           stdout=subprocess.PIPE, text=True)
        threading.Thread(target=controller._collect, daemon=True).start()
        if not controller.wait_for(state):
            failures.append("state not resent to a restarted controller")
    finally:
        link.close()
        controller.stop()
    for failure in failures:
        print("LINKCHECK FAILED:", failure, file=sys.stderr)
    if not failures:
        print("linkcheck: SerialLink <-> C controller core on a pty: 40 states shown, restart recovered")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
