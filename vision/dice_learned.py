"""The learned dice reader: where the dice lie, what their top faces show, whether one leans.

Two small CNNs (vision/models/dice_find.onnx and dice_read.onnx, trained by synth.train_dice on
the 3-D yardstick's tuning designs and the 2-D renderer), run by `vision.nets` (ONNX Runtime, or
OpenCV's `cv2.dnn`):

1. **find**: the board and a margin around it, rectified through the calibration's homography to
   `FIND_SIZE`, gives a heat map (a quarter of the view's size) that peaks at each die's centre;
2. **marks**: with the calibration's photo of the empty board, a peak where the frame looks as
   the empty board does (`board_mark`: a marble vein, a printed mark) is dropped;
3. **read**: a square cut from the camera frame around each peak, `CROP_DIES` die sizes wide
   (the calibration knows a die's size there) and turned so that the board's "up" there points to
   its top, scaled to `CROP_SIZE`, gives the top face's value
   (or "no die": a checker's rim or a glint the finder took for a die) and whether the die does
   not lie flat (cocked, or on a checker).  Each peak is read at five places a quarter of a die
   apart (`RECENTRE`; the first, the peak itself, alone when the reader is sure it holds no die
   there: `SCREEN`) and the crop the reader is surest holds a die is kept (of crops as sure, the one
   whose face it is surest of: `SURE_ALIKE`), then read mirrored too; the die lies at those places
   weighed by the log-odds that each holds a die.

Neither network needs a photo of the empty board (it only drops marks).  Whether the roll is
valid then follows from where the dice lie (off the surface, different halves, one die alone)
and the read's "not flat", as `vision.pipeline.learned_roll_validity` judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import BoardGeometry
from vision.nets import Net, load_net, sigmoid, softmax
from vision.occluder import (
    standardise,  # the same per-view standardisation as the hand test
    view_matrix,
)

__all__ = ["CROP_DIES", "CROP_SIZE", "FIND_MARGIN", "FIND_SIZE", "FIND_STRIDE", "FIND_MODEL", "LEAN_REACH",
           "READ_MODEL", "LearnedDie", "board_mark", "die_crop", "find_view", "read_crops", "read_dice",
           "rests_against", "square_crop", "square_matrix", "standardise"]

MODELS = Path(__file__).with_name("models")
FIND_MODEL = MODELS / "dice_find.onnx"
READ_MODEL = MODELS / "dice_read.onnx"
#: the finder's view of the board (width, height) and its margin around the surface (board units)
FIND_SIZE = (320, 256)
FIND_MARGIN = 0.06
FIND_STRIDE = 4
#: the reader's crop: this many die sizes wide, scaled to CROP_SIZE px square
CROP_DIES = 2.4
CROP_SIZE = 32
#: a heat-map peak at least this high is a die candidate; the reader then decides
PEAK = 0.3
#: candidates looked at (highest first; a marble board's veins make many) and read (after the marks).
#: At 16, a die on a white marble board lay below 16 peaks of veins and was never looked at; on the
#: tuning sets (seeds 31007-31017, 31021, 31025) 32 reads 2 more of 434 valid rolls exactly and calls
#: 2 fewer void, finds 1 fewer of 272 void rolls and reads a die in 1 more of 105 frames without
#: dice, all on the marble board (64 reads the same as 32)
CANDIDATES = 32
READ = 6
#: the dice kept are the candidates the reader is surest hold a die (the lowest "no die"; below this
#: they are alike, and the finder's higher peak comes first), not the finder's highest peaks: without
#: the empty board's photo a marble board's veins peak higher than its dice, and the reader takes
#: them for fives and sixes, but far less surely than it takes a die
SURE_OF_DIE = 1e-4
#: a candidate whose crop matches the empty board's crop there this well (normalised
#: cross-correlation of the die's own square in the middle of the frame's crop, searched over the
#: empty board's whole crop: a camera nudged a few pixels since calibration) is a mark of the board,
#: not a die.  Matched over one and a half dice before 2026-12-07: a white die on the 2-D renderer's
#: cream points left the board to dominate that square and was dropped as a mark (its seed 41001,
#: 50 valid rolls: called void 4 -> 1)
BOARD_MARK = 0.95
#: the crop's margin around that square of one die (the crop is `CROP_DIES` dice wide)
MARK_MARGIN = int(CROP_SIZE * (1 - 1 / CROP_DIES) / 2)
#: each candidate is read at its peak (the first) and at these offsets (die sizes, image x and y):
#: the finder's peak can be half a die off, and the reader, trained on crops at most an eighth of a
#: die off, reads the crop it is surest holds a die; the die's centre moves there
RECENTRE = ((0.0, 0.0), (0.25, 0.0), (-0.25, 0.0), (0.0, 0.25), (0.0, -0.25))
#: a candidate whose "no die" probability is above this is dropped
NO_DIE = 0.5
#: crops whose "no die" probabilities lie within this share of each other are as sure of a die
#: (the reader's "no die" saturates, often alike in all five crops; before, the lowest was kept, and
#: which one that was changed with the engine's rounding: 36 of the 811 clear tuning frames read
#: otherwise by ONNX Runtime than by cv2.dnn).  Among them the crop whose face the reader is surest
#: of is kept; both engines then read those frames alike.  On the tuning sets, against the lowest
#: by cv2.dnn: dice exact 387 of 434 and valid rolls called void 8 unchanged, void found 234 -> 233
#: of 272 (keeping the peak's crop instead: valid called void 8 -> 9)
SURE_ALIKE = 1e-3
#: a candidate whose crop at its peak the reader gives "no die" above this is not read at the other
#: places of `RECENTRE` (most of the finder's candidates on a marble board: its veins).  On the
#: tuning sets (811 clear frames) 0.9999 / 0.999 / 0.99 read every frame's dice as reading all
#: five crops does; 0.9 changed 4 frames, 0.5 changed 27
SCREEN = 0.999
#: a die whose "not flat" probability is above this makes the roll void (cocked).  Chosen for the
#: fewest mistakes of the two kinds together (void rolls missed plus valid ones called void) on the
#: tuning sets, the held-out designs at seeds 31007-31017, 31021 and 31025 (272 void and 434 valid
#: rolls), read by the reader trained afresh: 0.5 / 0.7 / 0.8 / 0.9 / 0.95 / 0.97 found 0.901 /
#: 0.882 / 0.864 / 0.842 / 0.831 / 0.827 of void rolls and called 0.212 / 0.129 / 0.101 / 0.071 /
#: 0.048 / 0.044 of valid ones void: 119 / 88 / 81 / 74 / 67 / 66 mistakes (the reader before was
#: tuned at 0.9 the same way)
TILTED = 0.95
#: a die at rest that is not flat on the board (cocked, RULES.md §1.6) leans on something: a checker,
#: the frame, the bar or the other die.  One whose centre lies farther than this many die sizes from
#: every checker of the reading, the surface's and the bar's edges and the other die lies flat,
#: whatever its "not flat" (`rests_against`)
LEAN_REACH = 1.25


@dataclass
class LearnedDie:
    """One die as the learned reader sees it (the fields the pipeline and the judge use)."""

    value: int
    centre: tuple[float, float]
    box: tuple[float, float, float, float]
    confidence: float
    #: the reader's probability that the die does not lie flat
    tilt: float
    #: something to lean on lies within `LEAN_REACH` (`rests_against`; until judged, assumed)
    support: bool = True

    @property
    def tilted(self) -> bool:
        """The reader takes the die for not lying flat (`TILTED`)."""
        return self.tilt > TILTED

    @property
    def cocked(self) -> bool:
        """The die does not lie flat (cocked, or on a checker): the roll is void.  Only a die with
        something to lean on can be cocked."""
        return self.support and self.tilted


def rests_against(die: LearnedDie, dice: list[LearnedDie], geometry: BoardGeometry,
                  checkers: np.ndarray | None) -> bool:
    """Whether something ``die`` could lean on lies within `LEAN_REACH` die sizes of its centre:
    the other die of ``dice``, the playing surface's edge (the frame) or the bar's, or a checker
    of the reading (``checkers``: the dice stage's image mask, non-zero on checkers; None when
    unknown, and then the die may lean on one)."""
    cx, cy = die.centre
    size = geometry.die_size_px(die.centre)
    reach = LEAN_REACH * size
    if any(other is not die and np.hypot(other.centre[0] - cx, other.centre[1] - cy) <= reach for other in dice):
        return True
    u, v = (float(t) for t in geometry.to_board(np.array([cx, cy], np.float64)).reshape(2))
    sx, sy = geometry.px_per_unit((cx, cy))
    du, dv = LEAN_REACH * size / sx, LEAN_REACH * size / sy  # the reach in board units
    b0, b1 = geometry.bar_u
    if min(u, 1 - u, abs(u - b0), abs(u - b1)) <= du or min(v, 1 - v) <= dv:
        return True
    if checkers is None:
        return True
    h, w = checkers.shape[:2]
    x0, x1 = max(0, int(np.floor(cx - reach))), min(w, int(np.ceil(cx + reach)) + 1)
    y0, y1 = max(0, int(np.floor(cy - reach))), min(h, int(np.ceil(cy + reach)) + 1)
    if x0 >= x1 or y0 >= y1:
        return False
    gy, gx = np.mgrid[y0:y1, x0:x1]
    near = (gx - cx) ** 2 + (gy - cy) ** 2 <= reach * reach
    return bool((checkers[y0:y1, x0:x1][near] > 0).any())


def find_view(image: np.ndarray, geometry: BoardGeometry) -> tuple[np.ndarray, np.ndarray]:
    """The finder's view of a camera frame and the matrix from image px to view px."""
    h, w = image.shape[:2]
    m = view_matrix(geometry, (w, h), FIND_SIZE, FIND_MARGIN)
    view = cv2.warpPerspective(image, m, FIND_SIZE, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT)
    return view, m


