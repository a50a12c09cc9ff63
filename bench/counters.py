"""Checker counters (model files) side by side on the same labelled datasets: the points of each
clear frame counted by vision.learned.count_points (no gate, no dice; the bar is the bar reader's
and not scored here: bench/bar_readers.py), one OpenCV thread, three ways:

- ``calibrated``: beside the dataset's empty board, cut at the dataset's corners, with what its
  photo of the start position shows of the two sides (`vision.learned.start_colours`, by each
  counter; without one, the sides' hues as calibrated), as the pipeline reads them;
- ``nudged``: the same with the corners moved by up to 0.4 % of the board (two seeded draws, the
  empty board cut the same way): a click off at calibration, as the training strips are cut;
- ``alone``: no empty-board photo, and no start position (the sides' hues from the frame).

    .venv/bin/python bench/counters.py [DATASET...] [--model FILE ...] [--json]

Without ``--model``, the committed counter (vision/models/checker_count.onnx).  Without datasets
(as `make bench` runs it) it renders a small 2-D set (seed 23996, 30 frames).

Prints, per dataset and pooled, for each counter: clear frames; points read wrong as calibrated,
and of them those whose count was right but colour wrong; points read wrong nudged (the two draws
summed) and alone; boards whose 24 points are all right as calibrated; the count's median time.
Retraining the counter?  Read the tuning sets with the committed counter and the new one here
before the whole pipeline (`bench/heldout.py`): points are many more events than boards.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from side_by_side import Values, median, run, share  # noqa: E402


def measure(path: Path, model: str) -> Values:
    from vision import learned
    from vision.dataset import calibration_for, load_dataset

    dataset = load_dataset(path)
    calibration = calibration_for(dataset)
    geometry, sides = calibration.geometry, calibration.colours.hues
    photo, _ = dataset.reference("empty")
    rng = np.random.default_rng(0)
    ways = {"calibrated": [geometry], "nudged": [geometry.nudged(rng) for _ in range(2)], "alone": [geometry]}
    frames = [(dataset.image(name), [tuple(p) for p in label["points"]]) for name, label in dataset.clear_frames()]
    out: Values = {"points": [], "colour": [], "nudged": [], "alone": [], "exact": [], "count_ms": []}
    for way, cuts in ways.items():
        for cut in cuts:
            empty = None if way == "alone" or photo is None else learned.empty_board(photo, cut, model=model)
            start = None if empty is None or calibration.start_frame is None else learned.start_colours(
                calibration.start_frame, cut, calibration.start_variant, empty, model=model)
            for image, truth in frames:
                t0 = time.perf_counter()
                read = learned.count_points(image, cut, model=model, empty=empty,
                                            sides=None if way == "alone" else sides, start=start)
                ms = (time.perf_counter() - t0) * 1000
                wrong = [i for i, pair in enumerate(read.pairs) if pair != truth[i]]
                if way != "calibrated":
                    out[way].append(float(len(wrong)))
                    continue
                out["count_ms"].append(ms)
                out["points"].append(float(len(wrong)))
                out["colour"].append(float(sum(sum(read.pairs[i]) == sum(truth[i]) for i in wrong)))
                out["exact"].append(float(not wrong))
    return out


def summary(values: Values) -> dict[str, float | int | None]:
    return {"frames": len(values["exact"]), "points_wrong": int(sum(values["points"])),
            "colour_wrong": int(sum(values["colour"])), "nudged_wrong": int(sum(values["nudged"])),
            "alone_wrong": int(sum(values["alone"])), "board_exact": share(values, "exact", 4),
            "count_ms_median": median(values, "count_ms", 1)}


def models(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", action="append", type=Path, metavar="FILE",
                        help="a counter's .onnx (repeat to compare; default the committed counter)")


def chosen(args: argparse.Namespace) -> list[str]:
    from vision.learned import MODEL_PATH

    files = args.model or [MODEL_PATH]
    for file in files:
        if not file.is_file():
            raise SystemExit(f"no counter at {file}")
    return [str(file) for file in files]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], chosen, measure, summary, ("render2d-23996", 30, 23996), width=15,
               options=models, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
