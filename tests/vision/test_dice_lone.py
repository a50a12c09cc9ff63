"""vision.dice with a board: one die read where a roll throws two is never called cocked, even beside
another die-sized body (a missed flat die, a shadow, a gap between checkers); a die in shade is still one of the roll's
dice (`_like`); pips at a top face's own rim are not a cocked die's side face (`_beyond_edge`)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from tests.vision.test_dice import _board, _scene
from vision.calibration import BoardGeometry
from vision.dice import DiceConfig, Face, _board_shape, _cocked, changed_from_empty, read_dice, roll_validity
from vision.dice_render import draw_die

W, H = 1280, 720
_CANON = 576


def _body(img: np.ndarray, geo: BoardGeometry, uv: tuple[float, float], size: float, colour: tuple[int, int, int],
          angle: float) -> None:
    """A plain body (a leaning die's flank and tilted top: no readable pips) `size` die edges wide."""
    xy = geo.to_image(list(uv))
    s = size * geo.die_size_px(xy)
    box = cv2.boxPoints(((float(xy[0]), float(xy[1])), (s, 0.8 * s), angle))
    cv2.fillConvexPoly(img, np.round(box).astype(np.int32), colour, cv2.LINE_AA)


def _roll(seed: int, body: float | None, opening: bool = False):
    rng = np.random.default_rng(seed)
    empty, geo = _board(rng)
    img = empty.copy()
    xy = geo.to_image([0.7, 0.3])
    draw_die(img, (float(xy[0]), float(xy[1])), 2 + seed % 5, geo.die_size_px(xy), float(rng.uniform(0, 90)),
             style="ivory", rng=rng)
    if body is not None:
        _body(img, geo, (0.8, 0.65), body, (200, 225, 235), float(rng.uniform(0, 90)))
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.7) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    dice = read_dice(img, None, geo)
    lab = cv2.cvtColor(geo.warp(img, _CANON), cv2.COLOR_BGR2LAB).astype(np.float32)
    occupied = changed_from_empty(lab, geo.warp(empty, _CANON), geo, (H, W))
    mask = np.zeros((H, W), np.uint8)
    return dice, roll_validity(dice, geo, mask, occupied=occupied, opening=opening)


def test_lone_die_is_not_called_cocked() -> None:
    """No second body, a die-sized one or a checker-sized one: one die read is no evidence of a
    cocked second die; the roll is void because the other die is not on the surface.  The
    opening roll's single die is a valid roll."""
    for seed in range(9050, 9054):
        for body in (None, 1.0, 2.4):
            dice, verdict = _roll(seed, body)
            assert len(dice) == 1, seed
            assert (verdict.roll, verdict.void_reason) == ("void", "off_board"), (seed, body)
        assert _roll(seed, 1.0, opening=True)[1].roll == "valid", seed


def test_a_two_in_shade_is_still_a_die() -> None:
    """A two whose face is a fifth darker than the other die's (a shadow over it) keeps its pip
    contrast relative to the face: it is read, not dropped as a label's print."""
    no_shade = replace(DiceConfig(), one_min_face_shaded=1.0)
    kept = dropped = 0
    for seed in range(9060, 9066):
        img, geo = _scene(seed, [(0.3, 0.3, 2, False), (0.7, 0.7, 5, False)], "white", (50, 90, 140))
        xy = geo.to_image([0.3, 0.3])
        r = int(1.2 * geo.die_size_px(xy))
        x, y = int(xy[0]), int(xy[1])
        img[y - r:y + r, x - r:x + r] = (img[y - r:y + r, x - r:x + r] * 0.78).astype(np.uint8)
        kept += sorted(d.value for d in read_dice(img, None, geo)) == [2, 5]
        dropped += sorted(d.value for d in read_dice(img, no_shade, geo)) == [5]
    assert kept == 6
    assert dropped >= 4


def _face(geo: BoardGeometry, xy: tuple[float, float], value: int, axes: float, unit: float,
          shape: tuple[float, float, float]) -> Face:
    return Face(value=value, pips=(value,), centre=xy, unit=unit, axes=(axes, 0.0), error=0.0, brightness=220.0,
                extra={"r": 4.8, "contrast": 100.0, "lattice": float(value >= 4), "sxx": shape[0], "sxy": shape[1],
                       "syy": shape[2]})


def test_side_face_at_the_top_faces_rim_is_not_cocked() -> None:
    """A flat four with a two-pip "side face" whose centre is within the top face's edge (its own
    rim, a sliver) is flat; the same side face beyond the edge tells a cocked die."""
    _, geo = _board(np.random.default_rng(9070))
    xy = tuple(float(v) for v in geo.to_image([0.7, 0.8]))
    shape = _board_shape(geo, xy)
    edge = geo.die_size_px(xy)
    top = _face(geo, xy, 4, 0.95, 0.26 * edge, shape)
    for dist, cocked in ((0.45, False), (0.7, True)):
        side = _face(geo, (xy[0], xy[1] - dist * edge), 2, 0.55, 0.15 * edge, shape)
        assert _cocked([(top, [side])], DiceConfig(), geo, 1.0) == [cocked], dist


def test_lattice_face_tilt_tolerance() -> None:
    """A four whose fitted lattice departs from the board plane by 0.093 (the most a flat, small,
    blurred die measured) is flat; one departing by 0.12 (a leaning die's top) is cocked."""
    _, geo = _board(np.random.default_rng(9071))
    xy = tuple(float(v) for v in geo.to_image([0.3, 0.4]))
    sxx, sxy, syy = _board_shape(geo, xy)
    edge = geo.die_size_px(xy)
    for diff, cocked in ((0.093, False), (0.12, True)):
        top = _face(geo, xy, 4, 0.95, 0.26 * edge, (sxx + diff, sxy, syy))
        assert _cocked([(top, [])], DiceConfig(), geo, 1.0) == [cocked], diff
