"""Score a labelled dataset (INTERFACES.md §2 ``referee vision eval``) frame by frame.

The summary keys and their definitions are the contract: ``point_accuracy`` and ``board_exact``
over non-occluded frames; ``dice_exact`` over non-occluded ``valid`` frames; ``void_detected`` over
non-occluded ``void`` frames; ``valid_flagged_void`` over non-occluded ``valid`` frames;
``occlusion_refused`` over occluded frames; ``false_occlusion`` over non-occluded frames.
A fraction with an empty denominator is reported as ``null``.

Whether confidence means something (the referee asks rather than judges a reading that is not
sure, `Observation.is_sure`): ``wrong_doubted`` = share of the clear frames read with a wrong board
that were not sure (the goal is most), ``right_doubted`` = share of those read exactly that were
not sure (the goal is few).  The same for the dice, over clear ``valid`` frames read ``valid``:
``dice_wrong_doubted`` = share of those whose dice were read wrong with a die below
`DICE_QUESTION_CONFIDENCE` (the referee then asks about the roll before calling a play illegal),
``dice_right_doubted`` = share of those read right with such a die.  ``dice_phantom`` = share of
the clear frames with no die on the board (``none``) read with a die (a board mark or a checker
taken for one: the referee would take it for a roll).

``references=False`` reads every frame from that photo alone and the dataset's corners, as for a
board whose empty and start photos were never taken.

``totals=True`` reads every frame as the referee does during a game, knowing how many checkers
each side has on the board and bar (15 less those borne off): the side whose turn it is (drawn
for each frame, seeded: `TOTALS_SEED`) between its label's count less `MOVED_AT_MOST` and that
count when it may be bearing off (fewer than `MOVED_AT_MOST` of its checkers outside its home
board, as the referee judges it: `game_totals`), else exactly, the other side exactly its label's
count (`CheckerTotals.in_turn`).
Without it, each frame is read alone, knowing nothing of the game.
"""

from __future__ import annotations

import csv
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.position import HOME_BOARD
from vision.calibration import calibrate
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.observation import DICE_QUESTION_CONFIDENCE, CheckerTotals, Observation, may_bear_off
from vision.pipeline import Reader

__all__ = ["FrameResult", "TOTALS_SEED", "evaluate", "game_totals", "light_on_roll", "summarise", "tallies",
           "SUMMARY_KEYS"]

#: the seed of the side on roll drawn for each frame read with the game's totals (`evaluate`)
TOTALS_SEED = 0

SUMMARY_KEYS = (
    "frames", "point_accuracy", "board_exact", "dice_exact", "void_detected", "valid_flagged_void",
    "occlusion_refused", "false_occlusion", "read_ms_median", "read_ms_p95", "gate_ms_median",
    "wrong_doubted", "right_doubted", "dice_wrong_doubted", "dice_right_doubted",
    "dice_phantom",
)


@dataclass
class FrameResult:
    name: str
    occluded: bool
    refused: bool
    roll: str
    read_roll: str
    points_exact: int
    board_exact: bool
    dice_exact: bool
    read_ms: float
    gate_ms: float
    wrong_points: list[int] = field(default_factory=list)
    truth_dice: list[int] = field(default_factory=list)
    read_dice: list[int] = field(default_factory=list)
    void_reason: str | None = None
    read_void_reason: str | None = None
    sure: bool = False
    confidence: float = 0.0
    dice_confidence: float = 1.0

    def row(self) -> dict[str, Any]:
        return {
            "frame": self.name, "occluded": int(self.occluded), "refused": int(self.refused),
            "roll": self.roll, "read_roll": self.read_roll, "void_reason": self.void_reason or "",
            "read_void_reason": self.read_void_reason or "", "points_exact": self.points_exact,
            "board_exact": int(self.board_exact), "dice": " ".join(map(str, self.truth_dice)),
            "read_dice": " ".join(map(str, self.read_dice)), "dice_exact": int(self.dice_exact),
            "wrong_points": " ".join(f"P{p}" if p <= 24 else "bar" for p in self.wrong_points),
            "read_ms": round(self.read_ms, 2), "gate_ms": round(self.gate_ms, 3),
            "confidence": round(self.confidence, 3), "sure": int(self.sure),
            "dice_confidence": round(self.dice_confidence, 3),
        }


