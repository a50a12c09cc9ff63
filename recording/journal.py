"""The game journal: one append-only file per match that survives a power cut at any instant.

Format (INTERFACES.md §4): JSON Lines, each line ``JSON<TAB>crc32<LF>`` where crc32 is the
8-digit lower-case hex CRC-32 of the UTF-8 JSON text.  Line 1 is the header (players, variant,
options, match length, device, event/site); every later line is one :mod:`rules.match` event with
``seq`` (1, 2, …), ``t`` (UTC time, added here: the rules stay clock-free) and optionally
``evidence`` (the file name of the camera frame the position was judged on).

:meth:`Journal.append` checks the event with :func:`rules.match.apply`, then writes the line with
one ``write`` and ``fsync`` before it returns, so "stored" means stored.  :meth:`Journal.append_many`
marks each line of a batch with ``batch: [first seq, last seq]``; a batch a crash cut short is
removed whole on repair.

:meth:`Journal.open` reads the file and tells a crash from damage (:attr:`Journal.damage`):

- a torn or corrupt *tail* (nothing intact after it) is what a crash leaves: it is cut off, any
  complete lines in it saved to a ``.damaged-N`` file beside it, and the match resumes;
- a damaged line in the *middle* (intact lines after it, their sequence numbers and CRCs tell) is
  not a crash: every intact line is kept.  When no event is missing (a stray or duplicated line)
  the file is rewritten without the damaged lines (saved aside) and the match resumes; when events
  are missing (:attr:`Journal.gap`), :class:`JournalGap` refuses to resume until a person decides
  (``accept_loss=True`` resumes from before the damage, the later lines saved aside).
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import tempfile
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
class Gap:
    """Events a damaged line in the middle of a journal took with it.

    ``first``..``last`` are the missing sequence numbers; ``after`` intact events follow them in
    the file (kept there, but they cannot be replayed without the missing ones).
    """

    first: int
    last: int
    after: int
    line: int  # the first damaged line

    def __str__(self) -> str:
        which = f"event {self.first} is" if self.first == self.last else f"events {self.first}-{self.last} are"
        return (f"{which} missing (damaged at line {self.line}); "
                f"{self.after} intact event{'s' if self.after != 1 else ''} after {'it' if self.first == self.last else 'them'}")


class JournalGap(JournalError):
    """A journal damaged in the middle so that events are missing: not resumed without a decision."""

    def __init__(self, path: str, gap: Gap, damage: list[Damage], kept: int) -> None:
        self.path = path
        self.gap = gap
        self.damage = damage
        self.kept = kept  # events before the gap that replay
        super().__init__(
            f"{path}: damaged in the middle, {gap}; resuming would go back to event {kept} "
            f"(a person must decide: resume from there, or start a new match)"
        )


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
    """Damage found on open: where (1-based line, byte offset), why, and what was done about it.

    ``cut_bytes`` is the size of the damaged tail cut off (a crash) or of the damaged line taken
    out; ``tail`` tells which.
    """

    line: int
    offset: int
    reason: str
    cut_bytes: int
    saved_to: str | None = None
    tail: bool = True

    def __str__(self) -> str:
        saved = f"; the cut lines were saved to {self.saved_to}" if self.saved_to else ""
        what = "bytes cut off" if self.tail else "bytes in the damaged line"
        return f"line {self.line}: {self.reason} ({self.cut_bytes} {what}{saved})"


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
        gap: Gap | None = None,
    ) -> None:
        self.path = path
        self.header = header
        self.records = records
        self.state = state
        self.damage = damage
        self.gap = gap  # read-only view of a journal with missing events: the records stop before them
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
            try:  # no header-less file left behind (disk full ...)
                os.unlink(path)
            except OSError:
                pass
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
        accept_loss: bool = False,
    ) -> Journal:
        """Open an existing journal to continue it (``repair``) or only to read it.

        With ``repair`` a damaged tail is cut off the file and damaged lines in the middle are
        taken out of it (whatever goes is saved beside it), and the journal is ready for
        :meth:`append`; when damage in the middle took events with it, :class:`JournalGap` is
        raised (the file untouched) unless ``accept_loss`` says to resume from before the damage.
        Without ``repair`` the file is not touched and :meth:`append` is refused.  Either way
        :attr:`damage` says what was wrong (and :attr:`gap` what is missing).
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
            scan = _scan(fd, size, check_plays)
            damage = _report(scan, size)
            if not repair:
                os.close(fd)
                return cls(path, scan.header, scan.records, scan.state, damage, None, clock, scan.gap)
            if scan.gap is not None and not accept_loss:
                raise JournalGap(path, scan.gap, damage, len(scan.records))
            if scan.damaged and (scan.tail_only or scan.gap is not None):
                line, reason = scan.damaged[0]
                if scan.gap is not None:
                    reason = f"{reason}; {scan.gap} (cut by decision)"
                damage = [_cut(fd, path, scan.good, size, line, reason)]
            elif scan.damaged:
                fd, damage = _rewrite(fd, path, scan)
        except BaseException:
            try:
                os.close(fd)
            except OSError:
                pass
            raise
        return cls(path, scan.header, scan.records, scan.state, damage, fd, clock)

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

        All or nothing: if any event is not allowed, IllegalEvent is raised and nothing is written;
        if a crash cuts the write short, the next :meth:`open` removes the whole batch.
        """
        if self._fd is None:
            raise JournalError(f"{self.path} is open read-only")
        state = self.state
        records: list[Record] = []
        lines: list[bytes] = []
        stamp = _utc(self._clock)
        first = len(self.records) + 1
        span = [first, first + len(events) - 1]
        for event in events:
            state = match.apply(state, event)
            record = Record(seq=len(self.records) + len(records) + 1, time=stamp, event=event)
            data: dict[str, Any] = {"seq": record.seq, "t": record.time}
            data.update(event_to_json(event))
            if len(events) > 1:
                data["batch"] = span  # all or nothing: a repair removes a batch a crash cut short
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


def _lines(fd: int, size: int) -> Iterator[tuple[int, bytes, int, str]]:
    """(offset, line without newline, bytes it takes, "" or what is wrong) for each line.

    Reads in bounded chunks: a line longer than MAX_LINE is skipped to its end, never held
    (``"line too long"``); a last line without its newline is ``"torn line (no end of line)"``.
    """
    os.lseek(fd, 0, os.SEEK_SET)
    pending = b""
    offset = 0
    skipping = 0  # bytes of an over-long line skipped so far
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        pending += chunk
        while True:
            cut = pending.find(b"\n")
            if cut < 0:
                if len(pending) > MAX_LINE or skipping:
                    skipping += len(pending)
                    pending = b""
                break
            if skipping:
                yield offset, b"", skipping + cut + 1, "line too long"
                offset += skipping + cut + 1
                skipping = 0
            else:
                yield offset, pending[:cut], cut + 1, ""
                offset += cut + 1
            pending = pending[cut + 1 :]
    if skipping:
        yield offset, b"", skipping + len(pending), "line too long (and torn: no end of line)"
    elif pending:
        yield offset, pending, len(pending), "torn line (no end of line)"


@dataclass
class _Line:
    number: int
    offset: int
    size: int  # bytes including the newline


@dataclass
class _Scan:
    """What reading a journal found."""

    header: Header
    records: list[Record]
    state: match.MatchState
    keep: list[_Line]  # header and intact lines, in order (those after a gap too)
    damaged: list[tuple[_Line, str]]
    gap: Gap | None
    good: int  # end of the last line that replays (where a tail cut goes)
    replayed_lines: int  # how many of ``keep`` replay (the header and the records)

    @property
    def tail_only(self) -> bool:
        """Every damaged line lies after every kept line: what a crash leaves."""
        return not self.damaged or (self.gap is None and len(self.keep) == self.replayed_lines
                                    and self.damaged[0][0].offset >= self.good)


def _scan(fd: int, size: int, check_plays: bool) -> _Scan:
    header: Header | None = None
    state: match.MatchState | None = None
    records: list[Record] = []
    keep: list[_Line] = []
    damaged: list[tuple[_Line, str]] = []
    gap: Gap | None = None
    last_seen = 0
    good = 0
    replayed = 0
    # the open batch: (first seq, last seq, state and line count before it, end offset before it)
    batch: tuple[int, int, match.MatchState, int, int] | None = None
    number = 0
    for offset, line, length, problem in _lines(fd, size):
        number += 1
        where = _Line(number, offset, length)
        try:
            if problem:
                raise ValueError(problem)
            data = decode_line(line)
            if header is None:
                try:
                    header = Header.from_json(data)
                except (JournalError, RulesError) as error:
                    raise JournalError(f"line 1: {error}") from None
                state = header.new_state(check_plays=check_plays)
                keep.append(where)
                good = offset + length
                replayed = 1
                continue
            if not isinstance(data, dict):
                raise ValueError("not an event object")
            seq = data.get("seq")
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
                raise ValueError(f"sequence number {seq!r} is not a whole number")
        except JournalError:
            raise
        except (ValueError, RulesError) as error:
            if header is None:
                raise JournalError(f"line 1: not a journal ({error})") from None
            damaged.append((where, str(error)))
            continue
        assert state is not None
        expected = len(records) + 1
        if gap is not None:  # past missing events: kept, but they cannot be replayed
            if seq <= last_seen:
                damaged.append((where, f"sequence number {seq} out of order (after {last_seen})"))
                continue
            keep.append(where)
            gap = Gap(gap.first, gap.last, gap.after + 1, gap.line)
            last_seen = seq
            continue
        if seq < expected:
            damaged.append((where, f"sequence number {seq} again (already at {expected - 1})"))
            continue
        if seq > expected:
            # events expected..seq-1 are missing: in a damaged line before this one, or gone
            first_bad = next((line.number for line, _ in damaged if line.offset >= good), number)
            gap = Gap(expected, seq - 1, 1, first_bad)
            if first_bad == number:
                damaged.append((where, f"sequence number {seq} where {expected} was expected"))
            keep.append(where)
            last_seen = seq
            continue
        try:
            event = event_from_json(data, header.variant)
            state_after = match.apply(state, event)
        except RulesError as error:
            damaged.append((where, f"event not allowed: {error}"))
            continue
        if batch is not None and seq > batch[1]:
            batch = None
        marked = data.get("batch")
        if (batch is None and isinstance(marked, list) and len(marked) == 2 and marked[0] == seq
                and isinstance(marked[1], int) and marked[1] > seq):
            batch = (seq, marked[1], state, replayed, good)
        state = state_after
        evidence = data.get("evidence")
        records.append(Record(seq=seq, time=str(data.get("t", "")), event=event,
                              evidence=evidence if isinstance(evidence, str) else None))
        keep.append(where)
        replayed += 1
        good = offset + length
    if header is None or state is None:
        raise JournalError("the journal is empty (no header)")
    if gap is None and batch is not None and len(records) < batch[1] and len(keep) == replayed:
        # a batch the crash cut short, with nothing after it: it goes whole, like a torn tail
        first, last, before, lines_before, end_before = batch
        cut = keep[lines_before:]
        damaged.insert(0, (cut[0], f"incomplete batch: events {first}-{last} were being written, "
                                   f"only {len(records) - first + 1} reached the disk"))
        del records[first - 1 :]
        del keep[lines_before:]
        state, replayed, good = before, lines_before, end_before
    return _Scan(header, records, state, keep, damaged, gap, good, replayed)


def _side_file(path: str) -> str:
    number = 1
    while os.path.exists(f"{path}.damaged-{number}"):
        number += 1
    return f"{path}.damaged-{number}"


def _read_range(fd: int, start: int, size: int) -> bytes:
    os.lseek(fd, start, os.SEEK_SET)
    data = b""
    while len(data) < size:
        chunk = os.read(fd, min(1 << 20, size - len(data)))
        if not chunk:
            break
        data += chunk
    return data


def _save_aside(path: str, data: bytes) -> str:
    saved = _side_file(path)
    side = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_all(side, data)
        os.fsync(side)
    finally:
        os.close(side)
    return saved


def _cut(fd: int, path: str, good: int, size: int, line: _Line, reason: str) -> Damage:
    """Cut the file at ``good``; keep complete lines that had to go in a side file."""
    saved: str | None = None
    tail = _read_range(fd, good, size - good)
    if b"\n" in tail:
        saved = _save_aside(path, tail)
    os.ftruncate(fd, good)
    os.fsync(fd)
    fsync_dir(os.path.dirname(os.path.abspath(path)))
    return Damage(line.number, line.offset, reason, size - good, saved)


def _rewrite(fd: int, path: str, scan: _Scan) -> tuple[int, list[Damage]]:
    """Rewrite the journal with its intact lines only (atomically); the damaged ones saved aside.

    Returns the new file's descriptor (locked) and the damage report.
    """
    directory = os.path.dirname(os.path.abspath(path))
    saved = _save_aside(path, b"".join(_read_range(fd, line.offset, line.size) for line, _ in scan.damaged))
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.repairing")
    new = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
    try:
        fcntl.flock(new, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for line in scan.keep[: scan.replayed_lines]:
            data = _read_range(fd, line.offset, line.size)
            _write_all(new, data if data.endswith(b"\n") else data + b"\n")
        os.fsync(new)
        os.replace(temporary, path)
        fsync_dir(directory)
    except BaseException:
        os.close(new)
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    os.close(fd)
    damage = [Damage(line.number, line.offset, reason, line.size, saved, tail=False) for line, reason in scan.damaged]
    return new, damage


def _report(scan: _Scan, size: int) -> list[Damage]:
    """The damage as found (nothing changed on disk)."""
    if not scan.damaged:
        return []
    if scan.tail_only:
        line, reason = scan.damaged[0]
        return [Damage(line.number, line.offset, reason, size - scan.good)]
    return [Damage(line.number, line.offset, reason, line.size, tail=False) for line, reason in scan.damaged]


def has_room(directory: str, size: int = 1 << 16) -> bool:
    """Whether ``directory`` takes ``size`` more bytes now (a probe written, fsynced and removed)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".room-", dir=directory or ".")
    except OSError:
        return False
    try:
        _write_all(fd, b"\0" * size)
        os.fsync(fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
        os.unlink(probe)


def create(path: str | os.PathLike[str], header: Header, **kwargs: Any) -> Journal:
    return Journal.create(path, header, **kwargs)


def open_journal(path: str | os.PathLike[str], **kwargs: Any) -> Journal:
    return Journal.open(path, **kwargs)


def replay(path: str | os.PathLike[str], *, check_plays: bool = True) -> Journal:
    """Read a journal without changing it: header, records, final match state, damage."""
    return Journal.open(path, repair=False, check_plays=check_plays)