def square_matrix(centre: tuple[float, float], side: float,
                  up: tuple[float, float] = (0.0, -1.0)) -> tuple[np.ndarray, int]:
    """The affine map from a picture to the reader's `CROP_SIZE` square of ``side`` pixels around
    ``centre``, the unit image direction ``up`` to the square's top, and its interpolation."""
    ux, uy = up
    across = np.array([-uy, ux]) * side / 2  # the crop's x axis in the image
    down = np.array([-ux, -uy]) * side / 2  # the crop's y axis
    c = np.array(centre, dtype=np.float64)
    src = np.float32([c - across - down, c + across - down, c + across + down])
    dst = np.float32([[0, 0], [CROP_SIZE, 0], [CROP_SIZE, CROP_SIZE]])
    return cv2.getAffineTransform(src, dst), cv2.INTER_AREA if side > CROP_SIZE else cv2.INTER_LINEAR


def _crop_matrix(geometry: BoardGeometry, centre: tuple[float, float], scale: float = 1.0) -> tuple[np.ndarray, int]:
    """The affine map from the frame to `die_crop`'s square around ``centre``, and its interpolation."""
    side = max(6.0, CROP_DIES * scale * geometry.die_size_px(centre))
    return square_matrix(centre, side, geometry.up_direction(centre))


