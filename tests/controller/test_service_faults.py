"""The service on the Pi under faults (issue 23, items 2, 3, 5, 7, 8, 9): camera blips, odd frames, a
camera gone for long, a full disk, damaged journals.  The real Service, referee, journal and page hub;
the camera is a FrameSource that replays given frames (the camera is the one device not on this machine)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from controller.referee import NORMAL, PAUSED
from controller.service import Service, ServiceSettings
from recording.journal import Header, Journal, encode_line, replay
from rules import match
from rules.position import starting_position
from vision import render as rnd
from vision.cameras import CameraError, SupervisedCamera, SyntheticSource


class ReplayCamera:
    """A FrameSource that delivers the frames it is given; None in the list is a lost camera."""

    name = "replay"
    static = True

    def __init__(self) -> None:
        self.frames: list[np.ndarray | None] = []

    def read(self) -> np.ndarray:
        frame = self.frames.pop(0) if self.frames else None
        if frame is None:
            raise CameraError("camera unplugged")
        return frame

    def close(self) -> None:
        pass


@pytest.fixture
def synthetic() -> SyntheticSource:
    source = SyntheticSource(seed=3)
    points, bar = rnd.physical_counts(starting_position("backgammon"))
    source.show(rnd.Scene(points=points, bar=bar, seed=2))
    return source


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synthetic: SyntheticSource) -> Iterator[Service]:
    from gpiozero import Device

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    Device.pin_factory = None
    data = tmp_path / "data"
    data.mkdir()
    settings = ServiceSettings(camera="synthetic", leds="none", data_dir=str(data)).validate()
    running = Service(settings)
    running.calibration = synthetic.calibration()
    try:
        yield running
    finally:
        running.close()
        Device.pin_factory = None


def replaying(service: Service) -> ReplayCamera:
    camera = ReplayCamera()
    service.camera = SupervisedCamera(lambda: camera, backoff=(0.0, 0.0))
    return camera


# --- item 7: a camera blip does not lift a director's pause ----------------------------------------------

def test_a_camera_blip_keeps_the_directors_pause(service: Service, synthetic: SyntheticSource) -> None:
    service.open_match()
    camera = replaying(service)
    frame = synthetic.read()
    referee = service.referee
    assert referee is not None
    camera.frames = [frame]
    assert service.step()
    service.hub.pause()  # the director
    camera.frames = [None]
    assert not service.step()  # blip
    camera.frames = [frame]
    assert service.step()  # the camera is back
    assert referee.mode == PAUSED and service.hub.snapshot().paused
    assert referee.paused_for() == "director"
    service.hub.resume()  # only the director lifts it
    assert referee.mode != PAUSED and not service.hub.snapshot().paused


def test_a_camera_pause_is_lifted_by_the_camera_not_the_director(service: Service, synthetic: SyntheticSource) -> None:
    from web_ui.view import CommandRefused

    service.open_match()
    camera = replaying(service)
    referee = service.referee
    assert referee is not None
    camera.frames = [None]
    assert not service.step()
    assert referee.mode == PAUSED
    with pytest.raises(CommandRefused, match="camera"):
        service.hub.resume()
    assert referee.mode == PAUSED
    camera.frames = [synthetic.read()]
    assert service.step()
    assert referee.mode != PAUSED


# --- item 8: odd frames are reported and skipped ------------------------------------------------------------

def test_odd_frames_are_skipped_and_reported(service: Service, synthetic: SyntheticSource) -> None:
    service.open_match()
    camera = replaying(service)
    good = synthetic.read()
    odd = [
        np.zeros((1, 1, 3), np.uint8),
        np.full(good.shape[:2], 128, np.uint8),  # greyscale
        np.zeros((*good.shape[:2], 4), np.uint8),  # BGRA
        good.astype(np.float32),
        np.zeros((5, 4000, 3), np.uint8),
    ]
    camera.frames = [good, *odd, good]
    for _ in range(len(odd) + 2):
        assert service.step()  # never raises
    assert service.odd_frames == len(odd)
    ok, detail = service.camera_status()
    assert not ok and "odd frame" in detail
    assert service.hub.snapshot().status.camera.level == "error"


def test_a_camera_back_at_another_resolution_pauses_until_recalibrated(service: Service,
                                                                      synthetic: SyntheticSource) -> None:
    import cv2

    service.open_match()
    camera = replaying(service)
    referee = service.referee
    assert referee is not None
    good = synthetic.read()
    half = cv2.resize(good, (good.shape[1] // 2, good.shape[0] // 2), interpolation=cv2.INTER_AREA)
    camera.frames = [good, None, half, half]
    assert service.step() and not service.step()
    assert service.step() and service.step()  # the new resolution: no traceback, frames not judged
    assert referee.mode == PAUSED and "camera resolution" in referee.paused_for()
    status = service.hub.snapshot().status.camera
    assert status.level == "error" and "recalibrate" in status.detail and f"{half.shape[1]}x{half.shape[0]}" in status.detail
    corners = [(x / 2, y / 2) for x, y in synthetic.setup.corners]
    service.calibrate("corners", corners)  # the director recalibrates on the page
    assert referee.mode != PAUSED
    camera.frames = [half]
    assert service.step() and service.odd_frames == 0


def test_recalibrating_after_a_start_only_calibration_takes_no_checkers_for_the_empty_board(
        service: Service, synthetic: SyntheticSource) -> None:
    """Calibrated from the start position alone (no photo of the empty board), clicking the
    corners again or retaking the start keeps the calibration from the start position: its photo,
    full of checkers, never becomes the empty board's; an empty-board photo, once taken, is kept."""
    service.calibration = None
    service.frame = synthetic.read()  # the start position
    corners = [tuple(map(float, c)) for c in synthetic.setup.corners]
    service.calibrate("corners", corners)
    service.calibrate("start", "backgammon")
    assert service.calibration is not None and service.calibration.background_source == "start"
    service.calibrate("corners", corners)
    assert service.calibration.background_source == "start" and service.calibration.start_frame is not None
    service.calibrate("start", "backgammon")
    assert service.calibration.background_source == "start"
    empty = synthetic.calibration().reference_frame
    assert empty is not None
    service.frame = empty
    service.calibrate("empty")
    service.frame = synthetic.read()
    service.calibrate("corners", corners)
    assert service.calibration.background_source == "empty"
    assert service.calibration.reference_frame is not None
    assert np.abs(service.calibration.reference_frame.astype(int) - empty).mean() < 3


