"""The renderer's camera is a pinhole camera: a board it shows with its far edge shorter is also
shown shorter, as a real camera tilted over the board would (a keystone alone would make the
board look taller than it is, and every flat die tilted against it)."""

from __future__ import annotations

import numpy as np

from vision.calibration import plane_aspect
from vision.render import IMAGE_SIZE, camera_corners, random_setup


def test_random_boards_are_photographed_by_a_pinhole_camera() -> None:
    for seed in range(20):
        setup = random_setup(np.random.default_rng(seed))
        c = setup.corners
        near, far = np.linalg.norm(c[2] - c[3]), np.linalg.norm(c[1] - c[0])
        assert far <= near + 1.0  # the camera stands beyond the near (bottom) edge
        # the proportions a pinhole camera of about that field of view recovers are the board's
        assert abs(plane_aspect(c, IMAGE_SIZE, 62.0) - setup.board.aspect) < 0.02, seed
        assert ((c >= 0) & (c <= IMAGE_SIZE)).all(), seed


def test_a_steeper_camera_sees_the_board_shorter() -> None:
    sides = []
    for tilt in (0.0, 15.0, 30.0):
        c = camera_corners(0.78, 600.0, (0.0, 0.0), tilt_deg=tilt, roll_deg=0.0, hfov_deg=62.0)
        sides.append((np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1]))
                     / (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])))
        assert abs(plane_aspect(c, IMAGE_SIZE, 62.0) - 0.78) < 1e-6
    assert sides[0] > sides[1] > sides[2]
    assert abs(sides[0] - 0.78) < 1e-6
