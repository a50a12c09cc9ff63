"""Frame sources: Raspberry Pi camera (picamera2), V4L2 webcams and video files, a labelled
dataset folder, and the synthetic renderer; plus a supervisor that survives disconnects.

The source is chosen by ``REFEREE_CAMERA`` (INTERFACES.md §5): ``picamera2``, ``v4l2:N``,
``video:PATH``, ``frames:DIR`` or ``synthetic``.  An unknown value is an error, never a silent
fallback to another camera.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

__all__ = [
    "FrameSource",
    "CameraError",
    "Picamera2Source",
    "VideoSource",
    "DatasetSource",
    "SyntheticSource",
    "SupervisedCamera",
    "CameraStatus",
    "FrozenFrameDetector",
    "open_camera",
    "parse_camera",
]


class CameraError(OSError):
    """The camera could not be opened or stopped delivering frames."""


class FrameSource(Protocol):
    """Anything that yields BGR frames."""

    name: str

    def read(self) -> np.ndarray:
        """The next frame (BGR uint8); raises CameraError when none can be had."""
        ...

    def close(self) -> None: ...


class Picamera2Source:
    """A CSI camera through picamera2 (apt ``python3-picamera2``; imported only when used).

    ``lock()`` freezes auto-exposure and white balance after calibration so the board's colours
    stay comparable with the reference frames.
    """

    def __init__(self, size: tuple[int, int] = (1280, 720)) -> None:
        self.name = "picamera2"
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as error:
            raise CameraError("picamera2 is not installed (apt install python3-picamera2)") from error
        try:
            self._cam = Picamera2()
            config = self._cam.create_video_configuration(main={"size": size, "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as error:  # noqa: BLE001 - libcamera raises many kinds
            raise CameraError(f"picamera2 could not start: {error}") from error

    def read(self) -> np.ndarray:
        try:
            frame = self._cam.capture_array("main")  # "RGB888" is already BGR in memory
        except Exception as error:  # noqa: BLE001
            raise CameraError(f"picamera2 capture failed: {error}") from error
        return np.ascontiguousarray(frame[..., :3])

    def lock(self) -> None:
        """Freeze exposure, gain and white balance at their current values."""
        meta = self._cam.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in meta:
                controls[key] = meta[key]
        self._cam.set_controls(controls)

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001, S110 - closing a dead camera must not raise
            pass


class VideoSource:
    """A V4L2 webcam (``v4l2:0``) or a video file (``video:PATH``) through cv2.VideoCapture."""

    def __init__(self, target: int | str, size: tuple[int, int] | None = (1280, 720), loop: bool = False) -> None:
        self.name = f"v4l2:{target}" if isinstance(target, int) else f"video:{target}"
        self._target = target
        self._loop = loop
        if isinstance(target, str) and not Path(target).is_file():
            raise CameraError(f"video file {target!r} does not exist")
        api = cv2.CAP_V4L2 if isinstance(target, int) else cv2.CAP_ANY
        self._cap = cv2.VideoCapture(target, api)
        if not self._cap.isOpened():
            raise CameraError(f"could not open {self.name}")
        if isinstance(target, int) and size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> np.ndarray:
        ok, frame = self._cap.read()
        if not ok and self._loop and isinstance(self._target, str):
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"{self.name} delivered no frame")
        return frame

    def lock(self) -> None:
        """Best effort: manual exposure and fixed white balance on UVC cameras."""
        self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
        self._cap.set(cv2.CAP_PROP_AUTO_WB, 0)

    def close(self) -> None:
        self._cap.release()


class DatasetSource:
    """Frames of a ``referee-frames/1`` dataset in order (``frames:DIR``), looping at the end."""

    def __init__(self, directory: str | Path, loop: bool = True) -> None:
        from vision.dataset import load_dataset

        self.name = f"frames:{directory}"
        self.static = True
        self.dataset = load_dataset(directory)
        if not self.dataset.frames:
            raise CameraError(f"dataset {str(directory)!r} has no frames")
        self._index = 0
        self._loop = loop

    def read(self) -> np.ndarray:
        if self._index >= len(self.dataset.frames):
            if not self._loop:
                raise CameraError(f"{self.name}: no more frames")
            self._index = 0
        name = self.dataset.frames[self._index]
        self._index += 1
        try:
            return self.dataset.image(name)
        except ValueError as error:
            raise CameraError(str(error)) from error

    def close(self) -> None:
        pass


class SyntheticSource:
    """The renderer as a camera: shows whatever scene the caller (the demo) sets."""

    def __init__(self, seed: int = 0, style: str | None = "tournament") -> None:
        from vision import render

        self.name = "synthetic"
        self.static = True  # repeats its image on purpose: no frozen-frame alarm
        self._render = render
        rng = np.random.default_rng(seed)
        self.setup = render.random_setup(rng, style)
        self.scene = render.Scene(points=[(0, 0)] * 24, seed=seed)
        self._frame: np.ndarray | None = None

    def calibration(self) -> Any:
        """Calibrate this synthetic board as a user would: its corners, the empty board and the
        backgammon starting position (returns a :class:`vision.calibration.Calibration`)."""
        from rules.position import starting_position
        from vision.calibration import calibrate

        render = self._render
        empty, _ = render.render(self.setup, render.Scene(points=[(0, 0)] * 24, seed=1))
        points, bar = render.physical_counts(starting_position("backgammon"))
        start, _ = render.render(self.setup, render.Scene(points=points, bar=bar, seed=2))
        h, w = empty.shape[:2]
        return calibrate(self.setup.corners, (w, h), empty=empty, start=start)

    def show(self, scene: Any) -> None:
        """Put ``scene`` (a :class:`vision.render.Scene`) in front of the camera."""
        self.scene = scene
        self._frame = None

    def read(self) -> np.ndarray:
        if self._frame is None:
            self._frame, _ = self._render.render(self.setup, self.scene)
        return self._frame.copy()

    def close(self) -> None:
        pass


def parse_camera(setting: str) -> tuple[str, str]:
    """Split and check a ``REFEREE_CAMERA`` value; ValueError names what is wrong."""
    text = (setting or "").strip()
    kind, _, arg = text.partition(":")
    kind = kind.lower()
    if kind in ("picamera2", "synthetic") and not arg:
        return kind, ""
    if kind == "v4l2" and arg.isdigit():
        return kind, arg
    if kind in ("video", "frames") and arg:
        return kind, arg
    raise ValueError(
        f"REFEREE_CAMERA={text!r} is not one of picamera2, v4l2:N, video:PATH, frames:DIR, synthetic"
    )


def shows_renderer(setting: str) -> bool:
    """Whether the camera ``setting`` shows the 2-D renderer's pictures: the synthetic camera, or
    a §3 dataset the 2-D renderer wrote (``frames:DIR``; vision.dataset.Dataset.rendered_2d).  What
    the ``auto`` readers go by (vision.config.auto_readers).  ValueError for a bad setting or a
    ``frames:`` folder that is no dataset."""
    kind, arg = parse_camera(setting)
    if kind == "frames":
        from vision.dataset import load_dataset

        return load_dataset(arg).rendered_2d
    return kind == "synthetic"


def open_camera(setting: str | None = None, **options: Any) -> FrameSource:
    """Open the camera named by ``setting`` (default: ``REFEREE_CAMERA``, else ``synthetic``)."""
    if setting is None:
        setting = os.environ.get("REFEREE_CAMERA", "synthetic")
    kind, arg = parse_camera(setting)
    if kind == "picamera2":
        return Picamera2Source(**options)
    if kind == "v4l2":
        return VideoSource(int(arg), **options)
    if kind == "video":
        return VideoSource(arg, size=None, **options)
    if kind == "frames":
        try:
            return DatasetSource(arg, **options)
        except ValueError as error:
            raise CameraError(str(error)) from error
    return SyntheticSource(**options)


class FrozenFrameDetector:
    """Notices a camera that keeps delivering the identical image (a hung driver)."""

    def __init__(self, limit: int = 30) -> None:
        self.limit = limit
        self._last: bytes | None = None
        self.repeats = 0

    def update(self, frame: np.ndarray) -> bool:
        small = cv2.resize(frame, (32, 18), interpolation=cv2.INTER_AREA)
        # A live sensor always has some noise: identical thumbnails mean a frozen stream.
        key = small.tobytes()
        self.repeats = self.repeats + 1 if key == self._last else 0
        self._last = key
        return self.repeats >= self.limit


@dataclass
class CameraStatus:
    state: str  # "ok" | "reconnecting" | "frozen" | "closed"
    source: str
    reconnects: int
    last_error: str | None
    since: float


class SupervisedCamera:
    """Wraps a source factory: reopens a lost camera with exponential backoff, reports state.

    ``read()`` returns a frame or None (no frame right now); it never raises for a lost camera,
    so the referee keeps running and shows the camera state instead.
    """

    def __init__(
        self,
        factory: Callable[[], FrameSource],
        *,
        backoff: tuple[float, float] = (0.5, 10.0),
        frozen_after: int = 50,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._factory = factory
        self._backoff = backoff
        self._delay = backoff[0]
        self._clock = clock
        self._source: FrameSource | None = None
        self._next_try = 0.0
        self._frozen = FrozenFrameDetector(frozen_after)
        self.reconnects = 0
        self.last_error: str | None = None
        self._state = "reconnecting"
        self._since = clock()
        self._name = "?"

    def _set(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self._since = self._clock()

    @property
    def status(self) -> CameraStatus:
        return CameraStatus(self._state, self._name, self.reconnects, self.last_error, self._since)

    def _open(self) -> bool:
        now = self._clock()
        if now < self._next_try:
            return False
        try:
            self._source = self._factory()
            self._name = self._source.name
            self._delay = self._backoff[0]
            return True
        except (CameraError, OSError, ValueError) as error:
            self.last_error = str(error)
            self._next_try = now + self._delay
            self._delay = min(self._delay * 2, self._backoff[1])
            self._set("reconnecting")
            return False

    def read(self) -> np.ndarray | None:
        if self._state == "closed":
            return None
        if self._source is None and not self._open():
            return None
        assert self._source is not None
        try:
            frame = self._source.read()
        except (CameraError, OSError) as error:
            self.last_error = str(error)
            self._drop()
            return None
        if not getattr(self._source, "static", False) and self._frozen.update(frame):
            self.last_error = "camera delivers the same frame over and over"
            self._set("frozen")
            self._drop()
            return None
        self._set("ok")
        return frame

    def _drop(self) -> None:
        if self._source is not None:
            try:
                self._source.close()
            finally:
                self._source = None
        self.reconnects += 1
        self._next_try = self._clock() + self._delay
        self._delay = min(self._delay * 2, self._backoff[1])
        if self._state != "frozen":
            self._set("reconnecting")

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None
        self._set("closed")
