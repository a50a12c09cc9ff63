"""The journal (INTERFACES.md §4): fsync'd JSON Lines with CRCs that survive kills and damage."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from recording.journal import Header, Journal, JournalError, JournalGap, decode_line, replay
from rules import match
from rules.errors import IllegalEvent
from rules.plays import legal_results

ROOT = Path(__file__).resolve().parents[2]


def play_some(journal: Journal, plays: int, seed: int = 1) -> None:
    """Append an opening roll and ``plays`` legal plays chosen at random (seeded)."""
    rng = random.Random(seed)
    journal.append(match.OpeningRoll(5, 2))
    for _ in range(plays):
        state = journal.state
        if state.phase == match.ROLL:
            assert state.turn is not None
            journal.append(match.Roll(state.turn, (rng.randint(1, 6), rng.randint(1, 6))))
            state = journal.state
        if state.phase != match.PLAY:
            break
        assert state.turn is not None and state.dice is not None
        results = legal_results(state.position, state.dice)
        result = rng.choice(sorted(results, key=lambda p: p.id))
        journal.append(match.Play(state.turn, result, results[result].steps), evidence=f"frame-{len(journal):05d}.jpg")


def new_journal(path: Path) -> Journal:
    header = Header(match_length=5, players=("Alice", "Bob"), device="referee-01", event="Club night", site="Cahul")
    return Journal.create(path, header)


def test_every_line_is_json_tab_crc32(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        play_some(journal, 6)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    for line in lines[:-1]:
        body, _, crc = line.partition(b"\t")
        assert crc == f"{zlib.crc32(body):08x}".encode()
        assert "t" in json.loads(body)
    header = json.loads(lines[0].partition(b"\t")[0])
    assert header["players"] == ["Alice", "Bob"] and header["device"] == "referee-01"
    assert header["event"] == "Club night" and header["site"] == "Cahul" and header["match_length"] == 5
    assert header["options"]["crawford"] is True


def test_replay_rebuilds_match_state(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        play_some(journal, 12)
        live = journal.state
        evidence = [r.evidence for r in journal.records]
    again = replay(path)
    assert again.state == live and again.damage == []
    assert [r.evidence for r in again.records] == evidence
    assert any(e and e.endswith(".jpg") for e in evidence)


def test_illegal_event_is_refused_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        journal.append(match.OpeningRoll(5, 2))
        size = path.stat().st_size
        with pytest.raises(IllegalEvent):
            journal.append(match.Double(1))
        assert path.stat().st_size == size and len(journal) == 1


def test_create_refuses_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    new_journal(path).close()
    with pytest.raises(FileExistsError):
        new_journal(path)


def test_second_writer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path):
        with pytest.raises(JournalError, match="another process"):
            Journal.open(path)


def test_unfinished_match_resumes_and_appending_continues(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        play_some(journal, 4)
        count = len(journal)
    with Journal.open(path) as journal:
        assert len(journal) == count
        play_some_more = journal.state
        assert play_some_more.phase in (match.ROLL, match.PLAY)
        if journal.state.phase == match.ROLL:
            assert journal.state.turn is not None
            journal.append(match.Roll(journal.state.turn, (6, 5)))
    assert len(replay(path)) == count + (1 if play_some_more.phase == match.ROLL else 0)


def test_half_line_is_cut_off_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        play_some(journal, 5)
        count = len(journal)
    good = path.read_bytes()
    with open(path, "ab") as stream:
        stream.write(b'{"seq":99,"t":"2026-01-01T00:00:00.000Z","type":"Ro')
    with Journal.open(path) as journal:
        assert len(journal) == count
        assert len(journal.damage) == 1
        damage = journal.damage[0]
        assert damage.line == count + 2 and "torn" in damage.reason and damage.saved_to is None
        assert path.read_bytes() == good
        journal.append(match.Comment("after the repair"))
    assert replay(path).damage == []


@pytest.mark.parametrize("line_index", [3, 7])
def test_flipped_byte_reported_and_nothing_before_lost(tmp_path: Path, line_index: int) -> None:
    """Damage in the middle is not a crash: the journal is not resumed until a person decides."""
    path = tmp_path / "m.jsonl"
    with new_journal(path) as journal:
        play_some(journal, 10)
        total = len(journal)
        before = [r.event for r in journal.records[: line_index - 2]]  # line 1 is the header
    data = bytearray(path.read_bytes())
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")]
    data[starts[line_index - 1] + 12] ^= 0x20
    path.write_bytes(bytes(data))

    read_only = replay(path)
    assert read_only.damage[0].line == line_index and "checksum" in read_only.damage[0].reason
    assert read_only.gap is not None and read_only.gap.first == read_only.gap.last == line_index - 1
    assert read_only.gap.after == total - (line_index - 1)
    assert bytes(data) == path.read_bytes()  # reading does not repair

    with pytest.raises(JournalGap, match=f"event {line_index - 1} is missing"):
        Journal.open(path)
    assert bytes(data) == path.read_bytes()  # nor does a refused resume

    with Journal.open(path, accept_loss=True) as journal:  # the director decided
        assert journal.events == before
        damage = journal.damage[0]
        assert damage.line == line_index
        assert damage.saved_to is not None
        saved = Path(damage.saved_to).read_bytes()
        assert saved.count(b"\n") == total + 1 - (line_index - 1)  # every cut line kept aside
        assert str(damage).startswith(f"line {line_index}:")
        journal.append(match.Comment("continues"))
    assert len(replay(path)) == line_index - 1


def test_damaged_header_or_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    with pytest.raises(JournalError, match="empty"):
        replay(path)
    path.write_bytes(b"\x00\xff garbage\n")
    with pytest.raises(JournalError, match="line 1"):
        replay(path)


def test_decode_line_reasons() -> None:
    with pytest.raises(ValueError, match="no checksum"):
        decode_line(b'{"a":1}')
    with pytest.raises(ValueError, match="checksum mismatch"):
        decode_line(b'{"a":1}\t00000000')
    body = b'{"a":1}'
    assert decode_line(body + b"\t" + f"{zlib.crc32(body):08x}".encode()) == {"a": 1}


WRITER = textwrap.dedent(
    """
    import sys
    import time
    from recording.journal import Header, Journal
    from rules import match
    path = sys.argv[1]
    try:
        journal = Journal.open(path)
    except FileNotFoundError:
        journal = Journal.create(path, Header(variant="nardy", match_length=3, players=("A", "B")))
    for damage in journal.damage:
        print("damage", damage, flush=True)
    print("opened", len(journal), flush=True)
    n = start = len(journal)
    while True:
        n += 1
        if n - start > 300:  # keep the journal small on fast (RAM) disks
            time.sleep(60)
        if n % 3:
            journal.append(match.Comment("x" * (n * 37 % 600) + "ü"))
        else:
            journal.append(match.VoidRoll(0, "cocked"))
        print("stored", n, flush=True)
    """
)


def test_sigkill_at_random_moments_loses_nothing_stored(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    rng = random.Random(20261201)
    stored: set[int] = set()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kills = 20
    for _ in range(kills):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert child.stdout is not None
        first = child.stdout.readline()  # wait until it has opened the journal
        assert first.startswith((b"opened", b"damage")), child.stderr.read() if child.stderr else first
        time.sleep(rng.uniform(0.0, 0.05))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        assert child.returncode == -signal.SIGKILL
        # Only whole report lines count: the kill may cut the last one mid-write.
        complete = out.decode().split("\n")[:-1]
        stored.update(int(line.split()[1]) for line in complete if line.startswith("stored "))
        journal = replay(path)
        present = {record.seq: record.event for record in journal.records}
        assert stored <= set(present)
        for seq in stored:  # and each is the event that was written
            expected = match.Comment("x" * (seq * 37 % 600) + "ü") if seq % 3 else match.VoidRoll(0, "cocked")
            assert present[seq] == expected
    assert len(stored) > kills  # the writers did get work done
    with Journal.open(path) as journal:
        assert not journal.damage or "torn" in journal.damage[0].reason
        journal.append(match.Comment("still appending"))
