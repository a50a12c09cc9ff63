"""A simulated LED controller on a pseudo-terminal: the firmware's behaviour, recorded, with faults.

It speaks the same protocol as ``hardware/firmware`` (whole-state SET, HB, HELLO, ACK/NAK, blanking
after host silence, HELLO on reset) and records every frame it displayed, so tests and the demo
can assert what the board showed.  The host opens ``sim.port``, a stable symlink to the current
``/dev/pts/N`` (like ``/dev/serial/by-id/...``), with a real pyserial link.
"""

from __future__ import annotations

import logging
import os
import queue
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field

from . import protocol as p

log = logging.getLogger(__name__)

LOST_COLOUR: p.Colour = (40, 16, 0)  # dim amber, blinking: "the referee is not talking to me"


@dataclass
class Faults:
    """Fault rates, changeable while the simulator runs (each applies in both directions)."""

    drop: float = 0.0  # share of frames dropped
    corrupt: float = 0.0  # share of bytes replaced by another byte
    delay_s: float = 0.0  # extra time before each reply
    mute: bool = False  # a hung controller: it reads but never answers or displays


@dataclass(frozen=True)
class Shown:
    """One frame the strip displayed from time ``t`` on (blink flags are part of the frame)."""

    t: float
    state: p.LedState
    seq: int  # host seq of the SET that first showed it, 0 for none
    reason: str  # "set", "timeout", "reset", "unplugged"

    def leds(self, count: int) -> list[p.Led]:
        """Every LED of the strip."""
        return self.state.dense(count)


