"""Frame sources are chosen by setting, never silently; the supervisor survives disconnects."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cameras import (
    CameraError,
    DatasetSource,
    FrozenFrameDetector,
    SupervisedCamera,
    open_camera,
    parse_camera,
)


@pytest.mark.parametrize("bad", ["", "webcam", "v4l2:", "v4l2:x", "video:", "frames:", "picamera2:1"])
def test_unknown_camera_settings_are_errors(bad: str) -> None:
    with pytest.raises(ValueError, match="REFEREE_CAMERA"):
        parse_camera(bad)


def test_environment_variable_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CAMERA", "nonsense")
    with pytest.raises(ValueError):
        open_camera()
    monkeypatch.setenv("REFEREE_CAMERA", "synthetic")
    frame = open_camera().read()
    assert frame.shape == (720, 1280, 3)


def test_missing_video_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError):
        open_camera(f"video:{tmp_path / 'none.mp4'}")


def test_dataset_source_reads_frames_in_order(small_dataset: Path) -> None:
    source = open_camera(f"frames:{small_dataset}")
    assert isinstance(source, DatasetSource)
    first = source.read()
    second = source.read()
    assert first.shape == (720, 1280, 3) and not np.array_equal(first, second)


class FlakySource:
    name = "flaky"

    def __init__(self, frames: int) -> None:
        self.left = frames

    def read(self) -> np.ndarray:
        if self.left <= 0:
            raise CameraError("unplugged")
        self.left -= 1
        return np.random.default_rng(self.left).integers(0, 255, (18, 32, 3), dtype=np.uint8)

    def close(self) -> None:
        pass


def test_supervisor_reconnects_with_backoff() -> None:
    now = [0.0]
    opened: list[float] = []
    fail_next = [True]

    def factory() -> FlakySource:
        opened.append(now[0])
        if fail_next[0]:
            fail_next[0] = False
            raise CameraError("not there yet")
        return FlakySource(2)

    camera = SupervisedCamera(factory, backoff=(1.0, 8.0), clock=lambda: now[0])
    assert camera.read() is None and camera.status.state == "reconnecting"
    assert camera.read() is None  # still backing off: no new attempt
    assert len(opened) == 1
    now[0] = 1.5
    assert camera.read() is not None and camera.status.state == "ok"
    assert camera.read() is not None
    assert camera.read() is None  # unplugged
    assert camera.status.state == "reconnecting" and camera.reconnects == 1
    assert "unplugged" in (camera.status.last_error or "")


def test_frozen_stream_is_noticed() -> None:
    detector = FrozenFrameDetector(limit=3)
    frame = np.zeros((72, 128, 3), np.uint8)
    assert [detector.update(frame) for _ in range(4)] == [False, False, False, True]
    assert not detector.update(frame + 1)


def test_synthetic_camera_shows_a_position_the_reader_reads() -> None:
    from rules.position import Position
    from vision.cameras import SyntheticSource
    from vision.config import VisionConfig
    from vision.pipeline import Reader
    from vision.render import scene_from_position

    camera = SyntheticSource(seed=4)
    reader = Reader(camera.calibration(), VisionConfig(use_dice=False))
    position = Position.from_id("4HPwATDgc/ABMA")
    camera.show(scene_from_position(position, seed=8))
    assert reader.read(camera.read()).to_position("backgammon") == position
    camera.show(scene_from_position(position, seed=8, hand=True))
    assert reader.read(camera.read()).refused
