"""vision.dice: a die resting on a light checker is found, a roll has at most two dice, and the
change-from-empty map ignores a lighting change."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from tests.vision.test_dice import _board, _scene
from vision.calibration import BoardGeometry
from vision.dice import DiceConfig, changed_from_empty, read_dice
from vision.dice_render import draw_die

W, H = 1280, 720


def _checker(img: np.ndarray, geo: BoardGeometry, uv: tuple[float, float]) -> tuple[float, float]:
    """A light checker (white disc with a grey rim line) drawn flat at board point `uv`."""
    xy = geo.to_image(list(uv))
    r = geo.checker_diameter_px(xy) / 2
    c = (int(round(xy[0])), int(round(xy[1])))
    cv2.circle(img, c, int(round(r)), (150, 150, 150), -1, cv2.LINE_AA)
    cv2.circle(img, c, int(round(r - 2)), (235, 235, 235), -1, cv2.LINE_AA)
    cv2.circle(img, c, int(round(0.72 * r)), (140, 140, 140), 2, cv2.LINE_AA)  # its engraved ring
    return float(xy[0]), float(xy[1])


def test_die_on_a_light_checker_is_found() -> None:
    """Light pips on a die lying on a white checker: the checker's bright ring encloses the pips'
    blobs, which must still open a search window."""
    found = 0
    for k in range(4):
        rng = np.random.default_rng(500 + k)
        img, geo = _board(rng)
        xy = _checker(img, geo, (0.25 + 0.05 * k, 0.15))
        draw_die(img, xy, 5 - k, geo.die_size_px(xy), float(rng.uniform(0, 90)), style="red", rng=rng)
        flat = geo.to_image([0.3, 0.7])
        draw_die(img, (float(flat[0]), float(flat[1])), 6, geo.die_size_px(flat), 20.0, style="red", rng=rng)
        img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.7) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
        got = read_dice(img, None, geo)
        on = [r for r in got if np.hypot(r.centre[0] - xy[0], r.centre[1] - xy[1]) < 6]
        found += len(on) == 1 and on[0].value == 5 - k
    assert found >= 3


def test_at_most_two_dice_per_roll() -> None:
    """Three dice on the board: only two are reported (the best evidenced), never a third."""
    img, geo = _scene(21, [(0.65, 0.3, 1, False), (0.75, 0.5, 5, False), (0.85, 0.7, 4, False)], "ivory")
    got = read_dice(img, None, geo)
    assert sorted(r.value for r in got) == [4, 5]
    got3 = read_dice(img, replace(DiceConfig(), max_dice=3), geo)
    assert sorted(r.value for r in got3) == [1, 4, 5]


def test_change_from_empty_ignores_a_lighting_change() -> None:
    """A uniform darkening of the board (a cloud, a lamp) scores well below a die's body."""
    rng = np.random.default_rng(31)
    empty, geo = _board(rng, (150, 200, 220))
    width = 576
    canon_empty = geo.warp(empty, width)
    img = empty.copy()
    xy = geo.to_image([0.7, 0.5])
    draw_die(img, (float(xy[0]), float(xy[1])), 3, geo.die_size_px(xy), 10.0, style="black", rng=rng)
    darker = np.clip(img.astype(np.float32) * 0.85, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(geo.warp(darker, width), cv2.COLOR_BGR2LAB).astype(np.float32)
    change = changed_from_empty(lab, canon_empty, geo, (H, W))
    die = change[int(xy[1]) - 3:int(xy[1]) + 4, int(xy[0]) - 3:int(xy[0]) + 4]
    board = geo.to_image([0.6, 0.5])
    around = change[int(board[1]) - 3:int(board[1]) + 4, int(board[0]) - 3:int(board[0]) + 4]
    assert float(np.median(die)) > 1.0
    assert float(around.max()) < DiceConfig().rim_occupancy