# --- item 9: the watchdog is pinged while the camera is out ---------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_watchdog_is_pinged_while_the_camera_is_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    Device.pin_factory = None
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(address)
        systemd.settimeout(30)
        monkeypatch.setenv("NOTIFY_SOCKET", address)
        settings = ServiceSettings(camera=f"video:{tmp_path / 'unplugged.mp4'}", leds="none",
                                   data_dir=str(tmp_path / "data"), host="127.0.0.1", port=free_port()).validate()
        service = Service(settings)
        runner = threading.Thread(target=service.run, daemon=True)
        runner.start()
        try:
            messages: list[bytes] = []
            deadline = time.monotonic() + 30
            while b"WATCHDOG=1" not in messages and time.monotonic() < deadline:
                messages.append(systemd.recv(64))
            assert b"READY=1" in messages
            assert b"WATCHDOG=1" in messages  # the camera never delivered a frame
            assert not service.camera_ok
        finally:
            service.stop.set()
            runner.join(timeout=30)
            Device.pin_factory = None


# --- items 2 and 3: damaged journals at start, on the page ------------------------------------------------------

def journal_with_gap(data: Path) -> Path:
    path = data / "match-20260101-120000.jsonl"
    with Journal.create(path, Header(players=("Ana", "Ion"))) as journal:
        journal.append(match.OpeningRoll(5, 2))
        for number in range(6):
            journal.append(match.Comment(f"note {number}"))
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"note", b"nope")  # event 3's CRC no longer matches
    path.write_bytes(b"\n".join(lines))
    return path


