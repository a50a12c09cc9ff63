"""Reading ``referee-frames/1`` datasets (INTERFACES.md §3) and calibrating from their references."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, calibrate
from vision.config import VisionConfig

__all__ = ["Dataset", "load_dataset", "read_image", "calibration_for"]

FORMAT = "referee-frames/1"
VOID_REASONS = ("different_halves", "cocked", "on_checker", "off_board")
#: dataset.json's generator "tool" of the 2-D renderer's datasets (vision.render.render_dataset)
RENDER_2D = "referee render"


def read_image(path: str | Path) -> np.ndarray:
    """A colour image, or ValueError naming the file."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"image {str(p)!r} does not exist")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"image {str(p)!r} is not a readable image")
    return image


@dataclass
class Dataset:
    root: Path
    meta: dict[str, Any]
    corners: np.ndarray | None
    frames: list[str]

    def image(self, name: str) -> np.ndarray:
        return read_image(self.root / name)

    @property
    def rendered_2d(self) -> bool:
        """Whether the 2-D renderer (`referee render`, vision.render) drew these frames: the
        pictures the classical readers were tuned on (vision.config.auto_readers)."""
        generator = self.meta.get("generator")
        return isinstance(generator, dict) and generator.get("tool") == RENDER_2D

    def clear_frames(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each frame no hand hides, in order: (name, label)."""
        for name in self.frames:
            label = self.label(name)
            if not label.get("occluded"):
                yield name, label

    def label(self, name: str) -> dict[str, Any]:
        path = (self.root / name).with_suffix(".json")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"label {str(path)!r} is missing") from None
        except json.JSONDecodeError:
            raise ValueError(f"label {str(path)!r} is not JSON") from None
        validate_label(data, str(path))
        return data

    def reference(self, which: str) -> tuple[np.ndarray | None, str]:
        ref = self.meta.get("reference") or {}
        entry = ref.get(which)
        variant = "backgammon"
        if isinstance(entry, dict):
            variant = str(entry.get("variant", variant))
            entry = entry.get("image")
        if not entry:
            return None, variant
        return self.image(str(entry)), variant


def validate_label(data: Any, where: str) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"label {where!r} is not an object")
    points = data.get("points")
    if not isinstance(points, list) or len(points) != 24 or any(
        not isinstance(p, list) or len(p) != 2 for p in points
    ):
        raise ValueError(f"label {where!r}: 'points' must be 24 [light, dark] pairs")
    if not all(_count(v) for p in points for v in p):
        raise ValueError(f"label {where!r}: 'points' must hold checker counts (whole numbers 0..15)")
    if data.get("roll") not in ("valid", "void", "none"):
        raise ValueError(f"label {where!r}: 'roll' must be valid, void or none")
    bar = data.get("bar")
    if bar is not None and (not isinstance(bar, dict) or not all(_count(bar.get(k, 0)) for k in ("light", "dark"))):
        raise ValueError(f"label {where!r}: 'bar' must be an object {{\"light\": N, \"dark\": N}}")
    dice = data.get("dice")
    if dice is not None and (not isinstance(dice, list) or not all(
        isinstance(d, dict) and d.get("value") in (1, 2, 3, 4, 5, 6) and not isinstance(d.get("value"), bool)
        for d in dice
    )):
        raise ValueError(f"label {where!r}: 'dice' must be a list of objects with a 'value' 1..6")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 15


#: Corners further than this from the image origin (pixels) are not a camera's view of a board.
MAX_CORNER = 100_000.0


def load_dataset(path: str | Path) -> Dataset:
    root = Path(path)
    meta_path = root / "dataset.json"
    if not meta_path.is_file():
        raise ValueError(f"{str(root)!r} is not a dataset (no dataset.json)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise ValueError(f"{str(meta_path)!r} is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(meta_path)!r} is not a {FORMAT} dataset")
    corners = None
    board = meta.get("board") or {}
    if not isinstance(board, dict):
        raise ValueError(f"{str(meta_path)!r}: 'board' must be an object")
    if not isinstance(meta.get("reference") or {}, dict):
        raise ValueError(f"{str(meta_path)!r}: 'reference' must be an object")
    if board.get("corners") is not None:
        try:
            corners = np.asarray(board["corners"], dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{str(meta_path)!r}: board corners must be four [x, y] pairs of numbers") from None
        if corners.shape != (4, 2):
            raise ValueError(f"{str(meta_path)!r}: board corners must be four [x, y] pairs")
        if not np.all(np.isfinite(corners)) or np.abs(corners).max() > MAX_CORNER:
            raise ValueError(f"{str(meta_path)!r}: board corners must be pixel positions "
                             f"(finite, within {MAX_CORNER:.0f} of the image)")
    frames = meta.get("frames")
    if not isinstance(frames, list) or not all(isinstance(f, str) for f in frames):
        raise ValueError(f"{str(meta_path)!r}: 'frames' must be a list of image paths")
    return Dataset(root, meta, corners, frames)


def calibration_for(dataset: Dataset, config: VisionConfig | None = None,
                    image_size: tuple[int, int] | None = None, frame: np.ndarray | None = None) -> Calibration:
    """Calibrate from the dataset's corners (or markers) and its reference frames.  ``frame``:
    the frame about to be read, to estimate the empty board from when the dataset has neither
    references nor enough frames for a median (else its first frame)."""
    config = config or VisionConfig()
    empty, _ = dataset.reference("empty")
    start, variant = dataset.reference("start")
    if image_size is None:
        sample = empty if empty is not None else start
        if sample is None:
            if not dataset.frames:
                raise ValueError("dataset has no frames")
            sample = dataset.image(dataset.frames[0])
        image_size = (sample.shape[1], sample.shape[0])
    play: np.ndarray | None = None
    if empty is None and len(dataset.frames) >= MEDIAN_MIN_FRAMES:
        # No empty board: checkers and dice move from frame to frame, so the per-pixel median
        # of frames spread over the recording approximates it (the start position's own
        # frame shows the empty board only between its stacks).
        empty = median_frame(dataset, image_size)
        source = "frames"
    elif empty is None and start is None:
        # Too few frames for a median (it would keep their checkers, and the board would read
        # empty): estimate the empty board from one frame in play (the classical reader's every
        # reading is then doubted; the learned counter's below vision.pipeline.ALONE_CONFIDENCE).
        if frame is None and not dataset.frames:
            raise ValueError("dataset has neither reference frames nor frames to calibrate from")
        play = frame if frame is not None else dataset.image(dataset.frames[0])
        source = "estimated"
    else:
        source = "empty" if empty is not None else "start"
    calib = calibrate(dataset.corners, image_size, empty=empty, start=start, variant=variant, config=config,
                      play=play)
    calib.background_source = source
    return calib


MEDIAN_MIN_FRAMES = 9  # fewer frames than this leave checkers in their median


def median_frame(dataset: Dataset, image_size: tuple[int, int], count: int = 25) -> np.ndarray:
    """Per-pixel median of up to ``count`` frames spread evenly over the dataset."""
    if not dataset.frames:
        raise ValueError("dataset has neither reference frames nor frames to calibrate from")
    picks = np.unique(np.linspace(0, len(dataset.frames) - 1, min(count, len(dataset.frames))).round().astype(int))
    stack = []
    for i in picks:
        image = dataset.image(dataset.frames[int(i)])
        if (image.shape[1], image.shape[0]) == image_size:
            stack.append(image)
    if not stack:
        raise ValueError("no frame of the calibration's size to calibrate from")
    return np.median(np.stack(stack), axis=0).astype(np.uint8)