def score_frame(name: str, label: dict[str, Any], obs: Observation, read_ms: float, gate_ms: float) -> FrameResult:
    truth_points = [tuple(int(v) for v in p) for p in label["points"]]
    bar = label.get("bar") or {}
    truth_bar = (int(bar.get("light", 0)), int(bar.get("dark", 0)))
    wrong: list[int] = []
    exact = 0
    if obs.points is not None:
        for i, (t, r) in enumerate(zip(truth_points, obs.points, strict=True)):
            if tuple(t) == tuple(r):
                exact += 1
            else:
                wrong.append(i + 1)
        if tuple(obs.bar) != truth_bar:
            wrong.append(25)
    truth_dice = sorted(int(d["value"]) for d in label.get("dice") or [])
    read_dice = sorted(int(d["value"]) for d in obs.dice)
    return FrameResult(
        name=name,
        occluded=bool(label.get("occluded")),
        refused=obs.refused,
        roll=str(label.get("roll")),
        read_roll=obs.roll,
        points_exact=exact,
        board_exact=obs.points is not None and not wrong,
        dice_exact=Counter(truth_dice) == Counter(read_dice),
        read_ms=read_ms,
        gate_ms=gate_ms,
        wrong_points=wrong,
        truth_dice=truth_dice,
        read_dice=read_dice,
        void_reason=label.get("void_reason"),
        read_void_reason=obs.void_reason,
        sure=obs.is_sure(),
        confidence=obs.confidence,
        dice_confidence=obs.dice_confidence,
    )


def light_on_roll(frames: int) -> list[bool]:
    """Whether the light side is on roll in each of ``frames`` frames read with the game's
    totals: drawn for every frame in order, seeded (`TOTALS_SEED`)."""
    draw = random.Random(TOTALS_SEED)
    return [draw.random() < 0.5 for _ in range(frames)]


def game_totals(label: dict[str, Any], light_moves: bool) -> CheckerTotals:
    """The `CheckerTotals` the referee would know for a frame labelled ``label`` while the light
    side (``light_moves``) or the dark side has its turn: the label's counts on the board and
    bar, the moving side's down to `MOVED_AT_MOST` fewer when fewer than that many of its checkers
    lie outside its home board or on the bar (as `Referee.checker_totals` has it)."""
    bar = label.get("bar") or {}
    light = sum(int(p[0]) for p in label["points"]) + int(bar.get("light", 0))
    dark = sum(int(p[1]) for p in label["points"]) + int(bar.get("dark", 0))
    side = 0 if light_moves else 1
    # the moving side's checkers outside its home board (the quarter holding most of them: the
    # labels do not say which is home) and on the bar now: it had at least as many out before the
    # play (a checker never leaves its home board, nor is it hit in its own turn), so this is
    # never tighter than the referee's judgement from the position before
    counts = [int(p[side]) for p in label["points"]]
    home = max(sum(counts[q:q + HOME_BOARD]) for q in range(0, len(counts), HOME_BOARD))
    outside = sum(counts) - home + int(bar.get(("light", "dark")[side], 0))
    return CheckerTotals.in_turn(light, dark, light_moves, bears_off=may_bear_off(outside))


