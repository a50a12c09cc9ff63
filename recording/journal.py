"""The game journal: one append-only file per match that survives a power cut at any instant.

Format (INTERFACES.md §4): JSON Lines, each line ``JSON<TAB>crc32<LF>`` where crc32 is the
8-digit lower-case hex CRC-32 of the UTF-8 JSON text.  Line 1 is the header (players, variant,
options, match length, device, event/site); every later line is one :mod:`rules.match` event with
``seq`` (1, 2, …), ``t`` (UTC time, added here: the rules stay clock-free) and optionally
``evidence`` (the file name of the camera frame the position was judged on).

:meth:`Journal.append` checks the event with :func:`rules.match.apply`, then writes the line with
one ``write`` and ``fsync`` before it returns, so "stored" means stored.  :meth:`Journal.open`
reads the file, cuts off a torn or corrupt tail (saving any complete lines it had to cut to a
``.damaged-N`` file beside it), reports it in :attr:`Journal.damage` and replays the events into
:attr:`Journal.state`.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from recording.codec import event_from_json, event_to_json
from rules import match
from rules.errors import RulesError
from rules.variants import find_variant

FORMAT = "referee-journal/1"
MAX_LINE = 1 << 20  # no event is anywhere near 1 MB; a longer "line" is garbage


class JournalError(RulesError):
    """A journal that cannot be used at all (no header, locked, not a journal)."""


@dataclass(frozen=True)
class Header:
    """What is recorded once, at the start of a match."""

    variant: str = "backgammon"
    match_length: int = 0
    players: tuple[str, str] = ("White", "Black")
    options: Mapping[str, Any] = field(default_factory=dict)
    device: str = ""
    event: str = ""
    site: str = ""
    round: str = ""
    date: str = ""  # YYYY-MM-DD, the match date for exports (empty: the first event's day)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def normalised(self) -> Header:
        """Canonical variant name and the options with every default filled in (validated)."""
        variant = find_variant(self.variant)
        options = variant.validate_options(self.options)
        length = int(self.match_length)
        if length < 0:
            raise JournalError("match length must be 0 or more")
        if "match_length" in options:
            options["match_length"] = length
        names = tuple(_clean(str(n)) for n in self.players)
        if len(names) != 2:
            raise JournalError("a match has two players")
        return Header(
            variant=variant.name,
            match_length=length,
            players=(names[0], names[1]),
            options=options,
            device=_clean(self.device),
            event=_clean(self.event),
            site=_clean(self.site),
            round=_clean(self.round),
            date=_clean(self.date),
            extra=dict(self.extra),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "Header",
            "format": FORMAT,
            "variant": self.variant,
            "match_length": self.match_length,
            "players": list(self.players),
            "options": dict(self.options),
            "device": self.device,
            "event": self.event,
            "site": self.site,
            "round": self.round,
            "date": self.date,
            "extra": dict(self.extra),
        }

    @classmethod
    def from_json(cls, data: Any) -> Header:
        if not isinstance(data, dict) or data.get("type") != "Header":
            raise JournalError("the first line is not a journal header")
        if data.get("format") != FORMAT:
            raise JournalError(f"unknown journal format {data.get('format')!r}")
        players = data.get("players", ["White", "Black"])
        if not isinstance(players, list) or len(players) != 2:
            raise JournalError("the header must name two players")
        options = data.get("options", {})
        extra = data.get("extra", {})
        if not isinstance(options, dict) or not isinstance(extra, dict):
            raise JournalError("header options must be an object")
        length = data.get("match_length", 0)
        if not isinstance(length, int) or isinstance(length, bool):
            raise JournalError("header match_length must be a whole number")
        return cls(
            variant=str(data.get("variant", "backgammon")),
            match_length=length,
            players=(str(players[0]), str(players[1])),
            options=options,
            device=str(data.get("device", "")),
            event=str(data.get("event", "")),
            site=str(data.get("site", "")),
            round=str(data.get("round", "")),
            date=str(data.get("date", "")),
            extra=extra,
        ).normalised()

    def new_state(self, *, check_plays: bool = True) -> match.MatchState:
        return match.new_match(self.variant, self.match_length, dict(self.options), check_plays=check_plays)


def _clean(text: str) -> str:
    """One line of printable text (names and places end up in .mat/.sgf headers)."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


@dataclass(frozen=True)
class Record:
    """One stored event with what the journal added to it."""

    seq: int
    time: str
    event: match.Event
    evidence: str | None = None


