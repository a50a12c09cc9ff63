"""PIN storage (hashed), the wrong-PIN rate limit, the session secret and the security headers."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import socket
import threading
import time
from collections import deque
from pathlib import Path

PIN_MIN, PIN_MAX = 4, 12

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def check_pin_format(pin: str) -> str:
    """The PIN when it is 4 to 12 digits, else ``ValueError`` with a sentence."""
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit() or not PIN_MIN <= len(pin) <= PIN_MAX:
        raise ValueError(f"A PIN is {PIN_MIN} to {PIN_MAX} digits.")
    return pin


class PinStore:
    """The control PIN, kept as a salted scrypt hash in ``path`` (JSON, mode 0600)."""

    def __init__(self, path: Path, cost: int = 2**14) -> None:
        self.path = path
        self.cost = cost
        self._lock = threading.Lock()

    def _hash(self, pin: str, salt: bytes, cost: int) -> bytes:
        return hashlib.scrypt(pin.encode(), salt=salt, n=cost, r=8, p=1, dklen=32)

    def is_set(self) -> bool:
        return self.path.is_file()

    def set(self, pin: str) -> None:
        check_pin_format(pin)
        salt = secrets.token_bytes(16)
        record = {"scheme": "scrypt", "n": self.cost, "salt": salt.hex(), "hash": self._hash(pin, salt, self.cost).hex()}
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                json.dump(record, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)

    def check(self, pin: object) -> bool:
        """True when ``pin`` is the stored PIN (compared in constant time)."""
        if not isinstance(pin, str) or len(pin) > 64 or not self.is_set():
            return False
        try:
            record = json.loads(self.path.read_text())
            salt = bytes.fromhex(record["salt"])
            expected = bytes.fromhex(record["hash"])
            cost = int(record["n"])
        except (OSError, ValueError, KeyError, TypeError):
            return False
        return hmac.compare_digest(self._hash(pin, salt, cost), expected)


class RateLimiter:
    """Wrong-PIN attempts: at most ``per_client`` per client and ``overall`` in total per ``window`` seconds."""

    def __init__(self, per_client: int = 5, overall: int = 20, window: float = 60.0) -> None:
        self.per_client = per_client
        self.overall = overall
        self.window = window
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _trim(self, queue: deque[float], now: float) -> None:
        while queue and now - queue[0] > self.window:
            queue.popleft()

    def wait_time(self, client: str) -> float:
        """Seconds until ``client`` may try again (0 when it may now)."""
        now = time.monotonic()
        with self._lock:
            queue = self._clients.get(client, deque())
            self._trim(queue, now)
            self._trim(self._all, now)
            waits = [0.0]
            if len(queue) >= self.per_client:
                waits.append(self.window - (now - queue[0]))
            if len(self._all) >= self.overall:
                waits.append(self.window - (now - self._all[0]))
            return max(waits)

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._clients) > 1000:
                self._clients.clear()
            self._clients.setdefault(client, deque()).append(now)
            self._all.append(now)


def secret_key(path: Path) -> bytes:
    """The session-signing key, created once (random, mode 0600) so sessions survive a restart."""
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    data = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return data


def default_trusted_hosts() -> list[str]:
    """Names this device answers to: localhost, its host name (+ ``.local``) and its current addresses."""
    hosts = {"localhost", "127.0.0.1", "::1", "[::1]", "referee", "referee.local"}
    name = socket.gethostname()
    if name:
        hosts.update({name, f"{name}.local"})
    try:
        for info in socket.getaddrinfo(name, None):
            hosts.add(str(info[4][0]))
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent; this picks the LAN address
            hosts.add(probe.getsockname()[0])
    except OSError:
        pass
    extra = os.environ.get("REFEREE_WEB_HOSTS", "")
    hosts.update(h.strip() for h in extra.split(",") if h.strip())
    return sorted(hosts)
