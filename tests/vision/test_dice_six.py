"""vision.dice with a board: a black six with white pips, turned diagonally on a cream point.  Its
two columns of pips blur into two sparse streaks (too thin for their box to be a pip, too big
for one), and the face measured around its middle pips takes in their neighbours' glow; the die
is still found and read as a six."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.test_dice import H, W
from vision.calibration import BoardGeometry
from vision.dice import read_dice
from vision.dice_render import draw_die


def _scene(seed: int) -> tuple[np.ndarray, BoardGeometry, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = (60, 70, 80)
    corners = np.array([[170, 30], [1110, 30], [1130, 690], [150, 690]], float) + rng.normal(0, 3, (4, 2))
    geo = BoardGeometry.from_corners(corners, (W, H))
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (170, 215, 235))  # cream
    xy = (float(rng.uniform(350, 900)), float(rng.uniform(200, 500)))
    draw_die(img, xy, 6, geo.die_size_px(xy), float(rng.uniform(25, 65)), style="black", rng=rng)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 1.3) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return img, geo, xy


def test_a_diagonal_black_six_is_read() -> None:
    read = 0
    for seed in range(9300, 9340):
        img, geo, xy = _scene(seed)
        dice = read_dice(img, None, geo)
        read += [d.value for d in dice] == [6] and np.hypot(dice[0].centre[0] - xy[0], dice[0].centre[1] - xy[1]) < 10
    assert read >= 39, read
