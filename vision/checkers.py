"""Checkers per point and on the bar, from the canonical (top-down) board image.

Each point is read as a 1-D profile along its axis, from the board edge towards the middle:
how different each row looks from the empty board (occupancy) and how much structure it has
(rims).  Occupied rows form runs; a run up to about four checkers long is counted by its length,
a longer one (touching or overlapping stacks) by fitting evenly spaced rims (a comb) between the
board edge and the fully visible top checker.  Every checker slot is then classified light or
dark against the colours learnt at calibration.  No Hough circles: they fail on stacks and on
low-contrast checkers.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.config import VisionConfig

__all__ = [
    "PointReading",
    "CheckerReading",
    "normalise_illumination",
    "occupancy_map",
    "read_checkers",
    "stack_extents",
    "checker_mask",
]


@dataclass
class PointReading:
    light: int
    dark: int
    confidence: float
    runs: list[tuple[float, float, list[int]]] = field(default_factory=list)  # (start, end, colours) px


@dataclass
class CheckerReading:
    points: list[PointReading]
    bar_light: int
    bar_dark: int
    bar_runs: list[tuple[float, float, list[int]]]
    bar_confidence: float


_SMALL_CACHE: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}


def _illumination_field(canon: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Per-channel gain (frame / background) as a smooth plane, fitted robustly on coarse cells."""
    gw, gh = 32, 24
    a = cv2.resize(canon, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32) + 4
    key = ("small", id(background))
    hit = _SMALL_CACHE.get(key)
    if hit is None or hit[0] is not background:
        small_bg = cv2.resize(background, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32) + 4
        _SMALL_CACHE.clear()
        _SMALL_CACHE[key] = (background, small_bg)
    b = _SMALL_CACHE[key][1]
    ratio = (a / b).reshape(-1, 3)
    ys, xs = np.mgrid[0:gh, 0:gw]
    xs = (xs.reshape(-1) + 0.5) / gw - 0.5
    ys = (ys.reshape(-1) + 0.5) / gh - 0.5
    design = np.stack([np.ones_like(xs), xs, ys, xs * ys], axis=1).astype(np.float32)
    # Cells whose three channels change by the same factor are lighting, not checkers.
    lum = ratio.mean(axis=1)
    chroma_dev = np.abs(ratio / lum[:, None] - 1).max(axis=1)
    weights = (chroma_dev < 0.12).astype(np.float32)
    if weights.sum() < 40:
        weights[:] = 1
    coeffs = np.zeros((4, 3), np.float32)
    for _ in range(3):
        w = weights
        coeffs, *_ = np.linalg.lstsq(design * w[:, None], ratio * w[:, None], rcond=None)  # all channels at once
        fit = design @ coeffs
        resid = np.abs(ratio - fit).max(axis=1) / np.maximum(fit.mean(axis=1), 0.1)
        new = ((resid < 0.1) & (chroma_dev < 0.2)).astype(np.float32)
        if new.sum() < 30:
            break
        weights = new
    field_small = (design @ coeffs).reshape(gh, gw, 3)
    return np.clip(field_small, 0.3, 3.0)