@dataclass(frozen=True)
class Damage:
    """A torn or corrupt tail found on open: where (1-based line, byte offset) and why."""

    line: int
    offset: int
    reason: str
    cut_bytes: int
    saved_to: str | None = None

    def __str__(self) -> str:
        saved = f"; the cut lines were saved to {self.saved_to}" if self.saved_to else ""
        return f"line {self.line}: {self.reason} ({self.cut_bytes} bytes cut off{saved})"


def encode_line(data: Mapping[str, Any]) -> bytes:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    raw = text.encode("utf-8")
    return raw + b"\t" + f"{zlib.crc32(raw):08x}".encode("ascii") + b"\n"


def decode_line(line: bytes) -> Any:
    """The JSON object of one line (without its newline); ValueError saying what is wrong."""
    if len(line) > MAX_LINE:
        raise ValueError("line too long")
    body, tab, crc = line.rpartition(b"\t")
    if not tab:
        raise ValueError("no checksum")
    try:
        expected = int(crc.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        raise ValueError("malformed checksum") from None
    if len(crc) != 8 or zlib.crc32(body) != expected:
        raise ValueError("checksum mismatch")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("not JSON") from None


def _utc(clock: Callable[[], float]) -> str:
    moment = _dt.datetime.fromtimestamp(clock(), tz=_dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fsync_dir(path: str) -> None:
    """Make a directory entry (a new or renamed file) durable."""
    fd = os.open(path or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Journal:
    """An open journal: its header, records, the match state they fold to, and any damage found."""

    def __init__(
        self,
        path: str,
        header: Header,
        records: list[Record],
        state: match.MatchState,
        damage: list[Damage],
        fd: int | None,
        clock: Callable[[], float],
    ) -> None:
        self.path = path
        self.header = header
        self.records = records
        self.state = state
        self.damage = damage
        self._fd = fd
        self._clock = clock

    # --- opening ---------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        header: Header,
        *,
        clock: Callable[[], float] = time.time,
        check_plays: bool = True,
    ) -> Journal:
        """Start a new journal (fails if ``path`` exists); the header is on disk when this returns."""
        path = os.fspath(path)
        header = header.normalised()
        state = header.new_state(check_plays=check_plays)
        data = header.to_json()
        data["seq"] = 0
        data["t"] = _utc(clock)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_all(fd, encode_line(data))
            os.fsync(fd)
            fsync_dir(os.path.dirname(os.path.abspath(path)))
        except BaseException:
            os.close(fd)
            raise
        return cls(path, header, [], state, [], fd, clock)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        repair: bool = True,
        clock: Callable[[], float] = time.time,
        check_plays: bool = True,
    ) -> Journal:
        """Open an existing journal to continue it (``repair``) or only to read it.

        With ``repair`` a damaged tail is cut off the file (complete lines that had to go are
        saved beside it) and the journal is ready for :meth:`append`; without, the file is not
        touched and :meth:`append` is refused.  Either way :attr:`damage` says what was wrong.
        """
        path = os.fspath(path)
        flags = os.O_RDWR | os.O_APPEND if repair else os.O_RDONLY
        fd = os.open(path, flags)
        try:
            if repair:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise JournalError(f"{path} is open for writing by another process") from None
            size = os.fstat(fd).st_size
            header, records, state, damage, good = _read(fd, size, check_plays)
            if damage is not None and repair:
                damage = _cut(fd, path, good, size, damage)
        except BaseException:
            os.close(fd)
            raise
        if not repair:
            os.close(fd)
            return cls(path, header, records, state, [damage] if damage else [], None, clock)
        return cls(path, header, records, state, [damage] if damage else [], fd, clock)

    # --- writing ---------------------------------------------------------------------------
    def append(self, event: match.Event, *, evidence: str | None = None) -> Record:
        """Check ``event`` against the match, store it durably, and return its record.

        Raises IllegalEvent (nothing written) when the event is not allowed now.
        """
        if self._fd is None:
            raise JournalError(f"{self.path} is open read-only")
        state = match.apply(self.state, event)
        record = Record(seq=len(self.records) + 1, time=_utc(self._clock), event=event, evidence=evidence)
        data = {"seq": record.seq, "t": record.time}
        data.update(event_to_json(event))
        if evidence is not None:
            data["evidence"] = evidence
        self._write_durably(encode_line(data))
        self.records.append(record)
        self.state = state
        return record

    def append_many(self, events: Sequence[match.Event]) -> list[Record]:
        """Store several events with one write and one fsync (a batch such as an import).

        All or nothing: if any event is not allowed, IllegalEvent is raised and nothing is written.
        """
        if self._fd is None:
            raise JournalError(f"{self.path} is open read-only")
        state = self.state
        records: list[Record] = []
        lines: list[bytes] = []
        stamp = _utc(self._clock)
        for event in events:
            state = match.apply(state, event)
            record = Record(seq=len(self.records) + len(records) + 1, time=stamp, event=event)
            data = {"seq": record.seq, "t": record.time}
            data.update(event_to_json(event))
            lines.append(encode_line(data))
            records.append(record)
        self._write_durably(b"".join(lines))
        self.records.extend(records)
        self.state = state
        return records

    def _write_durably(self, data: bytes) -> None:
        """One write and one fsync; on failure (disk full ...) no half line is left behind."""
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        try:
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, size)
                os.fsync(self._fd)
            except OSError:
                pass
            raise

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ---------------------------------------------------------------------------
    @property
    def events(self) -> list[match.Event]:
        return [record.event for record in self.records]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)