def _warp(image: np.ndarray, crop: tuple[np.ndarray, int]) -> np.ndarray:
    m, interp = crop
    return cv2.warpAffine(image, m, (CROP_SIZE, CROP_SIZE), flags=interp, borderMode=cv2.BORDER_REFLECT)


def square_crop(image: np.ndarray, centre: tuple[float, float], side: float,
                up: tuple[float, float] = (0.0, -1.0)) -> np.ndarray:
    """The reader's square of ``side`` pixels around ``centre`` of any picture (`square_matrix`)."""
    return _warp(image, square_matrix(centre, side, up))


def die_crop(image: np.ndarray, geometry: BoardGeometry, centre: tuple[float, float],
             scale: float = 1.0) -> np.ndarray:
    """A square of the frame around ``centre``, `CROP_DIES` die sizes (times ``scale``) wide, turned
    so that "up" there (`BoardGeometry.up_direction`) points to the crop's top: a die lying flat
    shows its side faces below its top face wherever it lies and however the camera looks."""
    return _warp(image, _crop_matrix(geometry, centre, scale))


def _nets(find: str, read: str) -> tuple[Net, Net]:
    """The finder and the reader (`vision.nets.load_net`: loaded once per engine)."""
    return load_net(find, "dice", "train-dice"), load_net(read, "dice", "train-dice")


