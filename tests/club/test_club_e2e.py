"""The club end to end: a real Mosquitto, the club server and three referees (``referee demo``
processes playing the built-in scripted game) on loopback.  What a director would notice: the
club's copy of every table's journal is the board's own journal, line for line, even when the
broker or the club server goes away in the middle of the games."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recording.journal import replay
from tests.club.broker import Broker, free_port, wait_port

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("T1", "T2", "T3")
STATE_KEYS = ["table", "online", "variant", "players", "score", "match_length", "events", "plays", "state",
              "alert", "question", "last_event_age_s"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["REFEREE_LEDS"] = "sim"
    env["REFEREE_CLUB_FLUSH_S"] = "60"
    return env


class ClubServer:
    def __init__(self, broker_url: str, data_dir: Path, log: Path) -> None:
        self.url, self.data_dir, self.log = broker_url, data_dir, log
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ClubServer:
        # a port found free can be taken by another test's server before this one binds it (seen:
        # "Address already in use"): then the server stops at once, and another free port is tried
        for _ in range(3):
            with open(self.log, "ab") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "controller.cli", "club", "--broker", self.url, "--host", "127.0.0.1",
                     "--port", str(self.port), "--data-dir", str(self.data_dir)],
                    stdout=log, stderr=log, env=_env(), cwd=ROOT)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    wait_port(self.port, timeout=0.5)
                    return self
                except TimeoutError:
                    pass
            if self.process.poll() is None:
                raise TimeoutError(f"club server not up on port {self.port} after 30 s")
            self.port = free_port()
        raise RuntimeError(f"club server stopped three times at start: {self.log}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
            return bytes(response.read())

    def state(self) -> dict[str, Any]:
        return dict(json.loads(self.get("/club/state.json")))


def start_referee(broker_url: str, table: str, data_dir: Path, turns: int, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as stream:
        return subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "demo", "--headless", "--game", "backgammon",
             "--max-turns", str(turns), "--data-dir", str(data_dir), "--club", broker_url, "--table", table],
            stdout=stream, stderr=stream, env=_env(), cwd=ROOT)


def wait_for(what: str, condition: Callable[[], bool], timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def tables_by_name(club: ClubServer) -> dict[str, dict[str, Any]]:
    return {t["table"]: t for t in club.state()["tables"]}


def every_table_has(club: ClubServer, events: int) -> bool:
    found = tables_by_name(club)
    return all(found.get(t, {}).get("events", 0) >= events for t in TABLES)


@pytest.fixture
def room(tmp_path: Path, broker: Broker) -> Iterator[dict[str, Any]]:
    club = ClubServer(broker.url, tmp_path / "club", tmp_path / "club.log").start()
    referees: list[subprocess.Popen[bytes]] = []
    yield {"tmp": tmp_path, "broker": broker, "club": club, "referees": referees}
    for process in referees:
        if process.poll() is None:
            process.kill()
            process.wait()
    club.stop()


def play(room: dict[str, Any], turns: int) -> list[subprocess.Popen[bytes]]:
    tmp: Path = room["tmp"]
    for table in TABLES:
        room["referees"].append(start_referee(room["broker"].url, table, tmp / table, turns, tmp / f"{table}.log"))
    return list(room["referees"])


def finish(room: dict[str, Any]) -> None:
    tmp: Path = room["tmp"]
    for table, process in zip(TABLES, room["referees"], strict=True):
        code = process.wait(timeout=300)
        log = (tmp / f"{table}.log").read_text(errors="replace")
        assert code == 0, f"referee {table} failed:\n{log[-3000:]}"


def assert_copies_equal(room: dict[str, Any]) -> None:
    """Every board journal has a copy at the club with the same bytes, and state.json agrees."""
    tmp: Path = room["tmp"]
    club: ClubServer = room["club"]
    boards = {table: sorted((tmp / table).glob("*.jsonl")) for table in TABLES}
    for journals in boards.values():
        assert len(journals) == 1, journals

    def all_copied() -> bool:
        return all((tmp / "club" / table / journals[0].name).exists()
                   and (tmp / "club" / table / journals[0].name).read_bytes() == journals[0].read_bytes()
                   for table, journals in boards.items())

    try:
        wait_for("the club's copies to equal the boards' journals", all_copied, timeout=60)
    except AssertionError as error:  # say what differs, with the logs that tell why
        lines = {table: (len(journals[0].read_bytes().splitlines()),
                         len((tmp / "club" / table / journals[0].name).read_bytes().splitlines())
                         if (tmp / "club" / table / journals[0].name).exists() else None)
                 for table, journals in boards.items()}
        logs = "\n".join(f"--- {name}\n{(tmp / name).read_text(errors='replace')[-1500:]}"
                         for name in ["club.log", *(f"{t}.log" for t in TABLES)] if (tmp / name).exists())
        raise AssertionError(f"{error}: lines (board, club copy) {lines}\n{logs}") from None
    found = tables_by_name(club)
    for table, journals in boards.items():
        board = replay(journals[0])
        copy = (tmp / "club" / table / journals[0].name).read_bytes()
        seqs = [json.loads(line.rpartition(b"\t")[0])["seq"] for line in copy.splitlines()]
        assert seqs == list(range(len(board.records) + 1)), "a line lost or doubled"
        row = found[table]
        assert list(row) == STATE_KEYS
        assert row["events"] == len(board.records)
        assert row["plays"] == sum(type(r.event).__name__ == "Play" for r in board.records)
        assert row["players"] == list(board.header.players)
        assert row["variant"] == "backgammon" and row["state"] == board.state.phase
        assert row["score"] == [int(s) for s in board.state.score]


def test_three_referees_and_the_club_hold_the_same_journals(room: dict[str, Any]) -> None:
    play(room, turns=3)
    finish(room)
    assert_copies_equal(room)
    club: ClubServer = room["club"]
    wait_for("the tables to say offline", lambda: not any(t["online"] for t in club.state()["tables"]), 30)
    dashboard = club.get("/").decode()
    for table in TABLES:
        assert f'id="table-{table}"' in dashboard
    assert dashboard.count("<svg") == 3
    name = sorted((room["tmp"] / "T2").glob("*.jsonl"))[0].stem
    mat = club.get(f"/club/records/T2/{name}.mat").decode()
    board_mat = (room["tmp"] / "T2" / f"{name}.mat").read_text()
    assert mat == board_mat  # the record made from the copy is the board's own record


def _outage(room: dict[str, Any], seconds: float) -> None:
    club: ClubServer = room["club"]
    broker: Broker = room["broker"]
    play(room, turns=6)
    wait_for("every table to publish its first plays", lambda: every_table_has(club, 4))
    broker.stop()
    stopped = time.monotonic()
    before = {t: r["events"] for t, r in tables_by_name(club).items()}

    def board_events() -> dict[str, int]:
        return {t: len(replay(sorted((room["tmp"] / t).glob("*.jsonl"))[0]).records) for t in TABLES}

    # the referees go on refereeing while the broker is away: their journals grow past the club's copies
    wait_for("a journal to grow without the broker", lambda: any(
        board_events()[t] > before[t] for t in TABLES), timeout=120)
    time.sleep(max(0.0, seconds - (time.monotonic() - stopped)))
    assert {t: r["events"] for t, r in tables_by_name(club).items()} == before  # nothing came through
    broker.start()
    finish(room)
    assert_copies_equal(room)


def test_broker_stopped_mid_game_nothing_lost_nothing_doubled(room: dict[str, Any]) -> None:
    _outage(room, seconds=6)


@pytest.mark.slow
def test_broker_stopped_for_twenty_seconds(room: dict[str, Any]) -> None:
    _outage(room, seconds=20)


def test_club_server_killed_and_restarted(room: dict[str, Any]) -> None:
    club: ClubServer = room["club"]
    play(room, turns=6)
    wait_for("every table to publish its first plays", lambda: every_table_has(club, 4))
    club.kill()
    time.sleep(4)
    club.start()  # same data dir, same dashboard port
    wait_for("the restarted club to know all three tables", lambda: set(tables_by_name(club)) == set(TABLES), 30)
    finish(room)
    assert_copies_equal(room)


def test_a_referee_that_dies_is_shown_offline(tmp_path: Path, broker: Broker) -> None:
    """The MQTT last will: a referee killed without a goodbye is offline on the dashboard at once."""
    club = ClubServer(broker.url, tmp_path / "club", tmp_path / "club.log").start()
    script = ("import sys, time\n"
              "from pathlib import Path\n"
              "from tests.club.tables import SimulatedTable, recorded_events\n"
              "work = Path(sys.argv[1])\n"
              "header, events = recorded_events(work)\n"
              "table = SimulatedTable('T5', work / 'T5', header, events, sys.argv[2]).start()\n"
              "for _ in range(5):\n"
              "    table.step()\n"
              "time.sleep(600)\n")
    process = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), broker.url], env=_env(), cwd=ROOT)
    try:
        wait_for("T5 online with its events", lambda: tables_by_name(club).get("T5", {}).get("events") == 5
                 and tables_by_name(club)["T5"]["online"], timeout=60)
        process.send_signal(signal.SIGKILL)
        process.wait()
        wait_for("T5 offline", lambda: tables_by_name(club)["T5"]["online"] is False, timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
        club.stop()
