"""The checker readers side by side on the same labelled datasets, read by the whole pipeline with
the hand gate overruled (the readers alone; the classical dice reader on, as the classical counter
leaves the dice it finds out of its count), one OpenCV thread:

- ``classical``: vision.checkers, against the empty board under divided-out lighting;
- ``learned-alone``: vision.learned, each point strip read alone (as without an empty-board photo);
- ``learned``: vision.learned, each strip read beside the same strip of the empty-board photo.

    .venv/bin/python bench/checker_readers.py [DATASET...] [--json]

Without datasets (as `make bench` runs it) it renders a small 2-D set (seed 23998, 30 frames).

Prints, per dataset and pooled over clear frames, for each reader: per-point accuracy, boards
read exactly, of the boards read wrong the share the referee would doubt (confidence below its
question threshold), of the boards read right the share it would doubt, and the median read time.
Render the datasets first (held-out designs of the 3-D yardstick at a new seed), e.g.
``referee render3d --dataset D --design marble-white --frames 30 --seed 31005``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from side_by_side import Values, clear_frames, median, run, share  # noqa: E402

from vision.config import VisionConfig  # noqa: E402

READERS = {
    "classical": VisionConfig(),
    "learned-alone": VisionConfig(checker_reader="learned", learned_uses_empty_board=False),
    "learned": VisionConfig(checker_reader="learned"),
}


def measure(path: Path, config: VisionConfig) -> Values:
    out: Values = {"points": [], "exact": [], "wrong_doubted": [], "right_doubted": [], "read_ms": []}
    for result, _, read_ms in clear_frames(path, config):
        out["read_ms"].append(read_ms)
        out["points"].append(result.points_exact / 24)
        out["exact"].append(float(result.board_exact))
        (out["right_doubted"] if result.board_exact else out["wrong_doubted"]).append(float(not result.sure))
    return out


def summary(values: Values) -> dict[str, float | int | None]:
    return {"frames": len(values["exact"]), "point_accuracy": share(values, "points", 4),
            "board_exact": share(values, "exact", 4), "wrong_doubted": share(values, "wrong_doubted", 4),
            "right_doubted": share(values, "right_doubted", 4), "read_ms_median": median(values, "read_ms", 1)}


if __name__ == "__main__":
    sys.exit(run(__doc__.splitlines()[0], list(READERS), lambda path, name: measure(path, READERS[name]), summary,
                 ("render2d-23998", 30, 23998), width=15))
