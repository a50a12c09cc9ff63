"""The club server's MQTT side: subscribes to every table and keeps the :class:`~club.mirror.Mirror`.

It connects with a persistent session (the broker keeps QoS 1 lines for it while it is away),
stores each journal line that is the next one of its match, and asks a table to replay from the
first missing line whenever it sees a gap: a line further on, or a retained snapshot whose ``seq``
is ahead of the copy.  A slow check repeats requests that got lost (a table offline at the time).

It also tells each table what its copy holds (``held``), at most twice a second per match and again
whenever the table comes online: the table's publisher heals any line that reached the broker but
never the copy, and waits for the copy before it stops.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from club.mirror import GAP, STORED, Mirror
from club.protocol import ROOT, BrokerAddress, split_topic, table_topic

log = logging.getLogger(__name__)


class ClubListener:
    """MQTT subscriber feeding a Mirror; ``start()`` connects in the background (and retries)."""

    def __init__(self, address: BrokerAddress, mirror: Mirror, *, username: str | None = None,
                 password: str | None = None, client_id: str | None = None, check_s: float = 2.0,
                 ask_again_s: float = 3.0) -> None:
        self.address = address
        self.club = address.club
        self.mirror = mirror
        self.check_s = check_s
        self.ask_again_s = ask_again_s
        self.connected = threading.Event()
        self._asked: dict[tuple[str, str], tuple[int, float]] = {}
        self._held_said: dict[tuple[str, str], tuple[int, float]] = {}  # what ``held`` last said, when
        self.held_every_s = 0.5
        self._was_connected = False
        self._stop = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  client_id=client_id or f"club-server-{self.club}",
                                  protocol=mqtt.MQTTv311, clean_session=False)
        user = username if username is not None else address.username
        secret = password if password is not None else address.password
        if user:
            self.client.username_pw_set(user, secret)
        self.client.max_inflight_messages_set(100)
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self._checker = threading.Thread(target=self._check_loop, name="club-check", daemon=True)

    def start(self) -> ClubListener:
        self.client.connect_async(self.address.host, self.address.port, keepalive=15)
        self.client.loop_start()
        self._checker.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()

    # --- MQTT --------------------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("club broker %s refused the club server: %s", self.address, reason)
            return
        base = f"{ROOT}/{self.club}/+"
        client.subscribe([(f"{base}/events/+", 1), (f"{base}/snapshot", 1), (f"{base}/status", 1)])
        self._asked.clear()
        if self._was_connected and not getattr(flags, "session_present", True):
            log.warning("club broker %s lost the club server's session (is it run with 'persistence true'?): "
                        "lines sent meanwhile are asked for again from the tables", self.address)
        self._was_connected = True
        self.connected.set()
        log.info("club server connected to %s", self.address)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("club broker %s lost (%s); reconnecting", self.address, reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        parts = split_topic(message.topic)
        if parts is None or parts[0] != self.club:
            return
        _, table, rest = parts
        try:
            if rest[0] == "events" and len(rest) == 2:
                outcome = self.mirror.receive(table, rest[1], bytes(message.payload))
                if outcome == GAP:
                    self.ask(table, rest[1])
                elif outcome == STORED:
                    self.say_held(table, rest[1])
            elif rest == ["status"]:
                online = message.payload == b"online"
                self.mirror.set_status(table, online)
                if online:  # a table (re)started: tell it again what the copies hold
                    for key in [k for k in self._held_said if k[0] == table]:
                        del self._held_said[key]
            elif rest == ["snapshot"]:
                snapshot = json.loads(message.payload)
                if isinstance(snapshot, dict):
                    self.mirror.set_snapshot(table, snapshot)
                    self._check_table(table, snapshot)
        except (ValueError, UnicodeDecodeError) as error:
            log.warning("club: bad message on %s: %s", message.topic, error)

    # --- filling gaps ------------------------------------------------------------------------
    def ask(self, table: str, match: str) -> None:
        """Ask ``table`` to publish ``match`` again from the first line the copy lacks."""
        start = self.mirror.have(table, match) + 1
        key = (table, match)
        last = self._asked.get(key)
        now = time.monotonic()
        if last is not None and last[0] == start and now - last[1] < self.ask_again_s:
            return
        self._asked[key] = (start, now)
        self.client.publish(table_topic(self.club, table, "replay"),
                            json.dumps({"match": match, "from": start}), qos=1)

    def say_held(self, table: str, match: str, force: bool = False) -> None:
        """Tell ``table`` the last ``seq`` the copy of ``match`` holds (throttled unless ``force``)."""
        have = self.mirror.have(table, match)
        if have < 0:
            return
        key = (table, match)
        said = self._held_said.get(key)
        now = time.monotonic()
        if said is not None and (said[0] == have or (not force and now - said[1] < self.held_every_s)):
            return
        info = self.client.publish(table_topic(self.club, table, "held"),
                                   json.dumps({"match": match, "seq": have}), qos=1)
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self._held_said[key] = (have, now)

    def command(self, table: str, action: str, match: str, seq: int) -> bool:
        """Send a director's action to a table (the caller has checked the PIN); False when not sent."""
        info = self.client.publish(table_topic(self.club, table, "command"),
                                   json.dumps({"action": action, "match": match, "seq": seq}), qos=1)
        return info.rc == mqtt.MQTT_ERR_SUCCESS

    def _check_table(self, table: str, snapshot: dict[str, Any]) -> None:
        name, seq = snapshot.get("match"), snapshot.get("seq")
        if isinstance(name, str) and isinstance(seq, int) and self.mirror.have(table, name) < seq:
            self.ask(table, name)

    def _check_loop(self) -> None:
        while not self._stop.wait(self.check_s):
            if not self.connected.is_set():
                continue
            with self.mirror.lock:
                snapshots = [(t.name, dict(t.snapshot)) for t in self.mirror.tables.values() if t.online]
                copies = [(t.name, name) for t in self.mirror.tables.values() if t.online for name in t.matches]
            for table, snapshot in snapshots:
                try:
                    self._check_table(table, snapshot)
                except Exception:
                    log.exception("club check")
            for table, name in copies:  # what the throttle held back, and a table that came back
                try:
                    self.say_held(table, name, force=True)
                except Exception:
                    log.exception("club check")
