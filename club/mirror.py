"""The club's copy of every table's journals, kept line for line in the journal's own format.

Each match a table publishes becomes ``<data_dir>/<table>/<match>.jsonl``.  A line is stored only
when its ``seq`` is the next one the copy lacks (the header is ``seq`` 0), so a line received twice
is stored once and a gap is never papered over: :meth:`Mirror.receive` says ``gap`` and the server
asks the referee to replay from the first missing line.  The copy folds the events with
:mod:`rules.match` as it goes, so the dashboard's score and phase come from the copy itself.  On
start-up :meth:`Mirror.load` reopens every copy (cutting a torn last line, as the journal does).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from club.protocol import check_name
from recording.codec import event_from_json
from recording.journal import Header, Journal, JournalError, decode_line, fsync_dir
from rules import match
from rules.errors import RulesError

log = logging.getLogger(__name__)

STORED, DUPLICATE, GAP, BAD = "stored", "duplicate", "gap", "bad"


@dataclass
class MatchCopy:
    """One match journal as the club holds it."""

    table: str
    name: str
    path: Path
    header: Header
    state: match.MatchState
    events: int = 0  # events after the header; the last stored seq
    plays: int = 0
    received_at: float = 0.0  # wall-clock time the last line arrived (file time after a restart)
    fd: int | None = None

    def append(self, line: bytes) -> None:
        if self.fd is None:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        view = memoryview(line)
        while view:
            view = view[os.write(self.fd, view):]
        os.fsync(self.fd)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass
class TableInfo:
    """What the club knows of one table besides its journals."""

    name: str
    online: bool = False
    snapshot: dict[str, Any] = field(default_factory=dict)
    current: str | None = None  # the match on the board now
    matches: dict[str, MatchCopy] = field(default_factory=dict)

    def current_copy(self) -> MatchCopy | None:
        if self.current is not None and self.current in self.matches:
            return self.matches[self.current]
        if not self.matches:
            return None
        return max(self.matches.values(), key=lambda m: (m.received_at, m.name))


class Mirror:
    """Every table's journals, status and snapshot; safe to use from several threads."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.tables: dict[str, TableInfo] = {}
        self.changes = 0  # bumped on every stored line or status/snapshot change
        self.changed = threading.Condition(self.lock)

    # --- start-up ----------------------------------------------------------------------------
    def load(self) -> int:
        """Reopen every copy under the data dir; returns how many matches were found."""
        found = 0
        with self.lock:
            for path in sorted(self.data_dir.glob("*/*.jsonl")):
                table, name = path.parent.name, path.stem
                try:
                    check_name(table, "table")
                    check_name(name, "match")
                    journal = Journal.open(path, repair=True, check_plays=False)
                except (ValueError, OSError) as error:
                    log.warning("club: skipping %s: %s", path, error)
                    continue
                for damage in journal.damage:
                    log.warning("club: copy %s repaired: %s", path, damage)
                copy = MatchCopy(table, name, path, journal.header, journal.state, len(journal.records),
                                 sum(isinstance(r.event, match.Play) for r in journal.records),
                                 path.stat().st_mtime)
                journal.close()
                self._table(table).matches[name] = copy
                found += 1
        return found

    def _table(self, name: str) -> TableInfo:
        info = self.tables.get(name)
        if info is None:
            info = self.tables[name] = TableInfo(name)
        return info

    def _changed(self) -> None:
        self.changes += 1
        self.changed.notify_all()

    # --- receiving ---------------------------------------------------------------------------
    def have(self, table: str, name: str) -> int:
        """The last stored seq of a match copy (-1: not even its header)."""
        with self.lock:
            info = self.tables.get(table)
            copy = info.matches.get(name) if info is not None else None
            return -1 if copy is None else copy.events

    def receive(self, table: str, name: str, line: bytes) -> str:
        """Store one published journal line if it is the next one; say what happened."""
        try:
            check_name(table, "table")
            check_name(name, "match")
            body = line[:-1] if line.endswith(b"\n") else line
            data = decode_line(body)
            if not isinstance(data, dict) or not isinstance(data.get("seq"), int):
                raise ValueError("no sequence number")
        except ValueError as error:
            log.warning("club: bad line from %s/%s: %s", table, name, error)
            return BAD
        raw = body + b"\n"
        seq: int = data["seq"]
        with self.lock:
            info = self._table(table)
            copy = info.matches.get(name)
            have = -1 if copy is None else copy.events
            if seq <= have:
                return DUPLICATE
            if seq > have + 1:
                return GAP
            try:
                if copy is None:
                    header = Header.from_json(data)
                    state = header.new_state(check_plays=False)
                    directory = self.data_dir / table
                    directory.mkdir(exist_ok=True)
                    copy = MatchCopy(table, name, directory / f"{name}.jsonl", header, state)
                    if copy.path.exists():  # a stray file without a header we could read
                        copy.path.rename(copy.path.with_suffix(f".jsonl.bad-{int(time.time())}"))
                    copy.append(raw)
                    fsync_dir(str(directory))
                    info.matches[name] = copy
                else:
                    event = event_from_json(data, copy.header.variant)
                    state = match.apply(copy.state, event)
                    copy.append(raw)
                    copy.state = state
                    copy.events = seq
                    copy.plays += isinstance(event, match.Play)
            except (JournalError, RulesError, ValueError) as error:
                log.warning("club: line %d of %s/%s refused: %s", seq, table, name, error)
                return BAD
            copy.received_at = time.time()
            if info.current is None or info.snapshot.get("match") in (None, name):
                info.current = name
            self._changed()
            return STORED

    def set_status(self, table: str, online: bool) -> None:
        with self.lock:
            info = self._table(table)
            if info.online != online:
                info.online = online
                self._changed()

    def set_snapshot(self, table: str, snapshot: dict[str, Any]) -> None:
        with self.lock:
            info = self._table(table)
            info.snapshot = snapshot
            name = snapshot.get("match")
            if isinstance(name, str):
                info.current = name
            self._changed()

    def close(self) -> None:
        with self.lock:
            for info in self.tables.values():
                for copy in info.matches.values():
                    copy.close()

    # --- reading -----------------------------------------------------------------------------
    def state_json(self, now: float | None = None) -> dict[str, Any]:
        """``/club/state.json`` (INTERFACES.md §6), tables in name order."""
        now = time.time() if now is None else now
        tables = []
        with self.lock:
            for name in sorted(self.tables, key=_table_order):
                tables.append(self.table_json(self.tables[name], now))
        return {"tables": tables}

    def table_json(self, info: TableInfo, now: float) -> dict[str, Any]:
        copy = info.current_copy()
        snap = info.snapshot
        same = copy is not None and snap.get("match") == copy.name
        if copy is not None:
            state = copy.state
            score = [int(s) if float(s).is_integer() else s for s in state.score]
            return {
                "table": info.name,
                "online": info.online,
                "variant": state.variant,
                "players": list(copy.header.players),
                "score": score,
                "match_length": state.config.length,
                "events": copy.events,
                "plays": copy.plays,
                "state": state.phase,
                "alert": snap.get("alert") if same and info.online else None,
                "question": snap.get("question") if same and info.online else None,
                "last_event_age_s": round(max(0.0, now - copy.received_at), 1),
            }
        return {
            "table": info.name, "online": info.online, "variant": snap.get("variant"),
            "players": snap.get("players", []), "score": snap.get("score", [0, 0]),
            "match_length": snap.get("match_length", 0), "events": 0, "plays": 0,
            "state": snap.get("state"), "alert": snap.get("alert") if info.online else None,
            "question": snap.get("question") if info.online else None, "last_event_age_s": None,
        }

    def matches(self) -> list[MatchCopy]:
        with self.lock:
            return [copy for name in sorted(self.tables, key=_table_order)
                    for copy in sorted(self.tables[name].matches.values(), key=lambda m: m.name)]

    def find(self, table: str, name: str) -> MatchCopy | None:
        with self.lock:
            info = self.tables.get(table)
            return info.matches.get(name) if info is not None else None


def _table_order(name: str) -> tuple[str, int, str]:
    """T2 before T10: the letters, then the number, as a director counts tables."""
    digits = "".join(c for c in name if c.isdigit())
    letters = "".join(c for c in name if not c.isdigit())
    return (letters, int(digits) if digits else 0, name)