def test_a_journal_damaged_in_the_middle_waits_for_the_director(service: Service) -> None:
    path = journal_with_gap(Path(service.settings.data_dir))
    damaged = path.read_bytes()
    service.open_match()
    assert service.referee is None  # not resumed, and no new match started behind the director's back
    assert sorted(p.name for p in Path(service.settings.data_dir).glob("match-*.jsonl")) == [path.name]
    assert path.read_bytes() == damaged
    status = service.hub.snapshot().status.journal
    assert status.level == "error" and "event 3 is missing" in status.detail and "4 intact events" in status.detail
    service.hub.resume_damaged()  # the director's decision
    assert service.referee is not None and len(service.referee.journal.records) == 2
    assert service.hub.snapshot().status.journal.level == "ok"
    assert list(Path(service.settings.data_dir).glob(f"{path.name}.damaged-*"))


def test_a_journal_damaged_in_the_middle_can_give_way_to_a_new_match(service: Service) -> None:
    path = journal_with_gap(Path(service.settings.data_dir))
    damaged = path.read_bytes()
    service.open_match()
    service.hub.new_game("backgammon", ("Ana", "Ion"), 3, {})
    assert service.referee is not None and service.hub.snapshot().status.journal.level == "ok"
    assert path.read_bytes() == damaged  # kept as it is


def test_an_unreadable_journal_is_shown_on_the_page(service: Service) -> None:
    data = Path(service.settings.data_dir)
    broken = data / "match-20260101-120000.jsonl"
    with Journal.create(broken, Header(players=("Ana", "Ion"))) as journal:
        journal.append(match.OpeningRoll(5, 2))
    raw = bytearray(broken.read_bytes())
    raw[10] ^= 0x01  # the header's CRC fails
    broken.write_bytes(bytes(raw))
    service.open_match()
    status = service.hub.snapshot().status.journal
    assert status.level == "warn" and broken.name in status.detail and "line 1" in status.detail


