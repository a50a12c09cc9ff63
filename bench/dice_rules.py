"""The learned dice reader's validity rules side by side: each setting of the two rules of
2026-12-05 reads the same datasets with the whole pipeline (learned counter and dice, the hand gate
overruled, one OpenCV thread).

- ``lean``: a die counts as cocked only with something to lean on within `LEAN_REACH` die sizes
  (`vision.dice_learned.rests_against`); ``inf``: anywhere, as before the rule.
- ``under``: a checker under a die is looked for at its centre and `UNDER_DIE` die sizes toward its
  foot (`vision.pipeline.learned_roll_validity`); ``0``: at its centre only, as before the rule.

    .venv/bin/python bench/dice_rules.py [DATASET...] [--json]

Without datasets (as `make bench` runs it) it renders a small 2-D set (seed 22997, 40 frames).
Prints, per dataset and pooled over frames: dice read exactly (valid rolls), void rolls found
(all, cocked ones, dice on a checker), valid rolls called void.  The rules were chosen on the 3-D
yardstick's held-out designs at tuning seeds (`python bench/heldout.py --render-only --seed S`
renders them), never on a fresh seed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from side_by_side import Values, clear_frames, run, share  # noqa: E402

import vision.dice_learned as dice_learned  # noqa: E402
import vision.pipeline as pipeline  # noqa: E402
from vision.config import VisionConfig  # noqa: E402

#: name -> (LEAN_REACH, UNDER_DIE)
SETTINGS = {"before": (float("inf"), 0.0), "lean": (1.25, 0.0), "lean+under.25": (1.25, 0.25),
            "lean+under.5": (1.25, 0.5), "lean+under1": (1.25, 1.0), "lean1+under.5": (1.0, 0.5)}


def measure(path: Path, setting: str) -> Values:
    out: Values = {"exact": [], "void_found": [], "cocked_found": [], "on_checker_found": [], "valid_void": []}
    kept = dice_learned.LEAN_REACH, pipeline.UNDER_DIE
    dice_learned.LEAN_REACH, pipeline.UNDER_DIE = SETTINGS[setting]
    try:
        for result, _, _ in clear_frames(path, VisionConfig(dice_reader="learned", checker_reader="learned")):
            if result.roll == "valid":
                out["exact"].append(float(result.dice_exact))
                out["valid_void"].append(float(result.read_roll == "void"))
            elif result.roll == "void":
                found = float(result.read_roll == "void")
                out["void_found"].append(found)
                if result.void_reason in ("cocked", "on_checker"):
                    out[f"{result.void_reason}_found"].append(found)
    finally:
        dice_learned.LEAN_REACH, pipeline.UNDER_DIE = kept
    return out


def summary(values: Values) -> dict[str, float | int | None]:
    return {"valid_rolls": len(values["exact"]), "void_rolls": len(values["void_found"]),
            "dice_exact": share(values, "exact"), "void_detected": share(values, "void_found"),
            "cocked_found": share(values, "cocked_found"), "on_checker_found": share(values, "on_checker_found"),
            "valid_flagged_void": share(values, "valid_void")}


if __name__ == "__main__":
    sys.exit(run(__doc__.splitlines()[0], list(SETTINGS), measure, summary,
                 ["valid_rolls", "void_rolls", "dice_exact", "void_detected", "cocked_found", "on_checker_found",
                  "valid_flagged_void"], ("render2d-22997", 40, 22997)))
