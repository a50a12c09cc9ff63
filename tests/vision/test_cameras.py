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
    shows_renderer,
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


def test_which_cameras_show_the_renderers_pictures(small_dataset: Path, tmp_path: Path) -> None:
    """What the ``auto`` readers go by: the synthetic camera and the 2-D renderer's datasets show
    its pictures; a real camera, a video and a dataset recorded elsewhere do not."""
    import json
    import shutil

    assert shows_renderer("synthetic") and shows_renderer(f"frames:{small_dataset}")
    assert not any(shows_renderer(s) for s in ("picamera2", "v4l2:0", f"video:{tmp_path / 'game.mp4'}"))
    recorded = tmp_path / "recorded"
    shutil.copytree(small_dataset, recorded)
    meta = json.loads((recorded / "dataset.json").read_text(encoding="utf-8"))
    del meta["generator"]  # frames a camera recorded: no renderer wrote them
    (recorded / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    assert not shows_renderer(f"frames:{recorded}")
    with pytest.raises(ValueError, match="not a dataset"):
        shows_renderer(f"frames:{tmp_path / 'nowhere'}")


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
