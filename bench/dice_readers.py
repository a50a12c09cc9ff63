"""The dice readers side by side: classical (vision.dice) and learned (vision.dice_learned) on the
same labelled datasets, read by the whole pipeline with the hand gate overruled (the readers
alone), one OpenCV thread.

    .venv/bin/python bench/dice_readers.py [DATASET...] [--json]

Without datasets (as `make bench` runs it) it renders a small 2-D set (seed 22998, 40 frames).

Prints, per dataset and pooled over frames, for each reader: dice read exactly (valid rolls),
void rolls found, valid rolls called void, and the median time of the dice stage and of the read.
Render the datasets first (held-out designs of the 3-D yardstick, a new seed), e.g.
``referee render3d --dataset D --design marble-white --frames 20 --seed 31002``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.config import VisionConfig  # noqa: E402
from vision.dataset import calibration_for, load_dataset  # noqa: E402
from vision.evaluate import score_frame  # noqa: E402
from vision.pipeline import Reader  # noqa: E402

READERS = ("classical", "learned")


def measure(path: Path, reader_name: str) -> dict[str, list[float]]:
    dataset = load_dataset(path)
    config = VisionConfig(dice_reader=reader_name)
    reader = Reader(calibration_for(dataset, config), config)
    out: dict[str, list[float]] = {"exact": [], "void_found": [], "valid_void": [], "dice_ms": [], "read_ms": []}
    for name in dataset.frames:
        label = dataset.label(name)
        if label.get("occluded"):
            continue
        image = dataset.image(name)
        t0 = time.perf_counter()
        obs = reader.read(image, hand=False)
        read_ms = (time.perf_counter() - t0) * 1000
        result = score_frame(name, label, obs, read_ms, 0.0)
        out["read_ms"].append(read_ms)
        out["dice_ms"].append(float(obs.timings.get("dice", 0.0)))
        if result.roll == "valid":
            out["exact"].append(float(result.dice_exact))
            out["valid_void"].append(float(result.read_roll == "void"))
        elif result.roll == "void":
            out["void_found"].append(float(result.read_roll == "void"))
    return out


def summary(values: dict[str, list[float]]) -> dict[str, float | int | None]:
    def share(key: str) -> float | None:
        return round(sum(values[key]) / len(values[key]), 3) if values[key] else None

    return {"valid_rolls": len(values["exact"]), "void_rolls": len(values["void_found"]),
            "dice_exact": share("exact"), "void_detected": share("void_found"),
            "valid_flagged_void": share("valid_void"),
            "dice_ms_median": round(statistics.median(values["dice_ms"]), 2) if values["dice_ms"] else None,
            "read_ms_median": round(statistics.median(values["read_ms"]), 2) if values["read_ms"] else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if not args.datasets:
        import tempfile

        from vision.render import render_dataset

        tmp = tempfile.mkdtemp(prefix="bench-dice-")
        args.datasets = [render_dataset(Path(tmp) / "render2d-22998", 40, 22998, occluded_rate=0.0)]
    pooled: dict[str, dict[str, list[float]]] = {r: {} for r in READERS}
    rows = []
    for path in args.datasets:
        for reader_name in READERS:
            values = measure(path, reader_name)
            for key, items in values.items():
                pooled[reader_name].setdefault(key, []).extend(items)
            rows.append({"dataset": path.name, "reader": reader_name, **summary(values)})
    for reader_name in READERS:
        rows.append({"dataset": "pooled", "reader": reader_name, **summary(pooled[reader_name])})
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    keys = ["valid_rolls", "void_rolls", "dice_exact", "void_detected", "valid_flagged_void", "dice_ms_median",
            "read_ms_median"]
    print(f"{'dataset':38s} {'reader':10s} " + " ".join(f"{k:>18s}" for k in keys))
    for row in rows:
        print(f"{row['dataset']:38s} {row['reader']:10s} " + " ".join(f"{str(row[k]):>18s}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
