"""Point strips: each point's column of the board, cut straight from the camera frame and
resampled to a fixed size with the point's base at the bottom, for the learned checker counter.

A strip is 1.5 point widths wide (a stack left askew still fits) and runs from the board's edge
to its middle.  It is cut with one homography per strip from the camera frame (no second
resampling through the canonical image).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibration import BoardGeometry

__all__ = ["BAR_STRIPS", "BOARD_STRIPS", "STRIP_SIZE", "STRIP_WIDTH_POINTS", "bar_strips", "board_strips", "checker_rows",
           "point_strips", "strip_quad"]

#: strip size in pixels (width, height): a checker is about 20 px across
STRIP_SIZE = (32, 112)
#: strip width in point widths
STRIP_WIDTH_POINTS = 1.5
#: `board_strips` gives this many strips: P1..P24, then the bar's near and far halves from this index
BOARD_STRIPS = 26
BAR_STRIPS = 24


def checker_rows(geometry: BoardGeometry, height: int = STRIP_SIZE[1]) -> float:
    """A checker's diameter in a strip's rows, base to middle (a strip of ``height`` rows runs half
    the board's depth, the bar's halves too)."""
    return geometry.checker_v / 0.5 * height


def strip_quad(geometry: BoardGeometry, point: int) -> np.ndarray:
    """The strip's four corners in board units (u, v): base-left, base-right, far-right, far-left
    as seen looking from the point's base toward the middle of the board."""
    u0, u1 = geometry.point_u(point)
    centre, half = (u0 + u1) / 2, (u1 - u0) * STRIP_WIDTH_POINTS / 2
    if geometry.point_is_top(point):  # base at v = 0, the far side of the camera frame
        return np.array([[centre + half, 0.0], [centre - half, 0.0], [centre - half, 0.5], [centre + half, 0.5]])
    return np.array([[centre - half, 1.0], [centre + half, 1.0], [centre + half, 0.5], [centre - half, 0.5]])


def bar_quads(geometry: BoardGeometry) -> list[np.ndarray]:
    """The bar's two halves as strips whose base is the middle of the board: the near half (v 0.5
    to 1) and the far half (v 0.5 to 0), as wide as a point's strip so a checker has the same size
    in both."""
    u0, u1 = geometry.point_u(1)
    centre, half = (geometry.bar_u[0] + geometry.bar_u[1]) / 2, (u1 - u0) * STRIP_WIDTH_POINTS / 2
    near = np.array([[centre + half, 0.5], [centre - half, 0.5], [centre - half, 1.0], [centre + half, 1.0]])
    far = np.array([[centre - half, 0.5], [centre + half, 0.5], [centre + half, 0.0], [centre - half, 0.0]])
    return [near, far]


def _cut(image: np.ndarray, geometry: BoardGeometry, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    # strip pixel corners in the order of the quads: bottom-left, bottom-right, top-right, top-left
    dst = np.array([[0, h], [w, h], [w, 0], [0, 0]], np.float32)
    m = cv2.getPerspectiveTransform(geometry.to_image(quad).astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def bar_strips(image: np.ndarray, geometry: BoardGeometry, size: tuple[int, int] = STRIP_SIZE) -> np.ndarray:
    """The bar's near and far halves, (2, height, width, 3), base (the board's middle) at the bottom."""
    return np.stack([_cut(image, geometry, quad, size) for quad in bar_quads(geometry)])


def point_strips(image: np.ndarray, geometry: BoardGeometry, size: tuple[int, int] = STRIP_SIZE) -> np.ndarray:
    """The 24 points' strips, (24, height, width, 3) uint8, index 0 = P1, the base at the bottom
    row and the point's left (seen from its base) at the left."""
    return np.stack([_cut(image, geometry, strip_quad(geometry, p), size) for p in range(1, 25)])


def board_strips(image: np.ndarray, geometry: BoardGeometry, size: tuple[int, int] = STRIP_SIZE,
                 only: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """Every strip the checker counter reads, (26, height, width, 3): P1..P24, then the bar's near
    and far halves; or those of them whose indices are ``only``, in that order."""
    if only is None:
        return np.concatenate([point_strips(image, geometry, size), bar_strips(image, geometry, size)])
    bar = bar_quads(geometry)
    quads = [strip_quad(geometry, int(i) + 1) if i < BAR_STRIPS else bar[int(i) - BAR_STRIPS] for i in only]
    w, h = size
    return np.stack([_cut(image, geometry, quad, size) for quad in quads]) if quads else np.zeros((0, h, w, 3), np.uint8)
