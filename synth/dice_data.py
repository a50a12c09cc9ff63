"""Training data for the learned dice reader (vision.dice_learned) from labelled datasets.

For every clear frame of a ``referee-frames/1`` dataset, with the calibration a reader would build
from the dataset's corners (and ``jitter`` more with the corners moved by up to
``corner_jitter`` of the board, a click a few pixels off):

- the finder's view (vision.dice_learned.find_view) and its target, a heat map with a small
  Gaussian at each labelled die's centre;
- the reader's crops (vision.dice_learned.die_crop): one around each labelled die (its centre and
  scale a little off, as the finder's peak is), labelled with its value, and crops of no die (on
  checkers at the base of occupied points and anywhere on the surface), labelled 0;
- per die crop, whether the die does not lie flat: in a frame whose roll is void because a die is
  ``cocked`` or ``on_checker``, both renderers list that die first (vision.render._place_dice,
  synth.scene's dice); every other die lies flat.

Output: one ``.npz`` per dataset.

    python -m synth.dice_data DATASET... --out CACHE_DIR [--jitter 1] [--seed 0] [--measure]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from synth.cut import cut_datasets
from vision.calibration import CLICK, BoardGeometry
from vision.dataset import calibration_for, load_dataset
from vision.dice_learned import CROP_SIZE, FIND_SIZE, FIND_STRIDE, die_crop, find_view

__all__ = ["TILTED_REASONS", "crop_samples", "dataset_samples", "frame_tilted", "labelled_die_crop", "main", "peak_offset"]

TILTED_REASONS = ("cocked", "on_checker")
SIGMA = 1.2  # the target's Gaussian, in heat-map cells


def _heat(centres_view: list[tuple[float, float]]) -> np.ndarray:
    w, h = FIND_SIZE[0] // FIND_STRIDE, FIND_SIZE[1] // FIND_STRIDE
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    heat = np.zeros((h, w), np.float32)
    for x, y in centres_view:
        cx, cy = x / FIND_STRIDE - 0.5, y / FIND_STRIDE - 0.5
        heat = np.maximum(heat, np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * SIGMA ** 2)))
    return heat


def crop_samples(crops: list[np.ndarray], values: list[int], crop_frame: list[int],
                 crop_tilted: list[int]) -> dict[str, np.ndarray]:
    """Reader crops alone, in `dataset_samples`' layout with no finder views (what
    synth.train_dice reads); ``crop_tilted`` -1 where whether a die lies flat is not taught."""
    h, w = FIND_SIZE[1], FIND_SIZE[0]
    return {"views": np.zeros((0, h, w, 3), np.uint8),
            "heats": np.zeros((0, h // FIND_STRIDE, w // FIND_STRIDE), np.float16),
            "crops": np.stack(crops) if crops else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8),
            "values": np.asarray(values, np.int8), "crop_frame": np.asarray(crop_frame, np.int32),
            "tilted": np.zeros(0, np.int8), "crop_tilted": np.asarray(crop_tilted, np.int8)}


def frame_tilted(label: dict[str, Any]) -> bool:
    """Whether a frame's roll is void because a die does not lie flat (the first die listed)."""
    return label.get("roll") == "void" and label.get("void_reason") in TILTED_REASONS


def peak_offset(rng: np.random.Generator) -> tuple[float, float, float]:
    """Where the finder's peak leaves a die's crop: its centre up to 0.12 die sizes off in x and y
    (in die sizes) and its scale up to 15 % off."""
    dx, dy = rng.uniform(-0.12, 0.12, 2)
    return float(dx), float(dy), float(rng.uniform(0.85, 1.15))


def labelled_die_crop(image: np.ndarray, geometry: BoardGeometry, x: float, y: float,
                      rng: np.random.Generator) -> np.ndarray:
    """The crop of a labelled die as the finder's peak gives it (`peak_offset`)."""
    size = geometry.die_size_px((x, y))
    dx, dy, scale = peak_offset(rng)
    return die_crop(image, geometry, (x + dx * size, y + dy * size), scale=scale)


