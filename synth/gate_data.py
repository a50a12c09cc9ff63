"""Occluder views and their hand labels from labelled datasets (`referee-frames/1`), for training
and measuring the learned hand test (vision/models/occluder.onnx).

Every frame (clear or with a hand) gives its view (vision.occluder: the board and a margin around
it, rectified with the calibration a reader would build from the dataset's corners) and ``jitter``
more views with the corners moved by up to ``corner_jitter`` of the board's size (a click a few
pixels off, a camera nudged after calibration).  The references (empty board, start position) are
clear views too.  Output: one ``.npz`` per dataset with ``views`` (N, H, W, 3) uint8 and ``hands``
(N,) 1 where a hand or arm is over the surface.

    python -m synth.gate_data DATASET... --out CACHE_DIR [--jitter 2] [--seed 0] [--measure]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from synth.cut import cut_datasets
from vision.dataset import calibration_for, load_dataset
from vision.occluder import occluder_view

__all__ = ["dataset_views", "main"]


def dataset_views(path: Path, jitter: int = 2, corner_jitter: float = 0.006,
                  seed: int = 0) -> dict[str, np.ndarray]:
    """Views and hand labels of every frame of one dataset."""
    dataset = load_dataset(path)
    geometry = calibration_for(dataset).geometry
    rng = np.random.default_rng(seed)
    views: list[np.ndarray] = []
    hands: list[int] = []
    images = [(dataset.image(name), bool(dataset.label(name).get("occluded"))) for name in dataset.frames]
    for ref in ("empty", "start"):
        image, _ = dataset.reference(ref)
        if image is not None:
            images.append((image, False))
    for image, hand in images:
        for k in range(1 + jitter):
            geo = geometry if k == 0 else geometry.nudged(rng, corner_jitter)
            views.append(occluder_view(image, geo))
            hands.append(int(hand))
    if not views:
        raise ValueError(f"{path}: no frames")
    return {"views": np.stack(views), "hands": np.asarray(hands, np.int8)}


def main(argv: list[str] | None = None) -> int:
    return cut_datasets(argv, __doc__ or "", lambda path, jitter, seed: dataset_views(path, jitter, seed=seed),
                        lambda data: f"{len(data['hands'])} views, {int(data['hands'].sum())} with a hand",
                        jitter=2)


if __name__ == "__main__":
    raise SystemExit(main())
