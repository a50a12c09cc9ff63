"""What the readers' side-by-side benches share (bench/dice_readers.py, bench/checker_readers.py,
bench/bar_readers.py, bench/counters.py):
the command line, a small 2-D set when no dataset is given, each reader on each dataset, pooled
rows, and the table or JSON printed."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2

Values = dict[str, list[float]]


def clear_frames(path: Path, config: Any) -> Iterator[tuple[Any, Any, float]]:
    """Each clear frame of a dataset read by the whole pipeline under ``config`` (a
    vision.config.VisionConfig) with the hand gate overruled: (score, observation, read ms)."""
    from vision.dataset import calibration_for, load_dataset
    from vision.evaluate import score_frame
    from vision.pipeline import Reader

    dataset = load_dataset(path)
    reader = Reader(calibration_for(dataset, config), config)
    for name, label in dataset.clear_frames():
        image = dataset.image(name)
        t0 = time.perf_counter()
        obs = reader.read(image, hand=False)
        read_ms = (time.perf_counter() - t0) * 1000
        yield score_frame(name, label, obs, read_ms, 0.0), obs, read_ms


def share(values: Values, key: str, digits: int = 3) -> float | None:
    """Mean of ``values[key]`` (a share of 0/1 items), or None when it has none."""
    return round(sum(values[key]) / len(values[key]), digits) if values[key] else None


def median(values: Values, key: str, digits: int = 2) -> float | None:
    return round(statistics.median(values[key]), digits) if values[key] else None


def run(description: str, readers: list[str] | Callable[[argparse.Namespace], list[str]],
        measure: Callable[[Path, str], Values], summary: Callable[[Values], dict[str, float | int | None]],
        default: tuple[str, int, int], width: int = 18,
        options: Callable[[argparse.ArgumentParser], None] | None = None, argv: list[str] | None = None) -> int:
    """``[DATASET...] [--json]``: ``measure(dataset, reader)`` for every reader on every dataset
    (one OpenCV thread), a row per pair and a pooled row per reader.  Without datasets, a 2-D
    set of ``default`` = (name, frames, seed) is rendered first.  ``options`` adds a bench's own
    options; ``readers`` may then be drawn from them.  The columns are ``summary``'s keys, in its
    order."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("datasets", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true")
    if options is not None:
        options(parser)
    args = parser.parse_args(argv)
    if callable(readers):
        readers = readers(args)
    cv2.setNumThreads(1)
    if not args.datasets:
        import tempfile

        from vision.render import render_dataset

        name, frames, seed = default
        args.datasets = [render_dataset(Path(tempfile.mkdtemp(prefix="bench-")) / name, frames, seed,
                                        occluded_rate=0.0)]
    pooled: dict[str, Values] = {r: {} for r in readers}
    rows = []
    for path in args.datasets:
        for reader in readers:
            values = measure(path, reader)
            for key, items in values.items():
                pooled[reader].setdefault(key, []).extend(items)
            rows.append({"dataset": path.name, "reader": reader, **summary(values)})
    for reader in readers:
        rows.append({"dataset": "pooled", "reader": reader, **summary(pooled[reader])})
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    keys = [key for key in rows[0] if key not in ("dataset", "reader")]
    named = max(18, *(len(r) for r in readers))  # readers may be file paths (bench/counters.py)
    print(f"{'dataset':38s} {'reader':{named}s} " + " ".join(f"{k:>{width}s}" for k in keys))
    for row in rows:
        print(f"{row['dataset']:38s} {row['reader']:{named}s} " + " ".join(f"{str(row[k]):>{width}s}" for k in keys))
    return 0