def _forward(read: Net, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reader on a stack of crops: each one's probabilities (no die, 1..6) and "not flat"."""
    out = np.asarray(read.run(standardise(crops))[0], np.float64).reshape(len(crops), -1)
    return softmax(out[:, :7]), sigmoid(out[:, 7])


def read_crops(crops: np.ndarray, read_model: str | Path = READ_MODEL) -> np.ndarray:
    """The reader's probabilities (no die, 1..6) of each crop (`die_crop`, `square_crop`), the crop
    and its mirror image averaged as `read_dice` reads the crop it keeps."""
    read = _nets(str(FIND_MODEL), str(read_model))[1]
    probs, _ = _forward(read, crops)
    mirrored, _ = _forward(read, np.ascontiguousarray(crops[:, :, ::-1]))
    return (probs + mirrored) / 2


def _peaks(heat: np.ndarray, threshold: float, limit: int = 6) -> list[tuple[float, float, float]]:
    """Local maxima of the heat map above ``threshold``: (x, y, height), sub-cell, highest first."""
    dilated = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dilated) & (heat >= threshold))
    found = []
    h, w = heat.shape
    for y, x in zip(ys, xs, strict=True):
        x0, x1, y0, y1 = max(0, x - 1), min(w, x + 2), max(0, y - 1), min(h, y + 2)
        patch = heat[y0:y1, x0:x1]
        gy, gx = np.mgrid[y0:y1, x0:x1]
        total = float(patch.sum()) or 1.0
        found.append((float((gx * patch).sum() / total), float((gy * patch).sum() / total), float(heat[y, x])))
    found.sort(key=lambda p: -p[2])
    return found[:limit]


def _gray(crop: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)


def board_mark(image: np.ndarray, empty: np.ndarray, geometry: BoardGeometry, centre: tuple[float, float]) -> bool:
    """Whether the frame around ``centre`` looks as the empty board does there (`BOARD_MARK`): a
    vein of marble or a printed mark the finder took for a die.  A die changes its own square: the
    frame's square of one die about ``centre`` is matched (around it lies the board, which a die
    of the board's colour, white on a cream point, leaves to dominate a wider square)."""
    crop = _crop_matrix(geometry, centre)  # the same square of both pictures
    here, there = _gray(_warp(image, crop)), _gray(_warp(empty, crop))
    middle = here[MARK_MARGIN:CROP_SIZE - MARK_MARGIN, MARK_MARGIN:CROP_SIZE - MARK_MARGIN]
    if float(middle.std()) < 1.0:  # a flat patch: no pattern to match (and no die)
        return False
    return float(cv2.matchTemplate(there, middle, cv2.TM_CCOEFF_NORMED).max()) > BOARD_MARK


