"""vision.dice with a board: a die that fell off the surface and lies at the very image border (the
board fills the view) is still found -- the image is extended past its border (`border_pad`) so
the die's pips keep their rings -- and makes the roll void, off the board."""

from __future__ import annotations

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


def test_die_at_the_image_border_is_off_board() -> None:
    found = off = 0
    for seed in range(9080, 9092):
        img, geo, value = _scene(seed)
        dice = read_dice(img, None, geo)
        found += [d.value for d in dice] == [value]
        off += roll_validity(dice, geo).void_reason == "off_board"
    assert found >= 11 and off >= 11, (found, off)
