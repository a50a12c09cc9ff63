"""Damage in the middle of a journal and batches cut short by a crash (issue 23, items 2 and 4)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from recording.journal import Journal, JournalGap, encode_line, replay
from rules import match
from tests.recording.test_journal import new_journal, play_some


def line_starts(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")][:-1]


def played(path: Path, plays: int = 12) -> list[match.Event]:
    with new_journal(path) as journal:
        play_some(journal, plays)
        return journal.events


# --- item 2: a flipped byte in the middle keeps every intact line after it -----------------------------

def test_flipped_byte_in_the_middle_keeps_every_intact_line_and_refuses_a_silent_resume(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    events = played(path)
    data = bytearray(path.read_bytes())
    damaged_line = 6  # event 5
    data[line_starts(bytes(data))[damaged_line - 1] + 15] ^= 0x04
    path.write_bytes(bytes(data))

    with pytest.raises(JournalGap) as refused:
        Journal.open(path)
    gap = refused.value.gap
    assert (gap.first, gap.last, gap.line) == (5, 5, damaged_line)
    assert gap.after == len(events) - 5  # every later line is intact and accounted for
    assert "event 5 is missing" in str(refused.value) and "a person must decide" in str(refused.value)
    assert path.read_bytes() == bytes(data)  # nothing cut, nothing moved

    read = replay(path)
    assert read.events == events[:4] and read.gap == gap
    assert [d.line for d in read.damage] == [damaged_line] and "checksum" in read.damage[0].reason


def test_a_stray_line_in_the_middle_loses_no_event(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    events = played(path)
    data = path.read_bytes()
    cut = line_starts(data)[4]
    garbage = b"\x00" * 100 + b"not a journal line\n"
    path.write_bytes(data[:cut] + garbage + data[cut:])

    read = replay(path)
    assert read.events == events and read.gap is None
    assert [d.line for d in read.damage] == [5]

    with Journal.open(path) as journal:  # resumes: nothing is missing
        assert journal.events == events
        assert journal.damage[0].line == 5 and not journal.damage[0].tail
        saved = journal.damage[0].saved_to
        assert saved is not None and Path(saved).read_bytes() == garbage
        journal.append(match.Comment("after the repair"))
    again = replay(path)
    assert again.damage == [] and again.events == [*events, match.Comment("after the repair")]


def test_a_five_megabyte_garbage_line_in_the_middle_loses_no_event(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    events = played(path)
    data = path.read_bytes()
    cut = line_starts(data)[3]
    path.write_bytes(data[:cut] + random.Random(5).randbytes(5 << 20).replace(b"\n", b"x") + b"\n" + data[cut:])
    read = replay(path)
    assert read.events == events and read.gap is None
    assert len(read.damage) == 1 and "too long" in read.damage[0].reason


def test_a_repeated_line_is_taken_out(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    events = played(path)
    data = path.read_bytes()
    starts = line_starts(data)
    repeated = data[starts[3] : starts[4]]
    path.write_bytes(data[: starts[4]] + repeated + data[starts[4] :])
    read = replay(path)
    assert read.events == events and "again" in read.damage[0].reason


def test_a_lost_line_is_a_gap_even_without_a_damaged_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    events = played(path)
    data = path.read_bytes()
    starts = line_starts(data)
    path.write_bytes(data[: starts[7]] + data[starts[8] :])  # event 7 gone
    read = replay(path)
    assert read.gap is not None and (read.gap.first, read.gap.last) == (7, 7)
    assert read.events == events[:6]
    with pytest.raises(JournalGap):
        Journal.open(path)


# --- item 4: a batch is all or nothing on repair ---------------------------------------------------------

def batch_journal(path: Path) -> tuple[list[match.Event], list[match.Event], int]:
    """A journal with a few single events then one batch; returns (before, batch, byte size before it)."""
    with new_journal(path) as journal:
        play_some(journal, 3)
        before = journal.events
        size = path.stat().st_size
        batch = [match.Comment(f"imported line {n}") for n in range(20)]
        journal.append_many(batch)
    return before, batch, size


@pytest.mark.parametrize("keep_lines", [1, 7, 19])
@pytest.mark.parametrize("torn", [False, True])
def test_a_batch_cut_short_goes_whole(tmp_path: Path, keep_lines: int, torn: bool) -> None:
    path = tmp_path / "m.jsonl"
    before, _batch, size = batch_journal(path)
    data = path.read_bytes()
    batch_starts = [s for s in line_starts(data) if s >= size]
    end = batch_starts[keep_lines] + (25 if torn else 0)  # complete lines, then maybe half of one
    path.write_bytes(data[:end])

    with Journal.open(path) as journal:
        assert journal.events == before
        assert "incomplete batch" in journal.damage[0].reason
        saved = journal.damage[0].saved_to
        assert saved is not None and Path(saved).read_bytes() == data[size:end]
    assert path.read_bytes() == data[:size]


def test_a_whole_batch_stays(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    before, batch, _size = batch_journal(path)
    with Journal.open(path) as journal:
        assert journal.events == [*before, *batch] and journal.damage == []


def test_batch_lines_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    before, batch, size = batch_journal(path)
    lines = path.read_bytes()[size:].splitlines()
    first, last = len(before) + 1, len(before) + len(batch)
    assert all(f'"batch":[{first},{last}]'.encode() in line for line in lines)
    assert encode_line({"seq": 1}).endswith(b"\n")
