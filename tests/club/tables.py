"""Simulated tables: a recorded match replayed into a live journal, published by the real publisher.

Used by the security test and by bench/club.py (many tables into one broker and club server).
"""

from __future__ import annotations

import time
from pathlib import Path

from controller.club_link import ClubPublisher
from controller.referee import Referee
from controller.signals import BoardSignals
from recording.export import import_to_journal
from recording.journal import Header, Journal, replay
from rules import match

DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg"


def recorded_events(work: Path, source: str = "sample_5pt.mat") -> tuple[Header, list[match.Event]]:
    """The header and events of a recorded match (imported from tests/data, validating every play)."""
    path = work / f"source-{Path(source).stem}.jsonl"
    if not path.exists():
        import_to_journal(DATA / source, path).close()
    journal = replay(path)
    return journal.header, journal.events


class SimulatedTable:
    """A table whose referee stores a recorded match's events one by one, published to the club."""

    def __init__(self, name: str, data_dir: Path, header: Header, events: list[match.Event],
                 broker_url: str, *, username: str | None = None, password: str | None = None) -> None:
        self.name = name
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        self.events = events
        self.header = header
        self.signals = BoardSignals(None)
        self.publisher = ClubPublisher(broker_url, name, username=username, password=password, data_dir=data_dir)
        self.signals.add_listener(self.publisher.wake)
        self.round = 0
        self.paths: list[Path] = []
        self.stored_at: dict[tuple[int, int], float] = {}  # (round, seq) -> wall time it was stored
        self._open(data_dir / f"match-{name}.jsonl")

    def _open(self, path: Path) -> None:
        self.journal = Journal.create(path, self.header, check_plays=False)
        self.paths.append(path)
        self.referee = Referee(self.journal, self.signals)
        self.publisher.attach(self.referee)

    def next_match(self) -> None:
        """The recorded match again, as this table's next match (a new journal)."""
        self.journal.close()
        self.round += 1
        self._open(self.data_dir / f"match-{self.name}-{self.round + 1}.jsonl")

    def start(self) -> SimulatedTable:
        self.publisher.start()
        return self

    @property
    def done(self) -> bool:
        return len(self.journal.records) >= len(self.events)

    def step(self) -> int:
        """Store the next event as the referee would (journal first, then the announcement)."""
        event = self.events[len(self.journal.records)]
        record = self.journal.append(event)
        self.stored_at[(self.round, record.seq)] = time.time()
        self.signals.emit("stored", {"seq": record.seq})
        return record.seq

    def close(self, timeout: float = 10.0) -> None:
        self.publisher.close(timeout)
        self.journal.close()
