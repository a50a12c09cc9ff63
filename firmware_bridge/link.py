"""The serial link to the LED controller: one background thread sends the whole LED state until acked.

``show()`` only records the wanted state and returns; the thread (re)opens the port by its stable
name, asks for HELLO, sends the state, retries on timeout or NAK, heartbeats, and resends the
state whenever the controller says it lost it (HELLO after a reset, or ACK showing another seq).
Nothing the controller sends can raise out of here: bad lines are counted and logged.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import serial

from . import protocol as p

log = logging.getLogger(__name__)

Listener = Callable[[bool], None]


class LedLink(Protocol):
    """What the LED layer needs from a link (serial or none)."""

    def show(self, state: p.LedState) -> None: ...
    def wait_synced(self, timeout: float) -> bool: ...
    def status(self) -> dict[str, Any]: ...
    def add_listener(self, listener: Listener) -> None: ...
    def close(self) -> None: ...


class NullLink:
    """No controller (``REFEREE_LEDS=none``): remembers the state, never connected."""

    def __init__(self) -> None:
        self.state = p.BLANK

    def show(self, state: p.LedState) -> None:
        self.state = state

    def wait_synced(self, timeout: float) -> bool:
        return False

    def status(self) -> dict[str, Any]:
        return {"backend": "none", "port": None, "connected": False, "firmware": None, "led_count": None,
                "last_ack_age_s": None, "retries": 0, "in_sync": False}

    def add_listener(self, listener: Listener) -> None:
        listener(False)

    def close(self) -> None:
        pass


class _Reopen(Exception):
    """The controller stopped answering: close and reopen the port."""


class SerialLink:
    """A pyserial link with ack timeouts, retries, reconnect, resend and heartbeat."""

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 115200,
        ack_timeout: float = 0.25,
        heartbeat_s: float = 1.0,
        reconnect_s: float = 1.0,
        max_retries: int = 8,
        write_timeout: float = 1.0,
        serial_factory: Callable[..., serial.SerialBase] | None = None,
        start: bool = True,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.ack_timeout = ack_timeout
        self.heartbeat_s = heartbeat_s
        self.reconnect_s = reconnect_s
        self.max_retries = max_retries
        self.write_timeout = write_timeout
        self._factory = serial_factory or serial.Serial
        self._cond = threading.Condition()
        self._listeners: list[Listener] = []
        # Wanted state (written by callers) and what the controller confirmed (worker only).
        self._desired = p.BLANK
        self._version = 0
        self._synced_version = -1
        self._rejected_version = -1
        self._controller_set_seq = 0  # seq of our SET the controller last acked as shown
        self._closing = False
        # Worker-only port state.
        self._ser: serial.SerialBase | None = None
        self._fd: int | None = None
        self._reader = p.LineReader()
        self._seq = 0
        self._need_hello = True
        self._last_tx = 0.0
        self._failures = 0
        # Status.
        self._connected = False
        self._firmware: str | None = None
        self._led_count: int | None = None
        self._last_ack: float | None = None
        self.retries = 0
        self.naks = 0
        self.bad_frames = 0
        self.reconnects = 0
        self.resends = 0
        self.opens = 0
        self._last_error: str | None = None
        self._warned_truncate = False
        self._open_failing = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name=f"leds-link:{port}", daemon=True)
        if start:
            self._thread.start()

    # ----- caller side: never blocks on I/O ---------------------------------------------------

    def show(self, state: p.LedState) -> None:
        """Make ``state`` the whole LED state; returns at once, the worker sends it."""
        with self._cond:
            if state == self._desired:
                return
            self._desired = state
            self._version += 1
        self._wake()

    def wait_synced(self, timeout: float) -> bool:
        """Wait until the controller acked the current state (tests, bench)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._synced_version == self._version, timeout)

    def status(self) -> dict[str, Any]:
        """Link health for the page and the watchdog."""
        with self._cond:
            age = None if self._last_ack is None else round(time.monotonic() - self._last_ack, 3)
            return {
                "backend": "serial",
                "port": self.port,
                "connected": self._connected,
                "port_open": self._ser is not None,
                "firmware": self._firmware,
                "led_count": self._led_count,
                "last_ack_age_s": age,
                "retries": self.retries,
                "naks": self.naks,
                "bad_frames": self.bad_frames,
                "reconnects": self.reconnects,
                "resends": self.resends,
                "in_sync": self._synced_version == self._version,
                "last_error": self._last_error,
            }

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(connected)`` now and on every change (from the link thread)."""
        with self._cond:
            self._listeners.append(listener)
            connected = self._connected
        listener(connected)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the worker and close the port; safe to call twice."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            for fd in (self._wake_r, self._wake_w):
                if fd >= 0:
                    os.close(fd)
            self._wake_r = self._wake_w = -1

    def __enter__(self) -> SerialLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, ValueError, OSError):
            pass

    # ----- worker -----------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._closing:
            if self._ser is None:
                if not self._open():
                    self._sleep(self.reconnect_s)
                    continue
            try:
                self._step()
            except _Reopen:
                self._drop_port("no answer from the controller")
            except (serial.SerialException, OSError) as exc:
                self._drop_port(str(exc))
            except Exception as exc:  # never let the LEDs take the referee down
                log.exception("LED link worker error")
                self._drop_port(f"internal error: {exc}")
        self._drop_port(None)

    def _sleep(self, seconds: float) -> None:
        """Wait ``seconds`` or until woken (close)."""
        with self._cond:
            self._cond.wait_for(lambda: self._closing, seconds)

    def _open(self) -> bool:
        options: dict[str, Any] = {"timeout": 0.05, "write_timeout": self.write_timeout}
        if self._factory is serial.Serial:
            options["exclusive"] = True  # a second referee (or a serial monitor) must not share the port
        try:
            ser = self._factory(self.port, self.baudrate, **options)
        except (serial.SerialException, OSError, ValueError) as exc:
            if not self._open_failing:
                log.warning("LED controller port %s: %s (retrying every %.1f s)", self.port, exc, self.reconnect_s)
            self._open_failing = True
            self._set_error(f"cannot open {self.port}: {exc}")
            return False
        self._open_failing = False
        try:
            self._fd = ser.fileno()
        except (AttributeError, OSError, ValueError, NotImplementedError):
            self._fd = None
        self._ser = ser
        self._reader.reset()
        self._need_hello = True
        self._failures = 0
        self.opens += 1
        if self.opens > 1:
            self.reconnects += 1
        with self._cond:
            self._synced_version = -1  # after any (re)open, send the state again
        log.info("LED controller port %s open", self.port)
        return True

    def _drop_port(self, error: str | None) -> None:
        if error:
            self._set_error(error)
            log.warning("LED link: %s", error)
        ser, self._ser, self._fd = self._ser, None, None
        if ser is not None:
            try:
                ser.close()
            except Exception:  # a vanished device may fail even to close
                pass
        self._set_connected(False)

    def _set_error(self, error: str) -> None:
        with self._cond:
            self._last_error = error

    def _set_connected(self, connected: bool) -> None:
        with self._cond:
            if connected == self._connected:
                return
            self._connected = connected
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(connected)
            except Exception:
                log.exception("LED link listener failed")

    def _step(self) -> None:
        frame, version = self._choose()
        if frame is None:
            self._pump(self._last_tx + self.heartbeat_s - time.monotonic())
        else:
            self._transact(frame, version)

    def _choose(self) -> tuple[p.Frame | None, int]:
        """The next frame to send (and the state version it carries), or None when idle."""
        if self._need_hello:
            return p.Frame(self._next_seq(), p.HELLO), -1
        with self._cond:
            version, desired = self._version, self._desired
            stale = self._synced_version != version and self._rejected_version != version
        if stale:
            if self._led_count is not None and desired.lit and desired.lit[-1][0] >= self._led_count:
                if not self._warned_truncate:
                    log.warning("LED state uses indices beyond the controller's %d LEDs", self._led_count)
                    self._warned_truncate = True
                desired = desired.truncated(self._led_count)
            return p.set_frame(self._next_seq(), desired), version
        if time.monotonic() - self._last_tx >= self.heartbeat_s:
            return p.Frame(self._next_seq(), p.HB), -1
        return None, -1

    def _next_seq(self) -> int:
        self._seq = p.next_seq(self._seq)
        return self._seq

    def _write(self, frame: p.Frame) -> None:
        assert self._ser is not None
        self._ser.write(p.encode(frame))
        self._last_tx = time.monotonic()

    def _transact(self, frame: p.Frame, version: int) -> None:
        """Send ``frame`` until acked, NAKed for good, or superseded by a newer state."""
        first = True
        naks = 0
        while not self._closing:
            if not first:
                self.retries += 1
            first = False
            self._write(frame)
            reply = self._await(frame.seq, time.monotonic() + self.ack_timeout)
            if reply is not None and reply.kind == p.ACK:
                self._on_ack(frame, version, reply)
                return
            if reply is not None:
                self.naks += 1
            if reply is not None and reply.reason not in ("CRC", "SYNTAX", "LONG"):
                log.error("LED controller refused %s: %s", frame.cmd, reply.reason)
                self._set_error(f"controller refused {frame.cmd}: {reply.reason}")
                if version >= 0:
                    with self._cond:
                        self._rejected_version = version
                elif frame.cmd == p.HELLO:
                    self._need_hello = False
                return
            if reply is None:
                self._failures += 1
                if self._failures == self.max_retries:
                    self._set_connected(False)
                if self._failures % (2 * self.max_retries) == 0:
                    raise _Reopen
            else:
                naks += 1
                if naks > 3:  # a line this noisy: retry at the timeout pace, not as fast as NAKs come
                    self._sleep(self.ack_timeout)
            with self._cond:
                superseded = version >= 0 and version != self._version
            if superseded or (frame.cmd == p.HB and self._version != self._synced_version):
                return

    def _on_ack(self, frame: p.Frame, version: int, reply: p.Reply) -> None:
        self._failures = 0
        with self._cond:
            self._last_ack = time.monotonic()
            if frame.cmd == p.HELLO:
                self._need_hello = False
            if version >= 0:
                self._synced_version = version
                self._controller_set_seq = frame.seq
                self._cond.notify_all()
            elif reply.shown != self._controller_set_seq and self._synced_version >= 0:
                log.info("LED controller lost its state (shows seq %d); resending", reply.shown)
                self._synced_version = -1
                self.resends += 1
        self._set_connected(True)

    def _await(self, seq: int, deadline: float) -> p.Reply | None:
        """Read until the ACK/NAK for ``seq`` arrives or ``deadline`` passes."""
        while True:
            found = None
            for reply in self._read(deadline - time.monotonic()):
                if reply.kind in (p.ACK, p.NAK) and reply.acked in (seq, None):
                    found = found or reply
            if found is not None:
                return found
            if time.monotonic() >= deadline or self._closing:
                return None

    def _pump(self, timeout: float) -> None:
        """Idle: read what the controller says (HELLO after a reset) until ``timeout`` or woken."""
        self._read(timeout)

    def _read(self, timeout: float) -> list[p.Reply]:
        """Wait up to ``timeout`` for bytes; return the replies they complete (HELLO handled here)."""
        assert self._ser is not None
        if self._fd is not None:
            ready, _, _ = select.select([self._fd, self._wake_r], [], [], max(0.0, timeout))
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 4096)
                except BlockingIOError:
                    pass
            if self._fd not in ready:
                return []
        data = self._ser.read(max(1, self._ser.in_waiting))
        replies: list[p.Reply] = []
        for line in self._reader.feed(data):
            try:
                reply = p.parse_reply(p.decode(line))
            except p.FrameError as exc:
                self.bad_frames += 1
                log.debug("LED link: bad line from controller (%s): %r", exc.reason, line[:60])
                continue
            if reply.kind == p.HELLO:
                self._on_hello(reply)
            replies.append(reply)
        return replies

    def _on_hello(self, reply: p.Reply) -> None:
        log.info("LED controller says HELLO: firmware %s, %d LEDs", reply.version, reply.led_count)
        with self._cond:
            self._firmware, self._led_count = reply.version, reply.led_count
            if reply.shown == 0 or reply.shown != self._controller_set_seq:
                if self._synced_version >= 0:
                    self.resends += 1
                self._synced_version = -1
                self._controller_set_seq = reply.shown
