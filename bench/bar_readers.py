"""The bar's two readers side by side on the same labelled datasets, one OpenCV thread: each clear
frame counted by vision.learned.count_points beside the dataset's empty board (as the pipeline
reads it, without the gate and the dice), the bar's halves read

- ``counter``: by the point counter (vision/models/checker_count.onnx), as before the bar reader;
- ``bar-reader``: by the bar reader (vision/models/bar_count.onnx), the points still by the counter.

    .venv/bin/python bench/bar_readers.py [DATASET...] [--json]

Without datasets (as `make bench` runs it) it renders a small 2-D set (seed 23997, 30 frames).

Prints, per dataset and pooled, for each reader: bar halves holding checkers read right (the
renderers lay the light side's on the near half and the dark side's on the far half), empty bar
halves read empty, frames whose bar is right, frames whose checkers (points and bar) are all right,
and the median time of the count.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from side_by_side import Values, median, run, share  # noqa: E402

READERS = ("counter", "bar-reader")


def measure(path: Path, reader: str) -> Values:
    from vision import learned
    from vision.dataset import calibration_for, load_dataset

    bar_model = None if reader == "counter" else learned.BAR_MODEL_PATH
    dataset = load_dataset(path)
    calibration = calibration_for(dataset)
    geometry = calibration.geometry
    photo, _ = dataset.reference("empty")
    empty = None if photo is None else learned.empty_board(photo, geometry, bar_model=bar_model)
    out: Values = {"occupied": [], "empty": [], "bar": [], "exact": [], "count_ms": []}
    for name, label in dataset.clear_frames():
        image = dataset.image(name)
        t0 = time.perf_counter()
        read = learned.count_points(image, geometry, empty=empty, bar_model=bar_model, sides=calibration.colours.hues)
        out["count_ms"].append((time.perf_counter() - t0) * 1000)
        bar = label.get("bar") or {}
        truth = (int(bar.get("light", 0)), int(bar.get("dark", 0)))
        for (count, _), holds in zip(read.bar_halves, truth, strict=True):
            (out["occupied"] if holds else out["empty"]).append(float(count == holds))
        out["bar"].append(float(read.bar == truth))
        points = [tuple(p) for p in label["points"]]
        out["exact"].append(float(read.bar == truth and read.pairs == points))
    return out


def summary(values: Values) -> dict[str, float | int | None]:
    return {"frames": len(values["bar"]), "occupied_halves": share(values, "occupied", 4),
            "empty_halves": share(values, "empty", 4), "bar_right": share(values, "bar", 4),
            "checkers_exact": share(values, "exact", 4), "count_ms_median": median(values, "count_ms", 1)}


if __name__ == "__main__":
    sys.exit(run(__doc__.splitlines()[0], list(READERS), measure, summary, ("render2d-23997", 30, 23997), width=15))
