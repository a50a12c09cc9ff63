"""The host <-> LED controller wire protocol, pure: framing, CRC, LED state (see hardware/PROTOCOL.md).

A frame is one ASCII line ``seq,CMD,arg,...*CCCC\\n``; ``CCCC`` is the CRC-16/CCITT-FALSE of
everything before the ``*`` as four upper-case hex digits.  Nothing here does I/O or keeps time.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
MAX_SEQ = 0xFFFF
MAX_LINE = 512
MAX_ARGS = 70

# Host -> controller.
SET = "SET"  # whole LED state: brightness, then lit LEDs "index:RRGGBB" ("~" suffix: blink)
HB = "HB"  # heartbeat
HELLO = "HELLO"  # host: "say hello again"; controller: version, LED count, protocol, shown seq
# Controller -> host.
ACK = "ACK"  # acked seq, shown seq (seq of the SET on display, 0 = none)
NAK = "NAK"  # acked seq (or "?"), reason

NAK_REASONS = ("CRC", "SYNTAX", "RANGE", "CMD", "LONG")

Colour = tuple[int, int, int]

_CMD_RE = re.compile(r"[A-Z]{1,8}")
_SEQ_RE = re.compile(r"0|[1-9][0-9]{0,4}")
_ARG_RE = re.compile(r"[\x21-\x7e]+")
_CRC_RE = re.compile(rb"[0-9A-F]{4}")
_TOKEN_RE = re.compile(r"(0|[1-9][0-9]{0,3}):([0-9A-F]{6})(~?)")


class FrameError(ValueError):
    """A line that is not a valid frame; ``reason`` is one of NAK_REASONS."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Frame:
    """One decoded frame."""

    seq: int
    cmd: str
    args: tuple[str, ...] = ()


def encode(frame: Frame) -> bytes:
    """The bytes of ``frame`` on the wire, newline included."""
    if not 0 <= frame.seq <= MAX_SEQ:
        raise ValueError(f"seq out of range: {frame.seq}")
    if not _CMD_RE.fullmatch(frame.cmd):
        raise ValueError(f"bad command: {frame.cmd!r}")
    for arg in frame.args:
        if not _ARG_RE.fullmatch(arg) or "," in arg or "*" in arg:
            raise ValueError(f"bad argument: {arg!r}")
    body = ",".join((str(frame.seq), frame.cmd, *frame.args)).encode("ascii")
    line = body + b"*%04X\n" % crc16(body)
    if len(line) > MAX_LINE:
        raise ValueError(f"frame longer than {MAX_LINE} bytes")
    return line


def decode(line: bytes) -> Frame:
    """Parse one line (with or without its newline); raise FrameError naming what is wrong."""
    line = line.rstrip(b"\n")
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) + 1 > MAX_LINE:
        raise FrameError("LONG", "line too long")
    star = line.rfind(b"*")
    if star < 0 or not _CRC_RE.fullmatch(line[star + 1 :]):
        raise FrameError("SYNTAX", f"no CRC field in {line[:40]!r}")
    body = line[:star]
    if crc16(body) != int(line[star + 1 :], 16):
        raise FrameError("CRC", f"CRC mismatch in {line[:40]!r}")
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        raise FrameError("SYNTAX", "non-ASCII bytes") from None
    parts = text.split(",")
    if len(parts) < 2 or len(parts) - 2 > MAX_ARGS:
        raise FrameError("SYNTAX", f"wrong field count in {text[:40]!r}")
    seq, cmd, *args = parts
    if not _SEQ_RE.fullmatch(seq) or int(seq) > MAX_SEQ:
        raise FrameError("SYNTAX", f"bad seq {seq[:8]!r}")
    if not _CMD_RE.fullmatch(cmd):
        raise FrameError("SYNTAX", f"bad command {cmd[:8]!r}")
    if any(not _ARG_RE.fullmatch(a) or "*" in a for a in args):
        raise FrameError("SYNTAX", f"bad argument in {text[:40]!r}")
    return Frame(int(seq), cmd, tuple(args))


@dataclass
class LineReader:
    """Splits a byte stream into lines; overlong lines are dropped and counted."""

    max_line: int = MAX_LINE
    overflows: int = 0
    _buf: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add bytes; return the complete lines (without newline) they finish."""
        lines: list[bytes] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            piece = data[start:] if nl < 0 else data[start:nl]
            if not self._skipping:
                self._buf += piece
                if len(self._buf) + 1 > self.max_line:
                    self._buf.clear()
                    self._skipping = True
                    self.overflows += 1
            if nl < 0:
                return lines
            if not self._skipping:
                lines.append(bytes(self._buf))
            self._buf.clear()
            self._skipping = False
            start = nl + 1

    def reset(self) -> None:
        """Forget a partial line (after a reconnect)."""
        self._buf.clear()
        self._skipping = False


def next_seq(seq: int) -> int:
    """The sequence number after ``seq``: 1..65535, wrapping (0 means "none")."""
    return seq % MAX_SEQ + 1


@dataclass(frozen=True)
class Led:
    """One LED's colour and whether the controller blinks it."""

    colour: Colour
    blink: bool = False


