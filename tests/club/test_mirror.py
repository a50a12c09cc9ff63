"""The club's journal copies without a broker: lines stored once, in order, and rebuilt after a restart."""

from __future__ import annotations

import json
from pathlib import Path

from club.mirror import BAD, DUPLICATE, GAP, STORED, Mirror
from club.web import create_club_app
from recording.journal import Journal, replay
from tests.club.tables import recorded_events


def board_journal(tmp_path: Path, events: int = 40) -> Path:
    header, recorded = recorded_events(tmp_path)
    path = tmp_path / "board" / "match-1.jsonl"
    path.parent.mkdir()
    with Journal.create(path, header, check_plays=False) as journal:
        for event in recorded[:events]:
            journal.append(event)
    return path


def test_lines_are_stored_once_in_order_and_gaps_are_refused(tmp_path: Path) -> None:
    board = board_journal(tmp_path)
    lines = board.read_bytes().splitlines(keepends=True)
    mirror = Mirror(tmp_path / "club")
    assert mirror.receive("T1", "match-1", lines[0]) == STORED
    assert mirror.receive("T1", "match-1", lines[2]) == GAP
    assert mirror.receive("T1", "match-1", lines[1]) == STORED
    assert mirror.receive("T1", "match-1", lines[1]) == DUPLICATE
    assert mirror.receive("T1", "match-1", lines[2][:-5] + b"0000\n") == BAD  # a wrong checksum
    for line in lines[2:] + lines[10:20]:  # the tail and a replayed stretch
        assert mirror.receive("T1", "match-1", line) in (STORED, DUPLICATE)
    copy = tmp_path / "club" / "T1" / "match-1.jsonl"
    assert copy.read_bytes() == board.read_bytes()
    row = mirror.state_json()["tables"][0]
    journal = replay(board)
    assert row["events"] == len(journal.records) and row["score"] == [int(s) for s in journal.state.score]
    assert row["players"] == list(journal.header.players) and row["online"] is False


def test_a_restarted_club_rebuilds_from_its_copies_and_cuts_a_torn_line(tmp_path: Path) -> None:
    board = board_journal(tmp_path)
    lines = board.read_bytes().splitlines(keepends=True)
    mirror = Mirror(tmp_path / "club")
    for line in lines[:21]:
        mirror.receive("T7", "match-1", line)
    mirror.close()
    copy = tmp_path / "club" / "T7" / "match-1.jsonl"
    with open(copy, "ab") as stream:
        stream.write(lines[21][:30])  # killed in the middle of a write
    again = Mirror(tmp_path / "club")
    assert again.load() == 1
    assert again.have("T7", "match-1") == 20
    for line in lines[15:]:
        again.receive("T7", "match-1", line)
    assert copy.read_bytes() == board.read_bytes()


def test_state_json_has_exactly_the_contract_keys(tmp_path: Path) -> None:
    board = board_journal(tmp_path, events=12)
    mirror = Mirror(tmp_path / "club")
    for line in board.read_bytes().splitlines(keepends=True):
        mirror.receive("T3", "match-1", line)
    mirror.set_status("T3", True)
    mirror.set_snapshot("T3", {"match": "match-1", "seq": 12, "alert": "checker on the 7-point", "question": None})
    client = create_club_app(mirror).test_client()
    data = json.loads(client.get("/club/state.json").data)
    assert list(data) == ["tables"]
    row = data["tables"][0]
    assert list(row) == ["table", "online", "variant", "players", "score", "match_length", "events", "plays",
                         "state", "alert", "question", "last_event_age_s"]
    assert row["table"] == "T3" and row["online"] is True and row["events"] == 12
    assert row["alert"] == "checker on the 7-point" and row["question"] is None
    assert isinstance(row["last_event_age_s"], float)