def test_demo_resume_refuses_a_journal_with_a_damaged_header(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.cli import main

    monkeypatch.setenv("REFEREE_LEDS", "none")
    journal = tmp_path / "backgammon-20260101-120000-1.jsonl"
    with Journal.create(journal, Header(players=("Ana", "Ion"))) as opened:
        opened.append(match.OpeningRoll(5, 2))
    raw = bytearray(journal.read_bytes())
    raw[20] ^= 0x01
    journal.write_bytes(bytes(raw))
    code = main(["demo", "--headless", "--game", "backgammon", "--data-dir", str(tmp_path), "--resume",
                 "--max-turns", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot resume" in err and journal.name in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == [journal.name]  # no new game started


def test_demo_resume_refuses_a_journal_with_missing_events(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.cli import main

    monkeypatch.setenv("REFEREE_LEDS", "none")
    journal = tmp_path / "backgammon-20260101-120000-1.jsonl"
    with Journal.create(journal, Header(players=("Ana", "Ion"))) as opened:
        opened.append(match.OpeningRoll(5, 2))
        for number in range(3):
            opened.append(match.Comment(f"note {number}"))
    lines = journal.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"note", b"nope")
    journal.write_bytes(b"\n".join(lines))
    damaged = journal.read_bytes()
    code = main(["demo", "--headless", "--game", "backgammon", "--data-dir", str(tmp_path), "--resume",
                 "--max-turns", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "event 2 is missing" in err and len(err.strip().splitlines()) == 1
    assert journal.read_bytes() == damaged


# --- item 5: a full disk pauses the game; it goes on when space returns -----------------------------------------

@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("needs root to mount a small tmpfs (a disk that can fill up)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def pad_to_block(journal: Journal, block: int = 4096) -> None:
    """Append one comment so the journal ends on a block boundary: the next line needs a new block."""
    size = os.path.getsize(journal.path)
    probe = len(encode_line({"seq": len(journal) + 1, "t": "2026-01-01T00:00:00.000Z", "type": "Comment", "text": ""}))
    need = -size % block
    if need < probe:
        need += block
    journal.append(match.Comment("x" * (need - probe)))
    assert os.path.getsize(journal.path) % block == 0


def test_a_full_disk_pauses_the_game_and_it_goes_on_when_space_returns(
        small_disk: Path, monkeypatch: pytest.MonkeyPatch, synthetic: SyntheticSource) -> None:
    from gpiozero import Device

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    Device.pin_factory = None
    settings = ServiceSettings(camera="synthetic", leds="none", data_dir=str(small_disk)).validate()
    service = Service(settings)
    try:
        service.calibration = synthetic.calibration()
        service.open_match()
        referee = service.referee
        assert referee is not None
        path = Path(referee.journal.path)
        pad_to_block(referee.journal)
        filler = fill(small_disk)
        camera = replaying(service)
        frame = synthetic.read()
        for _ in range(60):  # the starting position, held still: the referee learns the seating
            camera.frames = [frame]
            assert service.step()  # never raises: no "[Errno 28]" exit
            service.housekeeping()
            if referee.mode == PAUSED:
                break
            time.sleep(0.05)  # the gate reads a board that stays still for a moment
        assert referee.mode == PAUSED and "disk full" in referee.paused_for()
        assert ("disk", {"ok": False, "reason": "disk full", "error": "No space left on device"}) in service.signals.history
        status = service.hub.snapshot().status
        assert status.disk.level == "error" and "disk full" in status.disk.detail
        assert status.journal.level == "error"
        from tests.web_ui.conftest import app_config
        from web_ui import create_app

        app = create_app(service.hub, service.hub, app_config(small_disk.parent))  # the PIN store is elsewhere
        assert "disk full: game paused" in app.test_client().get("/").get_data(as_text=True)
        assert replay(path).damage == [] and len(replay(path).records) == 1  # the confirmed record is intact
        filler.unlink()  # space returns
        service.housekeeping(now=time.monotonic() + 60)
        assert referee.mode != PAUSED and ("disk", {"ok": True}) in service.signals.history
        for _ in range(60):
            camera.frames = [frame]
            service.step()
            if referee.mode == NORMAL and len(replay(path).records) == 2:
                break
            time.sleep(0.05)
        last = replay(path).records[-1].event  # the seating, recorded now
        assert isinstance(last, match.Comment) and "seating" in last.text.lower()
    finally:
        service.close()
        Device.pin_factory = None


def test_a_failed_import_on_a_full_disk_leaves_nothing_behind(small_disk: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main

    source = Path(__file__).resolve().parents[1] / "data" / "gnubg" / "sample_5pt.mat"
    fill(small_disk)
    assert main(["import", str(source), "-o", str(small_disk / "club.jsonl")]) == 2
    assert "No space left" in capsys.readouterr().err
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]




# --- the page: what the director sees and does ------------------------------------------------------------------

def test_the_page_shows_the_damaged_journal_and_the_director_resumes_it(service: Service, tmp_path: Path) -> None:
    from tests.web_ui.conftest import PIN, app_config
    from web_ui import create_app

    path = journal_with_gap(Path(service.settings.data_dir))
    service.open_match()
    app = create_app(service.hub, service.hub, app_config(tmp_path, DATA_DIR=service.settings.data_dir))
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "event 3 is missing" in page  # on the status line every viewer sees
    token = client.post("/unlock", json={"pin": PIN}).json["csrf"]
    control = client.get("/control").get_data(as_text=True)
    assert 'action="/api/resume_damaged"' in control and "event 3 is missing" in control
    response = client.post("/api/resume_damaged", headers={"X-CSRF-Token": token})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert service.referee is not None and Path(service.referee.journal.path) == path
    assert 'action="/api/resume_damaged"' not in client.get("/control").get_data(as_text=True)
    assert "event 3 is missing" not in client.get("/").get_data(as_text=True)
