"""A real Mosquitto on a free loopback port, with a throw-away configuration (tests and bench)."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, up: bool = True, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise TimeoutError(f"port {port} not {'up' if up else 'down'} after {timeout} s")


class Broker:
    """``mosquitto -c CONFIG`` that can be stopped and started again on the same port."""

    def __init__(self, directory: Path, config: str | None = None, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.config = directory / "mosquitto.conf"
        if config is None:
            # as a club runs it: persistence keeps the club server's session across a broker restart.
            # Started as root (CI), mosquitto drops to the user 'mosquitto', which cannot write a store
            # made by root: 'user' keeps it as whoever runs the tests (as referee club init writes it)
            store = directory / "store"
            store.mkdir(exist_ok=True)
            config = (f"user {getpass.getuser()}\n"
                      f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                      f"persistence_location {store}/\nmax_queued_messages 100000\n")
        self.config.write_text(config, encoding="utf-8")
        self.log = directory / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}/testclub"

    def start(self) -> Broker:
        if not os.path.exists(MOSQUITTO):
            raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=log, stderr=log)
        wait_port(self.port)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        wait_port(self.port, up=False)
        if self.log.exists() and "Error saving" in self.log.read_text(errors="replace"):
            raise RuntimeError(f"mosquitto could not save its persistent sessions (see {self.log})")