def normalise_illumination(canon: np.ndarray, background: np.ndarray, local: bool = False) -> np.ndarray:
    """``canon`` with the lighting change since ``background`` divided out: a smooth gain plane
    per channel, then local shadows (a mild darkening or brightening of every channel alike)."""
    small = _illumination_field(canon, background)
    h, w = canon.shape[:2]
    full = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if not local:
        return cv2.divide(canon.astype(np.float32), full, dtype=cv2.CV_8U)
    flat = canon.astype(np.float32) / full
    # Local residual gain on coarse cells; a checker column is narrow, so a wide horizontal
    # median ignores it, and the clamp keeps checkers from being "normalised" away.
    cw, ch = max(8, w // 16), max(6, h // 16)
    a = cv2.resize(flat, (cw, ch), interpolation=cv2.INTER_AREA).mean(axis=2) + 4
    b = cv2.resize(background, (cw, ch), interpolation=cv2.INTER_AREA).astype(np.float32).mean(axis=2) + 4
    ratio = np.clip(a / b, 0.4, 2.5).astype(np.float32)
    ratio = _hmedian(ratio, 9)
    ratio = cv2.GaussianBlur(ratio, (0, 0), 1.0)
    ratio = np.clip(ratio, 0.65, 1.15)
    local = cv2.resize(ratio, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(flat / local[..., None], 0, 255).astype(np.uint8)


def _hmedian(grid: np.ndarray, width: int) -> np.ndarray:
    """Median over a horizontal window of ``width`` cells (rows are independent)."""
    pad = width // 2
    padded = np.pad(grid, ((0, 0), (pad, pad)), mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, width, axis=1)
    return np.median(windows, axis=2).astype(np.float32)


def _clamp(x: float, lo: float, hi: float) -> float:
    """``x`` limited to [lo, hi] (a scalar ``np.clip`` costs microseconds in the per-point loops)."""
    return lo if x < lo else hi if x > hi else x


def _median_rows(patch: np.ndarray) -> np.ndarray:
    """Per-channel median of an (n, 3) array (the upper middle for even n), by partition:
    several times cheaper than ``np.median`` for the small patches read per checker slot."""
    k = patch.shape[0] // 2
    return np.partition(patch, k, axis=0)[k].astype(np.float32)


def _median1(values: np.ndarray) -> float:
    """``np.median`` of a short 1-D array, by partition (the mean of the two middle values, in the
    array's own precision, when their number is even)."""
    n = values.size
    k = n // 2
    if n % 2:
        return float(np.partition(values, k)[k])
    part = np.partition(values, (k - 1, k))
    return float((part[k - 1] + part[k]) / part.dtype.type(2))


def _lab_terms(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """L*, a*, b* (centred) and L*+16 (what a lighting change scales) of an OpenCV Lab image."""
    lum, ch_a, ch_b = cv2.split(lab)
    ch_a -= 128
    ch_b -= 128
    return lum, ch_a, ch_b, lum * np.float32(100 / 255) + np.float32(16)


def _lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)


@dataclass
class BackgroundModel:
    """What is computed once from the empty board: its Lab image and its texture."""

    lab: np.ndarray
    texture_hi: np.ndarray  # local maximum of the board's texture (tolerates a pixel of shift)
    texture_lo: np.ndarray  # local minimum
    tolerance: np.ndarray  # lightness change tolerated per pixel (shadows, glare)
    ls: np.ndarray | None = None  # L* + 16 (what a lighting change scales)
    ca: np.ndarray | None = None  # a* (chroma, centred)
    cb: np.ndarray | None = None  # b*
    far: dict[tuple[float, ...], np.ndarray] = field(default_factory=dict)  # board unlike a checker colour


_BG_CACHE: dict[int, tuple[np.ndarray, BackgroundModel]] = {}


def background_model(background: np.ndarray, config: VisionConfig, size: tuple[int, int]) -> BackgroundModel:
    key = hash((id(background), size, config.lightness_tolerance))
    hit = _BG_CACHE.get(key)
    if hit is not None and hit[0] is background:
        return hit[1]
    bg_lab = cv2.resize(_lab(background), size, interpolation=cv2.INTER_AREA)
    gb = cv2.GaussianBlur(bg_lab[..., 0], (0, 0), 0.7)
    texture = cv2.GaussianBlur(np.abs(cv2.Laplacian(gb, cv2.CV_32F, ksize=3)), (0, 0), 1.0)
    kernel = np.ones((5, 5), np.uint8)
    tolerance = np.maximum(config.lightness_tolerance * (bg_lab[..., 0] + 20), config.lightness_floor).astype(np.float32)
    model = BackgroundModel(bg_lab, cv2.dilate(texture, kernel), cv2.erode(texture, kernel), tolerance,
                            np.ascontiguousarray(bg_lab[..., 0] * (100 / 255) + 16, np.float32),
                            np.ascontiguousarray(bg_lab[..., 1] - 128, np.float32),
                            np.ascontiguousarray(bg_lab[..., 2] - 128, np.float32))
    if len(_BG_CACHE) > 8:
        _BG_CACHE.clear()
    _BG_CACHE[key] = (background, model)
    return model


def occupancy_map(canon: np.ndarray, background: np.ndarray, config: VisionConfig,
                  lab: np.ndarray | None = None, bg_lab: np.ndarray | None = None,
                  colours: tuple[np.ndarray, np.ndarray] | None = None,
                  checker_px: float | None = None, dice: np.ndarray | None = None) -> np.ndarray:
    """0..1 per pixel: how unlike the empty board this pixel is (colour and local structure).

    Computed at half the canonical resolution (runs need no finer detail) and scaled back up.
    ``checker_px`` is the checker diameter in canonical pixels (default from the config).
    ``dice``: canonical bool mask of the dice found; an outline a die closes is no checker's rim.
    """
    lab = _lab(canon) if lab is None else lab
    lab_full = lab
    full_size = (lab.shape[1], lab.shape[0])
    lab = cv2.resize(lab, (full_size[0] // 2, full_size[1] // 2), interpolation=cv2.INTER_AREA)
    bg = background_model(background, config, (lab.shape[1], lab.shape[0]))
    assert bg.ls is not None and bg.ca is not None and bg.cb is not None
    lum, ch_a, ch_b, ls_now = _lab_terms(lab)
    # Lightness changes within a tolerance are lighting (shadow, glare), not checkers.
    dl = np.maximum(np.abs(lum - bg.lab[..., 0]) - bg.tolerance, 0)
    # A shadow or a brighter lamp scales the board's chroma with its lightness (Lab's a*, b* and
    # L*+16 all scale by the cube root of the light's change): compare chroma with the board's
    # chroma so scaled, within the range of plausible lighting changes.
    gain = np.clip(ls_now / bg.ls, config.shadow_gain_min, config.shadow_gain_max)
    shade_a = ch_a - bg.ca * gain
    shade_b = ch_b - bg.cb * gain
    dist = np.sqrt(0.6 * dl * dl + shade_a * shade_a + shade_b * shade_b)
    # Structure: checkers add rims where the board is flat (black on black) and hide its grain.
    gl = cv2.GaussianBlur(lum, (0, 0), 0.7)
    tex_now = cv2.GaussianBlur(np.abs(cv2.Laplacian(gl, cv2.CV_32F, ksize=3)), (0, 0), 1.0)
    # Only texture outside the board's own local range counts (edges shift by a pixel).
    tex = np.maximum(tex_now - bg.texture_hi, 0) + np.maximum(bg.texture_lo - tex_now, 0)
    tex = cv2.GaussianBlur(tex, (0, 0), 1.0)
    score = (dist + config.texture_gain * tex) * (1.0 / config.diff_scale)
    if colours is not None:
        # Closer to a learnt checker colour than to the empty board here: a checker, even when
        # it is nearly the board's colour (cream on white, light on maple).
        d_ck = None
        big = np.float32(1e6)
        for centre in colours:
            cl, c_a, c_b = (float(v) for v in centre)
            dk = 0.6 * np.square(lum - cl) + np.square(ch_a - (c_a - 128)) + np.square(ch_b - (c_b - 128))
            # Where the board itself is nearly this checker colour the test cannot tell.
            key = (cl, c_a, c_b, float(config.colour_separation))
            far = bg.far.get(key)
            if far is None:
                db = bg.lab - centre.reshape(1, 1, 3)
                board_near = 0.6 * db[..., 0] * db[..., 0] + db[..., 1] * db[..., 1] + db[..., 2] * db[..., 2]
                far = bg.far[key] = board_near >= config.colour_separation**2
            dk = np.where(far, dk, big)
            d_ck = dk if d_ck is None else np.minimum(d_ck, dk)
        assert d_ck is not None
        # Here lightness counts in full: dark brown on walnut differs mostly in lightness.
        # The board is compared as lit now: its colour scaled by the plausible lighting gain that
        # best explains the pixel (a red point in shadow is the colour of a red checker).
        # The gain is the lighting around the pixel, not the pixel's own: a dark checker on a
        # dark point of its hue is no shadow when the board beside it kept its light.
        local = _local_gain(ls_now, ch_a, ch_b, bg,
                            0.5 * (checker_px or config.checker_fraction * config.canonical_width), config)
        _GAIN_MEMO[:] = [weakref.ref(lab_full), local]  # the checker stage classifies under it too
        dll = (ls_now - bg.ls * local) * np.float32(255 / 100)
        lit_a = ch_a - bg.ca * local
        lit_b = ch_b - bg.cb * local
        dist_full = np.sqrt(0.6 * dll * dll + lit_a * lit_a + lit_b * lit_b)
        # A pixel several times nearer a checker colour than the board's own colour here.
        ratio = np.sqrt(d_ck) / np.maximum(dist_full, 1.0)
        advantage = np.clip((config.colour_ratio - ratio) * (1.0 / 0.3), 0, 1)
        # ...but only where the pixel changed noticeably at all (noise, lighting drift).
        score = np.maximum(score, advantage * np.clip(dist_full * (1.0 / config.colour_min_change), 0, 1))
    score = cv2.GaussianBlur(np.clip(score, 0, 1.5), (0, 0), 0.6)
    # A checker the colour of its point shows only its rim: fill closed outlines.
    binary = (score > config.occupancy_threshold).astype(np.uint8)
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, _CLOSE_KERNEL)
    if checker_px is None:
        checker_px = config.checker_fraction * config.canonical_width
    dice_small = None
    if dice is not None and dice.any():
        dice_small = cv2.resize(dice.astype(np.uint8), (binary.shape[1], binary.shape[0]),
                                interpolation=cv2.INTER_NEAREST)
        dice_small = cv2.dilate(dice_small, np.ones((5, 5), np.uint8)).astype(bool)
    holes = _fill_holes(binary, 0.5 * checker_px, config.hole_max_checkers, dice_small)
    small = np.maximum(score, holes.astype(np.float32))
    return cv2.resize(small, full_size, interpolation=cv2.INTER_LINEAR)


def _local_gain(ls_now: np.ndarray, ch_a: np.ndarray, ch_b: np.ndarray, bg: BackgroundModel, d: float,
                config: VisionConfig) -> np.ndarray:
    """The lighting gain on (L*+16) around every pixel since the empty board: estimated from the
    pixels whose change a lighting change explains (chroma scaled with lightness), smoothed over
    a few checker diameters and with the outliers (checkers of the board's hue) left out."""
    assert bg.ls is not None and bg.ca is not None and bg.cb is not None
    g = ls_now / bg.ls
    ca = ch_a - bg.ca * g
    cb = ch_b - bg.cb * g
    w = ((ca * ca + cb * cb < config.lighting_chroma**2) & (g > 0.5) & (g < 1.5)).astype(np.float32)
    h, wd = g.shape
    small = (max(8, wd // 4), max(6, h // 4))
    gs = cv2.resize(g, small, interpolation=cv2.INTER_AREA)
    ws = cv2.resize(w, small, interpolation=cv2.INTER_AREA)
    sigma = config.lighting_radius * d / 4
    field = np.ones_like(gs)
    for _ in range(2):
        num = cv2.GaussianBlur(gs * ws, (0, 0), sigma)
        den = cv2.GaussianBlur(ws, (0, 0), sigma)
        field = np.where(den > 0.05, num / np.maximum(den, 1e-6), 1.0).astype(np.float32)
        ws = ws * (np.abs(gs - field) < config.lighting_outlier)
    field = np.clip(field, config.shadow_gain_min, config.shadow_gain_max)
    return cv2.resize(field, (wd, h), interpolation=cv2.INTER_LINEAR)


# The last lighting-gain field the occupancy stage computed, with a weak reference to the Lab
# image it was computed from (so it is never used for another frame).
_GAIN_MEMO: list[Any] = [None, None]

SHORT_STACK = 4.45  # checker diameters: a run up to this long is counted by its length (its checkers touch)
BAND_HALF = 0.18  # checker diameters either side of a point's axis that its profiles average

_CLOSE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (6, 6))


def _fill_holes(binary: np.ndarray, d: float, max_checkers: float, dice: np.ndarray | None = None) -> np.ndarray:
    """``binary`` with every checker-sized region that cannot be reached from the board's middle
    row filled (``d``: checker diameter in these pixels).

    The board edges count as walls, so a checker outline touching the edge still encloses it.
    A larger enclosed region is empty board walled in by neighbouring stacks, a die or a shadow
    (a whole empty point between two stacks), not the inside of one checker's rim.
    """
    h, w = binary.shape
    count, labels, stats, _ = cv2.connectedComponentsWithStats((binary == 0).astype(np.uint8), connectivity=4)
    reachable = np.zeros(count, bool)
    reachable[np.unique(labels[h // 2])] = True
    # One checker's inside: no wider or taller than a checker, no larger than its disc.
    limit = 1.15 * d
    big = ((stats[:, cv2.CC_STAT_WIDTH] > limit) | (stats[:, cv2.CC_STAT_HEIGHT] > max_checkers * limit)
           | (stats[:, cv2.CC_STAT_AREA] > max_checkers * 0.785 * d * d))
    reachable |= big
    if dice is not None:
        # A region walled in by a die (and the board edge, a stack) is board beside a die.
        reachable[np.unique(labels[dice])] = True
    reachable[0] = False  # label 0 is the occupied pixels themselves
    return (~reachable[labels]).astype(np.uint8)


@dataclass
class _Ctx:
    config: VisionConfig
    lab: np.ndarray
    occ: np.ndarray
    unknown: np.ndarray  # bool, canonical: rows/cols covered by dice
    lum: np.ndarray  # lightly blurred lightness, for rim profiles
    d: float  # checker diameter, canonical px
    light: np.ndarray
    dark: np.ndarray
    colour_threshold: float | None
    colour_limit: float | None = None  # Lab distance beyond which a bar slot is no checker
    bg_lab: np.ndarray | None = None  # the empty board's Lab image (canonical), when colours are learnt
    dice_xy: list[tuple[float, float]] = field(default_factory=list)  # dice centres, canonical px
    gain: np.ndarray | None = None  # lighting gain on L*+16 around each pixel since calibration (canonical)
    # Band averages along the point axes, per column, computed once per occupancy map (see _columns).
    columns: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    columns_of: np.ndarray | None = None  # the occupancy map the "occ" and "occ3" columns are of
    step: np.ndarray | None = None  # the row-to-row lightness change


def _columns(ctx: _Ctx, kind: str, cs: list[int]) -> list[np.ndarray]:
    """Full-height columns ``cs`` of a horizontal band filter (edge columns repeated):
    ``occ``: occupancy averaged over the band along a point's axis (``2 * _band_half + 1``
    columns); ``unknown``: any pixel of the band unknown; ``edge``: the row-to-row lightness
    change averaged over the band; ``occ3``: occupancy averaged over three columns.  Only the
    columns the strips read are computed (all asked for at once), and kept for this image."""
    if ctx.columns_of is not ctx.occ:
        for key in [k for k in ctx.columns if k[0] in ("occ", "occ3")]:
            del ctx.columns[key]
        ctx.columns_of = ctx.occ
    todo = sorted({c for c in cs if (kind, c) not in ctx.columns})
    if todo:
        half = 1 if kind == "occ3" else _band_half(ctx)
        w = ctx.occ.shape[1]
        idx = np.clip(np.asarray(todo)[:, None] + np.arange(-half, half + 1)[None, :], 0, w - 1)
        if kind == "unknown":
            values = ctx.unknown[:, idx].any(axis=2)
        else:
            if kind == "edge":
                if ctx.step is None:
                    lum = ctx.lum.astype(np.float32, copy=False)
                    ctx.step = np.zeros_like(lum)  # |row - row above| (0 on the first row)
                    cv2.absdiff(lum[1:], lum[:-1], dst=ctx.step[1:])
                band = ctx.step[:, idx]
            else:
                band = ctx.occ[:, idx]
            # as OpenCV's normalised box filter: a double sum times 1/size, rounded to float32
            values = (band.sum(axis=2, dtype=np.float64) * (1.0 / idx.shape[1])).astype(np.float32)
        for j, c in enumerate(todo):
            ctx.columns[(kind, c)] = values[:, j]
    return [ctx.columns[(kind, c)] for c in cs]


def _band_half(ctx: _Ctx) -> int:
    """Half-width (px) of the band along a point's axis that its profiles average."""
    return max(2, int(round(BAND_HALF * ctx.d)))


def _axis_column(ctx: _Ctx, centre_x: float) -> int:
    return int(_clamp(round(centre_x), 0, ctx.occ.shape[1] - 1))


def _side_columns(ctx: _Ctx, centre_x: float, offset: float) -> tuple[int, int]:
    w = ctx.occ.shape[1]
    return (int(_clamp(round(centre_x - offset * ctx.d), 1, w - 2)),
            int(_clamp(round(centre_x + offset * ctx.d), 1, w - 2)))


def _prefetch_columns(ctx: _Ctx, centres: list[float]) -> None:
    """The band columns of every point axis in ``centres``, computed together."""
    axes = [_axis_column(ctx, x) for x in centres]
    for kind in ("occ", "unknown", "edge"):
        _columns(ctx, kind, axes)
    _columns(ctx, "occ3", [c for x in centres for off in (0.4, 0.25) for c in _side_columns(ctx, x, off)])


def _band(ctx: _Ctx, centre_x: float) -> slice:
    half = _band_half(ctx)
    c = int(round(centre_x))
    return slice(max(0, c - half), c + half + 1)


def _profiles(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool) -> tuple[np.ndarray, ...]:
    cols = _band(ctx, centre_x)
    c = _axis_column(ctx, centre_x)
    occ, unknown, edge = (_columns(ctx, kind, [c])[0][rows] for kind in ("occ", "unknown", "edge"))
    lab = ctx.lab[rows, cols]
    if unknown.any():
        occ, lab, unknown_left = _beside_dice(ctx, centre_x, rows, occ, lab, unknown)
        # The rims under a die are hidden and the die's own edges are no rims: not known there.
        edge = np.where(unknown, np.nan, edge).astype(np.float32)
        unknown = unknown_left
    if reverse:
        return occ[::-1], lab[::-1], unknown[::-1], edge[::-1]
    return occ, lab, unknown, edge


def _beside_dice(ctx: _Ctx, centre_x: float, rows: slice, occ: np.ndarray, lab: np.ndarray,
                 unknown: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows a die hides on the point's axis: a checker under the die is wider than the die and
    shows beside it.  Where the columns beside the die (not under it) hold a checker, take
    their occupancy and colour for the axis; elsewhere the rows stay unknown."""
    w = ctx.occ.shape[1]
    idx = np.flatnonzero(unknown)  # only the hidden rows are looked at
    abs_rows = idx + (rows.start or 0)
    side_occ, side_free, side_lab = [], [], []
    for sign in (-1, 1):
        # The outermost columns of the checker that the die's mask leaves free, row by row.
        best_occ = np.zeros(idx.size, np.float32)
        best_lab = np.zeros((idx.size, 3), np.float32)
        free = np.zeros(idx.size, bool)
        for frac in ctx.config.beside_die_offsets:
            c = int(_clamp(round(centre_x + sign * frac * ctx.d), 1, w - 2))
            ok = ~ctx.unknown[abs_rows, c - 1 : c + 2].any(axis=1) & ~free
            ok &= _clear_of_dice(ctx, float(c), abs_rows)
            if not ok.any():
                continue
            best_occ[ok] = ctx.occ[abs_rows[ok], c - 1 : c + 2].mean(axis=1)
            best_lab[ok] = np.sort(ctx.lab[abs_rows[ok], c - 1 : c + 2], axis=1)[:, 1]
            free |= ok
        side_occ.append(best_occ)
        side_free.append(free)
        side_lab.append(best_lab)
    # Both sides must be seen: a die off the axis covers one, and its own body shows on the other.
    both = np.minimum(side_occ[0], side_occ[1])
    under = side_free[0] & side_free[1] & (both > ctx.config.occupancy_threshold)
    if not under.any():
        return occ, lab, unknown
    rows_under = idx[under]
    occ = occ.copy()
    occ[rows_under] = np.minimum(both[under], 1.0)
    lab = lab.copy()
    lab[rows_under] = (0.5 * (side_lab[0][under] + side_lab[1][under]))[:, None, :]
    unknown = unknown.copy()
    unknown[rows_under] = False
    return occ, lab, unknown


def _clear_of_dice(ctx: _Ctx, x: float, ys: np.ndarray) -> np.ndarray:
    """Per canonical row in ``ys``: whether column ``x`` lies beyond every die's body (a die is
    larger than the mask its pips give, and leans or casts a shadow)."""
    clear = np.ones(ys.size, bool)
    reach = ctx.config.die_reach * ctx.d
    for dx, dy in ctx.dice_xy:
        clear &= np.hypot(x - dx, ys - dy) > reach
    return clear


def _cut_at_dice(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool, start: int, end: int) -> int:
    """A run ending against a die beside the point's axis ends where the die's body begins (the
    die's edge and shadow reach into the band the mask leaves)."""
    reach = ctx.config.die_reach * ctx.d
    band = BAND_HALF * ctx.d
    r0 = rows.start or 0
    r1 = rows.stop if rows.stop is not None else ctx.occ.shape[0]
    for dx, dy in ctx.dice_xy:
        off = abs(dx - centre_x)
        if off <= band or off >= band + reach:
            continue  # on the axis (the mask and the beside test handle it) or clear of the band
        if not r0 <= dy < r1:
            continue
        t = (r1 - 1 - dy) if reverse else (dy - r0)
        along = float(np.sqrt(max(reach * reach - (off - band) ** 2, 0.0)))
        if t - along - 0.15 * ctx.d <= end <= t + along + ctx.config.die_shadow * ctx.d:
            end = max(start, int(round(t - along)))
    return end


def _side_min(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool, offset: float) -> np.ndarray:
    """Per row, the lesser occupancy ``offset`` diameters either side of the axis (3-px means)."""
    left, right = _columns(ctx, "occ3", list(_side_columns(ctx, centre_x, offset)))
    side = np.minimum(left[rows], right[rows])
    return side[::-1] if reverse else side


def _side_profile(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool) -> np.ndarray:
    """Occupancy 0.4 diameters either side of the axis: it dips between checkers that touch or
    stand apart (the board shows between two circles there), not in a tight overlapping stack."""
    return _side_min(ctx, centre_x, rows, reverse, 0.4)


def _breadth(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool, start: int, end: int) -> float:
    """Share of a run's rows occupied a quarter diameter either side of the axis: near 1 for
    checkers, low for a thin streak (a point's edge seen a pixel off, a seam)."""
    seg = _side_min(ctx, centre_x, rows, reverse, 0.25)[start:end]
    return float((seg > ctx.config.occupancy_threshold).mean()) if seg.size else 0.0


_RIM_ANGLES = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)
_RIM_RADII = (0.85, 0.92, 1.0)  # of a checker's radius: its rim's edge, wherever the bevel puts it
_RIM_AWAY = float(np.cos(np.radians(70.0)))  # a circle above a checker is looked at 70+ degrees from their contact
_BG_GRADIENT: list[Any] = [None, None]  # (the empty board's Lab image, its lightness gradient)


def _gradient(lum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y lightness change per px (3x3 Sobel)."""
    return cv2.Sobel(lum, cv2.CV_32F, 1, 0) * np.float32(1 / 8), cv2.Sobel(lum, cv2.CV_32F, 0, 1) * np.float32(1 / 8)


def _rims_up_the_stack(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool,
                       runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A short stack at the board edge goes on while the next checker's place (one diameter on,
    the checkers touching) shows a new round rim (`next_rim`): checkers the colour of their point
    show little more than their rims and highlights."""
    if ctx.bg_lab is None or not runs or runs[0][0] != 0:
        return runs
    d = ctx.d
    start, end = runs[0]
    if end - start > SHORT_STACK * d:
        return runs
    k = int(round((end - start) / d))
    if k < 1:
        return runs  # (a speck at the edge is no checker to go on from)
    limit = (rows.stop if rows.stop is not None else ctx.occ.shape[0]) - (rows.start or 0)
    while k < 5 and (k + 1) * d <= limit and _edge_rim(ctx, centre_x, rows, reverse, k * d, below=True) >= ctx.config.next_rim:
        k += 1
    if k * d <= end + 0.5 * d:
        return runs
    end = int(round(k * d))
    rest = [(a, b) for a, b in runs[1:] if b > end]
    if rest and rest[0][0] < end:
        end = rest.pop(0)[1]
    return [(start, end)] + rest


def _edge_rim(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool, offset: float = 0.0,
              below: bool = False) -> float:
    """Share of a checker-sized circle resting on the board edge at this point's axis (or
    ``offset`` px further along it) along which a round edge shows (lightness changing across
    the circle) that the empty board does not have there: the rim of a checker whose face is the
    colour of the point under it.  ``below``: a checker lies below the circle, whose contact
    side is not looked at."""
    if ctx.bg_lab is None:
        return 0.0
    if _BG_GRADIENT[0] is not ctx.bg_lab:
        _BG_GRADIENT[:] = [ctx.bg_lab, _gradient(cv2.GaussianBlur(ctx.bg_lab[..., 0], (0, 0), 0.8))]
    bx, by = _BG_GRADIENT[1]
    h, w = bx.shape
    r0 = rows.start or 0
    r1 = rows.stop if rows.stop is not None else h
    yc = (r1 - 1 - offset - ctx.d / 2) if reverse else (r0 + offset + ctx.d / 2)
    # the frame's gradient around the circle only (a 3x3 filter: the same values inside)
    reach = ctx.d / 2 + 2
    x0, y0 = max(0, int(centre_x - reach) - 1), max(0, int(yc - reach) - 1)
    x1, y1 = min(w, int(centre_x + reach) + 3), min(h, int(yc + reach) + 3)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0
    px, py = _gradient(np.ascontiguousarray(ctx.lum[y0:y1, x0:x1]))
    cos, sin = np.cos(_RIM_ANGLES), np.sin(_RIM_ANGLES)
    now = np.zeros(_RIM_ANGLES.size)
    was = np.zeros(_RIM_ANGLES.size)
    seen = np.ones(_RIM_ANGLES.size, bool)
    for f in _RIM_RADII:
        r = f * ctx.d / 2
        x = np.round(centre_x + r * cos).astype(np.intp)
        y = np.round(yc + r * sin).astype(np.intp)
        seen &= (x >= 1) & (x < w - 1) & (y >= max(1, r0)) & (y < min(h - 1, r1))
        x, y = np.clip(x, x0, x1 - 1), np.clip(y, y0, y1 - 1)
        now = np.maximum(now, np.abs(px[y - y0, x - x0] * cos + py[y - y0, x - x0] * sin))
        was = np.maximum(was, np.abs(bx[y, x] * cos + by[y, x] * sin))
    if below:
        # not where it touches the checker below it (whose own rim and shadow lie along there)
        seen &= sin * (1.0 if reverse else -1.0) <= _RIM_AWAY
    if seen.sum() < 8:
        return 0.0
    cfg = ctx.config
    new = now >= np.maximum(cfg.rim_edge_min, cfg.rim_edge_gain * was + 1.0)
    return float(new[seen].mean())


def _count_separate(side: np.ndarray, start: int, end: int, d: float, threshold: float) -> int | None:
    """Checkers in a run whose members are separated by visible gaps at the side, or None."""
    seg = side[start:end]
    low = seg < threshold
    # Gaps: stretches of low side occupancy strictly inside the run, at least 0.6 d apart.
    idx = np.flatnonzero(low)
    if idx.size == 0:
        return None
    groups = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)
    centres = [float(g.mean()) for g in groups if g[0] > 0.3 * d and g[-1] < seg.size - 0.3 * d]
    if len(centres) < 3:
        return None
    spacing = np.diff([0.0] + centres + [float(seg.size)])
    if spacing.min() < 0.6 * d or spacing.max() > 1.5 * d:
        return None
    return len(centres) + 1


def _runs(occ: np.ndarray, unknown: np.ndarray, threshold: float, max_gap: int,
          min_tail: int = 0) -> list[tuple[int, int]]:
    """Occupied stretches [start, end) of a profile; gaps up to ``max_gap`` rows, or gaps that are
    wholly unknown (under a die), do not split a run.  A stretch shorter than ``min_tail`` just
    past a die is the die's edge or shadow, not more checkers."""
    on = (occ > threshold) & ~unknown
    idx = np.flatnonzero(on)
    if idx.size == 0:
        return []
    # Consecutive occupied rows form segments; join segments across short or unknown gaps.
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks] + 1, [idx[-1] + 1]))
    runs: list[tuple[int, int]] = []
    cur_s, cur_e = int(starts[0]), int(ends[0])
    for st, en in zip(starts[1:], ends[1:], strict=True):
        gap = int(st) - cur_e
        if gap <= max_gap:
            cur_e = int(en)
        elif unknown[cur_e : int(st)].all():
            if int(en) - int(st) >= min_tail:
                cur_e = int(en)
        else:
            runs.append((cur_s, cur_e))
            cur_s, cur_e = int(st), int(en)
    runs.append((cur_s, cur_e))
    return runs


def _autocorr_curve(sig: np.ndarray) -> np.ndarray:
    """Autocorrelation of ``sig`` at every integer lag, each lag normalised by its overlap.
    NaN samples (rows under a die) are left out of every lag's sum and overlap."""
    valid = ~np.isnan(sig)
    if not valid.any():
        return np.zeros(sig.size)
    x = np.where(valid, sig - float(sig[valid].mean()), 0.0)
    full = np.correlate(x, x, mode="full")[x.size - 1 :]
    v = valid.astype(np.float64)
    overlap = np.maximum(np.correlate(v, v, mode="full")[x.size - 1 :], 1.0)
    return (full / overlap) / max(float(full[0] / overlap[0]), 1e-9)


def _autocorr_at(curve: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """``curve`` (from _autocorr_curve) at every fractional lag of ``lags`` (-1 past its end)."""
    lo = np.floor(lags).astype(np.intp)
    inside = lo + 1 < curve.size - 2
    lo_ok = np.where(inside, lo, 0)
    frac = lags - lo
    return np.where(inside, (1 - frac) * curve[lo_ok] + frac * curve[lo_ok + 1], -1.0)


def _comb_count(edge: np.ndarray, start: int, end: int, d: float, config: VisionConfig) -> tuple[int, float]:
    """Checkers in a long run, from the spacing at which its rim profile repeats.

    Rims of a stack are evenly spaced between the board edge and the fully visible top checker:
    the fundamental spacing s is the smallest lag whose autocorrelation is near the best one
    (multiples of s score as well, fractions do not), refined to sub-pixel; then
    n = (length - d) / s + 1, cross-checked by counting the rim peaks.
    """
    length = end - start
    sig = edge[start : max(start + 4, int(end - 0.5 * d))].astype(np.float64)
    # The step from the board to the first checker (and glare) is far stronger than the rims
    # between stacked checkers; clipped, one strong step cannot drown their periodicity.
    seen = sig[~np.isnan(sig)]
    if seen.size >= 8:
        sig = np.minimum(sig, min(float(np.percentile(seen, config.comb_clip_percentile)),
                                  config.comb_clip_median * float(np.median(seen)) + 1.0))
    fallback = max(1, int(round(length / d)))
    if sig.size < 8:
        return fallback, 0.0
    lags = np.arange(max(2.0, config.min_edge_spacing * d), min(1.3 * d, sig.size / 2), 0.5)
    if lags.size < 3:
        return fallback, 0.0
    curve = _autocorr_curve(sig)
    scores = _autocorr_at(curve, lags)
    best = float(scores.max())
    if best <= 0.15:
        return fallback, 0.2
    # Local maxima near the best: the smallest such lag is the fundamental.
    s_fund = None
    for i in range(1, lags.size - 1):
        if scores[i] >= scores[i - 1] and scores[i] >= scores[i + 1] and scores[i] >= config.comb_ratio * best:
            a, b, c = scores[i - 1], scores[i], scores[i + 1]
            den = a - 2 * b + c
            shift = 0.5 * (a - c) / den if abs(den) > 1e-9 else 0.0
            s_fund = float(lags[i] + _clamp(shift, -0.5, 0.5) * 0.5)
            break
    if s_fund is None:
        s_fund = float(lags[int(np.argmax(scores))])
    if config.comb_half_ratio > 0:
        # A clear peak at half that spacing makes it the second harmonic (every other rim of a
        # tight stack is the stronger one): the spacing is the half.
        near_half = np.abs(lags - s_fund / 2) <= max(0.5, 0.06 * s_fund)
        for i in np.flatnonzero(near_half):
            if (0 < i < lags.size - 1 and scores[i] >= scores[i - 1] and scores[i] >= scores[i + 1]
                    and scores[i] >= config.comb_half_ratio * best):
                s_fund = float(lags[i])
                break
    # Refine on a higher harmonic: the k-th repeat pins the spacing k times more precisely.
    k = int((0.6 * sig.size) // s_fund)
    if k >= 2:
        cand = np.arange(k * s_fund - s_fund / 3, k * s_fund + s_fund / 3, 0.25)
        cand = cand[cand < sig.size - 3]
        if cand.size:
            vals = _autocorr_at(curve, cand)
            if float(vals.max()) >= 0.5 * best:
                s_fund = float(cand[int(np.argmax(vals))]) / k
    # The top checker's back rim lies about one diameter before the run's end; find the real
    # rim there (the run's end is blurred by shadows), and count spacings up to it.
    full = np.nan_to_num(edge.astype(np.float64))
    # The run's end is blurred by the top checker's shadow: its front rim is the last strong step.
    a, b = int(max(start, end - 0.3 * d)), int(min(full.size, end + 1))
    if b > a:
        end = a + int(np.argmax(full[a:b])) + 1
    lo = int(max(start, end - d - 0.5 * s_fund))
    hi = int(min(full.size - 1, end - d + 0.5 * s_fund))
    if hi > lo and np.isnan(edge[lo : hi + 1]).mean() < 0.3:  # (not where a die hides that rim)
        t_last = lo + int(np.argmax(full[lo : hi + 1])) - start
        n_est = t_last / s_fund + 1
    else:
        n_est = (length - d) / s_fund + 1
    n = int(_clamp(round(n_est), 2, config.max_stack))
    conf = float(_clamp(1 - 2 * abs(n_est - n), 0, 1) * min(1.0, best / 0.5))
    return n, conf


def _count_run(ctx: _Ctx, start: int, end: int, edge: np.ndarray,
               side: np.ndarray | None = None) -> tuple[int, float]:
    length = end - start
    ratio = length / ctx.d
    if ratio < 0.55:
        return 0, float(_clamp(1 - 2 * abs(ratio - 0.3) / 0.5, 0.3, 1))
    if ratio <= SHORT_STACK:
        n = int(round(ratio))
        return max(n, 1), float(_clamp(1 - 2 * abs(ratio - round(ratio)), 0, 1))
    if side is not None:
        separate = _count_separate(side, start, end, ctx.d, ctx.config.occupancy_threshold)
        if separate is not None:
            return separate, 0.9
    n, conf = _comb_count(edge, start, end, ctx.d, ctx.config)
    if n < 4:
        n = int(round(ratio))
    return n, conf


def _relit(colour: np.ndarray, gain: float) -> np.ndarray:
    """A Lab colour (OpenCV 8-bit scale) as it would look under the calibration's light, given
    the lighting gain on L*+16 where it was seen (a* and b* scale alike)."""
    if abs(gain - 1.0) < 1e-3:
        return colour
    ls = (float(colour[0]) * (100 / 255) + 16) / gain
    return np.array([(ls - 16) * (255 / 100), 128 + (float(colour[1]) - 128) / gain,
                     128 + (float(colour[2]) - 128) / gain], np.float32)


def _classify(ctx: _Ctx, colour: np.ndarray) -> int:
    if ctx.colour_threshold is not None:
        return 0 if colour[0] >= ctx.colour_threshold else 1
    dl = np.linalg.norm(colour - ctx.light)
    dd = np.linalg.norm(colour - ctx.dark)
    return 0 if dl <= dd else 1


def _slot_colours(ctx: _Ctx, lab: np.ndarray, start: int, end: int, n: int,
                  unknown: np.ndarray | None = None, vote: bool = True,
                  gain: np.ndarray | None = None) -> list[int]:
    if n <= 0:
        return []
    length = end - start
    s = (length - ctx.d) / (n - 1) if n > 1 else ctx.d
    out = []
    hidden = []  # colours of slots a die mostly hides: on a point they only vote when no other can
    for k in range(n):
        a = start + k * s
        b = start + (k + 1) * s if k < n - 1 else end
        margin = 0.2 * (b - a)
        lo, hi = int(a + margin), max(int(a + margin) + 1, int(b - margin))
        rows = lab[lo:hi]
        covered = 0.0
        if unknown is not None and unknown[lo:hi].size:
            covered = float(unknown[lo:hi].mean())
            if covered < 1.0:
                rows = rows[~unknown[lo:hi]]
        patch = rows.reshape(-1, 3)
        if patch.size == 0:
            continue
        colour = _median_rows(patch)
        if gain is not None and hi > lo:
            colour = _relit(colour, _median1(gain[lo:hi]))
        if covered > ctx.config.hidden_slot:
            hidden.append(_classify(ctx, colour))
            if not vote:
                out.append(-1)  # on the bar: the colour of its neighbour in the stack
            continue
        if not vote and ctx.colour_limit is not None:
            # On the bar, a slot the colour of neither checker is glare or a shadow (lightness
            # counts for less: the bar's lighting differs from the points').
            nearest = min(_shaded_distance(colour, ctx.light), _shaded_distance(colour, ctx.dark))
            if nearest > ctx.colour_limit:
                continue
        out.append(_classify(ctx, colour))
    if not vote:  # the bar holds both colours; slots of neither colour were dropped
        seen = [c for c in out if c >= 0]
        if not seen:
            return hidden
        for i in range(len(out)):
            if out[i] < 0:
                before = [c for c in out[:i] if c >= 0]
                out[i] = before[-1] if before else seen[0]
        return out
    if not out:
        out = hidden
    if not out:
        return []
    # A point holds one colour in any legal position; out-vote stray slots (highlights, dice).
    light = out.count(0)
    if light >= 0.65 * len(out):
        out = [0] * n
    elif light <= 0.35 * len(out):
        out = [1] * n
    while len(out) < n:
        out.append(out[-1])
    return out


def _shaded_distance(colour: np.ndarray, centre: np.ndarray) -> float:
    """Lab distance with lightness at half weight (shading changes lightness most)."""
    dl = 0.5 * float(colour[0] - centre[0])
    return float(np.sqrt(dl * dl + float(colour[1] - centre[1]) ** 2 + float(colour[2] - centre[2]) ** 2))


def _band_rows(ctx: _Ctx, image: np.ndarray, centre_x: float, rows: slice, reverse: bool) -> np.ndarray:
    band = image[rows, _band(ctx, centre_x)]
    return band[::-1] if reverse else band


def _trim_bar_run(ctx: _Ctx, lab: np.ndarray, bg: np.ndarray, start: int, end: int,
                  hidden: np.ndarray) -> tuple[int, int]:
    """Shorten a run on the bar by its rows that look like the empty bar there (shading allowed):
    the occupancy profile is smooth, so a run overshoots its stack by a fraction of a checker at
    each end, and on the bar no board edge anchors it.  A row counts as bare bar only if it is
    clearly nearer the empty bar than either checker colour (a brown checker on a brown bar is
    never trimmed)."""
    limit = ctx.config.bar_trim_delta

    def bare(i: int) -> bool:
        if hidden[i]:
            return False
        colour = _median_rows(lab[i])
        to_bar = _shaded_distance(colour, _median_rows(bg[i]))
        nearest = min(_shaded_distance(colour, ctx.light), _shaded_distance(colour, ctx.dark))
        return to_bar <= limit and to_bar < 0.5 * nearest

    while end - start > 1 and bare(start):
        start += 1
    while end - start > 1 and bare(end - 1):
        end -= 1
    return start, end


def _trim_board_slots(ctx: _Ctx, lab: np.ndarray, bg: np.ndarray, start: int, end: int, colours: list[int],
                      unknown: np.ndarray, under: np.ndarray | None = None) -> tuple[list[int], int]:
    """Drop slots from the top of a stack that look like the empty board there rather than like
    their checker: the top checker's shadow or a glare streak lengthens a run, but a checker's
    face keeps its own colour.  Only where the board there is unlike that checker colour (a
    checker the colour of its point cannot be told from the point this way)."""
    n = len(colours)
    d = ctx.d
    s = (end - start - d) / (n - 1) if n > 1 else d
    centres = (ctx.light, ctx.dark)
    win = max(3, int(0.3 * d))
    while colours:
        k = len(colours) - 1
        a = int(start + k * s)
        b = int(end)
        centre = centres[colours[k]]
        if b > a and unknown[a:b].mean() > ctx.config.hidden_slot:
            break  # a die hides most of the slot: its colour says nothing
        if under is not None and b > a and under[a:b].mean() > ctx.config.under_slot:
            break  # a die lies on it, and the checker shows beside the die
        looks_checker = False
        tested = False
        # Any window of the slot that looks like the checker keeps it (the slot's extent is only
        # approximate: a shadow past the stack lengthens the run).
        for lo in range(a, max(a + 1, b - win + 1), 2):
            hi = lo + win
            known = ~unknown[lo:hi] if under is None else ~(unknown[lo:hi] | under[lo:hi])
            if known.sum() < 0.5 * win:
                continue
            colour = _median_rows(lab[lo:hi][known].reshape(-1, 3))
            board = _median_rows(bg[lo:hi][known].reshape(-1, 3))
            if float(np.linalg.norm(board - centre)) < ctx.config.slot_board_separation:
                looks_checker = True  # the board here is the checker's colour: cannot tell
                break
            tested = True
            if float(np.linalg.norm(colour - board)) >= ctx.config.slot_board_ratio * float(np.linalg.norm(colour - centre)):
                looks_checker = True
                break
        if looks_checker or not tested:
            break
        colours = colours[:-1]
        end = int(round(start + (len(colours) - 1) * s + d)) if colours else start
    return colours, end


def _drop_mixed_top(ctx: _Ctx, lab: np.ndarray, bg: np.ndarray, start: int, end: int, n: int,
                    unknown: np.ndarray) -> tuple[int, int]:
    """A point holds checkers of one colour.  While a stack's slots are of both colours, a top
    slot that shows the empty board there (a shadow past the stack, the bare point) is no
    checker: drop it."""
    d = ctx.d
    s = (end - start - d) / (n - 1)
    stats: list[tuple[int, float, np.ndarray, np.ndarray] | None] = []  # class, distance, colour, rows
    for k in range(n):
        a = start + k * s
        b = start + (k + 1) * s if k < n - 1 else end
        margin = 0.2 * (b - a)
        lo, hi = int(a + margin), max(int(a + margin) + 1, int(b - margin))
        known = ~unknown[lo:hi]
        if known.sum() == 0:
            stats.append(None)
            continue
        colour = _median_rows(lab[lo:hi][known].reshape(-1, 3))
        dl = float(np.linalg.norm(colour - ctx.light))
        dd = float(np.linalg.norm(colour - ctx.dark))
        stats.append((0 if dl <= dd else 1, min(dl, dd), colour, bg[lo:hi][known]))
    cfg = ctx.config
    while n >= 2:
        classes = {st[0] for st in stats[:n] if st is not None}
        top = stats[n - 1]
        if len(classes) < 2 or top is None:
            break
        _cls, d_checker, colour, board_rows = top
        # (the empty board there is looked at only for a top slot that may go)
        d_board = float(np.linalg.norm(colour - _median_rows(board_rows.reshape(-1, 3))))
        if not (d_board <= cfg.mixed_board_tolerance or d_board < cfg.mixed_board_ratio * d_checker):
            break
        n -= 1
        end = int(round(start + (n - 1) * s + d))
    return n, end


def _read_strip(ctx: _Ctx, centre_x: float, rows: slice, reverse: bool, from_base: bool = True) -> PointReading:
    occ, lab, unknown, edge = _profiles(ctx, centre_x, rows, reverse)
    side = _side_profile(ctx, centre_x, rows, reverse)
    runs = _runs(occ, unknown, ctx.config.occupancy_threshold, max(1, int(0.08 * ctx.d)), int(ctx.config.die_tail_join * ctx.d))
    if from_base:
        # Checkers stack from the board edge; anything detached from the stack (glare, a die,
        # a shadow) is not a checker.
        kept: list[tuple[int, int]] = []
        edge_reach = 0.35 * ctx.d  # a run starting this near the board edge starts at it
        reach = edge_reach
        d = ctx.d
        for start, end in runs:
            if not kept and start > reach and end - start < ctx.config.speck_max * d:
                continue  # a speck off the edge before any stack: noise
            if (not kept and reach < start <= ctx.config.base_reach * d
                    and not unknown[max(0, start - int(0.3 * d)) : end + int(0.3 * d)].any()
                    and ((end - start >= ctx.config.base_min_run * d
                          and _breadth(ctx, centre_x, rows, reverse, start, end) >= ctx.config.base_breadth)
                         or any(_edge_rim(ctx, centre_x, rows, reverse, gap * d) >= ctx.config.base_rim
                                for gap in ctx.config.base_rim_gaps))):
                # A stack whose first checker is the colour of the point under it shows nothing
                # at the board edge: it still starts there.  (Dark on a dark point, all a checker
                # may show is its highlight, too narrow for the breadth test, and its round rim.)
                start = 0
            elif (len(kept) == 1 and kept[0][1] - kept[0][0] < 0.55 * d and start > reach
                  and ctx.config.rim_pair_min * d <= start - kept[0][0] <= ctx.config.rim_pair_max * d):
                # Two slivers one diameter apart: the near and far rims of one checker the colour
                # of its point (dark on a dark point), whose face matches the board.
                start = kept[0][1]
            if (start > reach and end - start >= ctx.config.floating_min_run * d
                    and start - (kept[-1][1] if kept else 0) <= ctx.config.floating_gap_max * d
                    and not unknown[max(0, start - int(0.3 * d)) : end + int(0.3 * d)].any()
                    and _breadth(ctx, centre_x, rows, reverse, start, end) >= ctx.config.base_breadth):
                # A checker-sized run off the stack cannot float: it rests on checkers of the
                # point's own colour (dark on a dark point) that show only faint rims.
                start = kept[-1][1] if kept else 0
            if start > reach:
                base = kept[-1][1] if kept else 0
                if end - start < ctx.config.die_tail_min * ctx.d or not unknown[int(min(reach, start)) : start].all():
                    break  # (a short stretch just past a die is the die's own edge or shadow)
                # Everything between the stack so far (or the board edge) and this run lies
                # under a die: the stack goes on beneath it.
                start = base
            if kept and kept[-1][1] - kept[-1][0] < 0.55 * ctx.d and start - kept[-1][1] < 0.6 * ctx.d:
                if (len(kept) == 1 and kept[0][1] - kept[0][0] < ctx.config.speck_max * d
                        and end < ctx.config.edge_speck_run * d):
                    # a speck at the edge and a stretch that ends short of one checker's length
                    # from the edge are no checker (a light cast on the point's base)
                    kept.pop()
                    reach = edge_reach
                    continue
                # A sliver at the edge, then the stack: the first checker is the colour of the
                # point under it (white on white) and showed only its rim.
                start = kept.pop()[0]
            kept.append((start, end))
            reach = end + 0.5 * ctx.d
        # A gap too short to hold a checker is a faint seam inside one stack: count the stack whole.
        merged: list[tuple[int, int]] = []
        for start, end in kept:
            if merged and start - merged[-1][1] < 0.45 * ctx.d:
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        runs = _rims_up_the_stack(ctx, centre_x, rows, reverse, merged)
    light = dark = 0
    confs = []
    out_runs = []
    # Rows a die hides, even where the columns beside it showed a checker beneath: their colour
    # is the die's, so they neither vote on a stack's colour nor get trimmed as bare board.
    hidden = unknown | np.isnan(edge)
    gain_profile = None
    if ctx.gain is not None:
        c = int(_clamp(round(centre_x), 0, ctx.gain.shape[1] - 1))
        gain_profile = ctx.gain[rows, c][::-1] if reverse else ctx.gain[rows, c]
    if from_base and ctx.dice_xy:
        runs = [(a, _cut_at_dice(ctx, centre_x, rows, reverse, a, b)) for a, b in runs]
    # the empty board along the strip (when the checker colours are learnt)
    board_rows = _band_rows(ctx, ctx.bg_lab, centre_x, rows, reverse) if ctx.bg_lab is not None else None
    for start, end in runs:
        if board_rows is not None and not from_base:
            start, end = _trim_bar_run(ctx, lab, board_rows, start, end, hidden)
        if not from_base and end - start < ctx.config.bar_min_run * ctx.d:
            continue  # the bar: a checker is never this short (glare, a die's shadow)
        if float(np.nan_to_num(edge[start:end]).max(initial=0.0)) < ctx.config.rim_min:
            continue  # no sharp rim anywhere: soft glare or a shadow, not a checker's round edge
        if unknown[start:end].any():
            seen = int(((occ[start:end] > ctx.config.occupancy_threshold) & ~unknown[start:end]).sum())
            if seen < ctx.config.die_fringe * ctx.d:
                continue  # all it shows beside a die is the die's own fringe and shadow
        n, conf = _count_run(ctx, start, end, edge, side)
        if n == 0:
            continue
        if from_base and (end - start) <= SHORT_STACK * ctx.d:
            # A short stack is counted by its length: its checkers touch, so they lie one
            # diameter apart and end n diameters from its start (the rest of a longer run is
            # shadow or the point's own colour; a shorter one ends in a faint far rim).
            end = min(int(round(start + n * ctx.d)), rows.stop - (rows.start or 0))
        bg = board_rows if from_base else None
        if bg is not None and n >= 2:
            n, end = _drop_mixed_top(ctx, lab, bg, start, end, n, hidden)
        colours = _slot_colours(ctx, lab, start, end, n, hidden, vote=from_base, gain=gain_profile)
        if bg is not None and colours:
            colours, end = _trim_board_slots(ctx, lab, bg, start, end, colours, unknown, hidden & ~unknown)
            if not colours:
                continue
        light += colours.count(0)
        dark += colours.count(1)
        confs.append(conf)
        out_runs.append((float(start), float(end), colours))
    empty_conf = float(_clamp(1 - occ.max() / max(ctx.config.occupancy_threshold, 1e-6), 0, 1)) if not runs else 1.0
    confidence = float(min(confs)) if confs else max(empty_conf, 0.5)
    return PointReading(light, dark, confidence, out_runs)


def _context(calib: Calibration, canon: np.ndarray, config: VisionConfig, unknown: np.ndarray | None,
             lab: np.ndarray | None = None, occ: np.ndarray | None = None) -> _Ctx:
    if calib.background is None:
        raise ValueError("calibration has no empty-board reference")
    lab = _lab(canon) if lab is None else lab
    if occ is None:
        occ = occupancy_map(canon, calib.background, config, lab=lab, colours=calib.colours.centres,
                            checker_px=calib.geometry.checker_u * canon.shape[1])
    if unknown is None:
        unknown = np.zeros(occ.shape, bool)
    d = calib.geometry.checker_u * canon.shape[1]
    light = np.asarray(calib.colours.light, np.float32)
    dark = np.asarray(calib.colours.dark, np.float32)
    lum = cv2.GaussianBlur(lab[..., 0], (0, 0), 0.8)
    limit = config.bar_colour_limit if calib.colours.learnt else None
    bg_lab = calib.empty_lab(lab.shape) if calib.colours.learnt else None
    ctx = _Ctx(config, lab, occ, unknown, lum, d, light, dark, None, limit, bg_lab)
    if calib.colours.learnt:
        # The light on each point now, so a light checker in shadow is still light (computed by
        # the occupancy stage for this very image, or here when it was not).
        h, w = lab.shape[:2]
        ref, gain = _GAIN_MEMO
        if ref is None or ref() is not lab:
            small = cv2.resize(lab, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
            bg = background_model(calib.background, config, (small.shape[1], small.shape[0]))
            _, a_s, b_s, ls_s = _lab_terms(small)
            gain = _local_gain(ls_s, a_s, b_s, bg, 0.5 * d, config)
        ctx.gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    return ctx


_STRIPS: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}


def _strip(background: np.ndarray, x0: int, x1: int) -> np.ndarray:
    """Columns x0..x1 of the empty board as one lasting array (so what is derived from it is
    computed once, not per frame)."""
    key = (id(background), x0, x1)
    hit = _STRIPS.get(key)
    if hit is None or hit[0] is not background:
        if len(_STRIPS) > 8:
            _STRIPS.clear()
        hit = _STRIPS[key] = (background, np.ascontiguousarray(background[:, x0:x1]))
    return hit[1]


def read_checkers(
    calib: Calibration, canon: np.ndarray, config: VisionConfig, *, unknown: np.ndarray | None = None,
    lab: np.ndarray | None = None, occ: np.ndarray | None = None,
    dice_xy: list[tuple[float, float]] | None = None,
) -> CheckerReading:
    """Counts per physical point and on the bar from the illumination-normalised canonical image.

    ``unknown``: canonical pixels hidden by dice; ``dice_xy``: the dice's centres (canonical px).
    """
    ctx = _context(calib, canon, config, unknown, lab, occ)
    ctx.dice_xy = list(dice_xy or [])
    geo = calib.geometry
    h, w = canon.shape[:2]
    points = []
    _prefetch_columns(ctx, [(geo.point_u(p)[0] + geo.point_u(p)[1]) / 2 * w for p in range(1, 25)])
    for p in range(1, 25):
        u0, u1 = geo.point_u(p)
        cx = (u0 + u1) / 2 * w
        if geo.point_is_top(p):
            points.append(_read_strip(ctx, cx, slice(0, h // 2), False))
        else:
            points.append(_read_strip(ctx, cx, slice(h - h // 2, h), True))
    bar_cx = (geo.bar_u[0] + geo.bar_u[1]) / 2 * w
    if calib.colours.learnt and calib.background is not None:
        # On the bar a checker colour test misleads (a wooden bar is the colour of brown
        # checkers, and shadows make it more so): there, only change from the empty bar counts.
        x0 = max(0, int(geo.bar_u[0] * w - 0.2 * ctx.d)) & ~1
        x1 = min(w, int(geo.bar_u[1] * w + 0.2 * ctx.d) + 2) & ~1
        bar_occ = occupancy_map(canon[:, x0:x1], _strip(calib.background, x0, x1), config, lab=ctx.lab[:, x0:x1],
                                checker_px=ctx.d)
        ctx.occ = ctx.occ.copy()
        ctx.occ[:, x0:x1] = cv2.resize(bar_occ, (x1 - x0, h))
    bar = _read_strip(ctx, bar_cx, slice(0, h), False, from_base=False)
    light = dark = 0
    for _start, _end, colours in bar.runs:
        light += colours.count(0)
        dark += colours.count(1)
    return CheckerReading(points, light, dark, bar.runs, bar.confidence)


def stack_extents(calib: Calibration, frame: np.ndarray, config: VisionConfig) -> dict[int, float]:
    """Length (v units) of the occupied run at the base of every point, for size calibration."""
    canon = calib.geometry.warp(frame, calib.canonical_width)
    assert calib.background is not None
    canon = normalise_illumination(canon, calib.background)
    ctx = _context(calib, canon, config, None)
    h, w = canon.shape[:2]
    out: dict[int, float] = {}
    for p in range(1, 25):
        u0, u1 = calib.geometry.point_u(p)
        top = calib.geometry.point_is_top(p)
        rows = slice(0, h // 2) if top else slice(h - h // 2, h)
        occ, _lab_, unknown, _edge = _profiles(ctx, (u0 + u1) / 2 * w, rows, not top)
        runs = _runs(occ, unknown, config.occupancy_threshold, 3)
        if runs and runs[0][0] < 0.3 * ctx.d:
            out[p] = (runs[0][1] - runs[0][0]) / h
    return out


def slot_samples(calib: Calibration, canon: np.ndarray, config: VisionConfig) -> list[np.ndarray]:
    """Median Lab colour of every checker slot found without colour knowledge (for learning)."""
    ctx = _context(calib, canon, config, None, occ=None if calib.colours.learnt is False else None)
    ctx.occ = occupancy_map(canon, calib.background, config, lab=ctx.lab,  # type: ignore[arg-type]
                            checker_px=ctx.d)
    geo = calib.geometry
    h, w = canon.shape[:2]
    out: list[np.ndarray] = []
    for p in range(1, 25):
        u0, u1 = geo.point_u(p)
        top = geo.point_is_top(p)
        rows = slice(0, h // 2) if top else slice(h - h // 2, h)
        occ, lab, unknown, edge = _profiles(ctx, (u0 + u1) / 2 * w, rows, not top)
        runs = _runs(occ, unknown, config.occupancy_threshold, max(1, int(0.08 * ctx.d)))
        for start, end in runs:
            if start > 0.35 * ctx.d:
                break
            n, _ = _count_run(ctx, start, end, edge)
            length = end - start
            s = (length - ctx.d) / (n - 1) if n > 1 else ctx.d
            for k in range(n):
                a = start + k * s
                b = start + (k + 1) * s if k < n - 1 else end
                lo, hi = int(a + 0.25 * (b - a)), int(b - 0.25 * (b - a))
                if hi > lo:
                    out.append(_median_rows(lab[lo:hi].reshape(-1, 3)))
    return out


def checker_mask(calib: Calibration, reading: CheckerReading, canon_shape: tuple[int, int],
                 image_shape: tuple[int, int], near: list[tuple[float, float]] | None = None,
                 reach: float = 0.0) -> np.ndarray:
    """uint8 image-sized mask (255 = checker) of every counted checker, for the dice stage; with
    ``near`` (image points, the dice), only within ``reach`` px of them (zero elsewhere)."""
    geo = calib.geometry
    h, w = canon_shape
    d = geo.checker_u * w
    mask = np.zeros((h, w), np.uint8)

    def draw(cx: float, t0: float, t1: float, n: int, top: bool, base: float) -> None:
        if n <= 0:
            return
        s = (t1 - t0 - d) / (n - 1) if n > 1 else 0.0
        for k in range(n):
            t = t0 + d / 2 + k * s
            y = base + t if top else base - t
            cv2.circle(mask, (int(round(cx)), int(round(y))), int(round(d / 2)), 255, -1)

    for p, pr in enumerate(reading.points, start=1):
        u0, u1 = geo.point_u(p)
        cx = (u0 + u1) / 2 * w
        top = geo.point_is_top(p)
        for t0, t1, colours in pr.runs:
            draw(cx, t0, t1, len(colours), top, 0.0 if top else float(h - 1))
    bar_cx = (geo.bar_u[0] + geo.bar_u[1]) / 2 * w
    for t0, t1, colours in reading.bar_runs:
        draw(bar_cx, t0, t1, len(colours), True, 0.0)
    return geo.unwarp(mask, image_shape, near, reach)