def _frac(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def tallies(results: list[FrameResult]) -> dict[str, tuple[int, int]]:
    """Each share `summarise` reports as (count, of how many frames, points or rolls)."""
    clear = [r for r in results if not r.occluded]
    occluded = [r for r in results if r.occluded]
    read_clear = [r for r in clear if not r.refused]
    valid = [r for r in clear if r.roll == "valid"]
    void = [r for r in clear if r.roll == "void"]
    no_dice = [r for r in clear if r.roll == "none" and not r.refused]
    wrong = [r for r in read_clear if not r.board_exact]
    right = [r for r in read_clear if r.board_exact]
    rolled = [r for r in valid if not r.refused and r.read_roll == "valid"]
    dice_wrong = [r for r in rolled if not r.dice_exact]
    dice_right = [r for r in rolled if r.dice_exact]
    return {
        # Refused clear frames count as wrong on every point (they were not read).
        "point_accuracy": (sum(r.points_exact for r in read_clear), 24 * len(clear)),
        "board_exact": (sum(r.board_exact for r in clear), len(clear)),
        "dice_exact": (sum(r.dice_exact and not r.refused for r in valid), len(valid)),
        "void_detected": (sum(r.read_roll == "void" for r in void), len(void)),
        "valid_flagged_void": (sum(r.read_roll == "void" for r in valid), len(valid)),
        "occlusion_refused": (sum(r.refused for r in occluded), len(occluded)),
        "false_occlusion": (sum(r.refused for r in clear), len(clear)),
        "wrong_doubted": (sum(not r.sure for r in wrong), len(wrong)),
        "right_doubted": (sum(not r.sure for r in right), len(right)),
        "dice_wrong_doubted": (sum(r.dice_confidence < DICE_QUESTION_CONFIDENCE for r in dice_wrong), len(dice_wrong)),
        "dice_right_doubted": (sum(r.dice_confidence < DICE_QUESTION_CONFIDENCE for r in dice_right), len(dice_right)),
        "dice_phantom": (sum(bool(r.read_dice) for r in no_dice), len(no_dice)),
    }


def summarise(results: list[FrameResult]) -> dict[str, Any]:
    read_times = [r.read_ms for r in results]
    values: dict[str, Any] = {
        "frames": len(results),
        **{key: _frac(*counts) for key, counts in tallies(results).items()},
        "read_ms_median": statistics.median(read_times) if read_times else 0.0,
        "read_ms_p95": _p95(read_times),
        "gate_ms_median": statistics.median([r.gate_ms for r in results]) if results else 0.0,
    }
    return {key: values[key] for key in SUMMARY_KEYS}


def evaluate(dataset_path: str | Path, config: VisionConfig | None = None, csv_path: str | Path | None = None,
             limit: int | None = None, references: bool = True,
             gate: bool = True, totals: bool = False) -> tuple[dict[str, Any], list[FrameResult]]:
    """Read every frame of a dataset and score it; optionally write one CSV row per frame.
    ``references=False``: each frame alone with the corners (no empty or start photo);
    ``gate=False``: every frame is read, whatever the hand gate says (the readers alone);
    ``totals=True``: each frame read knowing the game's checker totals (`game_totals`)."""
    config = config or VisionConfig()
    dataset = load_dataset(dataset_path)
    reader = Reader(calibration_for(dataset, config), config) if references else None
    results: list[FrameResult] = []
    frames = dataset.frames if limit is None else dataset.frames[:limit]
    on_roll = light_on_roll(len(frames))
    for name, light_moves in zip(frames, on_roll, strict=True):
        image = dataset.image(name)
        label = dataset.label(name)
        if references:
            assert reader is not None
            frame_reader = reader
        else:
            size = (image.shape[1], image.shape[0])
            frame_reader = Reader(calibrate(dataset.corners, size, play=image, config=config), config)
        state = frame_reader.gate.update(image)
        t0 = time.perf_counter()
        known = game_totals(label, light_moves) if totals else None
        obs = frame_reader.read(image, hand=state.hand if gate else False, totals=known)
        read_ms = (time.perf_counter() - t0) * 1000
        results.append(score_frame(name, label, obs, read_ms, state.ms))
    summary = summarise(results)
    if csv_path is not None:
        rows = [r.row() for r in results]
        with Path(csv_path).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["frame"])
            writer.writeheader()
            writer.writerows(rows)
    return summary, results