def _lines(fd: int, size: int) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, line without newline, complete) for each line, reading in bounded chunks."""
    os.lseek(fd, 0, os.SEEK_SET)
    pending = b""
    offset = 0
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        pending += chunk
        while True:
            cut = pending.find(b"\n")
            if cut < 0:
                if len(pending) > MAX_LINE:
                    yield offset, pending, False
                    return
                break
            yield offset, pending[:cut], True
            offset += cut + 1
            pending = pending[cut + 1 :]
    if pending:
        yield offset, pending, False


def _read(
    fd: int, size: int, check_plays: bool
) -> tuple[Header, list[Record], match.MatchState, Damage | None, int]:
    header: Header | None = None
    state: match.MatchState | None = None
    records: list[Record] = []
    good = 0
    number = 0
    for offset, line, complete in _lines(fd, size):
        number += 1
        try:
            if not complete:
                raise ValueError("torn line (no end of line)")
            data = decode_line(line)
            if header is None:
                try:
                    header = Header.from_json(data)
                except (JournalError, RulesError) as error:
                    raise JournalError(f"line 1: {error}") from None
                state = header.new_state(check_plays=check_plays)
            else:
                assert state is not None
                if not isinstance(data, dict):
                    raise ValueError("not an event object")
                seq = data.get("seq")
                if seq != len(records) + 1:
                    raise ValueError(f"sequence number {seq!r} where {len(records) + 1} was expected")
                event = event_from_json(data, header.variant)
                try:
                    state = match.apply(state, event)
                except RulesError as error:
                    raise ValueError(f"event not allowed: {error}") from None
                evidence = data.get("evidence")
                records.append(
                    Record(
                        seq=seq,
                        time=str(data.get("t", "")),
                        event=event,
                        evidence=evidence if isinstance(evidence, str) else None,
                    )
                )
        except JournalError:
            raise
        except (ValueError, RulesError) as error:
            if header is None:
                raise JournalError(f"line 1: not a journal ({error})") from None
            assert state is not None
            return header, records, state, Damage(number, offset, str(error), size - offset), offset
        good = offset + len(line) + 1
    if header is None or state is None:
        raise JournalError("the journal is empty (no header)")
    return header, records, state, None, good


def _cut(fd: int, path: str, good: int, size: int, damage: Damage) -> Damage:
    """Cut the file at ``good``; keep complete lines that had to go in a side file."""
    saved: str | None = None
    os.lseek(fd, good, os.SEEK_SET)
    tail = b""
    while len(tail) < size - good:
        chunk = os.read(fd, min(1 << 20, size - good - len(tail)))
        if not chunk:
            break
        tail += chunk
    if b"\n" in tail:
        number = 1
        while os.path.exists(f"{path}.damaged-{number}"):
            number += 1
        saved = f"{path}.damaged-{number}"
        side = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(side, tail)
            os.fsync(side)
        finally:
            os.close(side)
    os.ftruncate(fd, good)
    os.fsync(fd)
    fsync_dir(os.path.dirname(os.path.abspath(path)))
    return Damage(damage.line, damage.offset, damage.reason, damage.cut_bytes, saved)


def create(path: str | os.PathLike[str], header: Header, **kwargs: Any) -> Journal:
    return Journal.create(path, header, **kwargs)


def open_journal(path: str | os.PathLike[str], **kwargs: Any) -> Journal:
    return Journal.open(path, **kwargs)


def replay(path: str | os.PathLike[str], *, check_plays: bool = True) -> Journal:
    """Read a journal without changing it: header, records, final match state, damage."""
    return Journal.open(path, repair=False, check_plays=check_plays)
