"""The dice readers side by side: classical (vision.dice) and learned (vision.dice_learned) on the
same labelled datasets, read by the whole pipeline with the hand gate overruled (the readers
alone), one OpenCV thread.  ``learned-unscreened`` is the learned reader reading every candidate
at every place (`vision.dice_learned.SCREEN` off, as before 2026-12-05): the same dice, slower.
Each with the checker reader of its kind (whether a die lies on a checker is judged from the
checkers read): the classical with the classical counter, the learned with the learned one.

    .venv/bin/python bench/dice_readers.py [DATASET...] [--json]

Without datasets (as `make bench` runs it) it renders a small 2-D set (seed 22998, 40 frames).

Prints, per dataset and pooled over frames, for each reader: dice read exactly (valid rolls),
void rolls found, valid rolls called void, frames with no die read with one (phantoms), and the
median time of the dice stage and of the read.
Render the datasets first (held-out designs of the 3-D yardstick, a new seed), e.g.
``referee render3d --dataset D --design marble-white --frames 20 --seed 31002``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from side_by_side import Values, clear_frames, median, run, share  # noqa: E402

import vision.dice_learned as dice_learned  # noqa: E402
from vision.config import VisionConfig  # noqa: E402

READERS = ("classical", "learned-unscreened", "learned")


def measure(path: Path, reader_name: str) -> Values:
    kept = dice_learned.SCREEN
    if reader_name == "learned-unscreened":
        dice_learned.SCREEN = 1.0  # no "no die" is above it
    try:
        return _measure(path, reader_name.split("-")[0])
    finally:
        dice_learned.SCREEN = kept


def _measure(path: Path, reader_name: str) -> Values:
    out: Values = {"exact": [], "void_found": [], "valid_void": [], "phantom": [], "dice_ms": [], "read_ms": []}
    for result, obs, read_ms in clear_frames(path, VisionConfig(dice_reader=reader_name, checker_reader=reader_name)):
        out["read_ms"].append(read_ms)
        out["dice_ms"].append(float(obs.timings.get("dice", 0.0)))
        if result.roll == "valid":
            out["exact"].append(float(result.dice_exact))
            out["valid_void"].append(float(result.read_roll == "void"))
        elif result.roll == "void":
            out["void_found"].append(float(result.read_roll == "void"))
        else:  # no die on the board
            out["phantom"].append(float(bool(result.read_dice)))
    return out


def summary(values: Values) -> dict[str, float | int | None]:
    return {"valid_rolls": len(values["exact"]), "void_rolls": len(values["void_found"]),
            "dice_exact": share(values, "exact"), "void_detected": share(values, "void_found"),
            "valid_flagged_void": share(values, "valid_void"), "dice_phantom": share(values, "phantom"),
            "dice_ms_median": median(values, "dice_ms"),
            "read_ms_median": median(values, "read_ms")}


if __name__ == "__main__":
    sys.exit(run(__doc__.splitlines()[0], list(READERS), measure, summary, ("render2d-22998", 40, 22998)))