def _negatives(geometry: BoardGeometry, points: list[list[int]], dice: list[tuple[float, float]],
               rng: np.random.Generator, count: int) -> list[tuple[float, float]]:
    """Image points of no die: on the checkers of occupied points and anywhere on the surface."""
    occupied = [p + 1 for p, (light, dark) in enumerate(points) if light or dark]
    found: list[tuple[float, float]] = []
    for attempt in range(count * 6):
        if len(found) >= count:
            break
        if occupied and attempt % 2 == 0:
            point = int(rng.choice(occupied))
            u0, u1 = geometry.point_u(point)
            u = float(rng.uniform(u0, u1))
            depth = float(rng.uniform(0.02, 0.3))
            v = depth if geometry.point_is_top(point) else 1 - depth
        else:
            u, v = (float(x) for x in rng.uniform(0.02, 0.98, 2))
        xy = geometry.to_image(np.array([u, v]))
        size = geometry.die_size_px(xy)
        if all(np.hypot(xy[0] - x, xy[1] - y) > 1.5 * size for x, y in dice):
            found.append((float(xy[0]), float(xy[1])))
    return found


def dataset_samples(path: Path, jitter: int = 1, corner_jitter: float = CLICK, negatives: int = 4,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """Finder views and heat maps, reader crops and values, per-frame tilt of one dataset."""
    dataset = load_dataset(path)
    geometry = calibration_for(dataset).geometry
    rng = np.random.default_rng(seed)
    views, heats, crops, values, crop_frame, tilted, crop_tilted = [], [], [], [], [], [], []
    frame_id = 0
    for name, label in dataset.clear_frames():
        image = dataset.image(name)
        dice = [(float(d["centre"][0]), float(d["centre"][1]), int(d["value"])) for d in label.get("dice") or []]
        centres = [(x, y) for x, y, _ in dice]
        tilted_die = frame_tilted(label)
        for k in range(1 + jitter):
            geo = geometry if k == 0 else geometry.nudged(rng, corner_jitter)
            view, m = find_view(image, geo)
            inside = []
            if centres:
                pts = np.array(centres, np.float64).reshape(-1, 1, 2)
                inside = [(float(x), float(y)) for x, y in cv2.perspectiveTransform(pts, m).reshape(-1, 2)]
            views.append(view)
            heats.append(_heat(inside).astype(np.float16))
            for index, (x, y, value) in enumerate(dice):
                crop_tilted.append(int(tilted_die and index == 0))
                crops.append(labelled_die_crop(image, geo, x, y, rng))
                values.append(value)
                crop_frame.append(frame_id)
            for xy in _negatives(geo, label["points"], centres, rng, negatives):
                crops.append(die_crop(image, geo, xy, scale=float(rng.uniform(0.85, 1.15))))
                values.append(0)
                crop_frame.append(frame_id)
                crop_tilted.append(-1)
            tilted.append(int(tilted_die))
            frame_id += 1
    if not views:
        raise ValueError(f"{path}: no clear frames")
    return {"views": np.stack(views), "heats": np.stack(heats), "crops": np.stack(crops),
            "values": np.asarray(values, np.int8), "crop_frame": np.asarray(crop_frame, np.int32),
            "tilted": np.asarray(tilted, np.int8), "crop_tilted": np.asarray(crop_tilted, np.int8)}


def main(argv: list[str] | None = None) -> int:
    return cut_datasets(argv, __doc__ or "", lambda path, jitter, seed: dataset_samples(path, jitter=jitter, seed=seed),
                        lambda data: f"{len(data['views'])} views, {int((data['values'] > 0).sum())} dice, "
                                     f"{int((data['values'] == 0).sum())} no-die crops, "
                                     f"{int(data['tilted'].sum())} tilted frames",
                        jitter=1, name=lambda path: f"{path.parent.name}-{path.name}")


if __name__ == "__main__":
    raise SystemExit(main())