OFF_LED = Led((0, 0, 0))


@dataclass(frozen=True)
class LedState:
    """The whole strip: lit LEDs by index (sorted, no dark ones) and a brightness 0..255."""

    lit: tuple[tuple[int, Led], ...] = ()
    brightness: int = 255

    @classmethod
    def of(cls, leds: Mapping[int, Led | Colour], brightness: int = 255) -> LedState:
        """Build from {index: Led or colour}; dark LEDs are dropped."""
        items: list[tuple[int, Led]] = []
        for index, value in leds.items():
            led = value if isinstance(value, Led) else Led(tuple(value))  # type: ignore[arg-type]
            if not 0 <= index <= 9999:
                raise ValueError(f"LED index out of range: {index}")
            if len(led.colour) != 3 or any(not 0 <= c <= 255 for c in led.colour):
                raise ValueError(f"bad colour for LED {index}: {led.colour}")
            if led.colour != (0, 0, 0):
                items.append((index, led))
        if not 0 <= brightness <= 255:
            raise ValueError(f"brightness out of range: {brightness}")
        return cls(tuple(sorted(items)), brightness)

    def as_dict(self) -> dict[int, Led]:
        """{index: Led} for the lit LEDs."""
        return dict(self.lit)

    def dense(self, count: int) -> list[Led]:
        """Every LED 0..count-1 (dark ones as OFF_LED)."""
        out = [OFF_LED] * count
        for index, led in self.lit:
            if index < count:
                out[index] = led
        return out

    def truncated(self, count: int) -> LedState:
        """The same state without LEDs at index >= count."""
        return LedState(tuple(item for item in self.lit if item[0] < count), self.brightness)


BLANK = LedState()


def set_frame(seq: int, state: LedState) -> Frame:
    """The SET frame carrying ``state``."""
    tokens = [f"{i}:{bytes(led.colour).hex().upper()}{'~' if led.blink else ''}" for i, led in state.lit]
    return Frame(seq, SET, (str(state.brightness), *tokens))


def parse_set(frame: Frame) -> LedState:
    """The LedState a SET frame carries; FrameError("SYNTAX"/"RANGE") when malformed."""
    if frame.cmd != SET or not frame.args:
        raise FrameError("SYNTAX", "not a SET frame")
    bright = frame.args[0]
    if not _SEQ_RE.fullmatch(bright) or int(bright) > 255:
        raise FrameError("SYNTAX", f"bad brightness {bright!r}")
    leds: dict[int, Led] = {}
    for token in frame.args[1:]:
        m = _TOKEN_RE.fullmatch(token)
        if not m:
            raise FrameError("SYNTAX", f"bad LED token {token!r}")
        rgb = bytes.fromhex(m.group(2))
        leds[int(m.group(1))] = Led((rgb[0], rgb[1], rgb[2]), m.group(3) == "~")
    return LedState.of(leds, int(bright))


@dataclass(frozen=True)
class Reply:
    """A controller frame the host cares about (ACK, NAK or HELLO), decoded."""

    kind: str
    seq: int
    acked: int | None = None  # ACK/NAK: the host seq answered (None: unknown)
    shown: int = 0  # ACK: seq of the SET on display, 0 = none
    reason: str = ""  # NAK
    version: str = ""  # HELLO
    led_count: int = 0  # HELLO


def ack_frame(seq: int, acked: int, shown: int) -> Frame:
    return Frame(seq, ACK, (str(acked), str(shown)))


def nak_frame(seq: int, acked: int | None, reason: str) -> Frame:
    return Frame(seq, NAK, ("?" if acked is None else str(acked), reason))


def hello_frame(seq: int, version: str, led_count: int, shown: int = 0) -> Frame:
    return Frame(seq, HELLO, (version, str(led_count), str(PROTOCOL_VERSION), str(shown)))


def _num(text: str) -> int:
    if not _SEQ_RE.fullmatch(text) or int(text) > MAX_SEQ:
        raise FrameError("SYNTAX", f"bad number {text[:8]!r}")
    return int(text)


def parse_reply(frame: Frame) -> Reply:
    """Decode a controller frame; FrameError for unknown or malformed ones."""
    a = frame.args
    if frame.cmd == ACK and len(a) >= 2:
        return Reply(ACK, frame.seq, acked=_num(a[0]), shown=_num(a[1]))
    if frame.cmd == NAK and len(a) >= 2:
        return Reply(NAK, frame.seq, acked=None if a[0] == "?" else _num(a[0]), reason=a[1])
    if frame.cmd == HELLO and len(a) >= 4:
        return Reply(HELLO, frame.seq, version=a[0], led_count=_num(a[1]), shown=_num(a[3]))
    raise FrameError("CMD", f"unexpected controller frame {frame.cmd} with {len(a)} args")


def parse_colour(text: str) -> Colour:
    """'#FF8000' or 'FF8000' -> (255, 128, 0)."""
    raw = bytes.fromhex(text.removeprefix("#"))
    if len(raw) != 3:
        raise ValueError(f"colour must be 6 hex digits: {text!r}")
    return (raw[0], raw[1], raw[2])