def read_dice(image: np.ndarray, geometry: BoardGeometry, empty: np.ndarray | None = None, *,
              find_model: str | Path = FIND_MODEL, read_model: str | Path = READ_MODEL) -> list[LearnedDie]:
    """The dice lying in the frame: at most two, of the finder's `READ` highest peaks those the
    reader is surest hold a die (`SURE_OF_DIE`).  Candidates off the playing surface (on the bar or
    the frame, where the doubling cube rests) are none: a die that lands there is off the surface,
    and the die left alone on it voids the roll just the same (both dice there read as no roll).
    ``empty``: the calibration's photo of the empty board, when there is one (the candidates that
    are marks of the board are dropped; a photo of another size than the frame is no such photo)."""
    if empty is not None and empty.shape != image.shape:
        empty = None
    find, read = _nets(str(find_model), str(read_model))
    view, m = find_view(image, geometry)
    heat = sigmoid(find.run(standardise(view[None]))[0].reshape(FIND_SIZE[1] // FIND_STRIDE, FIND_SIZE[0] // FIND_STRIDE))
    peaks = _peaks(heat.astype(np.float32), PEAK, CANDIDATES)
    if not peaks:
        return []
    inv = np.linalg.inv(m)
    pts = np.array([[(x + 0.5) * FIND_STRIDE, (y + 0.5) * FIND_STRIDE] for x, y, _ in peaks], np.float64)
    centres = [(float(x), float(y)) for x, y in cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv).reshape(-1, 2)]
    candidates: list[tuple[tuple[float, float], float]] = []
    for c, (_, _, h) in zip(centres, peaks, strict=True):
        if len(candidates) == READ:
            break
        if geometry.half(c) not in ("left", "right"):
            continue  # on the bar or the frame: the doubling cube, or a die off the surface (§1.6)
        if empty is None or not board_mark(image, empty, geometry, c):
            candidates.append((c, h))
    if not candidates:
        return []
    # each candidate read first at its peak alone: one the reader is sure holds no die there
    # (`SCREEN`) is read no further
    at_peak = np.stack([die_crop(image, geometry, c) for c, _ in candidates])
    first, first_tilts = _forward(read, at_peak)
    further = first[:, 0] <= SCREEN
    if not further.any():
        return []
    candidates = [c for c, go in zip(candidates, further, strict=True) if go]
    n, each = len(candidates), len(RECENTRE)
    spots: list[tuple[float, float]] = []
    for (cx, cy), _ in candidates:
        size = geometry.die_size_px((cx, cy))
        spots.extend((cx + dx * size, cy + dy * size) for dx, dy in RECENTRE)
    # RECENTRE[0] is the peak itself, read already
    around = np.stack([die_crop(image, geometry, xy) for k, xy in enumerate(spots) if k % each])
    probs_around, tilts_around = _forward(read, around)
    crops = np.concatenate([at_peak[further][:, None], around.reshape(n, each - 1, *around.shape[1:])], axis=1)
    crops = crops.reshape(n * each, *around.shape[1:])
    probs = np.concatenate([first[further][:, None], probs_around.reshape(n, each - 1, -1)], axis=1).reshape(n * each, -1)
    tilts = np.concatenate([first_tilts[further][:, None], tilts_around.reshape(n, each - 1)], axis=1).reshape(-1)
    shape = (n, each)
    # the crop surest of a die; among crops as sure as it (the reader's "no die" saturates, and then
    # which one is lowest is rounding: `SURE_ALIKE`), the one whose face it is surest of
    no_die_at = probs[:, 0].reshape(shape)
    alike = no_die_at <= no_die_at.min(axis=1, keepdims=True) * (1 + SURE_ALIKE)
    best = np.arange(n) * each + np.where(alike, probs[:, 1:].max(axis=1).reshape(shape), -1.0).argmax(axis=1)
    # the die lies where its crops hold a die: their places weighed by the log-odds that they do
    # (a reader sure of the die in every crop leaves it about the peak; the surest crop alone, one of
    # several "no die" probabilities all near zero, moved a die up to half a die off)
    no_die = np.clip(probs[:, 0], 1e-12, 1 - 1e-12)
    weights = np.maximum(0.0, np.log((1 - no_die) / no_die)).reshape(*shape, 1)
    places = np.asarray(spots)
    total = weights.sum(1)
    centres = np.where(total > 0, (weights * places.reshape(*shape, 2)).sum(1) / np.maximum(total, 1e-12),
                       places[best])  # where no crop is sure of a die, the surest crop's place
    # and that crop mirrored left-right ("up" stays at the top), the two readings averaged
    mirrored, mirrored_tilts = _forward(read, np.ascontiguousarray(crops[best][:, :, ::-1]))
    probs[best] = (probs[best] + mirrored) / 2
    tilts[best] = (tilts[best] + mirrored_tilts) / 2
    dice: list[LearnedDie] = []
    # the candidates the reader is surest hold a die first (`SURE_OF_DIE`), the finder's order among
    # those alike
    order = sorted(range(n), key=lambda i: (max(float(probs[best[i], 0]), SURE_OF_DIE), i))
    for k, (cx, cy), (_, height) in ((best[i], centres[i], candidates[i]) for i in order):
        p, cx, cy = probs[k], float(cx), float(cy)
        if p[0] > NO_DIE:
            continue
        value = int(np.argmax(p[1:]) + 1)
        size = geometry.die_size_px((cx, cy))
        dice.append(LearnedDie(value, (cx, cy), (cx - size / 2, cy - size / 2, size, size),
                               float(min(height, p[value] / max(1e-9, 1 - p[0]))), float(tilts[k])))
    # two dice whose centres nearly coincide are one die found twice (the surer kept)
    kept: list[LearnedDie] = []
    for die in dice:
        if all(np.hypot(die.centre[0] - k.centre[0], die.centre[1] - k.centre[1]) > 0.6 * k.box[2] for k in kept):
            kept.append(die)
    return kept[:2]
