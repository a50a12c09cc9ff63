"""vision.dice: the pips of several windows found in one pass equal each window's own `find_pips`."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.dice import DiceConfig, _board_config, _window_pips, find_pips
from vision.dice_render import draw_die


def _window(seed: int, light_pips: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A window of about three die edges (44 px dice) with a die or two, clutter and noise."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(120, 190)), int(rng.integers(120, 190))
    img = np.full((h, w, 3), rng.integers(60, 200, 3), np.uint8)
    for _ in range(int(rng.integers(1, 3))):
        centre = (float(rng.uniform(30, w - 30)), float(rng.uniform(30, h - 30)))
        draw_die(img, centre, int(rng.integers(1, 7)), 44, float(rng.uniform(0, 90)), rng=rng)
    for _ in range(int(rng.integers(0, 6))):  # dots of either polarity: merged, touching, at the border
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(img, c, int(rng.integers(2, 9)), tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    if light_pips:
        gray = 255 - gray
    gray = np.clip(gray + rng.normal(0, 4, gray.shape), 0, 255).astype(np.uint8)
    roi = np.ones((h, w), bool)
    roi[:, : int(rng.integers(0, 20))] = False  # part of a window off the search region
    return gray, roi


def _key(pips: list) -> list[tuple]:
    return [(p.x, p.y, p.area, p.cov, p.face, p.contrast, p.dark) for p in pips]


def test_windows_in_one_pass_equal_each_window_alone() -> None:
    cfg = _board_config(DiceConfig(), 44.0)
    for dark in (True, False):
        wins = [_window(seed, light_pips=not dark) for seed in range(700, 712)]
        together = _window_pips([g for g, _ in wins], [r for _, r in wins], dark, cfg)
        alone = [find_pips(g, cfg, r, light=not dark, dark=dark) for g, r in wins]
        assert [_key(p) for p in together] == [_key(p) for p in alone]
        assert sum(map(len, alone)) >= 12  # the dice's pips were found


def test_higher_levels_run_per_window() -> None:
    """Only windows with a blob too big for a pip run the higher thresholds; a window that does
    not gets the same pips whichever windows it is batched with."""
    cfg = replace(_board_config(DiceConfig(), 44.0), all_levels=False)
    wins = [_window(seed) for seed in range(720, 728)]
    for k in range(len(wins)):
        alone = find_pips(wins[k][0], cfg, wins[k][1], light=False)
        batch = _window_pips([g for g, _ in wins], [r for _, r in wins], True, cfg)[k]
        assert _key(batch) == _key(alone)
