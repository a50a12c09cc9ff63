"""A drawn stand-in for the camera frame of the demo game (OpenCV when available, else no frame)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from rules.position import opponent_point
from web_ui.view import Snapshot

WIDTH, HEIGHT = 960, 640
BOARD = ((110, 90), (850, 80), (900, 570), (60, 580))  # the board's corners as the "camera" sees it


def frame(snap: Snapshot, corners: Sequence[tuple[float, float]]) -> bytes | None:
    bottom, top = (snap.position.mover, snap.position.opponent)
    if snap.on_roll == 1:
        bottom, top = top, bottom
    light = tuple(bottom[:24])
    dark = tuple(top[opponent_point(snap.variant, p) - 1] for p in range(1, 25))
    return _draw(light, dark, snap.dice, tuple((float(x), float(y)) for x, y in corners))


@functools.lru_cache(maxsize=8)
def _draw(
    light: tuple[int, ...], dark: tuple[int, ...], dice: tuple[int, ...], corners: tuple[tuple[float, float], ...]
) -> bytes | None:
    try:
        import cv2
        import numpy as np
    except ImportError:
        return None
    flat_w, flat_h = 780, 520
    board = np.zeros((flat_h, flat_w, 3), np.uint8)
    board[:] = (60, 110, 160)  # wood (BGR)
    cw = flat_w / 13
    for p in range(1, 25):
        col = 12 - p if p <= 12 else p - 13
        col = col + 1 if col >= 6 else col
        x0 = col * cw
        base, tip = (float(flat_h), flat_h * 0.58) if p <= 12 else (0.0, flat_h * 0.42)
        colour = (200, 220, 235) if p % 2 else (40, 40, 120)
        pts = np.array([[x0, base], [x0 + cw, base], [x0 + cw / 2, tip]], np.int32)
        cv2.fillPoly(board, [pts], colour)
        for kind, count in (("l", light[p - 1]), ("d", dark[p - 1])):
            for i in range(min(count, 5)):
                step = flat_h * 0.45 / 5
                cy = flat_h - step * (i + 0.5) if p <= 12 else step * (i + 0.5)
                fill = (235, 240, 245) if kind == "l" else (30, 30, 30)
                cv2.circle(board, (int(x0 + cw / 2), int(cy)), int(flat_h * 0.045), fill, -1, cv2.LINE_AA)
    cv2.rectangle(board, (int(6 * cw), 0), (int(7 * cw), flat_h), (30, 60, 90), -1)
    for i, value in enumerate(dice[:2]):
        x, y = int(8.5 * cw + i * 70), int(flat_h / 2 - 25)
        cv2.rectangle(board, (x, y), (x + 50, y + 50), (250, 250, 250), -1)
        cv2.putText(board, str(value), (x + 14, y + 38), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0), 2)
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    image[:] = (70, 75, 80)
    src = np.array([[0, 0], [flat_w, 0], [flat_w, flat_h], [0, flat_h]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, np.array(BOARD, dtype=np.float32))
    cv2.warpPerspective(board, matrix, (WIDTH, HEIGHT), image, borderMode=cv2.BORDER_TRANSPARENT)
    outline: tuple[tuple[float, float], ...] = corners if len(corners) == 4 else tuple(
        (float(bx), float(by)) for bx, by in BOARD
    )
    colour = (80, 220, 80) if len(corners) == 4 else (220, 200, 60)
    cv2.polylines(image, [np.array(outline, dtype=np.int32)], True, colour, 2, cv2.LINE_AA)
    for corner_x, corner_y in outline:
        cv2.circle(image, (int(corner_x), int(corner_y)), 7, colour, 2, cv2.LINE_AA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return bytes(encoded) if ok else None
