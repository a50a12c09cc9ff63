"""vision.dice with a board and the empty board: a leaning die whose side face shows no pips the
reader can use (a cocked one or two) is still flagged cocked by the band of die material beside
its top face (`_side_band`); the same die lying flat is not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_dice import _board
from vision.calibration import BoardGeometry
from vision.dice import read_dice
from vision.dice_render import draw_die

CREAM = (150, 190, 215)


def _scene(seed: int, value: int, style: str, cocked: bool) -> tuple[np.ndarray, np.ndarray, BoardGeometry]:
    """One die on a cream board, and the same board empty (the calibration's reference)."""
    rng = np.random.default_rng(seed)
    empty, geo = _board(rng, CREAM)
    img = empty.copy()
    xy = geo.to_image([0.3, 0.7])
    draw_die(img, (float(xy[0]), float(xy[1])), value, geo.die_size_px(xy), float(rng.uniform(0, 90)),
             cocked=cocked, style=style, rng=rng)
    noise = np.random.default_rng(seed + 1000).normal(0, 2, img.shape)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.7) + noise, 0, 255).astype(np.uint8)
    return img, cv2.GaussianBlur(empty, (0, 0), 0.7), geo


# seeds at which the top face's shape and the side face's pips leave the die unflagged
@pytest.mark.parametrize(("seed", "value", "style"), [(5, 2, "ivory"), (7, 1, "red"), (11, 1, "red"), (7, 2, "red")])
def test_a_side_face_without_pips_marks_a_cocked_die(seed: int, value: int, style: str) -> None:
    img, empty, geo = _scene(seed, value, style, cocked=True)
    got = read_dice(img, None, geo, background=empty)
    assert [r.value for r in got] == [value]
    assert got[0].cocked
    flat_img, flat_empty, flat_geo = _scene(seed, value, style, cocked=False)
    flat = read_dice(flat_img, None, flat_geo, background=flat_empty)
    assert [r.value for r in flat] == [value]
    assert not flat[0].cocked


def test_flat_dice_show_no_side_band() -> None:
    flagged = 0
    for seed in range(12):
        for value, style in ((1, "ivory"), (2, "red"), (3, "white")):
            img, empty, geo = _scene(100 + seed, value, style, cocked=False)
            flagged += sum(r.cocked for r in read_dice(img, None, geo, background=empty))
    assert flagged == 0
