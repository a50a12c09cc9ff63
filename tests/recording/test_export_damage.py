"""`referee export` of damaged journals and to odd targets (issue 23, items 1 and 6)."""

from __future__ import annotations

import json
import os
import random
import stat
import threading
from pathlib import Path

import pytest

from controller.cli import main
from recording.journal import replay

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "gnubg"


@pytest.fixture(scope="module")
def clean_journal(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("j") / "m.jsonl"
    assert main(["import", str(DATA / "sample_5pt.mat"), "-o", str(path)]) == 0
    return path.read_bytes()


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One of the faults of the probe: a flipped byte, a cut, a deleted or garbage line."""
    lines = data.split(b"\n")[:-1]
    kind = rng.choice(["flip", "cut", "delete", "garbage"])
    if kind == "flip":
        out = bytearray(data)
        position = rng.randrange(len(lines[0]) + 1, len(out))  # past the header
        out[position] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == "cut":
        return data[: rng.randrange(len(lines[0]) + 1, len(data))]
    index = rng.randrange(1, len(lines))
    if kind == "delete":
        del lines[index]
    else:
        lines.insert(index, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b""))
    return b"\n".join(lines) + b"\n"


def events_in_json(path: Path) -> int:
    return len(json.loads(path.read_text())["events"])


@pytest.mark.parametrize("seed", range(40))
def test_export_of_a_damaged_journal_never_silently_shortens_the_record(
        seed: int, clean_journal: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    total = len(clean_journal.split(b"\n")) - 2
    journal.write_bytes(mutate(clean_journal, random.Random(seed)))
    out = tmp_path / "m.json"
    code = main(["export", str(journal), "--format", "json", "-o", str(out)])
    err = capsys.readouterr().err
    if code == 0:  # only a whole record is written without being asked
        assert events_in_json(out) == total and err == ""
        return
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "is damaged (line " in err and "--salvage" in err
    assert not out.exists()
    survives = len(replay(journal, check_plays=False).records)
    if survives < total:
        assert "left out" in err
    # asked for what survives: written, with the same warning
    assert main(["export", str(journal), "--format", "json", "-o", str(out), "--salvage"]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "is damaged" in err
    assert events_in_json(out) == survives


def test_a_five_megabyte_garbage_line_is_refused_not_an_empty_record(
        clean_journal: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    header, _, rest = clean_journal.partition(b"\n")
    garbage = random.Random(3).randbytes(5 << 20).replace(b"\n", b"?")
    journal.write_bytes(header + b"\n" + garbage + b"\n" + rest.partition(b"\n")[2])  # event 1 replaced
    out = tmp_path / "m.mat"
    assert main(["export", str(journal), "--format", "mat", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "line 2: line too long" in err and "event 1 is missing" in err and "left out" in err
    assert not out.exists()


def test_a_clean_journal_exports_without_a_word(clean_journal: bytes, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    assert main(["export", str(journal), "--format", "mat", "-o", str(tmp_path / "m.mat")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "m.mat").read_text() == (DATA / "sample_5pt.mat").read_text()


# --- item 6: what the target is --------------------------------------------------------------------------

def _a_full_device(tmp_path: Path) -> str:
    """A character device that answers every write with ENOSPC (the kernel's "full", 1:7).

    Our own node in tmp_path when we may make one, so that a machine whose /dev/full was once
    clobbered (a regular file left there by some program) still runs the test; else /dev/full itself.
    """
    node = tmp_path / "full"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        return str(node)
    except OSError:
        pass
    if stat.S_ISCHR(os.stat("/dev/full").st_mode):
        return "/dev/full"
    pytest.skip("cannot make a device node here and /dev/full is not a character device")


def test_export_to_dev_full_keeps_the_device_and_fails_in_one_line(
        clean_journal: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    device = _a_full_device(tmp_path)
    before = os.stat(device)
    assert stat.S_ISCHR(before.st_mode)
    assert main(["export", str(journal), "-o", device]) == 2
    err = capsys.readouterr().err
    assert "No space left" in err and len(err.strip().splitlines()) == 1
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_export_writes_through_a_fifo(clean_journal: bytes, tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    assert main(["export", str(journal), "-o", str(fifo)]) == 0
    reader.join(timeout=30)
    assert got == [(DATA / "sample_5pt.mat").read_text()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_export_refuses_to_replace_a_symbolic_link(clean_journal: bytes, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    real = tmp_path / "real.mat"
    real.write_text("keep me")
    link = tmp_path / "link.mat"
    link.symlink_to(real)
    assert main(["export", str(journal), "-o", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert link.is_symlink() and real.read_text() == "keep me"
    assert main(["export", str(journal), "-o", str(tmp_path)]) == 2
    assert "directory" in capsys.readouterr().err


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_export_mode_follows_the_umask(umask: int, mode: int, clean_journal: bytes, tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    old = os.umask(umask)
    try:
        assert main(["export", str(journal), "-o", str(tmp_path / "new.mat")]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.mat").st_mode) == mode


def test_export_over_an_existing_record_keeps_its_mode(clean_journal: bytes, tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_bytes(clean_journal)
    target = tmp_path / "old.mat"
    target.write_text("old")
    target.chmod(0o640)
    assert main(["export", str(journal), "-o", str(target)]) == 0
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640 and target.read_text() != "old"
