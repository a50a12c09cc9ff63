"""Seeded recordings replayed scene by scene: the scenes `referee render --dataset DIR --frames N
--seed S` draws (scene k is frame k + 1), the board they are drawn on, and a calibration made as
`referee vision eval` makes it from the dataset's reference frames."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rules.position import starting_position
from vision.calibration import Calibration, calibrate
from vision.render import IMAGE_SIZE, BoardSetup, Scene, physical_counts, random_scene, random_setup, render


class Recording(NamedTuple):
    setup: BoardSetup
    calibration: Calibration
    scenes: list[Scene]


def replay(seed: int, frames: int = 200) -> Recording:
    """The first `frames` scenes of recording `seed` (corners rounded as the dataset stores them)."""
    rng = np.random.default_rng(seed)
    setup = random_setup(rng, None, None)
    empty, _ = render(setup, Scene(points=[(0, 0)] * 24, seed=seed + 1))
    pts, bar = physical_counts(starting_position("backgammon"))
    start, _ = render(setup, Scene(points=pts, bar=bar, seed=seed + 2))
    calibration = calibrate(np.round(setup.corners, 2), IMAGE_SIZE, empty=empty, start=start, variant="backgammon")
    return Recording(setup, calibration, [random_scene(setup, rng, occluded_rate=0.12) for _ in range(frames)])
