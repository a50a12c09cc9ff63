"""Draw realistic dice into camera frames (used by the synthetic renderer and by tests).

`draw_die` models the die as a small 3-D cube seen through a nearly top-down orthographic camera:
every face that points towards the camera is drawn (Lambert shading, bevelled rim, highlight) with
its pips as projected ellipses, over a soft contact shadow.  A flat die shows its top face and, when
the view is slightly oblique, a thin sliver of one or two side faces; a *cocked* die (leaning on an
edge against a checker or the rail) is tilted 22-35 degrees, so its top face is foreshortened and a
large side face with its own pips is visible, as a camera sees it.

Everything is rendered at 4x into a small patch and area-downsampled, so dice at board scale
(16 mm ~ 34 px, pips ~ 6 px) have antialiased edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["DieStyle", "STYLES", "PIP_LAYOUT", "draw_die", "side_values"]


@dataclass(frozen=True)
class DieStyle:
    """Colours (BGR) and proportions of one kind of die."""

    body: tuple[int, int, int]
    pip: tuple[int, int, int]
    pip_radius: float = 0.095  # relative to the die's edge length
    pip_offset: float = 0.27  # distance of corner pips from the face centre, relative to the edge
    corner_radius: float = 0.13
    gloss: float = 0.25  # strength of the specular highlight, 0..1


STYLES: dict[str, DieStyle] = {
    "ivory": DieStyle(body=(196, 226, 238), pip=(28, 26, 24)),
    "white": DieStyle(body=(240, 240, 240), pip=(20, 20, 20)),
    "red": DieStyle(body=(40, 35, 190), pip=(245, 245, 245), gloss=0.35),
    "black": DieStyle(body=(38, 36, 36), pip=(235, 235, 235), gloss=0.4),
}

# Pip centres of each face in face coordinates (units of the pip offset, y down), as on real dice.
PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}

_SS = 4  # supersampling factor


def side_values(top: int) -> tuple[int, int, int, int]:
    """Values of the four side faces (+x, +y, -x, -y in the die's frame) of a standard die with
    `top` up: opposite faces sum to 7, and the sides are the four values other than top and bottom."""
    if not 1 <= top <= 6:
        raise ValueError(f"die value must be 1..6, not {top}")
    others = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = others[0]
    b = next(v for v in others if v not in (a, 7 - a))
    return (a, b, 7 - a, 7 - b)


def _rot_x(deg: float) -> np.ndarray:
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def _rot_y(deg: float) -> np.ndarray:
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=np.float64)


def _rot_z(deg: float) -> np.ndarray:
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def _rounded_square(half: float, radius: float, per_corner: int = 6) -> np.ndarray:
    """Outline of a rounded square centred at 0 in 2-D face coordinates."""
    pts = []
    r = min(radius, half)
    for cx, cy, a0 in ((half - r, half - r, 0), (-half + r, half - r, 90), (-half + r, -half + r, 180),
                       (half - r, -half + r, 270)):
        for k in range(per_corner + 1):
            a = np.radians(a0 + 90 * k / per_corner)
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts, dtype=np.float64)


# Faces of the unit cube: (normal, u axis, v axis) in the die's own frame; z is up (towards camera
# for a flat die), x right, y down the image.
_FACES = (
    (np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),  # top
    (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, -1.0])),  # +x
    (np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0])),  # +y
    (np.array([-1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, -1.0])),  # -x
    (np.array([0.0, -1.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0])),  # -y
)


def _choose_style(style: str | DieStyle | None, rng: np.random.Generator | None) -> DieStyle:
    if isinstance(style, DieStyle):
        return style
    if style is None:
        if rng is None:
            return STYLES["ivory"]
        return STYLES[list(STYLES)[int(rng.integers(len(STYLES)))]]
    try:
        return STYLES[style]
    except KeyError:
        raise ValueError(f"unknown die style {style!r}; known: {', '.join(STYLES)}") from None


def draw_die(
    image_bgr: np.ndarray,
    centre_xy: tuple[float, float],
    value: int,
    size_px: float,
    angle_deg: float,
    *,
    cocked: bool = False,
    style: str | DieStyle | None = None,
    rng: np.random.Generator | None = None,
) -> None:
    """Draw one die in place on `image_bgr` (uint8, 3 channels).

    `centre_xy`: where the centre of the top face appears; `size_px`: edge length in pixels;
    `angle_deg`: rotation of the die about the vertical; `value`: the top face.  `cocked` tilts the
    die onto an edge.  `style`: a name from `STYLES`, a `DieStyle`, or None (ivory, or a random
    style when `rng` is given).  `rng` also varies view obliqueness, light and tilt; without it the
    result is deterministic.
    """
    if not 1 <= int(value) <= 6:
        raise ValueError(f"die value must be 1..6, not {value}")
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError("image must be a uint8 BGR image")
    st = _choose_style(style, rng)
    value = int(value)

    if rng is not None:
        view_tilt = float(rng.uniform(0.0, 8.0))
        view_az = float(rng.uniform(0.0, 360.0))
        light_az = float(rng.uniform(200.0, 340.0))
        cock_deg = float(rng.uniform(22.0, 35.0))
        cock_az = float(rng.choice([0.0, 90.0, 180.0, 270.0]))
        shade_jitter = float(rng.uniform(0.93, 1.04))
    else:
        view_tilt, view_az, light_az, cock_deg, cock_az, shade_jitter = 7.0, 90.0, 250.0, 27.0, 90.0, 1.0

    # Die orientation: cocked = rotated about one of its horizontal axes, then spun about vertical.
    r_die = _rot_z(angle_deg)
    if cocked:
        r_die = r_die @ _rot_z(cock_az) @ _rot_x(cock_deg) @ _rot_z(-cock_az)
    # Camera: orthographic, looking down -z, slightly oblique.
    r_view = _rot_x(view_tilt) @ _rot_z(-view_az)
    r_view = _rot_z(view_az) @ r_view
    rot = r_view @ r_die

    s = float(size_px) * _SS
    pad = int(np.ceil(s * 1.25)) + 4
    patch_w = patch_h = 2 * pad
    colour = np.zeros((patch_h, patch_w, 3), np.float32)
    alpha = np.zeros((patch_h, patch_w), np.float32)

    # The cube's centre sits half an edge below the top face centre.
    top_centre_world = rot @ np.array([0.0, 0.0, 0.5])

    def project(p_die: np.ndarray) -> np.ndarray:
        w = (rot @ p_die.T).T - top_centre_world
        return w[:, :2] * s + pad

    light = np.array([np.cos(np.radians(light_az)) * 0.45, np.sin(np.radians(light_az)) * 0.45, 0.89])
    light /= np.linalg.norm(light)
    view_dir = np.array([0.0, 0.0, 1.0])
    body = np.array(st.body, np.float32)
    pip_col = np.array(st.pip, np.float32)

    # Contact shadow on the table: a blurred ellipse offset away from the light.
    shadow = np.zeros((patch_h, patch_w), np.float32)
    foot = np.array([[x, y, -0.5] for x, y in _rounded_square(0.5, 0.2)])
    foot_img = project(foot) - light[:2] * s * 0.12
    cv2.fillPoly(shadow, [np.round(foot_img).astype(np.int32)], 1.0)
    k = int(s * 0.18) | 1
    shadow = cv2.GaussianBlur(shadow, (k, k), 0) * 0.45

    # Faces: sort by depth (farther first) and keep those facing the camera.
    sides = side_values(value)
    face_values = (value, *sides)
    visible = []
    for idx, (n, u, v) in enumerate(_FACES):
        n_w = rot @ n
        if n_w @ view_dir <= 0.02:
            continue
        depth = (rot @ (n * 0.5))[2]
        visible.append((depth, idx, n, u, v, n_w))
    visible.sort(key=lambda t: t[0])

    outline = _rounded_square(0.5, st.corner_radius)
    inner = _rounded_square(0.44, st.corner_radius * 0.8)
    for _, idx, n, u, v, n_w in visible:
        lam = float(max(0.0, n_w @ light))
        facing = float(n_w @ view_dir)
        shade = (0.35 + 0.7 * lam) * shade_jitter
        face_c = np.clip(body * shade, 0, 255)
        rim_c = np.clip(body * shade * 0.82, 0, 255)

        def to_img(pts2: np.ndarray, n=n, u=u, v=v) -> np.ndarray:
            p3 = n[None, :] * 0.5 + pts2[:, :1] * u[None, :] + pts2[:, 1:2] * v[None, :]
            return np.round(project(p3)).astype(np.int32)

        poly = to_img(outline)
        cv2.fillPoly(colour, [poly], rim_c.tolist())
        cv2.fillPoly(alpha, [poly], 1.0)
        cv2.fillPoly(colour, [to_img(inner)], face_c.tolist())
        # pips: slightly recessed, so a little darker at their upper rim
        fv = face_values[idx]
        circle = np.array([(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)])
        for px, py in PIP_LAYOUT[fv]:
            c2 = np.array([px, py], np.float64) * st.pip_offset
            pc = pip_col * (0.75 + 0.25 * shade) if facing > 0.3 else pip_col * 0.9
            if st.pip[0] > 128:  # light pips take some of the face's shading
                pc = np.clip(pip_col * min(1.0, shade + 0.1), 0, 255)
            cv2.fillPoly(colour, [to_img(c2 + circle * st.pip_radius)], pc.tolist())

    # Soften the bevel, then add a specular highlight on the top face.
    colour = np.asarray(cv2.GaussianBlur(colour, (0, 0), max(0.6, s * 0.012)), np.float32)
    if st.gloss > 0:
        hl = np.zeros((patch_h, patch_w), np.float32)
        top_n_w = rot @ _FACES[0][0]
        if top_n_w @ view_dir > 0.3:
            off = -light[:2] * 0.18
            c3 = _FACES[0][0] * 0.5 + off[0] * _FACES[0][1] + off[1] * _FACES[0][2]
            hc = project(c3[None, :])[0]
            cv2.circle(hl, (int(hc[0]), int(hc[1])), max(1, int(s * 0.16)), 1.0, -1)
            hl = cv2.GaussianBlur(hl, (0, 0), s * 0.1) * st.gloss * 90
            colour += hl[:, :, None] * alpha[:, :, None]

    # Downsample 4x (area) and composite: shadow first, then the die.
    out_w, out_h = patch_w // _SS, patch_h // _SS
    colour_s = cv2.resize(colour * alpha[:, :, None], (out_w, out_h), interpolation=cv2.INTER_AREA)
    alpha_s = cv2.resize(alpha, (out_w, out_h), interpolation=cv2.INTER_AREA)
    shadow_s = cv2.resize(shadow, (out_w, out_h), interpolation=cv2.INTER_AREA)
    with np.errstate(invalid="ignore", divide="ignore"):
        colour_s = np.where(alpha_s[:, :, None] > 1e-4, colour_s / np.maximum(alpha_s[:, :, None], 1e-4), 0)

    x0 = int(round(centre_xy[0] - pad / _SS))
    y0 = int(round(centre_xy[1] - pad / _SS))
    h_img, w_img = image_bgr.shape[:2]
    ix0, iy0 = max(0, x0), max(0, y0)
    ix1, iy1 = min(w_img, x0 + out_w), min(h_img, y0 + out_h)
    if ix0 >= ix1 or iy0 >= iy1:
        return
    px0, py0 = ix0 - x0, iy0 - y0
    px1, py1 = px0 + (ix1 - ix0), py0 + (iy1 - iy0)
    roi = image_bgr[iy0:iy1, ix0:ix1].astype(np.float32)
    sh = shadow_s[py0:py1, px0:px1, None]
    roi *= 1.0 - sh
    a = alpha_s[py0:py1, px0:px1, None]
    roi = roi * (1.0 - a) + colour_s[py0:py1, px0:px1] * a
    image_bgr[iy0:iy1, ix0:ix1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