@dataclass
class SimStats:
    """Counters of what the simulator received and did."""

    frames_in: int = 0
    dropped_in: int = 0
    bad_in: int = 0
    replies_out: int = 0
    dropped_out: int = 0
    bytes_corrupted: int = 0
    sets: int = 0
    resets: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class SimulatedController:
    """The controller firmware simulated in a thread behind a pty pair.

    ``lost_led``: the LED that blinks while the host is silent (-1: the last one, as the
    firmware's default; None: none).  Times in ``history`` come from ``clock``.
    """

    def __init__(
        self,
        led_count: int = 30,
        *,
        version: str = "sim-1.0",
        host_timeout_s: float = 3.0,
        blink_half_s: float = 0.5,
        max_brightness: int = 255,
        lost_led: int | None = -1,
        faults: Faults | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
        link_dir: str | None = None,
    ) -> None:
        self.led_count = led_count
        self.version = version
        self.host_timeout_s = host_timeout_s
        self.blink_half_s = blink_half_s
        self.max_brightness = max_brightness
        self.lost_led = led_count - 1 if lost_led == -1 else lost_led
        self.faults = faults or Faults()
        self.stats = SimStats()
        self._rng = random.Random(seed)
        self._clock = clock
        self._own_dir = link_dir is None
        self._dir = link_dir or tempfile.mkdtemp(prefix="referee-sim-")
        self.port = os.path.join(self._dir, "referee-leds")
        self._cond = threading.Condition()
        self.history: list[Shown] = []
        self._master: int | None = None
        self._slave: int | None = None
        self._reader = p.LineReader()
        self._tx_seq = 0
        self._shown_seq = 0
        self._state = p.BLANK
        self._last_rx = 0.0
        self._host_lost = False
        self._requests: queue.Queue[tuple[Callable[[], None], threading.Event]] = queue.Queue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._running = False
        self._thread: threading.Thread | None = None

    # ----- life cycle -------------------------------------------------------------------------

    def start(self) -> str:
        """Power the controller up and plug it in; return the stable port path."""
        if self._thread is not None:
            return self.port
        self._running = True
        self._plug()
        self._boot("reset")
        self._thread = threading.Thread(target=self._run, name="sim-controller", daemon=True)
        self._thread.start()
        return self.port

    def close(self) -> None:
        """Stop the thread and remove the pty and the port symlink."""
        if self._thread is not None:
            self._running = False
            self._wake()
            self._thread.join(timeout=2.0)
            self._thread = None
        self._unplug_now()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        if self._own_dir:
            shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> SimulatedController:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- fault injection (all run on the simulator thread, in order) ------------------------

    def unplug(self) -> None:
        """Pull the USB cable: the port vanishes, the host's reads and writes fail, power is lost."""
        self._call(self._unplug_power)

    def replug(self) -> None:
        """Plug the cable back in: a new pty behind the same port name, the controller boots."""
        self._call(self._replug_now)

    def reset(self) -> None:
        """Reset the controller (watchdog, brown-out): state lost, HELLO sent."""
        self._call(lambda: self._boot("reset"))

    def inject(self, data: bytes) -> None:
        """Send raw bytes (garbage) to the host."""
        self._call(lambda: self._write_raw(data))

    # ----- what the board showed --------------------------------------------------------------

    @property
    def shown(self) -> Shown:
        """The frame on display now."""
        with self._cond:
            return self.history[-1]

    def wait_for(self, want: p.LedState | Callable[[Shown], bool], timeout: float) -> bool:
        """Wait until the strip shows ``want`` (a state, or a test on the Shown frame)."""
        test = want if callable(want) else (lambda s: s.state == want)
        with self._cond:
            return self._cond.wait_for(lambda: test(self.history[-1]), timeout)

    def rendered(self, t: float | None = None) -> list[p.Colour]:
        """Each LED's colour at time ``t`` (blink phase and brightness cap applied), as the firmware renders."""
        t = self._clock() if t is None else t
        with self._cond:
            shown = self.history[-1]
        on = int(t / self.blink_half_s) % 2 == 0
        scale = min(shown.state.brightness, self.max_brightness)
        out: list[p.Colour] = []
        for led in shown.leds(self.led_count):
            if led.blink and not on:
                out.append((0, 0, 0))
            else:
                r, g, b = led.colour
                out.append((r * scale // 255, g * scale // 255, b * scale // 255))
        return out

    # ----- internals --------------------------------------------------------------------------

    def _call(self, fn: Callable[[], None]) -> None:
        if self._thread is None or not self._thread.is_alive():
            fn()
            return
        done = threading.Event()
        self._requests.put((fn, done))
        self._wake()
        done.wait(timeout=2.0)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo or newline translation before the host configures the port
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.port + ".tmp"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)
        self._reader.reset()

    def _unplug_now(self) -> None:
        if os.path.lexists(self.port):
            os.unlink(self.port)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    def _replug_now(self) -> None:
        self._plug()
        self._boot("reset")

    def _unplug_power(self) -> None:
        self._unplug_now()
        self._state, self._shown_seq = p.BLANK, 0
        self._record("unplugged")

    def _boot(self, reason: str) -> None:
        self.stats.resets += 1
        self._tx_seq = 0
        self._state, self._shown_seq = p.BLANK, 0
        self._host_lost = False
        self._last_rx = self._clock()
        self._reader.reset()
        self._record(reason)
        self._send(p.hello_frame(self._next_tx(), self.version, self.led_count))

    def _record(self, reason: str) -> None:
        with self._cond:
            self.history.append(Shown(self._clock(), self._state, self._shown_seq, reason))
            self._cond.notify_all()

    def _next_tx(self) -> int:
        self._tx_seq = p.next_seq(self._tx_seq)
        return self._tx_seq

    def _run(self) -> None:
        while self._running:
            while not self._requests.empty():
                fn, done = self._requests.get()
                try:
                    fn()
                finally:
                    done.set()
            fds = [self._wake_r] + ([self._master] if self._master is not None else [])
            wait = max(0.0, self._last_rx + self.host_timeout_s - self._clock()) if not self._host_lost else 0.5
            ready, _, _ = select.select(fds, [], [], min(wait, 0.5))
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if self._master is not None and self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    data = b""
                if data:
                    self._receive(data)
            self._tick()

    def _tick(self) -> None:
        if not self._host_lost and self._clock() - self._last_rx > self.host_timeout_s:
            self._host_lost = True
            lost = {} if self.lost_led is None else {self.lost_led: p.Led(LOST_COLOUR, blink=True)}
            self._state, self._shown_seq = p.LedState.of(lost), 0
            self._record("timeout")

    def _corrupt(self, data: bytes) -> bytes:
        rate = self.faults.corrupt
        if rate <= 0:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self._rng.random() < rate:
                out[i] ^= self._rng.randrange(1, 256)
                self.stats.bytes_corrupted += 1
        return bytes(out)

    def _receive(self, data: bytes) -> None:
        for line in self._reader.feed(self._corrupt(data)):
            self.stats.frames_in += 1
            if self._rng.random() < self.faults.drop:
                self.stats.dropped_in += 1
                continue
            if self.faults.mute:
                continue
            self._handle(line)

    def _handle(self, line: bytes) -> None:
        try:
            frame = p.decode(line)
        except p.FrameError as exc:
            self.stats.bad_in += 1
            self._reply(p.nak_frame(self._next_tx(), None, exc.reason))
            return
        self._last_rx = self._clock()
        self._host_lost = False
        if frame.cmd == p.SET:
            try:
                state = p.parse_set(frame)
            except p.FrameError as exc:
                self._reply(p.nak_frame(self._next_tx(), frame.seq, exc.reason))
                return
            if state.lit and state.lit[-1][0] >= self.led_count:
                self._reply(p.nak_frame(self._next_tx(), frame.seq, "RANGE"))
                return
            self.stats.sets += 1
            changed = state != self._state
            self._state, self._shown_seq = state, frame.seq
            if changed:
                self._record("set")
            self._reply(p.ack_frame(self._next_tx(), frame.seq, self._shown_seq))
        elif frame.cmd == p.HB:
            self._reply(p.ack_frame(self._next_tx(), frame.seq, self._shown_seq))
        elif frame.cmd == p.HELLO:
            self._reply(p.ack_frame(self._next_tx(), frame.seq, self._shown_seq))
            self._reply(p.hello_frame(self._next_tx(), self.version, self.led_count, self._shown_seq))
        else:
            self._reply(p.nak_frame(self._next_tx(), frame.seq, "CMD"))

    def _reply(self, frame: p.Frame) -> None:
        if self.faults.delay_s > 0:
            time.sleep(self.faults.delay_s)
        self._send(frame)

    def _send(self, frame: p.Frame) -> None:
        self.stats.replies_out += 1
        if self._rng.random() < self.faults.drop:
            self.stats.dropped_out += 1
            return
        self._write_raw(self._corrupt(p.encode(frame)))

    def _write_raw(self, data: bytes) -> None:
        if self._master is None:
            return
        try:
            os.write(self._master, data)
        except OSError:  # nobody reading and the buffer is full: bytes lost, like a UART
            pass
