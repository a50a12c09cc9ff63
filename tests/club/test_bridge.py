"""A club that outgrows one room: its Mosquitto bridged to a bigger broker, the referees unchanged.

Two real brokers: the room's (where a table publishes) bridges ``referee/#`` both ways to the
bigger one (where the club server listens).  The club's copy equals the table's journal, and
what the club server says back (``held``) reaches the table through the bridge.
"""

from __future__ import annotations

import getpass
from pathlib import Path

from club.mirror import Mirror
from club.protocol import parse_broker
from club.server import ClubListener
from tests.club.broker import Broker, free_port
from tests.club.tables import SimulatedTable, recorded_events
from tests.club.test_club_e2e import wait_for


def test_a_room_broker_bridged_to_a_bigger_one_carries_the_tables(tmp_path: Path) -> None:
    (tmp_path / "big").mkdir()
    (tmp_path / "room").mkdir()
    big_port, room_port = free_port(), free_port()
    user = getpass.getuser()
    big = Broker(tmp_path / "big", config=f"user {user}\nlistener {big_port} 127.0.0.1\nallow_anonymous true\n",
                 port=big_port).start()
    room = Broker(tmp_path / "room", port=room_port, config=(
        f"user {user}\nlistener {room_port} 127.0.0.1\nallow_anonymous true\n"
        f"connection bigger\naddress 127.0.0.1:{big_port}\ntopic referee/# both 1\n"
        "cleansession false\nbridge_protocol_version mqttv311\nrestart_timeout 1\n")).start()
    listener = ClubListener(parse_broker(big.url), Mirror(tmp_path / "club")).start()
    header, events = recorded_events(tmp_path)
    table = SimulatedTable("T9", tmp_path / "T9", header, events[:25], room.url).start()
    try:
        wait_for("the club server and the bridge", lambda: listener.connected.is_set()
                 and "bigger" in (tmp_path / "room" / "mosquitto.log").read_text(errors="replace"), timeout=20)
        while not table.done:
            table.step()
        copy = tmp_path / "club" / "T9" / "match-T9.jsonl"
        wait_for("the copy at the far end of the bridge", lambda: copy.exists()
                 and copy.read_bytes() == Path(table.journal.path).read_bytes(), timeout=60)
        wait_for("the club's word back through the bridge", lambda: table.publisher.club_seen
                 and table.publisher.club_short() == 0, timeout=30)
    finally:
        table.close(timeout=5)
        listener.close()
        room.stop()
        big.stop()
