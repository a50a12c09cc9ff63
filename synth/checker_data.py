"""Point strips and their checker counts from labelled datasets (`referee-frames/1`), for training
and measuring the learned checker counter (vision/models/checker_count.onnx).

Each clear frame gives 24 point strips and the bar's two halves (vision.strips; on the bar, as
both renderers lay it, the light checkers lie on the near half and the dark on the far half)
cut with the calibration a reader would build
from the dataset (its corners and references), plus ``jitter`` more cuts per frame with the
corners moved by up to ``corner_jitter`` of the board's size (a click a few pixels off, a camera
nudged after calibration).  Output: one ``.npz`` per dataset with ``strips`` (N, H, W, 3) uint8,
``counts`` (N,) checkers on the point, ``colours`` (N,) 0 light / 1 dark / -1 empty or mixed, and
``references`` (N, H, W, 3) uint8: the same strip cut the same way from the dataset's photo of
the empty board (taken under the calibration's light), all zero when it has none.

    python -m synth.checker_data DATASET... --out CACHE_DIR [--jitter 1] [--seed 0] [--measure]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from synth.cut import cut_datasets
from vision.calibration import CLICK
from vision.dataset import calibration_for, load_dataset
from vision.strips import board_strips

__all__ = ["NO_REFERENCE", "dataset_strips", "main"]

#: share of the strips the counter is shown without their empty-board strip, as a frame read from
#: one photo gives them (in training, synth.train_checkers; in calibrating its 8-bit copy,
#: synth.quantise)
NO_REFERENCE = 0.25


def dataset_strips(path: Path, jitter: int = 1, corner_jitter: float = CLICK,
                   seed: int = 0) -> dict[str, np.ndarray]:
    """Strips, counts, colours and empty-board strips of every clear frame of one dataset."""
    dataset = load_dataset(path)
    geometry = calibration_for(dataset).geometry
    empty, _ = dataset.reference("empty")
    calibrated = None if empty is None else board_strips(empty, geometry)  # the same for every frame
    rng = np.random.default_rng(seed)
    strips: list[np.ndarray] = []
    references: list[np.ndarray] = []
    counts: list[int] = []
    colours: list[int] = []
    for name, label in dataset.clear_frames():
        image = dataset.image(name)
        pairs = [(int(a), int(b)) for a, b in label["points"]]
        bar = label.get("bar") or {}
        pairs += [(int(bar.get("light", 0)), 0), (0, int(bar.get("dark", 0)))]
        for k in range(1 + jitter):
            geo = geometry if k == 0 else geometry.nudged(rng, corner_jitter)
            strips.append(board_strips(image, geo))
            references.append(np.zeros_like(strips[-1]) if empty is None else
                              calibrated if k == 0 else board_strips(empty, geo))
            counts.extend(a + b for a, b in pairs)
            colours.extend(0 if a and not b else 1 if b and not a else -1 for a, b in pairs)
    if not strips:
        raise ValueError(f"{path}: no clear frames")
    return {"strips": np.concatenate(strips), "counts": np.asarray(counts, np.int8),
            "colours": np.asarray(colours, np.int8), "references": np.concatenate(references)}


def main(argv: list[str] | None = None) -> int:
    return cut_datasets(argv, __doc__ or "", lambda path, jitter, seed: dataset_strips(path, jitter, seed=seed),
                        lambda data: f"{len(data['counts'])} strips", jitter=1, skip_bad=True)


if __name__ == "__main__":
    raise SystemExit(main())
