"""``referee club init`` against the real broker: a wrong password is refused, and a referee cannot
write another table's topics; the matching settings let each table and the club server work."""

from __future__ import annotations

import threading
import tomllib
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from club.mirror import Mirror
from club.protocol import parse_broker
from club.server import ClubListener
from controller.cli import main
from tests.club.broker import Broker, free_port
from tests.club.tables import SimulatedTable, recorded_events
from tests.club.test_club_e2e import wait_for


@pytest.fixture
def secured(tmp_path: Path) -> tuple[Broker, Path]:
    port = free_port()
    out = tmp_path / "club-broker"
    assert main(["club", "init", "--tables", "3", "--broker", f"mqtt://127.0.0.1:{port}/sec", "--out", str(out)]) == 0
    for name in ("mosquitto.conf", "passwd", "acl", "club.password", "referees/T1.toml", "referees/T3.toml"):
        assert (out / name).is_file(), name
    assert "T1:" in (out / "passwd").read_text() and "allow_anonymous false" in (out / "mosquitto.conf").read_text()
    running = Broker(out, config=(out / "mosquitto.conf").read_text(), port=port).start()
    yield running, out
    running.stop()


def settings(out: Path, table: str) -> dict[str, str]:
    return tomllib.loads((out / "referees" / f"{table}.toml").read_text())


def connect(port: int, user: str | None, password: str | None) -> tuple[mqtt.Client, list[object]]:
    results: list[object] = []
    done = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    if user is not None:
        client.username_pw_set(user, password)

    def on_connect(client: mqtt.Client, userdata: object, flags: object, reason: object, properties: object) -> None:
        results.append(reason)
        done.set()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port)
    client.loop_start()
    done.wait(10)
    return client, results


def test_wrong_password_and_anonymous_are_refused(secured: tuple[Broker, Path]) -> None:
    broker, out = secured
    for user, password in (("T1", "not-the-password"), (None, None), ("nobody", "x")):
        client, results = connect(broker.port, user, password)
        client.loop_stop()
        assert results and results[0].is_failure, (user, results)  # type: ignore[attr-defined]
    client, results = connect(broker.port, "T1", settings(out, "T1")["club_password"])
    client.disconnect()
    client.loop_stop()
    assert results and not results[0].is_failure  # type: ignore[attr-defined]


def test_a_referee_cannot_write_another_tables_topics(secured: tuple[Broker, Path]) -> None:
    broker, out = secured
    club_password = (out / "club.password").read_text().strip()
    seen: list[str] = []
    watcher, results = connect(broker.port, "club", club_password)
    assert not results[0].is_failure  # type: ignore[attr-defined]
    watcher.on_message = lambda c, u, m: seen.append(m.topic)
    subscribed = threading.Event()
    watcher.on_subscribe = lambda c, u, mid, reasons, props: subscribed.set()
    watcher.subscribe("referee/sec/#", qos=1)
    wait_for("the subscription", subscribed.is_set, timeout=10)  # the broker's SUBACK: T1's message reaches it
    t1, _ = connect(broker.port, "T1", settings(out, "T1")["club_password"])
    acks: dict[int, object] = {}
    t1.on_publish = lambda c, u, mid, reason, props: acks.__setitem__(mid, reason)
    own = t1.publish("referee/sec/T1/snapshot", b"{}", qos=1)
    other = t1.publish("referee/sec/T2/snapshot", b"{}", qos=1)
    other_leaf = t1.publish("referee/sec/T2/events/x", b"forged", qos=1)
    command = t1.publish("referee/sec/T2/command", b'{"action": "accept"}', qos=1)
    wait_for("the broker's answers", lambda: len(acks) == 4, timeout=10)
    wait_for("T1's own message", lambda: "referee/sec/T1/snapshot" in seen, timeout=10)
    assert not any("/T2/" in topic for topic in seen)
    assert acks[own.mid].value == 0  # type: ignore[attr-defined]
    for refused in (other, other_leaf, command):
        assert acks[refused.mid].value == 135  # type: ignore[attr-defined]  # not authorized
    for client in (t1, watcher):
        client.disconnect()
        client.loop_stop()


def test_the_generated_settings_carry_a_match_to_the_club(secured: tuple[Broker, Path], tmp_path: Path) -> None:
    broker, out = secured
    mine = settings(out, "T3")
    assert parse_broker(mine["club"]).port == broker.port and mine["table"] == "T3"
    mirror = Mirror(tmp_path / "club")
    listener = ClubListener(parse_broker(mine["club"]), mirror, username="club",
                            password=(out / "club.password").read_text().strip()).start()
    header, events = recorded_events(tmp_path)
    table = SimulatedTable("T3", tmp_path / "T3", header, events[:30], mine["club"],
                           username=mine["club_user"], password=mine["club_password"]).start()
    try:
        while not table.done:
            table.step()
        assert table.publisher.flush(20)
        copy = tmp_path / "club" / "T3" / "match-T3.jsonl"
        wait_for("the club's copy", lambda: copy.exists() and copy.read_bytes() == Path(table.journal.path).read_bytes(),
                 timeout=20)
        # what the copy holds reaches the table through the secured broker (the ACL lets it)
        wait_for("the club's word on what it holds", lambda: table.publisher.club_seen
                 and table.publisher.club_short() == 0, timeout=20)
        # a director's action reaches the table's referee through the secured broker; with no alert or
        # question open (and for a stale moment) the referee refuses it
        assert listener.command("T3", "confirm", "match-T3", len(table.journal.records))
        assert listener.command("T3", "accept", "match-T3", 3)
        wait_for("the commands at the table", lambda: len(table.publisher.commands) == 2, timeout=10)
        assert table.publisher.commands == [("confirm", False), ("accept", False)]
    finally:
        table.close()
        listener.close()
