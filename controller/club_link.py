"""A referee's link to the club's MQTT broker (docs/CLUB.md): publishes what its journal stores.

The journal stays the truth.  :class:`ClubPublisher` reads the journal *file*, and only the lines
the journal has already fsynced (``len(journal.records)``), and publishes each line unchanged with
QoS 1 on ``referee/<club>/<table>/events/<match>``.  It remembers which lines the broker has
acknowledged; after a lost connection (or a ``replay`` request from the club server) it publishes
again from the first unacknowledged line, in order.  Receivers keep a line only when its ``seq``
is the next one, so a line sent twice is stored once.  The referee never waits for the broker: a
missing or lost broker only means the publisher's thread retries in the background.

The club server says on ``held`` how far its copy of each match goes.  A line the broker took but
the copy never got (the broker restarted and lost it, the club server was away without a session)
is published again once the copy has stayed short of the acknowledged lines for a few seconds,
and :meth:`ClubPublisher.close` waits for the copy, not only the broker, when a club server has
spoken: a referee that stops right after an outage does not leave the club's copy short.

It also keeps a retained ``snapshot`` of the table and a retained ``status`` (``online``, and
``offline`` as the MQTT last will).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from club.protocol import BrokerAddress, check_name, events_topic, parse_broker, table_topic
from controller.referee import ILLEGAL, PAUSED, QUESTION, Referee
from recording.journal import decode_line
from rules import match

log = logging.getLogger(__name__)


@dataclass
class _MatchLines:
    """One match journal as published: its durable lines and what the broker has taken."""

    name: str
    path: Path
    live: Any = None  # the open Journal while the referee writes it (limits reading to fsynced lines)
    lines: list[bytes] = field(default_factory=list)  # lines[seq], each with its newline
    offset: int = 0
    next_seq: int = 0  # the next line to publish
    unacked: set[int] = field(default_factory=set)
    acked_upto: int = -1  # every line up to this seq has been acknowledged
    held: int | None = None  # the last seq the club's copy holds, as the club server last said
    held_since: float = 0.0  # monotonic time ``held`` last changed
    healed_from: int | None = None  # the ``held`` a healing republish last started from (once each)

    def durable(self) -> int:
        """How many lines (header included) are stored for good."""
        if self.live is not None:
            return len(self.live.records) + 1
        return 1 << 30

    def read_new(self) -> None:
        want = self.durable()
        if len(self.lines) >= want:
            return
        try:
            with open(self.path, "rb") as stream:
                stream.seek(self.offset)
                data = stream.read()
        except OSError as error:
            log.warning("club: cannot read %s: %s", self.path, error)
            return
        start = 0
        while len(self.lines) < want:
            end = data.find(b"\n", start)
            if end < 0:
                break
            line = data[start : end + 1]
            try:
                decode_line(line[:-1])
            except ValueError:
                break  # a damaged tail is never published
            self.lines.append(line)
            start = end + 1
        self.offset += start

    def ack(self, seq: int) -> None:
        self.unacked.discard(seq)
        upto = min(self.unacked) - 1 if self.unacked else self.next_seq - 1
        self.acked_upto = max(self.acked_upto, upto)


def table_snapshot(referee: Referee, match_name: str, health: dict[str, Any] | None = None,
                   tournament: bool = False, page: str = "") -> dict[str, Any]:
    """What the dashboard shows of a table, from the journal's match state and the referee's mode."""
    from controller.web import mover_point

    journal = referee.journal
    state = journal.state
    on_roll = state.turn if state.turn is not None else 0
    alert = question = None
    marks: list[list[Any]] = []
    pending = referee.pending
    if pending is not None and referee.mode in (ILLEGAL, QUESTION):
        if referee.mode == ILLEGAL:
            alert = pending.reason or "illegal play"
        else:
            question = pending.reason or "uncertain reading"
        if referee.seating is not None:
            marks = [[mover_point(p, referee.seating, state.variant, pending.player), kind]
                     for p, kind in sorted(pending.points.items())]
    score = [int(s) if float(s).is_integer() else s for s in state.score]
    return {
        "match": match_name,
        "seq": len(journal.records),
        "variant": state.variant,
        "players": list(journal.header.players),
        "score": score,
        "match_length": state.config.length,
        "game": state.game + 1,
        "state": state.phase,
        "mode": referee.mode,
        "paused": referee.mode == PAUSED,
        "on_roll": on_roll,
        "position": repr(state.position_for(on_roll)),
        "dice": list(state.dice or ()),
        "cube": state.cube,
        "cube_owner": state.cube_owner,
        "alert": alert,
        "question": question,
        "marks": marks,
        "health": health or {},
        "tournament": tournament,
        "page": page,
        "plays": sum(isinstance(r.event, match.Play) for r in journal.records),
    }


class ClubPublisher:
    """Publishes one table's journals, snapshot and status to the club broker, in the background."""

    def __init__(self, broker: str | BrokerAddress, table: str, *, username: str | None = None,
                 password: str | None = None, data_dir: str | Path | None = None,
                 health: Callable[[], dict[str, Any]] | None = None, tournament: bool = False,
                 page: str = "", poll_s: float = 0.5) -> None:
        self.address = parse_broker(broker) if isinstance(broker, str) else broker
        self.table = check_name(table, "table")
        self.club = self.address.club
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.health = health
        self.tournament = tournament
        self.page = page
        self.poll_s = poll_s
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._matches: dict[str, _MatchLines] = {}
        self._mids: dict[int, tuple[str, int]] = {}
        self._current: str | None = None
        self._referee: Referee | None = None
        self._connected = False
        self._fresh_connection = False
        self._acks: deque[int] = deque()
        self._replays: deque[tuple[str, int]] = deque()
        self._commands: deque[dict[str, Any]] = deque()
        self._helds: deque[tuple[str, int]] = deque()
        self._attached: set[str] = set()  # the matches this referee wrote while running
        self.club_seen = False  # a club server has said what it holds
        self.heal_s = 3.0
        self.commands: list[tuple[str, bool]] = []  # director actions received and whether the referee took them
        self._last_snapshot = ""
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"referee-{self.club}-{self.table}",
                                  protocol=mqtt.MQTTv311, clean_session=True)
        user = username if username is not None else self.address.username
        secret = password if password is not None else self.address.password
        if user:
            self.client.username_pw_set(user, secret)
        self.client.will_set(self.topic("status"), "offline", qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._thread = threading.Thread(target=self._run, name=f"club-{self.table}", daemon=True)

    def topic(self, leaf: str) -> str:
        return table_topic(self.club, self.table, leaf)

    # --- wiring ------------------------------------------------------------------------------
    def start(self) -> ClubPublisher:
        self.client.connect_async(self.address.host, self.address.port, keepalive=15)
        self.client.loop_start()
        self._thread.start()
        return self

    def attach(self, referee: Referee) -> None:
        """The referee's journal (a new or resumed match) becomes the one the table shows."""
        journal = referee.journal
        path = Path(journal.path)
        name = check_name(path.stem, "match")
        with self._lock:
            for other in self._matches.values():
                if other.live is not None and other.live is not journal:
                    other.read_new()
                    other.live = None  # closed: every line in its file is durable
            lines = self._matches.get(name)
            if lines is None:
                lines = self._matches[name] = _MatchLines(name, path)
            lines.live = journal
            self._current = name
            self._referee = referee
            self._attached.add(name)
        self._wake.set()

    def wake(self, kind: str = "", data: dict[str, Any] | None = None) -> None:
        """A referee announcement (a Signals listener): something may have been stored."""
        self._wake.set()

    # --- MQTT callbacks (paho's thread): they only hand over to the publishing thread ----------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("club broker %s refused the referee: %s", self.address, reason)
            return
        client.publish(self.topic("status"), "online", qos=1, retain=True)
        client.subscribe([(self.topic("replay"), 1), (self.topic("command"), 1), (self.topic("held"), 1)])
        self._fresh_connection = True
        self._connected = True
        log.info("club broker %s connected", self.address)
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
        if not self._stop.is_set():
            log.warning("club broker %s lost (%s); the journal keeps everything", self.address, reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        self._acks.append(mid)
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == self.topic("command"):
            try:
                command = json.loads(message.payload)
                if not isinstance(command, dict):
                    raise ValueError("not an object")
            except ValueError as error:
                log.warning("club: ignoring a bad director command: %s", error)
                return
            self._commands.append(command)
            self._wake.set()
            return
        if message.topic == self.topic("held"):
            try:
                said = json.loads(message.payload)
                held = (check_name(str(said["match"]), "match"), int(said["seq"]))
            except (ValueError, KeyError, TypeError) as error:
                log.warning("club: ignoring a bad 'held' message: %s", error)
                return
            self._helds.append(held)
            self._wake.set()
            return
        try:
            request = json.loads(message.payload)
            name = check_name(str(request["match"]), "match")
            start = int(request.get("from", 0))
        except (ValueError, KeyError, TypeError) as error:
            log.warning("club: ignoring a bad replay request: %s", error)
            return
        self._replays.append((name, start))
        self._wake.set()

    # --- the publishing thread ---------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll_s)
            self._wake.clear()
            try:
                self._run_commands()
                self._publish_pending()
            except Exception:  # the referee must never notice the club
                log.exception("club publisher")

    def _run_commands(self) -> None:
        """Director actions from the club's dashboard (the club server checked the director's PIN).

        Only for the match and the moment the director saw: a command naming another match or
        an earlier ``seq`` than the journal's is stale and refused.
        """
        while self._commands:
            command = self._commands.popleft()
            action = command.get("action")
            referee = self._referee
            taken = False
            if referee is not None and command.get("match") == self._current \
                    and command.get("seq") == len(referee.journal.records):
                if action == "accept":
                    taken = bool(referee.accept_illegal())
                elif action == "confirm":
                    taken = bool(referee.confirm_reading())
            log.info("club: director's %r %s", action, "done" if taken else "refused (stale or nothing to decide)")
            self.commands.append((str(action), taken))
            self._last_snapshot = ""  # show the outcome on the dashboard at once

    def _take_news(self) -> None:
        """Apply what the callbacks reported (called with the lock held)."""
        if self._fresh_connection:
            self._fresh_connection = False
            self._acks.clear()
            self._mids.clear()
            self._last_snapshot = ""
            for lines in self._matches.values():
                lines.unacked.clear()
                lines.next_seq = lines.acked_upto + 1  # again from the first line not acknowledged
        while self._acks:
            sent = self._mids.pop(self._acks.popleft(), None)
            if sent is not None and sent[0] in self._matches:
                self._matches[sent[0]].ack(sent[1])
        while self._replays:
            name, start = self._replays.popleft()
            wanted = self._matches.get(name)
            if wanted is None and self.data_dir is not None and (self.data_dir / f"{name}.jsonl").is_file():
                wanted = _MatchLines(name, self.data_dir / f"{name}.jsonl")  # an older match of this table
                wanted.read_new()
                wanted.acked_upto = len(wanted.lines) - 1
                wanted.next_seq = len(wanted.lines)
                self._matches[name] = wanted
            if wanted is not None:
                wanted.next_seq = max(0, min(wanted.next_seq, start))
        now = time.monotonic()
        while self._helds:
            name, held = self._helds.popleft()
            self.club_seen = True
            told = self._matches.get(name)
            if told is not None and held != told.held:
                told.held, told.held_since = held, now
        for lines in self._matches.values():
            # every line acknowledged, the copy short of them and not moving: the broker took lines
            # the copy never got; publish them again from the copy's first missing line
            # (once for each thing the club says: a club server that is away gets no stream of copies)
            if lines.held is not None and lines.held < lines.acked_upto and not lines.unacked \
                    and lines.next_seq == lines.acked_upto + 1 and now - lines.held_since >= self.heal_s \
                    and lines.healed_from != lines.held:
                log.warning("club: the club's copy of %s holds %d of %d lines; publishing the rest again",
                            lines.name, lines.held + 1, lines.acked_upto + 1)
                lines.next_seq = lines.held + 1
                lines.healed_from = lines.held

    def _publish_pending(self) -> None:
        with self._lock:
            self._take_news()
            if not self._connected:
                return
            for lines in list(self._matches.values()):
                lines.read_new()
                while lines.next_seq < len(lines.lines):
                    seq = lines.next_seq
                    info = self.client.publish(events_topic(self.club, self.table, lines.name),
                                               lines.lines[seq], qos=1)
                    if info.rc != mqtt.MQTT_ERR_SUCCESS:
                        return  # not connected after all; a new connection starts from the acked line
                    lines.unacked.add(seq)
                    self._mids[info.mid] = (lines.name, seq)
                    lines.next_seq = seq + 1
            referee, current = self._referee, self._current
        if referee is not None and current is not None:
            snapshot = table_snapshot(referee, current, self.health() if self.health else None,
                                      self.tournament, self.page)
            text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
            if text != self._last_snapshot:
                info = self.client.publish(self.topic("snapshot"), text, qos=1, retain=True)
                if info.rc == mqtt.MQTT_ERR_SUCCESS:
                    self._last_snapshot = text

    # --- state for tests, the demo and the bench ---------------------------------------------
    def backlog(self) -> int:
        """Durable lines the broker has not acknowledged yet."""
        with self._lock:
            total = 0
            for lines in self._matches.values():
                lines.read_new()
                total += len(lines.lines) - 1 - lines.acked_upto
            return total

    def club_short(self) -> int:
        """Lines of this run's matches the club's copy lacks (0 when no club server has spoken)."""
        with self._lock:
            if not self.club_seen:
                return 0
            total = 0
            for name in self._attached:
                lines = self._matches[name]
                lines.read_new()
                total += max(0, len(lines.lines) - 1 - (lines.held if lines.held is not None else -1))
            return total

    def flush(self, timeout: float) -> bool:
        """Wait until the broker has every durable line (True) or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._wake.set()
            if self.backlog() == 0:
                return True
            time.sleep(0.05)
        return self.backlog() == 0

    def close(self, timeout: float = 5.0) -> None:
        """Publish what is left, wait for the club's copy, say offline, disconnect.

        Waits at most ``timeout`` s in all: for the broker to take every line, then (when a club
        server has said what it holds) for the club's copy to hold them.
        """
        deadline = time.monotonic() + timeout
        flushed = self.flush(timeout)
        if not flushed:
            log.warning("club: %d journal lines not yet with the broker; they go when this table reconnects",
                        self.backlog())
        else:
            short = self.club_short()
            while short and time.monotonic() < deadline:
                self._wake.set()
                time.sleep(0.05)
                short = self.club_short()
            if short:
                log.warning("club: the club's copy still lacks %d lines; the club asks for them when this "
                            "table is back", short)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=2)
        if self._connected:
            self._wake.clear()
            info = self.client.publish(self.topic("status"), "offline", qos=1, retain=True)
            try:
                info.wait_for_publish(timeout=2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()
