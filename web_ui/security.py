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
from collections.abc import Callable
from pathlib import Path

PIN_MIN, PIN_MAX = 4, 12

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def setup_code() -> str:
    """A one-time code (8 digits) that lets the first visitor choose the PIN: shown only on the
    device's console (and in ``DATA_DIR/web/setup-code``), so a stranger on the network cannot."""
    return f"{secrets.randbelow(10**8):08d}"


def write_setup_code(path: Path, code: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(code + "\n")


def setup_code_notice(app_state: object, url: str) -> str:
    """The console line that tells the operator how to set the PIN ('' once one is set)."""
    code = getattr(app_state, "setup_code", "")
    pins = getattr(app_state, "pins", None)
    if not code or pins is None or pins.is_set():
        return ""
    return (f"no control PIN yet: run `referee pin set`, or open {url}control and enter the "
            f"setup code {code}")


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

    def generation(self) -> str:
        """Changes whenever the PIN is set (its salt): a browser session remembers the generation
        it was unlocked under, and ends when the PIN has changed since."""
        try:
            return str(json.loads(self.path.read_text()).get("salt", ""))[:16]
        except (OSError, ValueError, AttributeError):
            return ""

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
    """Wrong PINs, per address, with back-off: ``free`` wrong tries, then each further one makes
    that address wait twice as long as the one before (``base`` seconds, at most ``longest``).
    There is no limit over all addresses: another address (the director's) is never locked out.
    A right PIN clears the address's count.  ``clock`` is ``time.monotonic`` (tests pass their own).
    """

    def __init__(self, free: int = 5, base: float = 2.0, longest: float = 900.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free = free
        self.base = base
        self.longest = longest
        self.clock = clock
        self._clients: dict[str, tuple[int, float]] = {}  # address -> (wrong tries, when the last was)
        self._lock = threading.Lock()

    def _wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return float(min(self.longest, self.base * 2 ** (failures - self.free)))

    def wait_time(self, client: str) -> float:
        """Seconds until ``client`` may try again (0 when it may now)."""
        with self._lock:
            failures, last = self._clients.get(client, (0, 0.0))
            if not failures:
                return 0.0
            left = self._wait(failures) - (self.clock() - last)
            if self.clock() - last > self.longest * 2:  # long quiet: forgiven
                del self._clients[client]
                return 0.0
            return max(0.0, left)

    def failed(self, client: str) -> None:
        with self._lock:
            if len(self._clients) > 10_000:  # bounded memory: forget the oldest half
                for key, _ in sorted(self._clients.items(), key=lambda item: item[1][1])[:5_000]:
                    del self._clients[key]
            failures, _ = self._clients.get(client, (0, 0.0))
            self._clients[client] = (failures + 1, self.clock())

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


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
