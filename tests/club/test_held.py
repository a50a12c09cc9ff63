"""A table that stops right after the club's copy fell behind does not leave the copy short.

A real Mosquitto *without* persistence (a club that forgot ``persistence true``): restarting it
loses the club server's session, so the lines a table publishes before the club server is back
reach the broker (it acknowledges them) but never the copy.  The table's publisher hears from the
club server what its copy holds (``held``) and waits for the copy, not only for the broker, when
it stops.
"""

from __future__ import annotations

from pathlib import Path

from club.mirror import Mirror
from club.protocol import parse_broker
from club.server import ClubListener
from tests.club.broker import Broker
from tests.club.tables import SimulatedTable, recorded_events
from tests.club.test_club_e2e import wait_for


def test_a_table_waits_for_the_club_copy_not_only_the_broker(tmp_path: Path) -> None:
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", config=None)
    port = broker.port
    broker.config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker.start()
    address = parse_broker(broker.url)
    header, events = recorded_events(tmp_path)
    table = SimulatedTable("T7", tmp_path / "T7", header, events[:40], broker.url).start()
    listener = ClubListener(address, Mirror(tmp_path / "club")).start()
    copy = tmp_path / "club" / "T7" / "match-T7.jsonl"
    closed = False
    try:
        for _ in range(10):
            table.step()
        wait_for("the first ten events at the club", lambda: copy.exists()
                 and copy.read_bytes() == Path(table.journal.path).read_bytes(), timeout=30)
        wait_for("the club's word on its copy", lambda: table.publisher.club_seen
                 and table.publisher.club_short() == 0, timeout=30)

        listener.close()  # the club server goes away, then the broker restarts and forgets its session
        broker.stop()
        broker.start()
        while not table.done:
            table.step()
        assert table.publisher.flush(30)  # the broker has every line ...
        assert copy.read_bytes() != Path(table.journal.path).read_bytes()  # ... the copy does not

        mirror = Mirror(tmp_path / "club")  # the club server is back, with the copies it kept
        mirror.load()
        listener = ClubListener(address, mirror).start()
        table.close(timeout=30)
        closed = True
        assert copy.read_bytes() == Path(table.journal.path).read_bytes()  # at once, when the table stops
        assert table.publisher.club_short() == 0
    finally:
        if not closed:
            table.close(timeout=0)
        listener.close()
        broker.stop()
