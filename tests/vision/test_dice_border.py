"""vision.dice with a board: a die that fell off the surface is still found and makes the roll
void, off the board -- lying at the very image border (the board fills the view: the image is
extended past its border, `border_pad`, so the die's pips keep their rings), or on the dark rail
on the far side, where it is small (further from the camera) and its pips sit so close that the
ring around each falls on its neighbours and on the die's dark edge (the pips of one die vouch
for each other, `window_lattice`)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from tests.vision.test_dice import H, W
from vision.calibration import BoardGeometry
from vision.dice import read_dice, roll_validity
from vision.dice_render import draw_die


def _scene(seed: int) -> tuple[np.ndarray, BoardGeometry, int]:
    """A board reaching to 30 px from the image's bottom, a die below it touching the border."""
    rng = np.random.default_rng(seed)
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = (60, 70, 80)
    corners = np.array([[170, 30], [1110, 30], [1130, 690], [150, 690]], float) + rng.normal(0, 3, (4, 2))
    geo = BoardGeometry.from_corners(corners, (W, H))
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (60, 110, 50))
    x, value = 400.0 + 80 * (seed % 6), 2 + seed % 5
    draw_die(img, (x, 704.0), value, geo.die_size_px((x, 689.0)), 45.0, style="ivory", rng=rng)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.7) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return img, geo, value


def _rail_scene(seed: int) -> tuple[np.ndarray, BoardGeometry, int]:
    """A felt surface inside a dark wooden rail; a die on the far rail, 0.8 of the size the
    calibration expects at the board's centre, turned 25-65 degrees."""
    rng = np.random.default_rng(seed)
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = (150, 160, 170)  # the table
    rail = np.array([[140, 20], [1140, 20], [1160, 700], [120, 700]], np.int32)
    cv2.fillConvexPoly(img, rail, (40, 58, 92))
    corners = np.array([[170, 70], [1110, 70], [1130, 670], [150, 670]], float) + rng.normal(0, 2, (4, 2))
    geo = BoardGeometry.from_corners(corners, (W, H))
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (60, 110, 50))
    x, value = 300.0 + 110 * (seed % 7), (4, 5, 6)[seed % 3]
    size = 0.8 * geo.die_size_px(geo.to_image([0.5, 0.5]).reshape(2))
    draw_die(img, (x, 47.0), value, size, float(rng.uniform(25, 65)), style="ivory", rng=rng)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.8) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return img, geo, value


def _found_off_board(scene: Callable[[int], tuple[np.ndarray, BoardGeometry, int]], seeds: range) -> tuple[int, int]:
    """Over the seeded scenes: how many read exactly their one die, and how many judge the roll
    void, off the board."""
    found = off = 0
    for seed in seeds:
        img, geo, value = scene(seed)
        dice = read_dice(img, None, geo)
        found += [d.value for d in dice] == [value]
        off += roll_validity(dice, geo).void_reason == "off_board"
    return found, off


def test_die_at_the_image_border_is_off_board() -> None:
    found, off = _found_off_board(_scene, range(9080, 9092))
    assert found >= 11 and off >= 11, (found, off)


def test_small_die_on_the_far_rail_is_found_and_off_board() -> None:
    found, off = _found_off_board(_rail_scene, range(9140, 9152))
    assert found >= 10 and off >= 10, (found, off)
