"""Synthetic camera frames of a real board, with exact labels (INTERFACES.md §3).

A :class:`BoardSetup` is what stays fixed while a game is filmed: board style, checker colours,
camera pose (the four surface corners in the image) and the base lighting.  A :class:`Scene` is
one moment: checkers per physical point and on the bar, dice, a hand or arm, and per-frame
lighting changes.  Everything is drawn top-down on a board canvas (frame + surface), warped into
the camera image with a perspective homography, then the camera is simulated: lighting gradient,
shadows, glare, white-balance cast, blur, noise and JPEG.  All randomness comes from a seeded
``numpy.random.Generator``; the same seed gives the same bytes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.position import Position, starting_position
from vision.dataset import RENDER_2D

__all__ = [
    "BOARD_STYLES",
    "CHECKER_PAIRS",
    "BoardSetup",
    "Scene",
    "DieSpec",
    "HandSpec",
    "random_setup",
    "random_scene",
    "render",
    "render_dataset",
    "scene_from_position",
    "physical_counts",
]

IMAGE_SIZE = (1280, 720)
SURFACE_W = 1100  # canvas px across the playing surface
BAR_FRACTION = 0.0909
CHECKER_FRACTION = 0.0705
POINT_LENGTH = 0.42
DIE_FRACTION = 0.42  # die edge / checker diameter (16 mm vs 38 mm)


@dataclass(frozen=True)
class BoardStyle:
    name: str
    aspect: float  # surface height / width
    surface: tuple[int, int, int]  # BGR
    points: tuple[tuple[int, int, int], tuple[int, int, int]]
    frame: tuple[int, int, int]
    bar: tuple[int, int, int]
    wood: bool = False
    felt: bool = False
    outline: tuple[int, int, int] | None = None


BOARD_STYLES: dict[str, BoardStyle] = {
    "tournament": BoardStyle(
        "tournament", 0.78, (190, 222, 232), ((35, 32, 30), (40, 38, 170)), (30, 30, 34), (36, 36, 40)
    ),
    "wooden": BoardStyle(
        "wooden", 0.74, (120, 170, 212), ((50, 78, 112), (150, 200, 232)), (40, 70, 110), (50, 85, 128),
        wood=True, outline=(30, 45, 70),
    ),
    "felt": BoardStyle(
        "felt", 0.80, (60, 110, 45), ((225, 230, 232), (45, 45, 160)), (40, 55, 90), (40, 60, 95), felt=True
    ),
}

#: (light, dark) checker colours, BGR.
CHECKER_PAIRS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "ivory-black": ((205, 228, 236), (38, 36, 36)),
    "white-red": ((238, 238, 236), (40, 40, 165)),
    "cream-brown": ((175, 215, 235), (30, 55, 95)),
    "white-green": ((232, 236, 235), (60, 90, 30)),
    "beige-maroon": ((160, 195, 215), (40, 30, 110)),
}


#: Skin tones (BGR), light to dark.
SKIN_TONES = [(175, 195, 240), (150, 175, 225), (120, 155, 205), (95, 130, 185), (70, 100, 150), (50, 70, 110)]


@dataclass
class BoardSetup:
    """What stays fixed during one recording: board, checkers, dice style, camera, base light."""

    style: str
    checkers: str
    corners: np.ndarray  # (4, 2) image px of the surface corners TL, TR, BR, BL
    dice_style: str = "ivory"
    table: tuple[int, int, int] = (90, 100, 110)
    light_gradient: tuple[float, float, float] = (1.0, 0.0, 0.0)  # gain, d/du, d/dv
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    noise: float = 2.0
    blur: float = 0.0
    jpeg: int = 90
    markers: bool = False
    seed: int = 0
    _canvas: np.ndarray | None = field(default=None, repr=False)

    @property
    def board(self) -> BoardStyle:
        return BOARD_STYLES[self.style]


@dataclass
class DieSpec:
    value: int
    uv: tuple[float, float]  # board coordinates of the die centre (may lie off the surface)
    angle: float = 0.0
    cocked: bool = False
    on_checker: bool = False


@dataclass
class HandSpec:
    tip_uv: tuple[float, float]  # where the fingertips are (board coordinates)
    from_edge: str  # "bottom" | "top" | "left" | "right" (image edge the arm comes from)
    skin: tuple[int, int, int] = (140, 170, 215)
    sleeve: tuple[int, int, int] | None = None
    width: float = 0.11  # arm width, board units


@dataclass
class Scene:
    """One moment on the board: physical counts, dice, hand, per-frame light changes."""

    points: list[tuple[int, int]]  # 24 (light, dark) pairs, index 0 = P1
    bar: tuple[int, int] = (0, 0)
    dice: list[DieSpec] = field(default_factory=list)
    roll: str = "none"
    void_reason: str | None = None
    hand: HandSpec | None = None
    gain: float = 1.0
    glare: tuple[float, float, float, float] | None = None  # u, v, radius, strength
    shadow: tuple[float, float, float, float, float] | None = None  # u, v, rx, ry, depth
    seed: int = 0


# --- geometry helpers ------------------------------------------------------------------------
def _point_u(point: int, bar: tuple[float, float]) -> tuple[float, float]:
    left_w = bar[0] / 6
    right_w = (1 - bar[1]) / 6
    if point <= 6:
        i = 6 - point
        return (bar[1] + i * right_w, bar[1] + (i + 1) * right_w)
    if point <= 12:
        i = 12 - point
        return (i * left_w, (i + 1) * left_w)
    if point <= 18:
        i = point - 13
        return (i * left_w, (i + 1) * left_w)
    i = point - 19
    return (bar[1] + i * right_w, bar[1] + (i + 1) * right_w)


BAR_U = (0.5 - BAR_FRACTION / 2, 0.5 + BAR_FRACTION / 2)


def stack_spacing(n: int) -> float:
    """Centre spacing in checker diameters: touching up to 5, then compressed into 5 diameters."""
    return 1.0 if n <= 5 else 4.0 / (n - 1)


def checker_centres(scene: Scene, aspect: float, rng: np.random.Generator | None = None) -> list[
    tuple[float, float, int]
]:
    """(u, v, colour 0=light 1=dark) of every checker, in drawing order (bottom first)."""
    d_u = CHECKER_FRACTION
    d_v = d_u / aspect
    out: list[tuple[float, float, int]] = []
    for p in range(1, 25):
        light, dark = scene.points[p - 1]
        colours = [0] * light + [1] * dark
        n = len(colours)
        if not n:
            continue
        u0, u1 = _point_u(p, BAR_U)
        uc = (u0 + u1) / 2
        s = stack_spacing(n) * d_v
        top = p >= 13
        for i, c in enumerate(colours):
            ju = float(rng.normal(0, 0.025 * d_u)) if rng is not None else 0.0
            jv = float(rng.uniform(0, 0.03 * d_v)) if rng is not None else 0.0
            v = d_v / 2 + 0.004 + i * s + jv
            out.append((uc + ju, v if top else 1 - v, c))
    # Bar: light checkers below the middle going down, dark above going up.
    for colour, count in ((0, scene.bar[0]), (1, scene.bar[1])):
        for i in range(count):
            v = 0.5 + (0.6 + i) * d_v * (1 if colour == 0 else -1)
            out.append((0.5, v, colour))
    return out


# --- drawing ---------------------------------------------------------------------------------
def _value_noise(shape: tuple[int, int], scale: int, rng: np.random.Generator) -> np.ndarray:
    h, w = shape
    small = rng.random((max(2, h // scale + 2), max(2, w // scale + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _wood(shape: tuple[int, int], base: tuple[int, int, int], rng: np.random.Generator,
          vertical: bool = False) -> np.ndarray:
    h, w = shape
    warp = _value_noise(shape, 60, rng) * 25
    coord = np.arange(w if not vertical else h, dtype=np.float32)
    if vertical:
        grid = coord[:, None] + warp
    else:
        grid = coord[None, :] + warp
    freq = rng.uniform(0.12, 0.25)
    grain = 0.5 + 0.5 * np.sin(grid * freq + _value_noise(shape, 8, rng) * 2.0)
    grain = grain**3
    fine = _value_noise(shape, 3, rng) - 0.5
    shade = 1.0 - 0.16 * grain + 0.05 * fine
    out = np.asarray(base, np.float32)[None, None, :] * shade[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _board_canvas(setup: BoardSetup) -> np.ndarray:
    """The empty board (frame + surface), top-down, cached per setup."""
    if setup._canvas is not None:
        return setup._canvas
    st = setup.board
    rng = np.random.default_rng(setup.seed + 7)
    sw = SURFACE_W
    sh = int(round(sw * st.aspect))
    margin = int(0.07 * sw)
    H, W = sh + 2 * margin, sw + 2 * margin
    if st.wood:
        canvas = _wood((H, W), st.frame, rng, vertical=True)
        surface = _wood((sh, sw), st.surface, rng)
    else:
        canvas = np.empty((H, W, 3), np.uint8)
        canvas[:] = st.frame
        tex = (_value_noise((H, W), 4, rng) - 0.5) * 10
        canvas = np.clip(canvas + tex[..., None], 0, 255).astype(np.uint8)
        surface = np.empty((sh, sw, 3), np.uint8)
        surface[:] = st.surface
        amp = 14 if st.felt else 6
        tex = (_value_noise((sh, sw), 2, rng) - 0.5) * amp + (_value_noise((sh, sw), 90, rng) - 0.5) * 8
        surface = np.clip(surface + tex[..., None], 0, 255).astype(np.uint8)
    # Points (triangles), alternating colours; inlaid wood gets its own grain and an outline.
    point_tex = [
        _wood((sh, sw), st.points[k], rng) if st.wood else None for k in range(2)
    ]
    for p in range(1, 25):
        u0, u1 = _point_u(p, BAR_U)
        top = p >= 13
        x0, x1 = u0 * sw, u1 * sw
        inset = 0.04 * (x1 - x0)
        base_y = 0 if top else sh
        tip_y = POINT_LENGTH * sh if top else (1 - POINT_LENGTH) * sh
        tri = np.array([[x0 + inset, base_y], [x1 - inset, base_y], [(x0 + x1) / 2, tip_y]])
        colour_index = p % 2
        pts = np.round(tri * 16).astype(np.int32)
        if point_tex[colour_index] is not None:
            mask = np.zeros((sh, sw), np.uint8)
            cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, 4)
            alpha = (mask.astype(np.float32) / 255)[..., None]
            surface = (surface * (1 - alpha) + point_tex[colour_index] * alpha).astype(np.uint8)
        else:
            cv2.fillConvexPoly(surface, pts, st.points[colour_index], cv2.LINE_AA, 4)
        if st.outline is not None:
            cv2.polylines(surface, [pts], True, st.outline, 2, cv2.LINE_AA, 4)
    # Bar.
    bx0, bx1 = int(round(BAR_U[0] * sw)), int(round(BAR_U[1] * sw))
    if st.wood:
        surface[:, bx0:bx1] = _wood((sh, bx1 - bx0), st.bar, rng, vertical=True)
        cv2.line(surface, ((bx0 + bx1) // 2, 0), ((bx0 + bx1) // 2, sh), (25, 35, 50), 2)
    else:
        surface[:, bx0:bx1] = st.bar
    canvas[margin : margin + sh, margin : margin + sw] = surface
    # A slight inner shadow along the frame edge (the rim stands above the surface).
    edge = np.zeros((H, W), np.float32)
    cv2.rectangle(edge, (margin, margin), (margin + sw, margin + sh), 1.0, 6)
    edge = cv2.GaussianBlur(edge, (0, 0), 5)
    canvas = np.clip(canvas * (1 - 0.25 * edge[..., None]), 0, 255).astype(np.uint8)
    if setup.markers:
        _draw_markers(canvas, margin, sw, sh)
    setup._canvas = canvas
    return canvas


def _draw_markers(canvas: np.ndarray, margin: int, sw: int, sh: int) -> None:
    """ArUco DICT_4X4_50 markers 0..3 on the frame at TL, TR, BR, BL, just outside each surface
    corner."""
    size = int(margin * 0.96)
    inner = int(size * 0.8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners = [(margin, margin), (margin + sw, margin), (margin + sw, margin + sh), (margin, margin + sh)]
    for k, (cx, cy) in enumerate(corners):
        code = cv2.aruco.generateImageMarker(dictionary, k, inner)
        right = k in (0, 3)  # the code lies left of the corner, its inner edge on the corner
        below = k in (0, 1)
        x0 = cx - size if right else cx
        y0 = cy - size if below else cy
        patch = np.full((size, size), 235, np.uint8)
        # A white quiet zone all round (detectors need it); the code's inner corner then sits a
        # few millimetres outside the surface corner, as a printed sticker would.
        ox = oy = (size - inner) // 2
        patch[oy : oy + inner, ox : ox + inner] = code
        canvas[y0 : y0 + size, x0 : x0 + size] = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)


def _canvas_geometry(setup: BoardSetup) -> tuple[int, int, int]:
    sw = SURFACE_W
    sh = int(round(sw * setup.board.aspect))
    return sw, sh, int(0.07 * sw)


def _canvas_to_image(setup: BoardSetup) -> np.ndarray:
    sw, sh, m = _canvas_geometry(setup)
    src = np.array([[m, m], [m + sw, m], [m + sw, m + sh], [m, m + sh]], np.float32)
    return cv2.getPerspectiveTransform(src, setup.corners.astype(np.float32))


def _uv_to_canvas(setup: BoardSetup, u: float, v: float) -> tuple[float, float]:
    sw, sh, m = _canvas_geometry(setup)
    return m + u * sw, m + v * sh


def _draw_checker(canvas: np.ndarray, x: float, y: float, r: float, colour: tuple[int, int, int],
                  rng: np.random.Generator) -> None:
    s = 16
    c = (int(round(x * s)), int(round(y * s)))
    base = np.asarray(colour, np.float32)
    lum = float(base.mean())
    rim = tuple(int(v) for v in np.clip(base * (0.62 if lum > 90 else 0.55) + (0 if lum > 90 else 8), 0, 255))
    groove = tuple(int(v) for v in np.clip(base * (0.86 if lum > 90 else 1.5) + 4, 0, 255))
    hi = tuple(int(v) for v in np.clip(base * 1.06 + 12, 0, 255))
    cv2.circle(canvas, c, int(r * s), rim, -1, cv2.LINE_AA, 4)
    cv2.circle(canvas, c, int(r * 0.9 * s), colour, -1, cv2.LINE_AA, 4)
    cv2.circle(canvas, c, int(r * 0.68 * s), groove, max(1, int(r * 0.05)), cv2.LINE_AA, 4)
    off = (int(round((x - 0.18 * r) * s)), int(round((y - 0.2 * r) * s)))
    cv2.circle(canvas, off, int(r * 0.35 * s), hi, -1, cv2.LINE_AA, 4)
    # Bevelled edge: dark plastic shows a bright sheen there, light plastic a darker line.
    bevel = tuple(int(v) for v in np.clip(base + 45, 0, 255)) if lum < 90 else rim
    cv2.circle(canvas, c, int(r * 0.92 * s), bevel, max(1, int(r * 0.05)), cv2.LINE_AA, 4)
    del rng


def _draw_hand(image: np.ndarray, setup: BoardSetup, hand: HandSpec, rng: np.random.Generator) -> None:
    """A forearm (bare or sleeved) and a hand with fingers, from an image edge to ``tip_uv``."""
    h, w = image.shape[:2]
    hom = _canvas_to_image(setup)
    tip_c = _uv_to_canvas(setup, *hand.tip_uv)
    tip = cv2.perspectiveTransform(np.array([[tip_c]], np.float64), hom)[0, 0]
    edge_point = {
        "bottom": (tip[0] + rng.uniform(-150, 150), h + 80),
        "top": (tip[0] + rng.uniform(-150, 150), -80),
        "left": (-80, tip[1] + rng.uniform(-100, 100)),
        "right": (w + 80, tip[1] + rng.uniform(-100, 100)),
    }[hand.from_edge]
    start = np.array(edge_point, np.float64)
    direction = tip - start
    length = float(np.linalg.norm(direction))
    direction /= max(length, 1.0)
    normal = np.array([-direction[1], direction[0]])
    arm_w = hand.width * (setup.corners[1][0] - setup.corners[0][0])
    wrist = tip - direction * arm_w * 1.5
    # Shadow first (offset, soft), then the arm.
    shadow = np.zeros((h, w), np.float32)
    poly = np.array([start + normal * arm_w * 0.55, wrist + normal * arm_w * 0.5,
                     wrist - normal * arm_w * 0.5, start - normal * arm_w * 0.55])
    shift = np.array([rng.uniform(15, 40), rng.uniform(15, 40)])
    cv2.fillConvexPoly(shadow, np.round(poly + shift).astype(np.int32), 1.0)
    cv2.ellipse(shadow, tuple(int(v) for v in tip - direction * arm_w * 0.8 + shift),
                (int(arm_w * 0.75), int(arm_w * 0.6)), math.degrees(math.atan2(direction[1], direction[0])),
                0, 360, 1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 14)
    image[:] = np.clip(image * (1 - 0.45 * shadow[..., None]), 0, 255).astype(np.uint8)
    layer = np.zeros((h, w), np.uint8)
    colour_img = np.zeros_like(image)
    skin = np.asarray(hand.skin, np.float64)
    # Forearm (sleeved part first up to ~60% of the way, then skin).
    cv2.fillConvexPoly(layer, np.round(poly).astype(np.int32), 255, cv2.LINE_AA)
    sleeve_end = start + (wrist - start) * rng.uniform(0.3, 0.7)
    colour_img[layer > 0] = skin
    if hand.sleeve is not None:
        sp = np.array([start + normal * arm_w * 0.62, sleeve_end + normal * arm_w * 0.6,
                       sleeve_end - normal * arm_w * 0.6, start - normal * arm_w * 0.62])
        sl = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(sl, np.round(sp).astype(np.int32), 255, cv2.LINE_AA)
        colour_img[sl > 0] = hand.sleeve
        layer = np.maximum(layer, sl)
    # Palm and fingers.
    palm_c = tip - direction * arm_w * 0.85
    angle = math.degrees(math.atan2(direction[1], direction[0]))
    palm = np.zeros((h, w), np.uint8)
    cv2.ellipse(palm, tuple(int(v) for v in palm_c), (int(arm_w * 0.7), int(arm_w * 0.55)), angle, 0, 360, 255, -1,
                cv2.LINE_AA)
    for k in range(4):
        off = (k - 1.5) * arm_w * 0.24
        f0 = palm_c + normal * off + direction * arm_w * 0.4
        f1 = tip + normal * off * 1.1 - direction * arm_w * abs(k - 1.5) * 0.12
        cv2.line(palm, tuple(int(v) for v in f0), tuple(int(v) for v in f1), 255, max(3, int(arm_w * 0.2)),
                 cv2.LINE_AA)
    thumb0 = palm_c + normal * arm_w * 0.55
    thumb1 = thumb0 + (direction * 0.6 + normal * 0.5) * arm_w
    cv2.line(palm, tuple(int(v) for v in thumb0), tuple(int(v) for v in thumb1), 255, max(3, int(arm_w * 0.22)),
             cv2.LINE_AA)
    colour_img[palm > 0] = skin
    layer = np.maximum(layer, palm)
    # Cylinder shading across the arm + texture.
    alpha = layer.astype(np.float32) / 255
    dist = cv2.distanceTransform((layer > 0).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.72 + 0.28 * np.clip(dist / max(arm_w * 0.35, 1), 0, 1)
    col = colour_img.astype(np.float32) * shade[..., None]
    col += (rng.normal(0, 4, col.shape[:2])[..., None]).astype(np.float32)
    image[:] = np.clip(image * (1 - alpha[..., None]) + col * alpha[..., None], 0, 255).astype(np.uint8)


def render(setup: BoardSetup, scene: Scene) -> tuple[np.ndarray, dict[str, Any]]:
    """One camera frame and its §3 label."""
    from vision import dice_render

    rng = np.random.default_rng(scene.seed)
    canvas = _board_canvas(setup).copy()
    aspect = setup.board.aspect
    sw, sh, m = _canvas_geometry(setup)
    light_c, dark_c = CHECKER_PAIRS[setup.checkers]
    r = CHECKER_FRACTION * sw / 2
    centres = checker_centres(scene, aspect, rng)
    # Soft contact shadows of all checkers, then the checkers bottom-first.
    shadow = np.zeros(canvas.shape[:2], np.float32)
    for u, v, _ in centres:
        x, y = _uv_to_canvas(setup, u, v)
        cv2.circle(shadow, (int(x + 0.12 * r), int(y + 0.15 * r)), int(r * 1.02), 1.0, -1)
    if centres:
        shadow = cv2.GaussianBlur(shadow, (0, 0), r * 0.12)
        canvas = np.clip(canvas * (1 - 0.35 * shadow[..., None]), 0, 255).astype(np.uint8)
    for u, v, c in centres:
        x, y = _uv_to_canvas(setup, u, v)
        tint = rng.normal(0, 3, 3)
        col = tuple(int(t) for t in np.clip(np.asarray(light_c if c == 0 else dark_c) + tint, 0, 255))
        _draw_checker(canvas, x, y, r, col, rng)
    die_px = DIE_FRACTION * 2 * r
    for die in scene.dice:
        x, y = _uv_to_canvas(setup, *die.uv)
        dice_render.draw_die(canvas, (x, y), die.value, die_px * (1.06 if die.on_checker else 1.0), die.angle,
                             cocked=die.cocked, style=setup.dice_style, rng=rng)
    # Camera.
    w, h = IMAGE_SIZE
    hom = _canvas_to_image(setup)
    image = np.empty((h, w, 3), np.uint8)
    image[:] = setup.table
    table_tex = _value_noise((h, w), 30, np.random.default_rng(setup.seed + 3)) - 0.5
    image = np.clip(image + table_tex[..., None] * 20, 0, 255).astype(np.uint8)
    image = cv2.warpPerspective(canvas, hom, (w, h), dst=image, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_TRANSPARENT)
    if scene.hand is not None:
        _draw_hand(image, setup, scene.hand, rng)
    image = _camera_effects(image, setup, scene, rng)
    label = _label(setup, scene)
    return image, label


def _board_uv_to_image(setup: BoardSetup, uv: tuple[float, float]) -> tuple[float, float]:
    x, y = _uv_to_canvas(setup, *uv)
    pt = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), _canvas_to_image(setup))[0, 0]
    return float(pt[0]), float(pt[1])


def _camera_effects(image: np.ndarray, setup: BoardSetup, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    h, w = image.shape[:2]
    img = image.astype(np.float32)
    gain, gu, gv = setup.light_gradient
    xs = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    ys = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None]
    field_ = (gain * scene.gain) * (1 + gu * xs + gv * ys)
    if scene.shadow is not None:
        u, v, rx, ry, depth = scene.shadow
        cx, cy = _board_uv_to_image(setup, (u, v))
        mask = np.zeros((h, w), np.float32)
        scale = setup.corners[1][0] - setup.corners[0][0]
        cv2.ellipse(mask, (int(cx), int(cy)), (int(rx * scale), int(ry * scale)), float(rng.uniform(0, 180)),
                    0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), 25)
        field_ = field_ * (1 - depth * mask)
    img *= field_[..., None] if field_.ndim == 2 else field_
    if scene.glare is not None:
        u, v, rad, strength = scene.glare
        cx, cy = _board_uv_to_image(setup, (u, v))
        scale = setup.corners[1][0] - setup.corners[0][0]
        g = np.exp(-(((np.arange(w)[None, :] - cx) ** 2 + (np.arange(h)[:, None] - cy) ** 2)
                     / (2 * (rad * scale) ** 2))).astype(np.float32)
        img += (strength * 255 * g)[..., None]
    img *= np.asarray(setup.white_balance, np.float32)[None, None, :]
    if setup.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), setup.blur)
    img += rng.normal(0, setup.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(setup.jpeg)])
    if ok:
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _label(setup: BoardSetup, scene: Scene) -> dict[str, Any]:
    dice = []
    for die in scene.dice:
        x, y = _board_uv_to_image(setup, die.uv)
        dice.append({"value": int(die.value), "centre": [round(x, 1), round(y, 1)]})
    return {
        "points": [[int(a), int(b)] for a, b in scene.points],
        "bar": {"light": int(scene.bar[0]), "dark": int(scene.bar[1])},
        "dice": dice,
        "roll": scene.roll,
        "void_reason": scene.void_reason,
        "occluded": scene.hand is not None and _hand_over_surface(scene.hand),
    }


def _hand_over_surface(hand: HandSpec) -> bool:
    u, v = hand.tip_uv
    return -0.02 <= u <= 1.02 and -0.02 <= v <= 1.02


# --- scene generation ------------------------------------------------------------------------
def camera_corners(aspect: float, height_px: float, offset: tuple[float, float], *, tilt_deg: float,
                   roll_deg: float, hfov_deg: float) -> np.ndarray:
    """Image corners (TL, TR, BR, BL) of a board `aspect` high per unit wide, photographed by a
    pinhole camera (square pixels, principal point at the image centre, `hfov_deg` wide) from
    `tilt_deg` off vertical beyond the board's near (bottom) edge and turned `roll_deg` about its
    axis; it aims so that the board is about `height_px` tall, its centre `offset` px from the
    image centre.  (A real camera that sees the far edge shorter also sees the board shorter.)"""
    w, h = IMAGE_SIZE
    f = w / 2 / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]])
    plane = np.array([[0, 0, 0], [1, 0, 0], [1, aspect, 0], [0, aspect, 0]], np.float64)
    t = math.radians(tilt_deg)
    back = np.array([0.0, math.sin(t), math.cos(t)])

    def project(target: np.ndarray, dist: float) -> np.ndarray:
        eye = target + dist * back
        z = (target - eye) / np.linalg.norm(target - eye)
        y = np.cross(z, [1.0, 0.0, 0.0])
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        rot = np.stack([x, -y, z])
        cam = (k @ (rot @ (plane - eye).T)).T
        return cam[:, :2] / cam[:, 2:]

    centre = np.array([0.5, aspect / 2, 0.0])
    dist = f * aspect / height_px
    for _ in range(3):  # the board's height in the picture shrinks in proportion to the distance
        pts = project(centre, dist)
        dist *= float(np.mean(pts[2:, 1]) - np.mean(pts[:2, 1])) / height_px
    # aim a little off the board's centre so that it lies `offset` px off the image centre
    pts = project(centre, dist)
    px_per_unit = float(np.linalg.norm(pts[1] - pts[0]))
    target = centre - np.array([offset[0], offset[1] / math.cos(t), 0.0]) / px_per_unit
    pts = project(target, dist)
    r = math.radians(roll_deg)
    rotm = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])
    return (pts - [w / 2, h / 2]) @ rotm.T + [w / 2, h / 2]


def random_setup(rng: np.random.Generator, style: str | None = None, checkers: str | None = None) -> BoardSetup:
    style = style or str(rng.choice(list(BOARD_STYLES)))
    checkers = checkers or str(rng.choice(list(CHECKER_PAIRS)))
    aspect = BOARD_STYLES[style].aspect
    w, h = IMAGE_SIZE
    markers = bool(rng.random() < 0.3)
    # With markers on the frame, keep the whole frame in view.
    height = rng.uniform(0.72, 0.78) * h if markers else rng.uniform(0.8, 0.9) * h
    offset = (rng.uniform(-60, 60), rng.uniform(-15, 15))
    camera = {"tilt_deg": float(rng.uniform(0.0, 20.0)), "roll_deg": float(rng.uniform(-3, 3)),
              "hfov_deg": float(rng.uniform(55.0, 72.0))}
    corners = camera_corners(aspect, height, offset, **camera)
    while not ((corners >= 2) & (corners <= [w - 3, h - 3])).all():  # the whole board in view
        height *= 0.97
        corners = camera_corners(aspect, height, offset, **camera)
    wb = (float(rng.uniform(0.85, 1.1)), 1.0, float(rng.uniform(0.85, 1.15)))
    return BoardSetup(
        style=style,
        checkers=checkers,
        corners=corners,
        dice_style=str(rng.choice(["ivory", "white", "red", "black"])),
        table=tuple(int(v) for v in rng.integers(40, 170, 3)),  # type: ignore[arg-type]
        light_gradient=(float(rng.uniform(0.85, 1.1)), float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        white_balance=wb,
        noise=float(rng.uniform(1.0, 4.0)),
        blur=float(rng.choice([0.0, 0.6, 1.0])),
        jpeg=int(rng.integers(70, 96)),
        markers=markers,
        seed=int(rng.integers(0, 2**31)),
    )


def _random_counts(rng: np.random.Generator, variant: str) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    owner = [-1] * 24
    counts = [[0, 0] for _ in range(24)]
    bar = [0, 0]
    for colour in (0, 1):
        total = int(rng.choice([15, 15, 15, 14, 13, 12, 10, 8, 5]))
        if variant == "backgammon" and rng.random() < 0.25:
            bar[colour] = int(rng.integers(1, 4))
            total = max(total - bar[colour], 0)
        n_points = int(rng.integers(2, 9))
        free = [p for p in range(24) if owner[p] == -1]
        chosen = list(rng.choice(free, size=min(n_points, len(free)), replace=False))
        big = rng.random() < 0.25
        weights = rng.dirichlet(np.ones(len(chosen)) * (0.4 if big else 1.5))
        alloc = np.floor(weights * total).astype(int)
        for _ in range(total - int(alloc.sum())):
            alloc[int(rng.integers(len(chosen)))] += 1
        for p, a in zip(chosen, alloc, strict=True):
            if a > 0:
                owner[p] = colour
                counts[p][colour] = int(a)
    return [(a, b) for a, b in counts], (bar[0], bar[1])


def physical_counts(position: Position, light_on_roll: bool = True, orientation: str = "bottom-right") -> tuple[
    list[tuple[int, int]], tuple[int, int]
]:
    """Physical (light, dark) counts for a position (see vision.observation for orientation)."""
    from vision.observation import position_to_physical

    return position_to_physical(position, light_on_roll, orientation)


def scene_from_position(position: Position, dice: tuple[int, ...] = (), *, light_on_roll: bool = True,
                        seed: int = 0, hand: bool = False, roll: str = "valid",
                        orientation: str = "bottom-right", aspect: float = 0.78) -> Scene:
    """A scene of ``position`` with ``dice`` lying as ``roll`` says (valid: in the right half)."""
    points, bar = physical_counts(position, light_on_roll, orientation)
    scene = Scene(points=points, bar=bar, seed=seed)
    rng = np.random.default_rng(seed)
    if dice:
        kind = roll
        if len(dice) == 1 and kind == "different_halves":
            raise ValueError("one die cannot lie in different halves")
        _place_dice(scene, rng, list(dice), aspect, kind, forced_half="right" if kind == "valid" else None)
        if scene.roll == "none":
            raise ValueError(f"no room on this board for dice lying as {roll!r}")
    if hand:
        scene.hand = HandSpec((0.3, 0.65), "bottom")
    return scene


def _free(scene: Scene, aspect: float, uv: tuple[float, float], clearance: float, others: list[tuple[float, float]],
          centres: list[tuple[float, float, int]]) -> bool:
    u, v = uv
    d = CHECKER_FRACTION
    for cu, cv, _ in centres:
        if math.hypot(u - cu, (v - cv) * aspect) < d / 2 + clearance:
            return False
    for ou, ov in others:
        if math.hypot(u - ou, (v - ov) * aspect) < 2.2 * clearance:
            return False
    return True


def _place_dice(scene: Scene, rng: np.random.Generator, values: list[int], aspect: float, kind: str,
                forced_half: str | None = None) -> None:
    """Put dice on the scene so that the roll is ``kind`` (valid or a void reason)."""
    centres = checker_centres(scene, aspect, None)
    die_u = DIE_FRACTION * CHECKER_FRACTION
    clearance = die_u * 0.8
    half = forced_half or str(rng.choice(["left", "right"]))

    def sample(h: str) -> tuple[float, float] | None:
        lo, hi = (0.03, BAR_U[0] - 0.03) if h == "left" else (BAR_U[1] + 0.03, 0.97)
        for _ in range(300):
            uv = (float(rng.uniform(lo, hi)), float(rng.uniform(0.06, 0.94)))
            if _free(scene, aspect, uv, clearance, placed, centres):
                return uv
        return None

    placed: list[tuple[float, float]] = []
    specs: list[DieSpec] = []
    reason: str | None = None
    for i, value in enumerate(values):
        h = half
        if kind == "different_halves" and i == 1:
            h = "right" if half == "left" else "left"
        uv = None
        cocked = on_checker = False
        if i == 0 and kind == "on_checker" and centres:
            tops = _stack_tops(scene, centres)
            cu, cv, _ = tops[int(rng.integers(len(tops)))]
            uv = (cu + float(rng.normal(0, 0.004)), cv + float(rng.normal(0, 0.004)))
            on_checker = True
            reason = "on_checker"
        elif i == 0 and kind == "off_board":
            side = str(rng.choice(["left", "right", "top", "bottom"]))
            off = float(rng.uniform(0.03, 0.05))
            if side in ("left", "right"):
                uv = (-off if side == "left" else 1 + off, float(rng.uniform(0.1, 0.9)))
            else:
                uv = (float(rng.uniform(0.1, 0.9)), -off * aspect if side == "top" else 1 + off * aspect)
            reason = "off_board"
        elif i == 0 and kind == "cocked":
            uv = _lean_spot(scene, rng, aspect, centres, h, die_u, placed)
            cocked = True
            reason = "cocked"
        if uv is None:
            uv = sample(h)
        if uv is None:
            continue
        if kind == "different_halves":
            reason = "different_halves"
        placed.append(uv)
        specs.append(DieSpec(int(value), uv, float(rng.uniform(0, 90)), cocked, on_checker))
    if len(specs) != len(values) or (kind not in ("valid", "different_halves") and reason is None):
        scene.dice, scene.roll, scene.void_reason = [], "none", None
        return
    scene.dice = specs
    scene.roll = "valid" if kind == "valid" else "void"
    scene.void_reason = None if kind == "valid" else reason


def _stack_tops(scene: Scene, centres: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """The uppermost (last drawn) checker of every stack: the one a die can rest on."""
    tops: dict[float, tuple[float, float, int]] = {}
    for c in centres:
        key = round(c[0], 2) if abs(c[0] - 0.5) > 0.02 else 0.5 + (0.1 if c[1] > 0.5 else -0.1)
        tops[key] = c
    return list(tops.values())


def _lean_spot(scene: Scene, rng: np.random.Generator, aspect: float, centres: list[tuple[float, float, int]],
               half: str, die_u: float, placed: list[tuple[float, float]]) -> tuple[float, float] | None:
    """A spot where a die touches a checker or the rail, so that it leans (cocked)."""
    in_half = [c for c in centres if (c[0] < BAR_U[0]) == (half == "left") and abs(c[0] - 0.5) > 0.05]
    for _ in range(60):
        if in_half and rng.random() < 0.7:
            cu, cv, _ = in_half[int(rng.integers(len(in_half)))]
            ang = rng.uniform(0, 2 * math.pi)
            dist = CHECKER_FRACTION / 2 + die_u * 0.45
            uv = (cu + dist * math.cos(ang), cv + dist * math.sin(ang) / aspect)
        else:
            lo, hi = (0.05, BAR_U[0] - 0.05) if half == "left" else (BAR_U[1] + 0.05, 0.95)
            uv = (float(rng.uniform(lo, hi)), float(rng.choice([die_u * 0.5 / aspect, 1 - die_u * 0.5 / aspect])))
        inside = 0.02 < uv[0] < 0.98 and 0.02 < uv[1] < 0.98 and not (BAR_U[0] - 0.02 < uv[0] < BAR_U[1] + 0.02)
        if inside and _free(scene, aspect, uv, die_u * 0.35, placed, centres):
            return uv
    return None


def random_scene(setup: BoardSetup, rng: np.random.Generator, *, occluded_rate: float = 0.12) -> Scene:
    variant = "backgammon" if rng.random() < 0.6 else "nardy"
    points, bar = _random_counts(rng, variant)
    scene = Scene(points=points, bar=bar, seed=int(rng.integers(0, 2**31)))
    aspect = setup.board.aspect
    kind = str(rng.choice(
        ["none", "valid", "valid", "valid", "different_halves", "cocked", "on_checker", "off_board"],
        p=[0.14, 0.18, 0.18, 0.18, 0.08, 0.08, 0.08, 0.08],
    ))
    if kind != "none":
        values = [int(v) for v in rng.integers(1, 7, 2)]
        _place_dice(scene, rng, values, aspect, kind)
    if rng.random() < occluded_rate:
        edge = str(rng.choice(["bottom", "bottom", "top", "left", "right"]))
        tip = (float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85)))
        skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        skin = tuple(int(v) for v in np.clip(np.array(skin) * rng.uniform(0.9, 1.08), 0, 255))
        sleeve = tuple(int(v) for v in rng.integers(20, 230, 3)) if rng.random() < 0.5 else None
        scene.hand = HandSpec(tip, edge, skin, sleeve, float(rng.uniform(0.09, 0.13)))  # type: ignore[arg-type]
    scene.gain = float(rng.uniform(0.92, 1.08))
    if rng.random() < 0.25:
        scene.glare = (float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.03, 0.07)),
                       float(rng.uniform(0.05, 0.15)))
    if rng.random() < 0.3:
        scene.shadow = (float(rng.uniform(0, 1)), float(rng.uniform(0, 1)), float(rng.uniform(0.1, 0.3)),
                        float(rng.uniform(0.05, 0.2)), float(rng.uniform(0.1, 0.25)))
    return scene


def render_dataset(out_dir: str | Path, frames: int, seed: int, *, style: str | None = None,
                   checkers: str | None = None, occluded_rate: float = 0.12) -> Path:
    """Write a whole ``referee-frames/1`` dataset (with empty and start reference frames)."""
    if frames < 1:
        raise ValueError("a dataset needs at least one frame")
    if style is not None and style not in BOARD_STYLES:
        raise ValueError(f"unknown board style {style!r} (one of {', '.join(BOARD_STYLES)})")
    if checkers is not None and checkers not in CHECKER_PAIRS:
        raise ValueError(f"unknown checker colours {checkers!r} (one of {', '.join(CHECKER_PAIRS)})")
    rng = np.random.default_rng(seed)
    setup = random_setup(rng, style, checkers)
    out = Path(out_dir)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    variant = "backgammon"
    empty, _ = render(setup, Scene(points=[(0, 0)] * 24, seed=seed + 1))
    start_pts, start_bar = physical_counts(starting_position(variant))
    start, _ = render(setup, Scene(points=start_pts, bar=start_bar, seed=seed + 2))
    cv2.imwrite(str(out / "frames" / "empty.png"), empty)
    cv2.imwrite(str(out / "frames" / "start.png"), start)
    names = []
    for i in range(1, frames + 1):
        scene = random_scene(setup, rng, occluded_rate=occluded_rate)
        image, label = render(setup, scene)
        name = f"frames/{i:04d}"
        cv2.imwrite(str(out / f"{name}.png"), image)
        (out / f"{name}.json").write_text(json.dumps(label) + "\n", encoding="utf-8")
        names.append(f"{name}.png")
    meta = {
        "format": "referee-frames/1",
        "board": {"corners": [[round(float(x), 2), round(float(y), 2)] for x, y in setup.corners]},
        "reference": {"empty": "frames/empty.png", "start": {"image": "frames/start.png", "variant": variant}},
        "frames": names,
        "generator": {"tool": RENDER_2D, "seed": seed, "style": setup.style, "checkers": setup.checkers},
    }
    (out / "dataset.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return out
