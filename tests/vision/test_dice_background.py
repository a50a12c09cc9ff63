"""vision.dice with the calibration's empty board: marks the empty board already shows open no
search window; the plain-face check on candidate blobs; the likeliest two dice of a roll; side
faces known by their pip lattice; contact is a body against a body."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from tests.vision.test_dice import _board
from vision.calibration import BoardGeometry
from vision.dice import (
    BoardBackground,
    DiceConfig,
    DieReading,
    Face,
    _candidate_windows,
    _cocked,
    _leaning,
    _likeliest_roll,
    read_dice,
    roll_validity,
)
from vision.dice_render import draw_die


def _marker(img: np.ndarray, geo: BoardGeometry, uv: tuple[float, float]) -> tuple[float, float]:
    """A printed mark of a die's size on the board (an ArUco marker's cell): a dark square with
    one light square dot, which alone looks like a one."""
    xy = geo.to_image(list(uv))
    s = geo.die_size_px(xy)
    c = np.array([float(xy[0]), float(xy[1])])
    cv2.rectangle(img, tuple(np.round(c - s / 2).astype(int)), tuple(np.round(c + s / 2).astype(int)), (25, 25, 25), -1)
    cv2.circle(img, tuple(np.round(c).astype(int)), max(2, int(round(0.11 * s))), (235, 235, 235), -1, cv2.LINE_AA)
    return float(c[0]), float(c[1])


def _finish(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def test_marks_of_the_empty_board_are_not_dice() -> None:
    """A die-like mark printed on the board (beside the surface, as the ArUco markers are) is read as
    a one without the empty board, and ignored with it; the real dice are read either way."""
    fixed = 0
    for k in range(3):
        rng = np.random.default_rng(700 + k)
        empty, geo = _board(rng)
        mark = _marker(empty, geo, (0.3 + 0.2 * k, -0.04))
        frame = empty.copy()
        for (u, v), value in (((0.65, 0.4), 5), ((0.8, 0.6), 3)):
            xy = geo.to_image([u, v])
            draw_die(frame, (float(xy[0]), float(xy[1])), value, geo.die_size_px(xy), float(rng.uniform(0, 90)),
                     style="black", rng=rng)
        seed = int(rng.integers(1 << 30))
        frame = _finish(frame, np.random.default_rng(seed))
        background = BoardBackground(_finish(empty, np.random.default_rng(seed + 1)))
        without = read_dice(frame, replace(DiceConfig(), max_dice=3), geo)
        with_bg = read_dice(frame, replace(DiceConfig(), max_dice=3), geo, background=background)
        phantom = any(np.hypot(r.centre[0] - mark[0], r.centre[1] - mark[1]) < 8 for r in without)
        assert sorted(r.value for r in with_bg) == [3, 5]
        fixed += phantom
    assert fixed >= 2  # the mark does fool the reader without the empty board


def test_a_pocket_between_two_tones_opens_no_window() -> None:
    """A dark spot where a light and a mid-grey region meet (between checkers and a point's edge) is
    darker than all its ring, but its ring is two tones: not a pip on a plain face."""
    gray = np.full((200, 200), 220, np.uint8)
    gray[:, 100:] = 90  # two tones (cream board, a red checker)
    cv2.circle(gray, (100, 60), 4, 10, -1)  # the pocket, on the boundary
    cv2.circle(gray, (50, 140), 4, 10, -1)  # a pip on a plain face
    gray = cv2.GaussianBlur(gray, (0, 0), 0.8)
    roi = np.ones(gray.shape, bool)
    die_px = 30.0

    def centres(cfg: DiceConfig) -> list[tuple[float, float]]:
        return [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in _candidate_windows(gray, roi, die_px, cfg)]

    loose = centres(replace(DiceConfig(), window_plain=10.0))
    strict = centres(DiceConfig())
    assert any(abs(x - 100) < 5 and abs(y - 60) < 5 for x, y in loose)
    assert not any(abs(x - 100) < 5 and abs(y - 60) < 5 for x, y in strict)
    assert any(abs(x - 50) < 5 and abs(y - 140) < 5 for x, y in strict)


def _face(value: int, centre: tuple[float, float], brightness: float, contrast: float, r: float,
          ratio: float = 0.95, unit: float = 11.0, **extra: float) -> Face:
    return Face(value=value, pips=(0,), centre=centre, unit=unit, axes=(ratio, 0.0), error=0.0,
                brightness=brightness, box=(int(centre[0]) - 5, int(centre[1]) - 5, 10, 10), dark=False,
                extra={"r": r, "unit_r": 2.3, "contrast": contrast, "plain": 1.0, "sxx": 1.0, "sxy": 0.0,
                       "syy": 1.0, "lattice": 0.0, **extra})


def _reading(f: Face) -> DieReading:
    return DieReading(f.value, f.box, f.centre, 0.6, False)


def test_the_two_dice_of_a_roll_are_alike() -> None:
    """Three lone pips: the pair of one die style (face and pip tones, pip size) wins over a light
    spot of board between dark checkers, seen first."""
    gap = _face(1, (100.0, 50.0), brightness=58.0, contrast=70.0, r=6.2)
    a = _face(1, (300.0, 400.0), brightness=38.0, contrast=98.0, r=5.2)
    b = _face(1, (500.0, 380.0), brightness=40.0, contrast=97.0, r=5.0)
    readings = [_reading(f) for f in (gap, a, b)]
    tops = {id(r): (f, True) for r, f in zip(readings, (gap, a, b), strict=True)}
    kept = _likeliest_roll(readings, tops, DiceConfig())
    assert sorted(r.centre for r in kept) == sorted([a.centre, b.centre])
    # a face with a pip layout still comes before any lone pip
    five = _face(5, (700.0, 300.0), brightness=200.0, contrast=150.0, r=5.0)
    readings.append(_reading(five))
    tops[id(readings[-1])] = (five, True)
    assert any(r.value == 5 for r in _likeliest_roll(readings, tops, DiceConfig()))


class _FlatBoard:
    """Board geometry seen straight from above: a square stays a square; dice `die` px."""

    def __init__(self, die: float) -> None:
        self.die = die
        self.aspect = 1.0

    def die_size_px(self, xy: object) -> float:
        return self.die

    def to_board(self, xy: np.ndarray) -> np.ndarray:
        return np.asarray(xy, np.float64) / 1000.0

    def to_image(self, uv: object) -> np.ndarray:
        return np.asarray(uv, np.float64) * 1000.0


def test_a_side_face_known_by_its_lattice_makes_a_die_cocked() -> None:
    """A flat-looking one with a side face of two faint, small pips whose lattice spans most of a
    die's edge and is seen fairly squarely: the die leans.  The same side face as a thin sliver (a
    flat die's) or too small for the die does not make it cocked."""
    cfg = DiceConfig()
    board = _FlatBoard(44.0)
    top = _face(1, (100.0, 100.0), brightness=40.0, contrast=100.0, r=5.0)
    unit = 0.26 * 44.0 * 0.85  # a 2's lattice unit: the side face spans 0.85 of the edge (less foreshortened axis)

    def side(ratio: float, span: float) -> Face:
        return _face(2, (125.0, 110.0), brightness=25.0, contrast=42.0, r=3.0, ratio=ratio,
                     unit=unit * span * ratio ** 0.5 / 0.85, side_only=1.0)

    def cocked(s: Face) -> bool:
        return _cocked([(top, [s])], cfg, board, 1.0)[0]

    assert cocked(side(0.72, 0.85))
    assert not cocked(side(0.45, 0.85))  # a sliver
    assert not cocked(side(0.72, 0.4))  # not a whole face of this die


def test_contact_needs_more_than_a_thin_bridge() -> None:
    """A die (tilted a little) joined to a large changed region by a one-pixel line does not lean on
    it; joined along a broad contact it does."""
    die = DieReading(2, (190, 190, 20, 20), (200.0, 200.0), 1.0, False, tilt=0.8)
    board = _FlatBoard(22.0)
    cfg = DiceConfig()

    def scene(width: int) -> np.ndarray:
        occ = np.zeros((400, 400), np.float32)
        occ[189:212, 189:212] = 2.0  # the die
        occ[150:250, 235:300] = 2.0  # a checker's body beside it
        occ[200 - width // 2:200 + (width + 1) // 2, 211:235] = 2.0  # the link
        return occ

    assert not _leaning(die, scene(1), board, cfg)
    assert _leaning(die, scene(18), board, cfg)


class _HalvedBoard(_FlatBoard):
    """The flat board with halves: everything here lies in the left half."""

    def half(self, xy: object) -> str:
        return "left"


def test_a_one_leaning_on_a_checker_is_cocked_at_a_lower_tilt() -> None:
    """A one's tilt is scored against the loose tolerance its single pip allows, so a one in
    contact with a checker is cocked at `leaning_tilt_one`; another face needs `leaning_tilt`, and
    without contact neither is cocked."""
    cfg = DiceConfig()
    board = _HalvedBoard(22.0)
    occ = np.zeros((400, 400), np.float32)
    occ[189:212, 189:212] = 2.0  # the die
    occ[150:250, 211:300] = 2.0  # a checker's body against it
    alone = np.zeros_like(occ)
    alone[189:212, 189:212] = 2.0
    tilt = (cfg.leaning_tilt_one + cfg.leaning_tilt) / 2

    def cocked(value: int, t: float, occupied: np.ndarray) -> bool:
        die = DieReading(value, (190, 190, 20, 20), (200.0, 200.0), 1.0, False, tilt=t)
        return roll_validity([die], board, occupied=occupied).void_reason == "cocked"

    assert cocked(1, tilt, occ)
    assert not cocked(1, cfg.leaning_tilt_one / 2, occ)
    assert not cocked(1, tilt, alone)
    assert not cocked(2, tilt, occ)
    assert cocked(2, cfg.leaning_tilt, occ)
