"""Find dice in a camera frame, read their values, and judge a roll's physical validity.

Method (classical, no learning; every threshold in `DiceConfig`, every stage timed):

1. **Pips** (`find_pips`): dark-on-light pips are peaks of a morphological black-hat (closing minus
   image), light-on-dark pips peaks of a white-hat (image minus opening).  A blob is kept when it
   is small, filled, elliptical, solid (its centre as dark as it) and much darker (lighter) than a
   ring around it, ignoring ring samples that fall on neighbouring blobs.  A second, higher
   threshold separates pips merged with a dark gap beside their die.  Second moments give each
   pip's ellipse, which tells how its face is foreshortened.
2. **Faces** (`find_faces`): pips that could share a face (same polarity, similar size, ellipse
   and surrounding face brightness) are paired; the two farthest pips of every layout of 2-6 pips
   are opposite corners of its 3x3 lattice, so each pair proposes a lattice.  The compatible pips
   near the proposed centre must sit on lattice cells and occupy exactly one layout's cells; fours,
   fives and sixes are refitted as a full affine lattice (perspective, sixes' own row spacing) and
   checked strictly and against the pips' shape.  A face must be *closed* (no other compatible pip
   inside it: four corners of a six are not a four) and *plain* between its pips.  Twos and threes
   must share the pip spacing of the frame's other faces; lone pips propose ones.
3. **Dice** (`read_dice`): faces are chosen best-first without sharing pips; faces within about an
   edge of each other are one die, and its top face is the one seen most squarely (roundest pips,
   or with a board nearest the board plane's shape), else the highest in the image.  Ones and
   twos unlike the frame's other dice (pip size, contrast, face brightness) and dice of the
   minority pip polarity are dropped (labels, keyboards, side-face remnants).  A top face whose
   shape departs from the board plane (or without a board, clearly from the other dice) is
   *cocked*, as is one with a large side face beside it: its pips (`_side_pips`) or, with the
   empty board, a band of the die's shaded colour just outside one edge of the top face
   (`_side_band`).
4. **Validity** (`roll_validity`): RULES.md §1.6 with the board geometry (one die on the surface
   means the other is off it).

With a board (`vision.calibration.BoardGeometry`) the search keeps to the playing surface and a
margin around it; candidate windows (clusters of pip-like blobs at camera resolution) are rescaled
so a die is ~44 px, and faces must have the board's die size.  Without one, any photo works.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NamedTuple

import cv2
import numpy as np

from vision.calibration import lab_at

__all__ = [
    "DiceConfig",
    "DieReading",
    "Pip",
    "Face",
    "RollValidity",
    "DiceTimings",
    "read_dice",
    "read_dice_timed",
    "find_pips",
    "find_faces",
    "roll_validity",
    "plausible_dice",
    "changed_from_empty",
    "BoardBackground",
    "board_background",
]


@dataclass(frozen=True)
class DiceConfig:
    """Thresholds of the dice reader.  Sizes are in pixels of the working image unless noted."""

    # --- working scale --------------------------------------------------------------------------
    max_side: int = 800  # larger frames are downscaled so their longer side is at most this
    # --- pip detection ---------------------------------------------------------------------------
    hat_kernel_frac: float = 0.045  # black-hat kernel, fraction of the shorter image side
    hat_kernel_min: int = 9
    hat_kernel_px: float = 0.0  # if > 0: the kernel in px, instead of the fraction above
    max_pip_px: float = 0.0  # if > 0: the largest pip diameter in px, instead of max_pip_frac
    rect_kernel: bool = False  # square (fast, separable) instead of round morphology kernel
    min_contrast: float = 38.0  # grey levels a pip must be darker (lighter) than its face
    rel_contrast: float = 0.28  # ... and at least this fraction of the face brightness
    hat_levels: tuple[float, ...] = (1.0, 2.0)  # thresholds tried (multiples of the two above)
    all_levels: bool = False  # also run the higher levels when some blob is elongated (at board scale)
    split_ratio: float = 0.75  # ... this elongated (minor/major axis); and split such blobs
    grow_steps: int = 2  # px a higher level's pip cores are grown back into the base mask
    min_pip_area: float = 4.0  # px
    max_pip_frac: float = 0.055  # largest pip diameter, fraction of the shorter image side
    min_fill: float = 0.55  # blob area / area of its moment ellipse
    min_axis_ratio: float = 0.28  # minor / major axis of a pip
    ring_scale: float = 1.7  # ring sampled at this many pip radii (in the pip's own ellipse metric)
    centre_max_rel: float = 0.3  # a pip's centre pixel is within this share of the contrast of its mean
    ring_skip: int = 2  # the darkest (lightest) ring samples ignored
    ring_min_rel: float = 0.55  # darkest ring sample must keep this share of the face contrast
    # --- face grouping -----------------------------------------------------------------------------
    pip_area_ratio: float = 1.9  # largest/smallest pip area on one face
    shape_tolerance: float = 0.35  # allowed difference of normalised pip ellipses on one face
    face_tolerance: float = 0.12  # allowed relative difference of the face brightness around pips
    member_face_factor: float = 2.0  # ... times this for the pips between two that propose a face
    offset_min: float = 1.6  # pip spacing unit (corner pip to centre, per axis) in pip radii
    offset_max: float = 4.5
    one_unit: float = 2.3  # assumed spacing unit (pip radii) around a lone pip
    plain_half: float = 1.45  # half-size (layout units) of the face area that must be plain
    plain_half_one: float = 1.3
    min_plain: float = 0.85  # share of that area near the face's grey level
    boundary_max_value: int = 2  # faces with this few pips need a visible die body around them ...
    boundary_radius: float = 0.0  # ... a ring this far out (layout units; 0 = off: hurts real photos) ...
    min_boundary: float = 0.3  # ... from the face on this share of it
    layout_tolerance: float = 0.17  # max deviation from a layout, in layout units (pip spacing)
    unit_consistency: float = 1.25  # twos/threes: pip spacing within this factor of the frame's fours/fives
    # the die edge expected in the working image (px; with a board): faces that imply an edge
    # beyond `ref_edge_range` of it (a row of blobs along a point's edge) set no pip spacing
    expected_edge_px: float | None = None
    ref_edge_range: tuple[float, float] = (0.7, 1.5)
    lattice_shape_tolerance: float = 0.6  # fitted face lattice vs pip ellipse shape (normalised)
    closed_radius: float = 1.75  # no foreign pip within this many layout units of a face centre
    path_min_rel: float = 0.55  # a link's path must stay this bright (share of face contrast)
    max_group: int = 14  # larger linked groups are cut by distance before the subset search
    # --- dice ---------------------------------------------------------------------------------------
    offset_frac: float = 0.26  # corner pip to face centre (per axis) / die edge
    side_dx: float = 1.0  # a side face's centre lies within this many edges sideways of its top face
    side_dist: float = 1.2  # ... and within this many edges of it
    min_top_ratio: float = 0.5  # a top face's pips are at least this round (minor/major axis)
    top_ratio_margin: float = 0.15  # roundness margin between top-like faces and side faces
    one_min_size: float = 0.7  # a lone pip is at least this share of the multi-pip faces' pip radius
    one_max_size: float = 2.0  # ... and at most this share
    one_min_contrast: float = 0.65  # ... and at least this share of their contrast
    one_min_face: float = 0.85  # ... on a face at least this share as bright
    # ... or, in shade, this share as bright when its pips keep the same contrast relative to the
    # face (less light dims face and pips alike: pip contrast / face brightness within
    # `one_shade_rel` of the reference's; print on a darker label has its own ratio)
    one_min_face_shaded: float = 0.7
    one_shade_rel: float = 0.15
    one_polarity: bool = True  # all dice in a frame have the same pip polarity (dark or light pips)
    cocked_ratio: float = 0.78  # top face foreshortened below this share of the typical top face
    min_confidence: float = 0.25
    max_dice: int = 2  # with a board: dice in one roll (the weakest extra candidates are dropped)
    # With a board, a lone pip's die must show as a body of the die's size: a ring just outside it
    # (`outline_ring` die edges from the pip; a die's half-diagonal is 0.71) is mostly unlike its
    # face.  A light spot of board between touching dark checkers, or a speck on a checker, has the
    # same surface all around.  Used to rank the candidates when there are more than `max_dice`.
    outline_ring: float = 0.85
    outline_tolerance: float = 0.3  # a ring sample within this share of the pip contrast is face
    outline_min: float = 0.5  # share of the ring unlike the face for a lone pip to count as a die
    roll_tone_offset: float = 10.0  # grey levels added to face tones before comparing two dice's
    roll_outline_cost: float = 0.3  # a lone pip without an outline costs as much as this much unlikeness
    # (the sum of |log ratio| of face tone, pip contrast and pip radius between the dice of a roll)
    # top-face shape vs the table plane, faces with 4-6 pips (flat dice reach ~0.093 on small, blurred
    # faces; a leaning die's top departs by 0.12 or more)
    cocked_lattice_tolerance: float = 0.105
    cocked_pip_tolerance: float = 0.15  # ... faces with 2-3 pips (shape from the pip ellipses)
    cocked_one_tolerance: float = 0.3  # ... a one
    cocked_pip_r: float = 4.5  # px: pips smaller than this have noisier moments, the two above grow as (this/r)^2
    cocked_free_factor: float = 2.5  # without a board, shape differences count this much less
    cocked_side_ratio: float = 0.45  # with a board: a side face this round, and a slightly tilted top
    cocked_side_alone: float = 0.5  # with a board: a side face of 2+ pips this round alone means cocked
    # (a flat die seen from above shows at most a sliver of side face: flat, cut pips; one leaning
    # 30 degrees shows a side face about sin(30) = 0.5 round)
    cocked_side_pip: float = 0.75  # ... a side face counts if its pips are this big (share of the top's, long axis)
    cocked_side_edge: float = 0.6  # ... or (2+ pips) its pip lattice spans this share of the board's die edge
    cocked_side_only_margin: float = 0.1  # ... and then it must be this much rounder than `cocked_side_alone`
    # ... and (with a board) a side face's centre lies beyond the top face's edge, at least this many
    # die edges from the top's centre (its edge is 0.5 away; a leaning die's side face is centred
    # 0.5-0.8 out): pips closer in are the top face's own rim (cut pips of a flat die's sliver)
    cocked_side_min_dist: float = 0.52
    # With a board, loose pips of a cocked die's side face (`_side_pips`): at least `side_pip_count`
    # pips of the top's polarity, not on any die's top face, between `side_pip_min_dist` and
    # `side_pip_max_dist` die edges from the top face's centre (its edge is 0.5 away, a flat die's
    # sliver of side face ends by ~0.6), one of them at least `side_pip_reach` out (a side face
    # sin(22 deg) = 0.37 edge wide or more); whole pips: long axis `side_pip_min_size`..
    # `side_pip_max_size` of the top's pip radius, not slivers (minor/major >= `side_pip_min_round`),
    # with `side_pip_min_contrast` of the top's pip contrast (side faces are shaded).
    side_pip_min_dist: float = 0.52
    side_pip_max_dist: float = 1.0
    side_pip_reach: float = 0.7
    side_pip_count: int = 2
    side_pip_min_size: float = 0.6
    side_pip_max_size: float = 1.5
    side_pip_min_round: float = 0.4
    side_pip_min_contrast: float = 0.4
    side_pip_static: float = 0.25  # ... and, with the empty board, it and its ring differ from the board there
    # With a board and the empty board, the side face itself (`_side_band`), pips or not: a die
    # leaning 22-35 degrees shows a side face sin(tilt) = 0.37-0.57 of an edge wide beyond one edge
    # of its top face (whose own half-width shrinks to cos(tilt)/2 = 0.41-0.46 edge), of the die's
    # colour, shaded; a flat die shows at most a sliver (~0.14 edge) of it.  Looked at in camera
    # pixels, in a strip `side_band_near` die edges out from the top face's centre beyond each of
    # its four edges (the edges' direction from the image gradients around the face, which a one
    # also has), `side_band_half` edges either side of the edge's middle.
    side_band_blur: float = 1.0  # px: smoothing before the colour tests (sensor noise, JPEG)
    side_band_face_r: float = 0.32  # die edges: the top face's colour is sampled within this radius ...
    side_band_face_tol: float = 0.35  # ... from pixels within this share of the pip contrast of its grey level
    # die material: a colour proportional to the top face's (same paint, less light), off by at most
    # `side_band_chroma_abs` + `side_band_chroma_rel` of its brightness, at `side_band_min_shade` ..
    # `side_band_max_shade` of the top's brightness (a side face is turned from the light; glare up to
    # `side_band_max_glare` still counts as die when telling where the die ends) ...
    side_band_chroma_abs: float = 6.0
    side_band_chroma_rel: float = 0.12
    side_band_min_shade: float = 0.3
    side_band_max_shade: float = 0.95
    side_band_max_glare: float = 1.5
    # ... where the frame differs from the empty board (after the frame's overall gain) by
    # `side_band_change_abs` grey levels and `side_band_change_rel` of the board's brightness
    side_band_change_abs: float = 15.0
    side_band_change_rel: float = 0.15
    side_band_ring: tuple[float, float] = (0.3, 0.65)  # die edges: the gradients giving the edges' direction
    side_band_near: tuple[float, float] = (0.64, 0.78)  # die edges from the centre: inside a leaning die's side face
    side_band_half: float = 0.3
    side_band_min: float = 0.55  # share of that strip that is side face for the die to be cocked ...
    # ... when the die ends beyond it: of a strip `side_band_far` edges out, at most `side_band_max_beyond`
    # is changed die material and at most `side_band_max_colour` has the die's colour at all (else
    # the die merges with a checker, point or board of its colour: no verdict)
    side_band_far: tuple[float, float] = (1.1, 1.25)
    side_band_max_beyond: float = 0.5
    side_band_max_colour: float = 0.7
    side_band_sure: float = 0.75  # ... except when the strip is this much side face and the board beyond is unchanged
    # --- with a board (calibration) ----------------------------------------------------------
    board_hat_levels: tuple[float, ...] = (1.0, 1.5, 2.2, 3.0)  # blurred small pips: a gentler second level
    board_ring_scale: float = 1.5  # pips sit close to the die's edge: a tighter ring at board scale
    board_grow: float = 0.08  # board units searched beyond the playing surface (dice off the board)
    border_pad: float = 0.5  # die edges the image is extended by where that search runs past it
    board_die_target: float = 44.0  # the surface is rescaled so that a die is about this many px
    board_min_scale: float = 0.5
    window_contrast: float = 60.0  # grey levels: pip-candidate blobs that open a window
    window_levels: tuple[float, ...] = (1.0, 1.7)  # ... at these multiples (close pips merge at the first)
    window_max_blob: float = 0.6  # die edges: the largest candidate blob (a die's pips blurred together)
    window_fill: float = 0.4  # a candidate blob fills this share of its box ...
    window_aspect: float = 2.5  # ... and is at most this elongated
    window_ring: float = 0.2  # die edges from a candidate blob's centre to the ring that must contrast
    window_plain: float = 0.8  # ... and its six samples on the face side lie within this share of that contrast
    window_lattice: int = 2  # ... unless this many other such blobs of its size lie near (a small die's pips)
    window_lattice_near: float = 0.12  # die edges: nearest ...
    window_lattice_far: float = 0.75  # ... and farthest such a neighbouring pip lies
    window_lattice_size: float = 1.6  # ... and how much bigger one of the two may be
    window_pad: float = 1.5  # die edges added around a window's blobs
    window_max_dice: float = 4.2  # die edges: the largest window
    board_max_scale: float = 2.5
    # --- with the empty board (calibration background, camera space) ----------------------------
    # A candidate blob the empty board already shows at the same place, with the same
    # surroundings, is part of the board (a point's tip, an ArUco marker's square, a hinge), not a
    # pip: it opens no window.  A die lying there changes the surroundings (its face, its edges).
    static_hat: float = 0.5  # the empty board's hat at the blob reaches this share of the frame's ...
    static_ring: float = 0.25  # ... and the ring around it differs from the empty board's by at most
    # this share of the blob's contrast (grey levels, after the frame's overall gain)
    static_ring_floor: float = 12.0  # ... or by this many grey levels (noise, JPEG)
    board_hat_die: float = 0.4  # black-hat kernel as a share of the expected die edge (windows)
    board_pip_hat_die: float = 0.25  # ... when finding pips in a window
    board_max_pip_die: float = 0.4  # largest pip diameter as a share of the die edge
    board_pip_die: float = 0.1  # a one's pip radius as a share of the die edge (rough)
    board_size_min: float = 0.82  # implied die edge / expected die edge (a six's column is not a three)
    board_size_max: float = 1.3
    board_one_size_min: float = 0.7
    board_one_size_max: float = 1.6
    board_top_max_tilt: float = 0.45  # shape difference from the board plane beyond which a face is a side
    board_tilt_margin: float = 0.05
    board_face_tolerance: float = 0.2  # small dice: a corner pip's ring reaches the die's edge
    # --- validity -------------------------------------------------------------------------------
    on_checker_depth: float = 0.3  # die edges: a die's centre this deep inside a checker rests on it
    leaning_tilt: float = 0.5  # a die in contact with something is cocked at this tilt score
    # ... a one at this score: its single pip is a weak cue to the face's shape, so its score is
    # taken against a looser tolerance and a leaning one scores lower (flat ones in contact with
    # something scored under it on 1600 tuning frames)
    leaning_tilt_one: float = 0.2
    leaning_reach: float = 1.3  # die edges: contact = the die's body runs this far from its centre
    leaning_area: float = 1.5  # ... and covers this many die-edge squares
    leaning_bridge: float = 0.2  # die edges: narrower links to the die do not count as contact
    change_lab: float = 20.0  # Lab units of change from the empty board that score 1 (changed_from_empty)
    change_light_tolerance: float = 0.15  # ... lightness change up to this share of (board L + offset) is lighting
    change_light_offset: float = 20.0  # ... (8-bit L units; dark boards still tolerate some change)
    change_light_weight: float = 0.6  # ... and the lightness change beyond it counts this much (vs chroma)
    rim_inner: float = 0.78  # die edges: the checker's rim around a die starts this far from its centre
    rim_min_occupied: float = 0.3  # ... and this share of it must be unlike the empty board
    rim_occupancy: float = 0.5  # occupancy (0..1, or 0/255 masks) that counts as unlike it
    gap_one_cover: float = 0.35  # a lone pip whose die footprint is this much checker, not on one
    # A roll throws two dice: with only one on the surface (and no other reason found) the other
    # came to rest off it, out of the picture (off_board).  Not for the opening roll's single die.
    lone_die_void: bool = True


@dataclass(frozen=True)
class DieReading:
    """One die: its value, the box around its top-face pips (x, y, w, h, image px), the top face's
    centre, a 0..1 confidence and whether it looks cocked (not flat)."""

    value: int
    box: tuple[int, int, int, int]
    centre: tuple[float, float]
    confidence: float
    cocked: bool
    tilt: float = 0.0  # top-face shape vs the board plane, in multiples of its cocked tolerance


class RollValidity(NamedTuple):
    """RULES.md §1.6 verdict on the dice lying on the board.  A tuple, so it also unpacks as
    ``roll, void_reason, half``."""

    roll: Literal["valid", "void", "none"]
    void_reason: Literal["different_halves", "cocked", "on_checker", "off_board"] | None
    half: Literal["left", "right"] | None


@dataclass
class DiceTimings:
    """Milliseconds spent in each stage of the last read."""

    prepare_ms: float = 0.0
    pips_ms: float = 0.0
    faces_ms: float = 0.0
    dice_ms: float = 0.0

    @property
    def total_ms(self) -> float:
        return self.prepare_ms + self.pips_ms + self.faces_ms + self.dice_ms


@dataclass(frozen=True)
class Pip:
    """A pip candidate in working-image pixels."""

    x: float
    y: float
    area: float
    cov: tuple[float, float, float]  # second moments (xx, xy, yy) of the blob, px^2
    face: float  # brightness of the surrounding face (grey level)
    contrast: float  # face minus pip (dark pips) or pip minus face (light pips)
    dark: bool  # dark pip on a light face

    @property
    def radius(self) -> float:
        """Radius of a circle of the pip's area."""
        return math.sqrt(self.area / math.pi)


@dataclass(frozen=True)
class Face:
    """A group of pips that matches one die-face layout."""

    value: int
    pips: tuple[int, ...]  # indices into the pip list
    centre: tuple[float, float]
    unit: float  # layout unit (corner pip to centre along an axis) in px, geometric mean
    axes: tuple[float, float]  # foreshortening: minor/major of the mean pip ellipse, and its angle
    error: float  # layout residual in layout units
    brightness: float
    box: tuple[int, int, int, int] = (0, 0, 0, 0)
    dark: bool = True  # dark pips on a light face
    extra: dict[str, float] = field(default_factory=dict, compare=False)


# Canonical layouts in layout units; the six is listed in one orientation, rotation is free.
_LAYOUTS: dict[int, np.ndarray] = {
    1: np.array([[0.0, 0.0]]),
    2: np.array([[-1.0, -1.0], [1.0, 1.0]]),
    3: np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]),
    4: np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]),
    5: np.array([[-1.0, -1.0], [1.0, -1.0], [0.0, 0.0], [-1.0, 1.0], [1.0, 1.0]]),
    6: np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [1.0, 1.0]]),
}


def _median(v: np.ndarray) -> float:
    """`np.median` of a short 1-D float array (the same value, without its overhead)."""
    v = np.sort(v)
    n = len(v)
    return float(v[n // 2]) if n % 2 else float((v[n // 2 - 1] + v[n // 2]) / 2.0)


def _pair_dists(p: np.ndarray) -> np.ndarray:
    d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1))
    iu = np.triu_indices(len(p), 1)
    return np.sort(d[iu])


# Pairwise-distance signatures of the layouts (used for twos and threes).
_SIGNATURES: dict[int, list[np.ndarray]] = {n: [_pair_dists(v)] for n, v in _LAYOUTS.items() if n > 1}


# ------------------------------------------------------------------------------------------------
# Stage 1: pips


def _hat_kernel(shape: tuple[int, int], cfg: DiceConfig) -> int:
    if cfg.hat_kernel_px > 0:
        return max(cfg.hat_kernel_min, int(round(cfg.hat_kernel_px))) | 1
    k = int(round(cfg.hat_kernel_frac * min(shape)))
    return max(cfg.hat_kernel_min, k) | 1


_RING12 = np.stack([np.cos(np.linspace(0.0, 2.0 * math.pi, 12, endpoint=False)),
                    np.sin(np.linspace(0.0, 2.0 * math.pi, 12, endpoint=False))], axis=1)


def _hat_pixels(hat: np.ndarray, background: np.ndarray, roi: np.ndarray | None,
                cfg: DiceConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pixels (flat indices, in raster order) that may pass `_level_labels`'s thresholds at any of
    `hat_levels` (a superset: the hat a grey level below the lowest threshold, inside `roi`), with
    their hat and background values as float32 (the thresholds are then tested on these alone)."""
    lo = math.floor(cfg.min_contrast * min((1.0, *cfg.hat_levels))) - 1
    sup = hat >= lo
    if roi is not None:
        sup &= roi
    idx = np.flatnonzero(sup)
    return idx, hat.ravel()[idx].astype(np.float32), background.ravel()[idx].astype(np.float32)


class _Run(NamedTuple):
    """The blobs of one threshold level in one image (`_level_labels`)."""

    sub: np.ndarray  # int32 labels of the blobs' bounding box (0 = none)
    ox: int  # where `sub` lies in the image
    oy: int
    ys: np.ndarray  # the pixels of the blobs sized like a pip, in raster order
    xs: np.ndarray
    lab: np.ndarray  # ... and their labels
    area: np.ndarray  # px, by label
    keep: np.ndarray  # the labels sized like a pip


def _level_labels(pre: tuple[np.ndarray, np.ndarray, np.ndarray], shape: tuple[int, ...], dark: bool,
                  cfg: DiceConfig, level: float, too_big: list[bool] | None) -> _Run | None:
    """The blobs where the hat (black- or white-hat; `pre` = `_hat_pixels`) is strong, at one
    threshold `level` (the thresholds multiplied by it: a higher level separates a pip from a dark
    gap next to its die) that are sized like a pip (None without any); with `too_big` (at the
    base level), whether some blob is too big for a pip is appended to it."""
    h, w = shape[:2]
    idx_all, hat_v, bg_v = pre
    if dark:
        rel = cfg.rel_contrast * level * bg_v
    else:
        rel = cfg.rel_contrast * level * (255.0 - bg_v) * 0.5
    on = idx_all[(hat_v >= cfg.min_contrast * level) & (hat_v >= rel)]
    if len(on) == 0:
        if too_big is not None:
            too_big.append(False)
        return None
    on_y, on_x = np.divmod(on, w)
    # label only the blobs' bounding box (origin on even pixels: the labelling's 2x2 blocks, and so
    # its label order, are the whole image's)
    bx0, by0 = int(on_x.min()) & ~1, int(on_y.min()) & ~1
    bx1, by1 = int(on_x.max()) + 1, int(on_y.max()) + 1
    crop = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    crop[on_y - by0, on_x - bx0] = 1
    n, sub = cv2.connectedComponents(crop, connectivity=8, ltype=cv2.CV_32S)
    if n <= 1:
        return None
    max_d = cfg.max_pip_px if cfg.max_pip_px > 0 else cfg.max_pip_frac * min(h, w)
    ox, oy = bx0, by0
    if level > 1.0:
        # Cores found at a higher threshold are grown back into the base threshold's mask, so
        # their size and shape match pips found at the base level (within `grow_steps` px of them).
        steps = cfg.grow_steps
        gx0, gy0 = max(0, bx0 - steps - 1), max(0, by0 - steps - 1)
        gx1, gy1 = min(w, bx1 + steps + 1), min(h, by1 + steps + 1)
        base_y, base_x = np.divmod(idx_all[(hat_v >= cfg.min_contrast) & (hat_v >= rel / level)], w)
        near = (base_y >= gy0) & (base_y < gy1) & (base_x >= gx0) & (base_x < gx1)
        base = np.zeros((gy1 - gy0, gx1 - gx0), bool)
        base[base_y[near] - gy0, base_x[near] - gx0] = True
        lab_f = np.zeros((gy1 - gy0, gx1 - gx0), np.float32)
        lab_f[by0 - gy0:by0 - gy0 + sub.shape[0], bx0 - gx0:bx0 - gx0 + sub.shape[1]] = sub
        kern3 = np.ones((3, 3), np.uint8)
        for _ in range(steps):
            grown = cv2.dilate(lab_f, kern3)
            lab_f = np.where((lab_f == 0) & base, grown, lab_f)
        sub = lab_f.astype(np.int32)
        ox, oy = gx0, gy0
    # the labelled pixels in raster order (of the crop, and so of the image)
    q = np.flatnonzero(sub)
    ys_i, xs_i = np.divmod(q, sub.shape[1])
    lab = sub.ravel()[q]
    ys_i += oy
    xs_i += ox
    area = np.bincount(lab, minlength=n).astype(np.float64)
    if level > 1.0:
        ok = (area >= cfg.min_pip_area) & (area <= max_d * max_d)
    else:
        x_lo = np.full(n, w, np.int64)
        y_lo = np.full(n, h, np.int64)
        x_hi = np.full(n, -1, np.int64)
        y_hi = np.full(n, -1, np.int64)
        np.minimum.at(x_lo, lab, xs_i)
        np.minimum.at(y_lo, lab, ys_i)
        np.maximum.at(x_hi, lab, xs_i)
        np.maximum.at(y_hi, lab, ys_i)
        bw = x_hi - x_lo + 1
        bh = y_hi - y_lo + 1
        ok = (area >= cfg.min_pip_area) & (bw <= max_d) & (bh <= max_d)
        if too_big is not None:
            big = (area >= cfg.min_pip_area) & ((bw > max_d) | (bh > max_d)) & (bw <= 4 * max_d) & (bh <= 4 * max_d)
            too_big.append(bool(big[1:].any()))
    ok[0] = False
    if not ok.any():
        return None
    sel = ok[lab]
    return _Run(sub, ox, oy, ys_i[sel], xs_i[sel], lab[sel], area, np.nonzero(ok)[0])


def _blob_pips(items: list[tuple[np.ndarray, _Run]], dark: bool,
               cfg: DiceConfig) -> tuple[list[list[Pip]], list[bool]]:
    """The pips among the blobs of each (grey image, run) (one pass over all of them), and for
    each whether an elongated blob is otherwise a pip (the higher levels should split it)."""
    nb = [len(r.area) for _, r in items]
    loff = np.cumsum([0] + nb)  # every run's labels numbered after the previous runs'
    n = int(loff[-1])
    nk = np.array([len(r.keep) for _, r in items])
    item = np.repeat(np.arange(len(items)), nk)  # each blob's image
    shp = np.array([g.shape for g, _ in items], np.int64).reshape(-1, 2)
    gsize = shp[:, 0] * shp[:, 1]
    goff = np.cumsum(np.concatenate([[0], gsize[:-1]]))
    gbuf = np.concatenate([g.ravel() for g, _ in items]) if len(items) > 1 else items[0][0].ravel()
    ssz = np.array([r.sub.shape for _, r in items], np.int64).reshape(-1, 2)
    soff = np.cumsum(np.concatenate([[0], ssz[:-1, 0] * ssz[:-1, 1]]))
    sbuf = np.concatenate([r.sub.ravel() for _, r in items]) if len(items) > 1 else items[0][1].sub.ravel()
    ys = np.concatenate([r.ys for _, r in items]).astype(np.float64)
    xs = np.concatenate([r.xs for _, r in items]).astype(np.float64)
    g = np.concatenate([gr[r.ys, r.xs] for gr, r in items]).astype(np.float64)
    lab = np.concatenate([r.lab + o for (_, r), o in zip(items, loff, strict=False)])
    area = np.concatenate([r.area for _, r in items])
    idx = np.concatenate([r.keep + o for (_, r), o in zip(items, loff, strict=False)])
    local = np.concatenate([r.keep for _, r in items])  # the blobs' labels in their run's `sub`
    hb, wb = shp[item, 0], shp[item, 1]
    m0 = np.bincount(lab, minlength=n)
    m0 = np.maximum(m0, 1)
    mx = np.bincount(lab, xs, n) / m0
    my = np.bincount(lab, ys, n) / m0
    dx = xs - mx[lab]
    dy = ys - my[lab]
    cxx = np.bincount(lab, dx * dx, n) / m0 + 1.0 / 12.0
    cxy = np.bincount(lab, dx * dy, n) / m0
    cyy = np.bincount(lab, dy * dy, n) / m0 + 1.0 / 12.0
    gmean = np.bincount(lab, g, n) / m0
    cxx, cxy, cyy, mx, my, gmean, a = cxx[idx], cxy[idx], cyy[idx], mx[idx], my[idx], gmean[idx], area[idx]
    det = np.maximum(cxx * cyy - cxy * cxy, 1e-6)
    fill = a / (4.0 * math.pi * np.sqrt(det))
    tr = cxx + cyy
    disc = np.sqrt(np.maximum((cxx - cyy) ** 2 / 4.0 + cxy * cxy, 0.0))
    l1 = tr / 2.0 + disc
    l2 = np.maximum(tr / 2.0 - disc, 1e-6)
    ratio = np.sqrt(l2 / l1)
    good = (fill >= cfg.min_fill) & (fill <= 1.6)
    elongated = ratio < cfg.split_ratio
    if not good.any():  # no blob is filled like a pip: no pip, and nothing for the trigger below
        return [[] for _ in items], [False] * len(items)
    good_any_ratio = good.copy()  # for the trigger below: merged pips may be more elongated than one
    good &= ratio >= cfg.min_axis_ratio
    # Ring test: sample the image on the pip's own ellipse scaled by ring_scale.
    ct, st = _RING12[:, 0], _RING12[:, 1]
    # square root of the 2x2 covariance, times 2 = the blob's semi-axes transform
    s = np.sqrt(det)
    tt = np.sqrt(tr + 2.0 * s)
    r00 = (cxx + s) / tt
    r01 = cxy / tt
    r11 = (cyy + s) / tt
    k = 2.0 * cfg.ring_scale
    rx = mx[:, None] + k * (r00[:, None] * ct[None, :] + r01[:, None] * st[None, :])
    ry = my[:, None] + k * (r01[:, None] * ct[None, :] + r11[:, None] * st[None, :])
    w1, h1 = (wb - 1)[:, None], (hb - 1)[:, None]
    inside = (rx >= 0) & (rx <= w1) & (ry >= 0) & (ry <= h1)
    good &= inside.all(axis=1)
    rxi = np.minimum(np.maximum(np.round(rx), 0), w1).astype(np.intp)
    ryi = np.minimum(np.maximum(np.round(ry), 0), h1).astype(np.intp)
    ring = gbuf[goff[item][:, None] + ryi * wb[:, None] + rxi].astype(np.float64)
    # samples that fall on another candidate blob (a neighbouring pip) say nothing about the face
    sy = ryi - np.array([r.oy for _, r in items])[item][:, None]
    sx = rxi - np.array([r.ox for _, r in items])[item][:, None]
    sh, sw = ssz[item, 0][:, None], ssz[item, 1][:, None]
    in_sub = (sy >= 0) & (sy < sh) & (sx >= 0) & (sx < sw)
    ring_lab = np.where(in_sub, sbuf[soff[item][:, None] + np.where(in_sub, sy * sw + sx, 0)], 0)
    other = (ring_lab != 0) & (ring_lab != local[:, None])
    n_valid = (~other).sum(axis=1)
    good &= n_valid >= 6
    # order the valid samples from the pip's side (darkest first for dark pips); invalid ones last
    sgn = 1.0 if dark else -1.0
    ordered = np.sort(np.where(other, np.inf, sgn * ring), axis=1)
    rows = np.arange(len(ring))
    mid = np.minimum(np.maximum((n_valid - 1) // 2, 0), ring.shape[1] - 1)
    face = sgn * ordered[rows, mid]
    face = np.where(np.isfinite(face), face, 0.0)
    contrast = sgn * (face - gmean)
    worst = ordered[:, cfg.ring_skip] - sgn * gmean
    worst = np.where(np.isfinite(worst), worst, -1e9)
    good &= (contrast >= cfg.min_contrast) & (worst >= cfg.ring_min_rel * contrast)
    # a pip is solid: its centre is as dark (light) as the pip (not a ring-shaped character)
    cx_i = np.minimum(np.maximum(np.round(mx), 0), wb - 1).astype(np.intp)
    cy_i = np.minimum(np.maximum(np.round(my), 0), hb - 1).astype(np.intp)
    centre_v = gbuf[goff[item] + cy_i * wb + cx_i].astype(np.float64)
    if dark:
        solid = centre_v <= gmean + cfg.centre_max_rel * contrast
    else:
        solid = centre_v >= gmean - cfg.centre_max_rel * contrast
    # an elongated blob that is otherwise a pip (filled, solid, on a plain face): maybe blurred
    # pips merged, which the higher levels split (elongated clutter does not trigger them)
    ring_ok = good_any_ratio & (contrast >= cfg.min_contrast) & (worst >= cfg.ring_min_rel * contrast) & solid
    ring_ok &= inside.all(axis=1) & (n_valid >= 6)
    trigger = np.zeros(len(items), bool)
    trigger[item[ring_ok & elongated]] = True
    good &= solid
    out: list[list[Pip]] = [[] for _ in items]
    for i in np.nonzero(good)[0]:
        out[item[i]].append(Pip(float(mx[i]), float(my[i]), float(a[i]), (float(cxx[i]), float(cxy[i]), float(cyy[i])),
                                float(face[i]), float(contrast[i]), dark))
    return out, [bool(t) for t in trigger]


def find_pips(gray: np.ndarray, cfg: DiceConfig | None = None, roi: np.ndarray | None = None,
              light: bool = True, dark: bool = True) -> list[Pip]:
    """Pip candidates in a grey image: dark pips on light faces (if `dark`), light pips on dark
    faces (if `light`)."""
    cfg = cfg or DiceConfig()
    pips: list[Pip] = []
    for polarity in (True, False):
        if dark if polarity else light:
            pips += _window_pips([gray], [roi], polarity, cfg)[0]
    return pips


def _window_pips(grays: list[np.ndarray], rois: list[np.ndarray | None], dark: bool,
                 cfg: DiceConfig) -> list[list[Pip]]:
    """`find_pips` of one polarity in each of several images (one pass over all their blobs).

    Blobs at the base threshold, plus pips that only a higher threshold of `hat_levels`
    separates from their surroundings (a pip merged with a dark gap beside its die, or two
    blurred pips merged into one); the higher levels run only when some blob was too big (or,
    with `all_levels`, elongated)."""
    grays = [np.ascontiguousarray(g) for g in grays]
    pres, base_runs, trig = [], [], []
    for gray, roi in zip(grays, rois, strict=True):
        k = _hat_kernel(gray.shape, cfg)
        kern = cv2.getStructuringElement(cv2.MORPH_RECT if cfg.rect_kernel else cv2.MORPH_ELLIPSE, (k, k))
        if dark:
            bg = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kern)
            hat = cv2.subtract(bg, gray)
        else:
            bg = cv2.morphologyEx(gray, cv2.MORPH_OPEN, kern)
            hat = cv2.subtract(gray, bg)
        pres.append(_hat_pixels(hat, bg, roi, cfg))
        too_big: list[bool] = []
        base_runs.append(_level_labels(pres[-1], gray.shape, dark, cfg, cfg.hat_levels[0], too_big))
        trig.append(any(too_big))
    levels: list[list[list[Pip]]] = [[[]] for _ in grays]  # per image: the pips of each level
    todo = [i for i, r in enumerate(base_runs) if r is not None]
    if todo:
        pips, ring_trig = _blob_pips([(grays[i], base_runs[i]) for i in todo], dark, cfg)
        for i, p, t in zip(todo, pips, ring_trig, strict=True):
            levels[i][0] = p
            trig[i] = trig[i] or (t and cfg.all_levels)
    high = [i for i in range(len(grays)) if trig[i]]
    runs = [(i, j, _level_labels(pres[i], grays[i].shape, dark, cfg, lv, None))
            for i in high for j, lv in enumerate(cfg.hat_levels[1:])]
    for i in high:
        levels[i] += [[] for _ in cfg.hat_levels[1:]]
    runs = [(i, j, r) for i, j, r in runs if r is not None]
    if runs:
        pips, _ = _blob_pips([(grays[i], r) for i, _, r in runs], dark, cfg)
        for (i, j, _), p in zip(runs, pips, strict=True):
            levels[i][1 + j] = p
    split = cfg.split_ratio if cfg.all_levels else 0.0
    return [_merge_levels(lv, split=split) for lv in levels]


def _cov_axes(cov: tuple[float, float, float]) -> tuple[float, float]:
    """The variances along a pip's long and short axes (eigenvalues of its 2x2 covariance)."""
    cxx, cxy, cyy = cov
    disc = math.sqrt(max((cxx - cyy) ** 2 / 4.0 + cxy * cxy, 0.0))
    return (cxx + cyy) / 2 + disc, max((cxx + cyy) / 2 - disc, 0.0)


def _axis_ratio(cov: tuple[float, float, float]) -> float:
    l1, l2 = _cov_axes(cov)
    return math.sqrt(max(l2, 1e-9) / max(l1, 1e-9))


def _merge_levels(levels: list[list[Pip]], split: float = 0.0) -> list[Pip]:
    """Pips found at several thresholds: keep the lowest threshold's version of each pip and add
    pips only a higher threshold separated from their surroundings; with `split` > 0, a blob more
    elongated than that (minor/major axis) that a higher threshold splits into two or more pips is
    replaced by them (blurred pips merged)."""
    out = list(levels[0])
    for extra in levels[1:]:
        if not out:
            out = list(extra)
            continue
        xy = np.array([(p.x, p.y) for p in out])
        rad = np.array([p.radius for p in out])
        ex = np.array([(p.x, p.y) for p in extra]).reshape(-1, 2)
        erad = np.array([p.radius for p in extra])
        near = np.hypot(xy[:, None, 0] - ex[None, :, 0], xy[:, None, 1] - ex[None, :, 1]) <= (
            np.maximum(rad[:, None], erad[None, :]) * 1.2)
        # a blob that a higher threshold splits into two or more pips was blurred pips merged
        split_ = (near.sum(axis=1) >= 2) & (split > 0)
        for i in np.nonzero(split_)[0]:  # two merged pips make an elongated blob of two halves
            parts = erad[near[i]] ** 2
            split_[i] = _axis_ratio(out[i].cov) < split and parts.min() >= 0.25 * rad[i] ** 2
        owned = near.sum(axis=0) > 0
        out = [p for p, sp in zip(out, split_, strict=True) if not sp]
        out += [p for k, p in enumerate(extra) if not owned[k] or near[split_, k].any()]
    return out


# ------------------------------------------------------------------------------------------------
# Stage 2: faces


def _sqrtm2(cxx: np.ndarray, cxy: np.ndarray, cyy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Square root of symmetric positive 2x2 matrices [[a, b], [b, c]] (elementwise arrays)."""
    det = np.maximum(cxx * cyy - cxy * cxy, 1e-9)
    s = np.sqrt(det)
    t = np.sqrt(cxx + cyy + 2.0 * s)
    return (cxx + s) / t, cxy / t, (cyy + s) / t


def _layout_of(cells: frozenset[tuple[int, int]]) -> int:
    """The die value whose layout occupies exactly these 3x3 lattice cells, or 0."""
    return _CELLS_TO_VALUE.get(cells, 0)


def _all_cells() -> dict[frozenset[tuple[int, int]], int]:
    out: dict[frozenset[tuple[int, int]], int] = {}
    for v, pts in _LAYOUTS.items():
        for k in range(4):
            ang = k * math.pi / 2
            c, s = round(math.cos(ang)), round(math.sin(ang))
            cells = frozenset((int(c * x - s * y), int(s * x + c * y)) for x, y in pts)
            out[cells] = v
    return out


_CELLS_TO_VALUE = _all_cells()


@dataclass
class _PipArrays:
    xy: np.ndarray  # (N, 2)
    cov: np.ndarray  # (N, 3)
    area: np.ndarray
    face: np.ndarray
    contrast: np.ndarray
    dark: np.ndarray
    shape: np.ndarray  # (N, 3) covariance normalised to unit determinant

    @classmethod
    def of(cls, pips: list[Pip]) -> _PipArrays:
        n = len(pips)
        xy = np.array([(p.x, p.y) for p in pips], np.float64).reshape(n, 2)
        cov = np.array([p.cov for p in pips], np.float64).reshape(n, 3)
        det = np.sqrt(np.maximum(cov[:, 0] * cov[:, 2] - cov[:, 1] ** 2, 1e-9))
        return cls(
            xy=xy,
            cov=cov,
            area=np.array([p.area for p in pips], np.float64),
            face=np.array([p.face for p in pips], np.float64),
            contrast=np.array([p.contrast for p in pips], np.float64),
            dark=np.array([p.dark for p in pips], bool),
            shape=cov / det[:, None],
        )


def _compatible(pa: _PipArrays, cfg: DiceConfig, face_tolerance: float | None = None) -> np.ndarray:
    """(N, N) bool: pips i and j could lie on one face (same polarity, similar size and shape, face
    brightness around them within `face_tolerance`, by default the config's)."""
    a = pa.area
    ratio = np.maximum(a[:, None], a[None, :]) / np.maximum(np.minimum(a[:, None], a[None, :]), 1e-6)
    ds = pa.shape[:, None, :] - pa.shape[None, :, :]
    sdiff = np.sqrt(ds[..., 0] ** 2 + 2 * ds[..., 1] ** 2 + ds[..., 2] ** 2)
    # small pips have noisy moments: allow more shape difference for them
    r = np.sqrt(np.minimum(a[:, None], a[None, :]) / math.pi)
    tol = cfg.shape_tolerance * (1.0 + 1.5 / np.maximum(r, 0.5))
    fa = pa.face
    # relative to the bright side: the face for dark pips, the pips for light pips on a dark face
    bright = np.where(pa.dark, fa, fa + pa.contrast)
    frel = np.abs(fa[:, None] - fa[None, :]) / np.maximum(np.maximum(bright[:, None], bright[None, :]), 1.0)
    ok = (ratio <= cfg.pip_area_ratio) & (sdiff <= tol) & (pa.dark[:, None] == pa.dark[None, :])
    ok &= frel <= (cfg.face_tolerance if face_tolerance is None else face_tolerance)
    np.fill_diagonal(ok, False)
    return ok


def _rectify(cov: np.ndarray) -> np.ndarray:
    """Inverse of 2*sqrt(cov): maps image offsets to the face's own frame in pip radii."""
    cxx, cxy, cyy = float(cov[0]), float(cov[1]), float(cov[2])
    s = math.sqrt(max(cxx * cyy - cxy * cxy, 1e-9))  # as `_sqrtm2`, for one matrix
    t = math.sqrt(cxx + cyy + 2.0 * s)
    a, b, c = (cxx + s) / t, cxy / t, (cyy + s) / t
    m = 2.0 * np.array([[a, b], [b, c]])
    return np.linalg.inv(m)


def find_faces(pips: list[Pip], gray: np.ndarray, cfg: DiceConfig | None = None) -> list[Face]:
    """All face hypotheses (possibly overlapping) whose pips match a die layout.

    Every layout of two or more pips has two pips on opposite corners of its 3x3 lattice, farthest
    apart; so each compatible pair at a plausible distance proposes a lattice (centre, unit,
    orientation, rectified by the pair's mean pip ellipse).  The compatible pips within
    `closed_radius` of the centre must sit on lattice cells and occupy exactly a layout's cells;
    for fours, fives and sixes the lattice is then refitted as a full affine map (real faces are
    seen in perspective and sixes have their own row spacing) and checked again strictly.  Twos
    and threes (collinear, so only their pip ellipses tell the face's shape) must also agree with
    the pip spacing of the frame's other faces (one set of dice per frame).  Lone pips with no
    compatible pip near them propose a one.
    """
    cfg = cfg or DiceConfig()
    n = len(pips)
    if n == 0:
        return []
    pa = _PipArrays.of(pips)
    comp = _compatible(pa, cfg)
    # the pips between a proposing pair: the face measured around a six's middle pips takes in the
    # halo of its neighbours, so they are held to a looser face tolerance
    member = _compatible(pa, cfg, cfg.face_tolerance * cfg.member_face_factor)
    faces: dict[frozenset[int], Face] = {}
    diag = 2.0 * math.sqrt(2.0)
    rot45 = np.array([[1.0, -1.0], [1.0, 1.0]]) / math.sqrt(2.0)
    loose = 0.45
    for i in range(n):
        js = np.nonzero(comp[i, i + 1:])[0] + i + 1
        for j in js:
            cov = (pa.cov[i] + pa.cov[j]) / 2.0
            rect = _rectify(cov)
            d = rect @ (pa.xy[j] - pa.xy[i])
            dist = float(np.hypot(d[0], d[1]))
            unit = dist / diag  # layout unit in pip radii
            if not cfg.offset_min <= unit <= cfg.offset_max:
                continue
            centre = (pa.xy[i] + pa.xy[j]) / 2.0
            # lattice axes: the diagonal (i -> j) is (1, 1) in lattice units
            ang = math.atan2(d[1], d[0])
            ca, sa = math.cos(ang), math.sin(ang)
            to_diag = np.array([[ca, sa], [-sa, ca]])  # rotate so the diagonal lies on +x
            m = (rot45 @ to_diag @ rect) / unit
            # candidates: i, j, and pips compatible with both
            cand: np.ndarray = np.concatenate((np.array([i, j]), np.nonzero(member[i] & member[j])[0]))
            lat = (pa.xy[cand] - centre) @ m.T
            near = np.hypot(lat[:, 0], lat[:, 1]) <= cfg.closed_radius
            lat_n = lat[near]
            cells_f = np.round(lat_n)
            if np.abs(lat_n - cells_f).max() > loose or np.abs(cells_f).max() > 1:
                continue
            cells = frozenset((int(x), int(y)) for x, y in cells_f)
            if len(cells) != len(lat_n):
                continue
            value = _layout_of(cells)
            if value == 0:
                continue
            members = cand[near]
            error = 0.0
            if value >= 4:
                # affine refit: xy = t + A @ cell
                x = np.hstack([cells_f, np.ones((len(cells_f), 1))])
                sol, *_ = np.linalg.lstsq(x, pa.xy[members], rcond=None)
                a_mat = sol[:2].T
                if abs(np.linalg.det(a_mat)) < 1e-6:
                    continue
                m = np.linalg.inv(a_mat)
                centre = sol[2]
                lat = (pa.xy[cand] - centre) @ m.T
                near = np.hypot(lat[:, 0], lat[:, 1]) <= cfg.closed_radius
                lat_n = lat[near]
                cells_f = np.round(lat_n)
                error = float(np.abs(lat_n - cells_f).max())
                if error > cfg.layout_tolerance or np.abs(cells_f).max() > 1:
                    continue
                cells2 = frozenset((int(x), int(y)) for x, y in cells_f)
                if cells2 != cells or len(lat_n) != len(cells):
                    continue
                members = cand[near]
            key = frozenset(int(k) for k in members)
            if key in faces:
                continue
            face = _make_face(pa, key, value, cfg, gray, m, centre, cells, error)
            if face is not None:
                faces[key] = face
    out = list(faces.values())
    # one set of dice per frame: twos and threes must match the spacing of the fours and fives
    # (only from faces seen about as squarely as the squarest ones: side faces distort the spacing)
    ratios = sorted(f.axes[0] for f in out)
    floor = ratios[int(0.8 * (len(ratios) - 1))] - cfg.top_ratio_margin if ratios else 1.0
    squarish = [f for f in out if f.axes[0] >= floor]
    if cfg.expected_edge_px is not None:
        lo, hi = (v * cfg.expected_edge_px for v in cfg.ref_edge_range)
        squarish = [f for f in squarish if lo <= _edge_px(f, cfg) <= hi]
    ref = [f.extra["unit_r"] for f in squarish if f.value in (4, 5)] or [
        f.extra["unit_r"] for f in squarish if f.value == 3]
    unit_ref = float(np.median(ref)) if ref else None
    if unit_ref is not None:
        out = [f for f in out if f.value not in (2, 3)
               or abs(math.log(f.extra["unit_r"] / unit_ref)) <= math.log(cfg.unit_consistency)]
    one_unit = unit_ref if unit_ref is not None else cfg.one_unit
    # ones: a pip with no compatible pip nearby (in its own rectified frame)
    for i in range(n):
        rect = _rectify(pa.cov[i])
        others = np.nonzero(comp[i])[0]
        if len(others):
            q = (pa.xy[others] - pa.xy[i]) @ rect.T
            if (np.hypot(q[:, 0], q[:, 1]) <= cfg.closed_radius * one_unit).any():
                continue
        f = _make_face(pa, frozenset([i]), 1, cfg, gray, rect / one_unit, pa.xy[i], frozenset([(0, 0)]), 0.0)
        if f is not None:
            out.append(f)
    return out


def _grid(step: float, half: float) -> np.ndarray:
    v = np.arange(-half, half + 1e-9, step)
    g = np.stack(np.meshgrid(v, v), -1).reshape(-1, 2)
    return g


_FACE_GRID = _grid(0.25, 1.5)


@functools.lru_cache(maxsize=256)
def _face_samples(half: float, cells: frozenset[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The lattice sample points of a face of half-size `half` and each one's distance to the
    nearest pip cell (lattice units)."""
    g = _FACE_GRID[(np.abs(_FACE_GRID) <= half + 1e-9).all(axis=1)]
    occ = np.array(sorted(cells), np.float64)
    dd = np.sqrt(((g[:, None, :] - occ[None, :, :]) ** 2).sum(-1)).min(axis=1)
    g.flags.writeable = False
    dd.flags.writeable = False
    return g, dd


def _plainness(gray: np.ndarray, m: np.ndarray, centre: np.ndarray, cells: frozenset[tuple[int, int]],
               pip_r: float, face: float, contrast: float, half: float,
               inv: np.ndarray | None = None) -> tuple[float, float]:
    """Share of the face (lattice square of half-size `half`, pips excluded) whose grey level is
    near the face's own: a die face is plain between its pips; clutter rarely is.  `contrast` is
    signed (face minus pip).  Also returns the face's grey level."""
    g, dd = _face_samples(half, cells)
    g = g[dd > pip_r * 1.6 + 0.1]
    if len(g) == 0:
        return 0.0, face
    inv = np.linalg.inv(m) if inv is None else inv  # (`inv`: the inverse, when the caller has it)
    pts = centre[None, :] + g @ inv.T
    h, w = gray.shape
    xi = np.round(pts[:, 0]).astype(np.intp)
    yi = np.round(pts[:, 1]).astype(np.intp)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    if inside.mean() < 0.6:
        return 0.0, face
    vals = gray[yi[inside], xi[inside]].astype(np.float64)
    # the face level from the samples themselves (a blurred pip's ring is darker than the face)
    pip_level = face - contrast
    level = _median(vals)
    tol = 0.4 * abs(level - pip_level)
    return float((np.abs(vals - level) <= tol).mean()), level


_RING8 = np.stack([np.cos(np.linspace(0, 2 * np.pi, 8, endpoint=False)),
                   np.sin(np.linspace(0, 2 * np.pi, 8, endpoint=False))], axis=1)
_RING = np.stack([np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                  np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False))], axis=1)


def _bounded(gray: np.ndarray, m: np.ndarray, centre: np.ndarray, level: float, pip_level: float,
             radius: float, inv: np.ndarray | None = None) -> float:
    """Share of a ring just outside the die face (lattice units) that does not look like the face:
    a die is a small body, while a dot or a character on a plain surface has the same surface all
    around it."""
    pts = centre[None, :] + (_RING * radius) @ (np.linalg.inv(m) if inv is None else inv).T
    h, w = gray.shape
    xi = np.round(pts[:, 0]).astype(np.intp)
    yi = np.round(pts[:, 1]).astype(np.intp)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    if inside.mean() < 0.5:
        return 1.0
    vals = gray[yi[inside], xi[inside]].astype(np.float64)
    return float((np.abs(vals - level) > 0.2 * abs(level - pip_level)).mean())


def _make_face(pa: _PipArrays, members: frozenset[int], value: int, cfg: DiceConfig, gray: np.ndarray,
               m: np.ndarray, centre: np.ndarray, cells: frozenset[tuple[int, int]], error: float) -> Face | None:
    """Check and describe one face hypothesis; `m` maps image offsets from `centre` to lattice units."""
    idx = np.array(sorted(members))
    pts = pa.xy[idx]
    cov = pa.cov[idx].mean(axis=0)
    rect = _rectify(cov)
    r_px = math.sqrt(math.sqrt(max(cov[0] * cov[2] - cov[1] ** 2, 1e-9))) * 2.0  # geometric-mean radius
    if value == 1:
        unit_r = 1.0 / math.sqrt(abs(np.linalg.det(m))) / r_px
        half = cfg.plain_half_one
    elif value in (2, 3):
        q = (pts - pts.mean(axis=0)) @ rect.T  # pip radii, face frame
        dists = _pair_dists(q)
        sig = _SIGNATURES[value][0]
        scale = float((dists * sig).sum() / max((dists * dists).sum(), 1e-9))  # layout units per radius
        if scale <= 0:
            return None
        error = float(np.abs(dists * scale - sig).max())
        unit_r = 1.0 / scale
        half = cfg.plain_half
    else:
        a_mat = np.linalg.inv(m)
        unit_r = math.sqrt(abs(np.linalg.det(a_mat))) / r_px
        if value == 6:  # the six's columns are two units apart, its rows closer: use the columns
            unit_r = math.sqrt(abs(np.linalg.det(a_mat))) / r_px
        # the lattice's shape must agree with the pips' (round pips on a square face)
        s_a = a_mat @ a_mat.T
        s_a = s_a / math.sqrt(max(np.linalg.det(s_a), 1e-12))
        s_p = np.array([[cov[0], cov[1]], [cov[1], cov[2]]])
        s_p = s_p / math.sqrt(max(np.linalg.det(s_p), 1e-12))
        if float(np.sqrt(((s_a - s_p) ** 2).sum())) > cfg.lattice_shape_tolerance:
            return None
        half = cfg.plain_half
    if error > cfg.layout_tolerance or not cfg.offset_min <= unit_r <= cfg.offset_max:
        return None
    face_b = _median(pa.face[idx])
    contrast = _median(pa.contrast[idx])
    signed = contrast if pa.dark[idx[0]] else -contrast
    centre_a = np.asarray(centre, np.float64)
    m_inv = a_mat if value >= 4 else np.linalg.inv(m)
    plain, level = _plainness(gray, m, centre_a, cells, 1.0 / unit_r, face_b, signed, half, m_inv)
    if plain < cfg.min_plain:
        return None
    if value <= cfg.boundary_max_value and cfg.boundary_radius > 0:
        if _bounded(gray, m, centre_a, level, face_b - signed, cfg.boundary_radius, m_inv) < cfg.min_boundary:
            return None
    # the face's shape (normalised 2x2, unit determinant): from the fitted lattice when there is one
    if value >= 4:
        sm = m_inv @ m_inv.T
    else:
        sm = np.array([[cov[0], cov[1]], [cov[1], cov[2]]])
    sm = sm / math.sqrt(max(float(np.linalg.det(sm)), 1e-12))
    shape = (float(sm[0, 0]), float(sm[0, 1]), float(sm[1, 1]))
    # foreshortening of the face from the mean pip ellipse
    cxx, cxy, cyy = cov
    tr = cxx + cyy
    disc = math.sqrt(max((cxx - cyy) ** 2 / 4.0 + cxy * cxy, 0.0))
    l1, l2 = tr / 2 + disc, max(tr / 2 - disc, 1e-9)
    ratio = math.sqrt(l2 / l1)
    angle = 0.5 * math.degrees(math.atan2(2 * cxy, cxx - cyy))
    x0, y0 = pts.min(axis=0) - r_px
    x1, y1 = pts.max(axis=0) + r_px
    return Face(
        value=value,
        pips=tuple(int(k) for k in idx),
        centre=(float(pts[:, 0].mean()), float(pts[:, 1].mean())),
        unit=unit_r * r_px,
        axes=(ratio, angle),
        error=error,
        brightness=face_b,
        box=(int(math.floor(x0)), int(math.floor(y0)), int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0))),
        dark=bool(pa.dark[idx[0]]),
        extra={"r": r_px, "unit_r": unit_r, "contrast": contrast, "plain": plain,
               "sxx": shape[0], "sxy": shape[1], "syy": shape[2], "lattice": float(value >= 4)},
    )


# ------------------------------------------------------------------------------------------------
# Stage 3: dice


def _face_score(f: Face) -> float:
    return f.value * 1.0 - 4.0 * f.error + (0.0 if f.value > 1 else -0.5)


def select_faces(faces: list[Face], cfg: DiceConfig | None = None) -> list[Face]:
    """Best-first choice of faces that share no pip; faces of a die's size before those that can
    only be a side face (`side_only`: a pip of a one and a spot beside it make no side face)."""
    used: set[int] = set()
    out = []
    for f in sorted(faces, key=lambda f: (not f.extra.get("side_only"), _face_score(f)), reverse=True):
        if used.intersection(f.pips):
            continue
        out.append(f)
        used.update(f.pips)
    return out


def _edge_px(f: Face, cfg: DiceConfig) -> float:
    """Estimated die edge length in px from a face's pip spacing along its least foreshortened axis."""
    return f.unit / max(f.axes[0], 0.2) ** 0.5 / cfg.offset_frac


def _near(top: Face, g: Face, cfg: DiceConfig) -> bool:
    """Could `g` be a side face of the die whose top face is `top`?"""
    e = max(_edge_px(top, cfg), _edge_px(g, cfg))
    dx = g.centre[0] - top.centre[0]
    dy = g.centre[1] - top.centre[1]
    return abs(dx) <= cfg.side_dx * e and math.hypot(dx, dy) <= cfg.side_dist * e


def assign_top_faces(faces: list[Face], cfg: DiceConfig,
                     tilt: Any = None) -> list[tuple[Face, list[Face]]]:
    """Split faces into dice: (top face, side faces) pairs.

    The camera looks down on the table, so every die's top face is foreshortened alike (the
    reference roundness `ref` of its pips is the roundest faces' in the frame), and a die's top face
    appears above its side faces.  Faces are visited from the top of the image down.  A face near
    an accepted top face (within about an edge, `side_dist`, `side_dx`) is one of its side faces,
    unless both are "top-like" while side faces cannot be (the view is steep enough that a side
    face's pips are clearly flatter): then they are two dice.  A side face clearly rounder than
    its die's top face takes over as the top.  Faces flatter than `min_top_ratio` are never tops.

    With a board, `tilt(face)` tells how far a face's shape is from the board plane's (the
    calibration knows it); that replaces roundness: the top face is the one nearest the plane,
    and faces tilted more than `board_top_max_tilt` are never tops.
    """
    if not faces:
        return []
    if tilt is not None:
        tilts = {id(f): float(tilt(f)) for f in faces}

        def top_like(f: Face) -> bool:
            return tilts[id(f)] <= cfg.board_top_max_tilt and not f.extra.get("side_only")

        def better(g: Face, t: Face) -> bool:
            return tilts[id(g)] < tilts[id(t)] - cfg.board_tilt_margin

        steep = True
    else:
        ratios = sorted(f.axes[0] for f in faces)
        ref = max(ratios[int(0.8 * (len(ratios) - 1))], cfg.min_top_ratio)
        top_floor = max(cfg.min_top_ratio, ref - cfg.top_ratio_margin)
        side_max = math.sqrt(max(0.0, 1.0 - ref * ref)) + cfg.top_ratio_margin  # flattest side expected
        steep = side_max < top_floor

        def top_like(f: Face) -> bool:
            return f.axes[0] >= top_floor

        def better(g: Face, t: Face) -> bool:
            return g.axes[0] > t.axes[0] + cfg.top_ratio_margin and g.axes[0] >= cfg.min_top_ratio

    dice: list[list[Face]] = []  # [top, sides...]
    for g in sorted(faces, key=lambda f: f.centre[1]):
        hosts = [d for d in dice if _near(d[0], g, cfg)]
        if hosts and steep and top_like(g) and all(top_like(d[0]) for d in hosts):
            hosts = []
        if not hosts:
            dice.append([g])
            continue
        host = min(hosts, key=lambda d: math.hypot(g.centre[0] - d[0].centre[0], g.centre[1] - d[0].centre[1]))
        if better(g, host[0]):
            host.insert(0, g)
        else:
            host.append(g)
    if tilt is not None:
        return [(d[0], d[1:]) for d in dice if top_like(d[0])]
    return [(d[0], d[1:]) for d in dice if d[0].axes[0] >= cfg.min_top_ratio]


def _plausible_ones(dice: list[tuple[Face, list[Face]]], cfg: DiceConfig,
                    shade: bool = False) -> list[tuple[Face, list[Face]]]:
    """Drop ones and twos (the faces with least layout evidence) unlike the frame's other top faces
    (one set of dice per frame): much smaller or larger pips, fainter pips, or a darker face are
    side-face remnants, print on labels or keyboard symbols.  The reference is the other top faces
    when there are two or more, or a single other face with four or more pips.  `shade` (with a
    board, whose die size already rules out print of other sizes): a darker face whose pips keep
    the reference's contrast relative to it is a die in shade (`one_min_face_shaded`)."""
    out = []
    for k, (t, sides) in enumerate(dice):
        if t.value <= 2:
            others = [o for i, (o, _) in enumerate(dice) if i != k and o.dark == t.dark]
            strong = [o for o in others if o.value >= 4]
            ref_faces = others if len(others) >= 2 else strong
            if ref_faces and not _like(t, ref_faces, cfg, shade):
                continue
        out.append((t, sides))
    return out


def _like(t: Face, ref_faces: list[Face], cfg: DiceConfig, shade: bool = False) -> bool:
    best = max(f.axes[0] for f in ref_faces)
    ref = [f for f in ref_faces if f.axes[0] >= best - cfg.top_ratio_margin]
    r_ref = float(np.median([f.extra["r"] for f in ref]))
    c_ref = float(np.median([f.extra["contrast"] for f in ref]))
    f_ref = float(np.median([f.brightness for f in ref]))
    if not cfg.one_min_size * r_ref <= t.extra["r"] <= cfg.one_max_size * r_ref:
        return False
    if t.extra["contrast"] < cfg.one_min_contrast * c_ref:
        return False
    if not t.dark or t.brightness >= cfg.one_min_face * f_ref:
        return True
    if not shade:
        return False
    rel, rel_ref = t.extra["contrast"] / max(t.brightness, 1.0), c_ref / max(f_ref, 1.0)
    return t.brightness >= cfg.one_min_face_shaded * f_ref and abs(math.log(rel / max(rel_ref, 1e-6))) <= cfg.one_shade_rel


def _one_polarity(dice: list[tuple[Face, list[Face]]]) -> list[tuple[Face, list[Face]]]:
    """Keep only the dice of the better supported pip polarity (a frame's dice are one style, and
    light symbols on dark keys or dark print on labels are the usual lone-pip impostors)."""
    score = {True: 0.0, False: 0.0}
    for t, _ in dice:
        score[t.dark] += t.value if t.value > 1 else 0.5
    keep = score[True] >= score[False]
    return [(t, s) for t, s in dice if t.dark == keep]


def _shape_diff(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return math.sqrt((a[0] - b[0]) ** 2 + 2 * (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


def _face_shape(f: Face) -> tuple[float, float, float]:
    return (f.extra["sxx"], f.extra["sxy"], f.extra["syy"])


def _board_shape(board: Any, xy: tuple[float, float]) -> tuple[float, float, float] | None:
    """Normalised shape of a small square lying flat on the board at image point `xy`."""
    try:
        u, v = (float(t) for t in board.to_board(np.asarray(xy, np.float64)))
        aspect = float(getattr(board, "aspect", 1.0)) or 1.0
        eps = 0.005
        p = np.asarray(board.to_image([[u, v], [u + eps, v], [u, v + eps / aspect]]), np.float64)
    except Exception:  # noqa: BLE001 - a geometry object without these methods: no board prior
        return None
    j = np.stack([p[1] - p[0], p[2] - p[0]], axis=1) / eps
    sm = j @ j.T
    det = float(np.linalg.det(sm))
    if det <= 1e-12:
        return None
    sm = sm / math.sqrt(det)
    return (float(sm[0, 0]), float(sm[0, 1]), float(sm[1, 1]))


def _major_r(f: Face) -> float:
    """A face's pip radius along the pips' longer axis: a side face is foreshortened across, not
    along, so this is what compares with the top face's pips (the geometric mean shrinks)."""
    return f.extra["r"] / math.sqrt(max(f.axes[0], 0.05))


def _side_spans(s: Face, board: Any, scale: float, offset: tuple[float, float], cfg: DiceConfig) -> bool:
    """A side face's pip lattice spans a die's edge (`cocked_side_edge` of the board's die size,
    along its less foreshortened axis): a whole face, not the sliver of side face a flat die shows.
    (Its pips' size is a poorer measure: a side face is darker, and thresholding shrinks faint pips.)
    A lattice wider than a die's face (`board_size_max`) is no face of it at all: pips of two
    bodies, such as a one's pip and a spot on the board."""
    edge = _die_edge_at(s, board, scale, offset)
    return edge is not None and cfg.cocked_side_edge * edge * scale <= _edge_px(s, cfg) <= cfg.board_size_max * edge * scale


def _cocked(dice: list[tuple[Face, list[Face]]], cfg: DiceConfig, board: Any, scale: float,
            offset: tuple[float, float] = (0.0, 0.0), with_scores: bool = False) -> list[bool]:
    """Is each die cocked?  A flat die's top face is parallel to the table, so it is foreshortened
    like the board plane (known from the calibration) or, without a board, like the other dice's
    top faces.  A die leaning on an edge is tilted by 20-45 degrees, which changes that shape; it
    also shows a large side face (with a board: a side face whose pips are rounder than
    `cocked_side_ratio`)."""
    out = []
    scores: list[float] = []
    shapes = [_face_shape(t) for t, _ in dice]
    for k, (t, sides) in enumerate(dice):
        ref = None
        if board is not None:
            ref = _board_shape(board, (t.centre[0] / scale + offset[0], t.centre[1] / scale + offset[1]))
        elif len(dice) >= 3:
            others = [shapes[i] for i in range(len(dice)) if i != k]
            ref = tuple(float(np.median([o[c] for o in others])) for c in range(3))  # type: ignore[assignment]
        if ref is None:
            out.append(False)
            scores.append(0.0)
            continue
        diff = _shape_diff(shapes[k], ref)  # type: ignore[arg-type]
        if board is None:  # other dice seen from other angles (perspective): a weaker reference
            diff /= cfg.cocked_free_factor
        # a side face of a cocked die is large: its pips are about as big as the top face's (the
        # sliver of a side face a flat die shows has small, cut pips)
        if board is not None:
            sides = [s for s in sides if _beyond_edge(s, t, board, scale, offset, cfg)]
        side = max((s.axes[0] for s in sides if _major_r(s) >= cfg.cocked_side_pip * t.extra["r"]),
                   default=0.0) if board is not None else 0.0
        noise = max(1.0, cfg.cocked_pip_r / max(t.extra["r"], 1e-6)) ** 2 if board is not None else 1.0
        pip_tol = cfg.cocked_pip_tolerance * noise
        one_tol = cfg.cocked_one_tolerance * noise
        # the tilt score (for a die leaning on something, `roll_validity`) against the plain tolerances
        tol = (cfg.cocked_lattice_tolerance if t.extra["lattice"] else
               cfg.cocked_one_tolerance if t.value == 1 else cfg.cocked_pip_tolerance)
        scores.append(diff / tol)
        if t.extra["lattice"]:
            cocked = diff > cfg.cocked_lattice_tolerance
        elif t.value == 1:  # one pip's moments are a poor measure of its face's shape
            cocked = diff > one_tol or (diff > pip_tol and side >= cfg.cocked_side_ratio)
        else:
            # a two's or three's shape comes from its pip ellipses alone: with a board, a tilt
            # that shows only there is left to `roll_validity`, which wants what the die leans
            # on (a cocked die rests against something; flat twos reach this score on their own)
            cocked = (diff > pip_tol and board is None) or (
                diff > cfg.cocked_lattice_tolerance and side >= cfg.cocked_side_ratio)
        # alone, only a side face with two or more pips (a flat die's sliver of side face can
        # show one cut pip)
        side2 = max((s.axes[0] for s in sides if s.value >= 2 and _major_r(s) >= cfg.cocked_side_pip * t.extra["r"]),
                    default=0.0) if board is not None else 0.0
        # a side face known by its lattice alone (faint, small pips) must be seen more squarely
        side2 = max([side2] + [s.axes[0] - cfg.cocked_side_only_margin for s in sides if s.value >= 2
                               and board is not None and _side_spans(s, board, scale, offset, cfg)])
        out.append(bool(cocked or side2 >= cfg.cocked_side_alone))
    if with_scores:
        return out, scores  # type: ignore[return-value]
    return out


def _beyond_edge(s: Face, t: Face, board: Any, scale: float, offset: tuple[float, float],
                 cfg: DiceConfig) -> bool:
    """Side face `s` lies beyond the edge of top face `t` (`cocked_side_min_dist` board die edges)."""
    edge = _die_edge_at(t, board, scale, offset)
    if edge is None:
        return True
    return math.hypot(s.centre[0] - t.centre[0], s.centre[1] - t.centre[1]) >= cfg.cocked_side_min_dist * edge * scale


def _side_pips(top: Face, dice: list[tuple[Face, list[Face]]], pips: dict[int, Pip], board: Any,
               scale: float, offset: tuple[float, float], cfg: DiceConfig,
               grays: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
    """With a board: whole pips of a large side face lie just outside the top face (`side_pip_*`).
    A die leaning 20-45 degrees shows a side face sin(tilt) = 0.35-0.7 of an edge wide, whose pips
    (of the top's polarity) are about as big as the top face's along the edge and foreshortened
    across it; they need not pair into a face (small, faint, differently shaped).  A flat die
    shows at most a sliver of side face: cut, tiny pips hugging the top face's edge.  With the
    empty board (`grays`: the frame's and the empty board's grey over the search region, in the
    region's px), a "pip" that looks as on the empty board is the board's own mark (the tip of a
    point beside the die), not a side face's."""
    edge_px = _die_edge_at(top, board, scale, offset)
    if edge_px is None:
        return False
    edge = edge_px * scale
    taken = {i for t, _ in dice for i in t.pips}  # pips of any die's top face
    reach = []
    gain: float | None = None  # the frame's lighting against the empty board around the die (when asked)
    for i, p in pips.items():
        if i in taken or p.dark != top.dark:
            continue
        d = math.hypot(p.x - top.centre[0], p.y - top.centre[1]) / edge
        if not cfg.side_pip_min_dist <= d <= cfg.side_pip_max_dist:
            continue
        major, minor = _cov_axes(p.cov)
        size = 2.0 * math.sqrt(max(major, 1e-9)) / max(top.extra["r"], 1e-6)  # long-axis radius vs the top's pips
        if not (cfg.side_pip_min_size <= size <= cfg.side_pip_max_size
                and math.sqrt(minor / max(major, 1e-9)) >= cfg.side_pip_min_round
                and p.contrast >= cfg.side_pip_min_contrast * top.extra["contrast"]):
            continue
        if grays is not None:
            if gain is None:
                gain = _ring_gain(grays, (top.centre[0] / scale, top.centre[1] / scale), edge_px)
            if _on_empty_board(p, grays, scale, cfg, gain):
                continue
        reach.append(d)
    return len(reach) >= cfg.side_pip_count and max(reach) >= cfg.side_pip_reach


# die edges: where the frame's gain against the empty board is sampled around a die (a ring of
# 48 points at 1.35, 1.6 and 1.85 edges, outside the die and its side face: `_ring_gain`), and how
# far `_side_band` looks
_GAIN_RING = np.concatenate([
    rad * np.stack([np.cos(np.linspace(0.0, 2.0 * math.pi, 16, endpoint=False)),
                    np.sin(np.linspace(0.0, 2.0 * math.pi, 16, endpoint=False))], axis=1)
    for rad in (1.35, 1.6, 1.85)])
_SIDE_BAND_REACH = 1.9


def _ring_gain(grays: tuple[np.ndarray, np.ndarray], centre: tuple[float, float], edge: float) -> float:
    """The frame's lighting against the empty board (grey ratio, median) on a ring 1.35-1.85
    die edges around `centre` (region px): outside the die and any side face it shows."""
    frame, empty = grays
    h, w = frame.shape[:2]
    pts = np.asarray(centre, np.float64) + _GAIN_RING * edge
    ix, iy = np.round(pts[:, 0]).astype(np.intp), np.round(pts[:, 1]).astype(np.intp)
    ok = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    fg, eg = frame[iy[ok], ix[ok]].astype(np.float64), empty[iy[ok], ix[ok]].astype(np.float64)
    keep = eg > 5
    return float(np.median(fg[keep] / eg[keep])) if keep.sum() >= 20 else 1.0


def _on_empty_board(p: Pip, grays: tuple[np.ndarray, np.ndarray], scale: float, cfg: DiceConfig,
                    gain: float = 1.0) -> bool:
    """Pip `p` and the ring around it look as on the empty board under the frame's lighting
    `gain` (the median grey difference over a square of twice the pip's long radius is within
    `side_pip_static` of its contrast): a mark of the board itself, not a pip on a side face that
    covers the board there."""
    frame, empty = grays
    h, w = frame.shape[:2]
    x, y = int(round(p.x / scale)), int(round(p.y / scale))
    major, _ = _cov_axes(p.cov)
    r = max(2, int(round(4.0 * math.sqrt(max(major, 1e-9)) / scale)))  # twice the long radius (2 sigma)
    x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    diff = np.abs(frame[y0:y1, x0:x1].astype(np.float64) - gain * empty[y0:y1, x0:x1].astype(np.float64))
    return bool(float(np.median(diff)) <= cfg.side_pip_static * p.contrast)


def _side_band(image_bgr: np.ndarray, empty_gray: np.ndarray, top: Face, board: Any, scale: float,
               offset: tuple[float, float], cfg: DiceConfig) -> bool:
    """With a board and the empty board (`empty_gray`, camera px): a large side face lies beside
    one edge of top face `top` (`side_band_*`), whether or not its pips were found.  Measured in a
    strip just outside each edge of the top face rather than on the die's whole silhouette, which
    merges with a checker it leans on; no verdict where the die cannot be told from what lies
    beyond the strip (a checker, point or board of the die's colour)."""
    if image_bgr.ndim != 3:
        return False
    cx, cy = top.centre[0] / scale + offset[0], top.centre[1] / scale + offset[1]
    edge_px = _die_edge_at(top, board, scale, offset)
    if edge_px is None:
        return False
    edge = edge_px
    reach = _SIDE_BAND_REACH * edge
    r = int(math.ceil(reach)) + 3
    h, w = image_bgr.shape[:2]
    x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
    x1, y1 = min(w, int(cx) + r + 1), min(h, int(cy) + r + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return False
    patch, empty = image_bgr[y0:y1, x0:x1], empty_gray[y0:y1, x0:x1]
    if cfg.side_band_blur > 0:
        patch = cv2.GaussianBlur(patch, (0, 0), cfg.side_band_blur)
        empty = cv2.GaussianBlur(empty, (0, 0), cfg.side_band_blur)
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    px, py = cx - x0, cy - y0
    ph, pw = gray.shape

    # the top face's colour: face pixels (not pips) near its centre
    fr = int(math.ceil(cfg.side_band_face_r * edge))
    fx0, fy0 = max(0, int(px) - fr), max(0, int(py) - fr)
    sub_c = patch[fy0:int(py) + fr + 1, fx0:int(px) + fr + 1].reshape(-1, 3).astype(np.float32)
    sub_g = gray[fy0:int(py) + fr + 1, fx0:int(px) + fr + 1].astype(np.float32)
    yy, xx = np.mgrid[fy0:fy0 + sub_g.shape[0], fx0:fx0 + sub_g.shape[1]]
    face = ((np.hypot(xx - px, yy - py) <= cfg.side_band_face_r * edge)
            & (np.abs(sub_g - top.brightness) <= cfg.side_band_face_tol * top.extra["contrast"])).ravel()
    if face.sum() < 5:
        return False
    ref = np.median(sub_c[face], axis=0)
    norm2 = float(ref @ ref)
    if norm2 < 1.0:
        return False
    gain = _ring_gain((gray, empty), (px, py), edge)  # the frame's light, well outside the die

    # the top face's edges' direction: gradient angles (mod 90 degrees) around its rim
    rr = int(math.ceil(cfg.side_band_ring[1] * edge)) + 2
    gx0, gy0 = max(0, int(px) - rr), max(0, int(py) - rr)
    g = gray[gy0:int(py) + rr + 1, gx0:int(px) + rr + 1]
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    yy, xx = np.mgrid[gy0:gy0 + g.shape[0], gx0:gx0 + g.shape[1]]
    d = np.hypot(xx - px, yy - py) / edge
    ring = (d >= cfg.side_band_ring[0]) & (d <= cfg.side_band_ring[1])
    mag = (gx * gx + gy * gy)[ring]
    alpha = float(np.angle((mag * np.exp(4j * np.arctan2(gy[ring], gx[ring]))).sum())) / 4.0
    # sample strips beside the four edges: near (inside a leaning die's side face) and far (beyond it)
    along = np.linspace(-cfg.side_band_half, cfg.side_band_half, 9)
    spans = np.stack([np.linspace(*cfg.side_band_near, 4), np.linspace(*cfg.side_band_far, 4)])  # 2 x 4
    angles = alpha + np.arange(4) * (math.pi / 2.0)
    nx, ny = np.cos(angles)[:, None, None, None], np.sin(angles)[:, None, None, None]
    out, side = spans[None, :, :, None], along[None, None, None, :]
    sx = (px + edge * (nx * out - ny * side)).ravel()
    sy = (py + edge * (ny * out + nx * side)).ravel()
    ix, iy = np.round(sx).astype(np.intp), np.round(sy).astype(np.intp)
    inside = (ix >= 0) & (ix < pw) & (iy >= 0) & (iy < ph)
    ix, iy = np.clip(ix, 0, pw - 1), np.clip(iy, 0, ph - 1)
    col = patch[iy, ix].astype(np.float32)
    shade = (col @ ref) / norm2  # brightness as a share of the top face's, along its colour
    off = np.linalg.norm(col - shade[:, None] * ref[None, :], axis=1)
    die_colour = ((off <= cfg.side_band_chroma_abs + cfg.side_band_chroma_rel * shade * math.sqrt(norm2))
                  & (shade >= cfg.side_band_min_shade) & (shade <= cfg.side_band_max_glare))
    e_ = gain * empty[iy, ix].astype(np.float32)
    changed = np.abs(gray[iy, ix].astype(np.float32) - e_) > np.maximum(
        cfg.side_band_change_abs, cfg.side_band_change_rel * e_)
    shape = (4, 2, spans.shape[1] * along.size)
    inside_, n_in = inside.reshape(shape), np.maximum(inside.reshape(shape).sum(axis=2), 1)

    def share(m: np.ndarray) -> np.ndarray:  # per edge and strip, over the points inside the image
        return (m.reshape(shape) & inside_).sum(axis=2) / n_in

    seen = inside_.mean(axis=2) >= 0.7
    near = share(die_colour & changed & (shade <= cfg.side_band_max_shade))[:, 0]
    beyond, tint = share(die_colour & changed)[:, 1], share(die_colour)[:, 1]
    # (a strip almost all side face beside a board of the die's colour that has not changed
    # beyond it: the die's own shaded face, not the board)
    return bool(np.any(seen.all(axis=1) & (near >= cfg.side_band_min) & (beyond <= cfg.side_band_max_beyond)
                       & ((tint <= cfg.side_band_max_colour) | (near >= cfg.side_band_sure))))


def read_dice_timed(
    image_bgr: np.ndarray, config: DiceConfig | None = None, board: Any = None, *,
    background: BoardBackground | np.ndarray | None = None,
) -> tuple[list[DieReading], DiceTimings]:
    """`read_dice` plus the time spent in each stage."""
    cfg = config if isinstance(config, DiceConfig) else getattr(config, "dice", None) or DiceConfig()
    tm = DiceTimings()
    t0 = time.perf_counter()
    h, w = image_bgr.shape[:2]

    def to_gray(img: np.ndarray) -> np.ndarray:
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img

    scale = 1.0
    offset = (0.0, 0.0)
    if board is not None:
        # Keep to the playing surface plus a margin; find candidate windows at the camera's
        # resolution, then read each window rescaled so that a die is about `board_die_target` px
        # (the pips of a 16 mm die are only ~3 px wide on a 1280 px frame).
        g_ = cfg.board_grow
        poly = np.asarray(board.to_image([[-g_, -g_], [1 + g_, -g_], [1 + g_, 1 + g_], [-g_, 1 + g_]]), np.float64)
        centre = np.asarray(board.to_image([0.5, 0.5]), np.float64).reshape(2)
        die_px = float(board.die_size_px(centre))
        # where the search region runs past the image, the image is extended by `border_pad` die
        # edges (edge pixels repeated): a die lying at the image border keeps the rings and the
        # plain face its pips are judged by
        pad = int(math.ceil(cfg.border_pad * die_px))
        x0, y0 = (int(max(-pad, np.floor(v))) for v in poly.min(axis=0))
        x1 = int(min(w + pad, np.ceil(poly[:, 0].max()) + 1))
        y1 = int(min(h + pad, np.ceil(poly[:, 1].max()) + 1))
        ix0, iy0, ix1, iy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if ix1 - ix0 < 8 or iy1 - iy0 < 8:
            return [], tm
        pads = (iy0 - y0, y1 - iy1, ix0 - x0, x1 - ix1)

        def padded(a: np.ndarray) -> np.ndarray:
            return cv2.copyMakeBorder(a, *pads, cv2.BORDER_REPLICATE) if any(pads) else a

        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(poly - [x0, y0]).astype(np.int32), 255)
        scale = float(np.clip(cfg.board_die_target / max(die_px, 1.0), cfg.board_min_scale, cfg.board_max_scale))
        offset = (float(x0), float(y0))
        g_roi = np.ascontiguousarray(padded(to_gray(image_bgr[iy0:iy1, ix0:ix1])))
        m_roi = mask > 0
        wcfg = _board_config(cfg, die_px * scale)
        t1 = time.perf_counter()
        bg = None
        if background is not None:
            if not isinstance(background, BoardBackground):
                background = BoardBackground(background)
            if background.gray.shape[:2] == (h, w):
                k = max(3, int(round(cfg.board_hat_die * die_px))) | 1
                b_bh, b_wh = background.hats((ix0, iy0, ix1, iy1), k)
                bg = tuple(padded(a) for a in (background.gray[iy0:iy1, ix0:ix1], b_bh, b_wh,
                                               *background.near_hats((ix0, iy0, ix1, iy1), k)))
        windows = _candidate_windows(g_roi, m_roi, die_px, cfg, bg)
        faces = []
        seen: list[tuple[float, float]] = []  # pips of all windows, in work px (windows overlap)
        all_pips: dict[int, Pip] = {}  # the same pips by number (for side faces' loose pips)
        gws, rws = [], []
        for wx0, wy0, wx1, wy1, _ in windows:
            size = (round((wx1 - wx0) * scale), round((wy1 - wy0) * scale))
            gws.append(cv2.resize(g_roi[wy0:wy1, wx0:wx1], size, interpolation=cv2.INTER_LINEAR))
            rws.append(cv2.resize(m_roi[wy0:wy1, wx0:wx1].view(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0)
        # the pips of all windows of one polarity at once (as `find_pips` of each)
        win_pips: list[list[Pip]] = [[] for _ in windows]
        for polarity in (True, False):
            sel = [i for i, wb in enumerate(windows) if wb[4] == polarity]
            if sel:
                for i, p in zip(sel, _window_pips([gws[i] for i in sel], [rws[i] for i in sel], polarity, wcfg),
                                strict=True):
                    win_pips[i] = p
        for (wx0, wy0, _, _, _), gw, wpips in zip(windows, gws, win_pips, strict=True):
            dx, dy = wx0 * scale, wy0 * scale
            ids = []
            for p in wpips:
                x, y = p.x + dx, p.y + dy
                for k, (sx, sy) in enumerate(seen):
                    if abs(sx - x) <= 2.0 and abs(sy - y) <= 2.0:
                        ids.append(k)
                        break
                else:
                    ids.append(len(seen))
                    seen.append((x, y))
            faces += [_shift_face(f, dx, dy, ids) for f in find_faces(wpips, gw, wcfg)]
            for p, i in zip(wpips, ids, strict=True):
                all_pips[i] = replace(p, x=p.x + dx, y=p.y + dy)
        cfg = wcfg
        t2 = time.perf_counter()
        # faces of the die's size; smaller faces of 2+ pips that still span most of a die edge can
        # only be side faces (a side face is foreshortened, its pips faint): kept to tell a cocked
        # die, never read as a top
        faces = [f if _size_fits(f, board, scale, offset, cfg) else replace(f, extra={**f.extra, "side_only": 1.0})
                 for f in faces if _size_fits(f, board, scale, offset, cfg)
                 or (f.value >= 2 and _side_spans(f, board, scale, offset, cfg))]
        faces = select_faces(faces, cfg)
    else:
        gray = to_gray(image_bgr)
        if max(h, w) > cfg.max_side:
            scale = cfg.max_side / max(h, w)
            gray = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        t1 = time.perf_counter()
        pips = find_pips(gray, cfg, None)
        t2 = time.perf_counter()
        faces = select_faces(find_faces(pips, gray, cfg), cfg)
    t3 = time.perf_counter()
    tilt = None
    if board is not None:
        def tilt(f: Face) -> float:
            ref = _board_shape(board, (f.centre[0] / scale + offset[0], f.centre[1] / scale + offset[1]))
            return _shape_diff(_face_shape(f), ref) if ref is not None else 0.0
    dice = assign_top_faces(faces, cfg, tilt)
    if cfg.one_polarity:
        dice = _one_polarity(dice)
    dice = _plausible_ones(dice, cfg, shade=board is not None)
    cocked, tilts = _cocked(dice, cfg, board, scale, offset, with_scores=True)  # type: ignore[misc]
    if board is not None:
        grays = (g_roi, bg[0]) if bg is not None else None
        cocked = [c or _side_pips(t, dice, all_pips, board, scale, offset, cfg, grays)
                  for c, (t, _) in zip(cocked, dice, strict=True)]
        if isinstance(background, BoardBackground) and background.gray.shape[:2] == (h, w):
            cocked = [c or _side_band(image_bgr, background.gray, t, board, scale, offset, cfg)
                      for c, (t, _) in zip(cocked, dice, strict=True)]
    outlined = [True] * len(dice)
    if board is not None:
        outlined = [t.value > 1 or _outlined(g_roi, t, board, scale, offset, cfg) for t, _ in dice]
    readings = []
    tops: dict[int, tuple[Face, bool]] = {}
    for (top, _sides), is_cocked, tilt_score, body in zip(dice, cocked, tilts, outlined, strict=True):
        x, y, bw, bh = top.box
        conf = max(0.0, min(1.0, 1.0 - 2.0 * top.error)) * (0.6 if top.value == 1 else 1.0)
        if conf < cfg.min_confidence:
            continue
        readings.append(
            DieReading(
                value=top.value,
                box=(round(x / scale + offset[0]), round(y / scale + offset[1]), round(bw / scale), round(bh / scale)),
                centre=(top.centre[0] / scale + offset[0], top.centre[1] / scale + offset[1]),
                confidence=round(conf, 3),
                cocked=bool(is_cocked),
                tilt=round(float(tilt_score), 3),
            )
        )
        tops[id(readings[-1])] = (top, body)
    if board is not None and len(readings) > cfg.max_dice:
        readings = _likeliest_roll(readings, tops, cfg)
    readings.sort(key=lambda r: (r.centre[0], r.centre[1]))
    t4 = time.perf_counter()
    tm.prepare_ms = (t1 - t0) * 1e3
    tm.pips_ms = (t2 - t1) * 1e3
    tm.faces_ms = (t3 - t2) * 1e3
    tm.dice_ms = (t4 - t3) * 1e3
    return readings, tm


def _likeliest_roll(readings: list[DieReading], tops: dict[int, tuple[Face, bool]],
                    cfg: DiceConfig) -> list[DieReading]:
    """A roll is at most `max_dice` dice: keep the set with most evidence.  Faces with a pip layout
    come before lone pips (a glint on the rail, a side face's remnant, board showing between
    checkers); then the dice of one roll are alike (one set: face and pip tones, pip size), and a
    lone pip should show a die's outline around it (`_outlined`)."""
    import itertools

    def cost(group: tuple[DieReading, ...]) -> tuple[int, float]:
        faces = [tops[id(r)][0] for r in group]
        unlike = 0.0
        for a, b in itertools.combinations(faces, 2):
            unlike += abs(math.log((a.brightness + cfg.roll_tone_offset) / (b.brightness + cfg.roll_tone_offset)))
            unlike += abs(math.log(max(a.extra["contrast"], 1.0) / max(b.extra["contrast"], 1.0)))
            unlike += abs(math.log(max(a.extra["r"], 0.5) / max(b.extra["r"], 0.5)))
        bare = sum(not tops[id(r)][1] for r in group)
        return (-sum(f.value > 1 for f in faces), unlike + cfg.roll_outline_cost * bare - 0.01 * sum(
            r.confidence for r in group))

    return list(min(itertools.combinations(readings, cfg.max_dice), key=cost))


def _outlined(gray: np.ndarray, f: Face, board: Any, scale: float, offset: tuple[float, float],
              cfg: DiceConfig) -> bool:
    """A lone pip (`f`, work px) sits on a die-sized body: most of a ring just outside the die
    (`outline_ring` die edges, in `gray`, the camera image's region at `offset`) is unlike the
    face around the pip."""
    cx, cy = f.centre[0] / scale, f.centre[1] / scale
    die_px = _die_edge_at(f, board, scale, offset)
    if die_px is None:
        return True
    pts = np.array([cx, cy]) + cfg.outline_ring * die_px * _RING
    h, w = gray.shape[:2]
    inside = (pts[:, 0] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] >= 0) & (pts[:, 1] <= h - 1)
    if inside.mean() < 0.5:
        return True
    vals = gray[np.round(pts[inside, 1]).astype(np.intp), np.round(pts[inside, 0]).astype(np.intp)].astype(np.float64)
    tol = cfg.outline_tolerance * f.extra["contrast"]
    return bool((np.abs(vals - f.brightness) > tol).mean() >= cfg.outline_min)


def _shift_face(f: Face, dx: float, dy: float, ids: list[int]) -> Face:
    """The face moved by (dx, dy) px, its pips renumbered by `ids` (windows number their pips
    independently; a pip seen in two overlapping windows gets one number)."""
    from dataclasses import replace

    x, y, bw, bh = f.box
    return replace(f, centre=(f.centre[0] + dx, f.centre[1] + dy),
                   box=(int(math.floor(x + dx)), int(math.floor(y + dy)), bw, bh),
                   pips=tuple(ids[i] for i in f.pips))


class BoardBackground:
    """The empty board in camera space (grey, the frame's size), for `read_dice(background=...)`:
    build it once per calibration (`board_background`); it caches what the dice reader derives
    from it (its black- and white-hats)."""

    def __init__(self, gray: np.ndarray) -> None:
        self.gray = np.ascontiguousarray(gray if gray.ndim == 2 else cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY))
        self._hats: dict[tuple[int, ...], tuple[np.ndarray, ...]] = {}

    def hats(self, box: tuple[int, int, int, int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Black-hat and white-hat (square kernel `k`) of the region x0, y0, x1, y1."""
        return self._derived(box, k)[:2]  # type: ignore[return-value]

    def near_hats(self, box: tuple[int, int, int, int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The 3x3 maxima of `hats(box, k)` (a frame's blob may lie a pixel off the empty board's)."""
        return self._derived(box, k)[2:]  # type: ignore[return-value]

    def _derived(self, box: tuple[int, int, int, int], k: int) -> tuple[np.ndarray, ...]:
        key = (*box, k)
        if key not in self._hats:
            x0, y0, x1, y1 = box
            g = np.ascontiguousarray(self.gray[y0:y1, x0:x1])
            kern = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
            bh = cv2.subtract(cv2.morphologyEx(g, cv2.MORPH_CLOSE, kern), g)
            wh = cv2.subtract(g, cv2.morphologyEx(g, cv2.MORPH_OPEN, kern))
            k3 = np.ones((3, 3), np.uint8)
            self._hats = {key: (bh, wh, cv2.dilate(bh, k3), cv2.dilate(wh, k3))}
        return self._hats[key]


def board_background(calibration: Any) -> BoardBackground | None:
    """The calibration's empty board in camera space: its reference frame when that is the empty
    board (the canonical background is then its warp), else the canonical background (the start
    position's checkers removed) warped back onto the surface, with the reference frame around it
    (the rails and markers look the same with or without checkers).  None without references."""
    bg = getattr(calibration, "background", None)
    ref = getattr(calibration, "reference_frame", None)
    geo = getattr(calibration, "geometry", None)
    if ref is None or geo is None:
        return None
    ref_g = cv2.cvtColor(ref, cv2.COLOR_BGR2GRAY) if ref.ndim == 3 else ref
    if bg is None:
        return None
    width = bg.shape[1]
    m = geo.warp_matrix(width)
    h, w = ref_g.shape[:2]
    bg_g = cv2.cvtColor(bg, cv2.COLOR_BGR2GRAY) if bg.ndim == 3 else bg
    warped = cv2.warpPerspective(ref_g, m, (bg_g.shape[1], bg_g.shape[0]), flags=cv2.INTER_LINEAR)
    if float(np.mean(cv2.absdiff(warped, bg_g))) <= 2.0:  # the reference frame is the empty board
        return BoardBackground(ref_g)
    back = cv2.warpPerspective(bg_g, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    inside = geo.surface_mask((h, w)) > 0
    return BoardBackground(np.where(inside, back, ref_g).astype(np.uint8))


def _candidate_windows(gray: np.ndarray, roi: np.ndarray, die_px: float, cfg: DiceConfig,
                       bg: tuple[np.ndarray, ...] | None = None,
                       ) -> list[tuple[int, int, int, int, bool]]:
    """Regions that may hold a die, (x0, y0, x1, y1, dark pips?): clusters of small dark-on-light
    or light-on-dark blobs (pip candidates) at the camera's resolution, grown by about a die.
    `bg` (the empty board's grey, black-hat and white-hat over the same region): blobs the empty
    board shows alike are dropped (`static_hat`, `static_ring`)."""
    k = max(3, int(round(cfg.board_hat_die * die_px))) | 1
    kern = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    bh = cv2.subtract(cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kern), gray)
    wh = cv2.subtract(gray, cv2.morphologyEx(gray, cv2.MORPH_OPEN, kern))
    t = cfg.window_contrast
    max_d = cfg.window_max_blob * die_px
    h, w = gray.shape
    pad = cfg.window_pad * die_px
    cap = cfg.window_max_dice * die_px
    boxes: list[tuple[int, int, int, int, bool]] = []
    roi_u8 = roi.view(np.uint8) if roi.dtype == bool else (roi > 0).view(np.uint8)
    runs = [(dark, hat, lv) for dark, hat in ((True, bh), (False, wh)) for lv in cfg.window_levels]
    merged: dict[bool, np.ndarray] = {}  # per polarity: boxes of die-sized blobs (pips merged together)
    for dark, hat, lv in runs:  # polarities apart: between dark pips a light face is a "light blob"
        # (hat >= t * lv) in whole grey levels, and inside the region
        cand = cv2.bitwise_and(cv2.compare(hat, float(math.ceil(t * lv)), cv2.CMP_GE), roi_u8)
        # every blob's outer boundary, also blobs inside another blob's hole (the light pips of a
        # die resting on a light checker lie inside the checker's bright ring around the die)
        contours, hier = cv2.findContours(cand, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)  # much faster than CC
        if not contours:
            continue
        rects = _outer_boxes(contours, hier)
        bw, bh_ = rects[:, 2], rects[:, 3]
        ok = (bw <= max_d) & (bh_ <= max_d)
        base = dark not in merged
        if not base:  # higher levels only look inside the base level's die-sized blobs
            centre = rects[:, :2] + rects[:, 2:] / 2.0
            mb = merged[dark]
            inside = ((centre[:, None, 0] >= mb[None, :, 0]) & (centre[:, None, 0] <= mb[None, :, 0] + mb[None, :, 2])
                      & (centre[:, None, 1] >= mb[None, :, 1]) & (centre[:, None, 1] <= mb[None, :, 1] + mb[None, :, 3]))
            ok &= inside.any(axis=1) if len(mb) else np.zeros(len(rects), bool)
        area = np.zeros(len(rects))
        for i in np.nonzero(ok)[0]:
            x, y, ww, hh = rects[i]
            area[i] = np.count_nonzero(cand[y:y + hh, x:x + ww])
        ok &= area >= 2
        # compact like a pip, not a sliver (the gaps between stacked checkers)
        ok &= (area >= cfg.window_fill * bw * bh_) & (np.maximum(bw, bh_) <= cfg.window_aspect * np.minimum(bw, bh_) + 1)
        if base:  # remember blobs that are no pip but may be a die's pips blurred together (too big
            # for a pip, or too sparse: a six's columns seen diagonally)
            merged[dark] = rects[~ok & (bw <= 1.2 * die_px) & (bh_ <= 1.2 * die_px)]
        pts = (rects[ok, :2] + (rects[ok, 2:] - 1) / 2.0).astype(np.float64)
        if len(pts):
            # a pip (or a die's pips blurred into one blob) sits on a plain face: a ring around it
            # is clearly lighter (darker) than its centre
            rr = np.maximum(cfg.window_ring * die_px, 0.6 * np.maximum(bw[ok], bh_[ok]))[:, None]
            rx = np.clip(np.round(pts[:, :1] + rr * _RING8[None, :, 0]), 0, w - 1).astype(np.intp)
            ry = np.clip(np.round(pts[:, 1:] + rr * _RING8[None, :, 1]), 0, h - 1).astype(np.intp)
            cx = np.clip(np.round(pts[:, 0]), 0, w - 1).astype(np.intp)
            cy = np.clip(np.round(pts[:, 1]), 0, h - 1).astype(np.intp)
            ring = gray[ry, rx].astype(np.int16)
            mid = gray[cy, cx].astype(np.int16)[:, None]
            step = (ring - mid) if dark else (mid - ring)
            keep = (step >= t / 2).sum(axis=1) >= 6
            # ... and plain: a die face around a pip is one even tone, while the pockets between
            # checkers, rims and point edges are ringed by several (the six samples on the face
            # side alike; two may fall on neighbouring pips, a six's rows are that close)
            srt = np.sort(step, axis=1)
            half = len(_RING8) // 2  # the median of the (eight) steps
            contrast = np.maximum((srt[:, half - 1].astype(np.float64) + srt[:, half]) / 2.0, 1.0)
            plain = srt[:, -1] - srt[:, 2] <= cfg.window_plain * contrast
            # ... or one of a die's pips: a small die's pips sit so close that the ring around each
            # falls on its neighbours and on the die's dark edge (a die on the rail, far from the
            # camera), so a blob with `window_lattice` ring-contrasting neighbours of its size
            # within a die edge stands as a pip too
            rescue = keep & ~plain
            if rescue.any():
                plain |= _lattice_support(pts, np.maximum(bw[ok], bh_[ok]), keep, rescue, die_px, cfg)
            keep &= plain
            if bg is not None:
                keep &= ~_static(gray, hat, bg, dark, cx, cy, rx, ry, cfg)
            pts = pts[keep]
        # Greedy grouping: a blob joins a window if the window, grown to hold it, stays within
        # `window_max_dice` die edges; so a die's pips share a window and texture cannot chain.
        groups: list[list[float]] = []  # [minx, miny, maxx, maxy]
        for x, y in pts[np.argsort(pts[:, 0])]:
            for gb in groups:
                nx0, ny0 = min(gb[0], x), min(gb[1], y)
                nx1, ny1 = max(gb[2], x), max(gb[3], y)
                if nx1 - nx0 + 2 * pad <= cap and ny1 - ny0 + 2 * pad <= cap:
                    gb[:] = [nx0, ny0, nx1, ny1]
                    break
            else:
                groups.append([x, y, x, y])
        for gb in groups:
            box = (int(max(0, gb[0] - pad)), int(max(0, gb[1] - pad)), int(min(w, gb[2] + pad + 1)),
                   int(min(h, gb[3] + pad + 1)), dark)
            if not any(_covers(b, box) for b in boxes):  # the other threshold found it already
                boxes = [b for b in boxes if not _covers(box, b)] + [box]
    return boxes


def _outer_boxes(contours: Any, hier: np.ndarray) -> np.ndarray:
    """(x, y, w, h) of every outer contour (no hole), as `cv2.boundingRect` of each, at once."""
    outer = np.flatnonzero(hier[0][:, 3] < 0)
    if not len(outer):
        return np.zeros((0, 4), np.int64)
    pts = [contours[i] for i in outer]
    sizes = np.array([len(c) for c in pts])
    allp = np.concatenate(pts).reshape(-1, 2)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    lo = np.minimum.reduceat(allp, starts, axis=0).astype(np.int64)
    hi = np.maximum.reduceat(allp, starts, axis=0).astype(np.int64)
    return np.concatenate([lo, hi - lo + 1], axis=1).reshape(-1, 4)


def _lattice_support(pts: np.ndarray, size: np.ndarray, keep: np.ndarray, ask: np.ndarray, die_px: float,
                     cfg: DiceConfig) -> np.ndarray:
    """Per blob in `ask`: at least `window_lattice` of the other `keep` blobs lie
    `window_lattice_near`..`window_lattice_far` die edges away and are of its size (within
    `window_lattice_size`)."""
    out = np.zeros(len(pts), bool)
    others = np.nonzero(keep)[0]
    if len(others) <= cfg.window_lattice:
        return out
    near, far = cfg.window_lattice_near * die_px, cfg.window_lattice_far * die_px
    op, osz = pts[others], size[others].astype(np.float64)
    order = np.argsort(op[:, 0])
    op, osz = op[order], osz[order]
    lo = np.searchsorted(op[:, 0], pts[:, 0] - far, side="left")
    hi = np.searchsorted(op[:, 0], pts[:, 0] + far, side="right")
    for i in np.nonzero(ask)[0]:
        if hi[i] - lo[i] <= cfg.window_lattice:
            continue
        q, qs = op[lo[i]:hi[i]], osz[lo[i]:hi[i]]
        d = np.hypot(q[:, 0] - pts[i, 0], q[:, 1] - pts[i, 1])
        ratio = np.maximum(qs, size[i]) / np.maximum(np.minimum(qs, size[i]), 1.0)
        out[i] = int(np.count_nonzero((d >= near) & (d <= far) & (ratio <= cfg.window_lattice_size))) >= cfg.window_lattice
    return out


def _static(gray: np.ndarray, hat: np.ndarray, bg: tuple[np.ndarray, ...], dark: bool,
            cx: np.ndarray, cy: np.ndarray, rx: np.ndarray, ry: np.ndarray, cfg: DiceConfig) -> np.ndarray:
    """Which candidate blobs (centres cx, cy; ring samples rx, ry) the empty board shows alike: its
    hat is as strong there and the ring around looks the same (up to a local gain).  `bg` is the
    empty board's grey, black-hat and white-hat, optionally with their 3x3 maxima."""
    b_gray, b_bh, b_wh = bg[:3]
    h, w = gray.shape
    f_hat = hat[cy, cx].astype(np.float64)
    # the empty board's hat near the centre (3x3: the references are resampled, blobs shift a px)
    if len(bg) >= 5:  # its 3x3 maximum, precomputed
        near = (bg[3] if dark else bg[4])[cy, cx].astype(np.float64)
    else:
        b_hat = b_bh if dark else b_wh
        near = np.stack([b_hat[np.clip(cy + dy, 0, h - 1), np.clip(cx + dx, 0, w - 1)]
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=1).max(axis=1).astype(np.float64)
    f = np.concatenate([gray[cy, cx][:, None], gray[ry, rx]], axis=1).astype(np.float64)
    b = np.concatenate([b_gray[cy, cx][:, None], b_gray[ry, rx]], axis=1).astype(np.float64)
    gain = f.mean(axis=1, keepdims=True) / np.maximum(b.mean(axis=1, keepdims=True), 1.0)
    # the empty board's blob under the same local gain (a dark die over light wood is no shadow
    # that dims the wood's own bright streak into a light pip's ring)
    same_hat = near * gain[:, 0] >= cfg.static_hat * f_hat
    tol = np.maximum(cfg.static_ring_floor, cfg.static_ring * f_hat)[:, None]
    same_ring = (np.abs(f - gain * b) > tol).sum(axis=1) <= 1
    return same_hat & same_ring


def _covers(a: tuple[int, int, int, int, bool], b: tuple[int, int, int, int, bool], slack: float = 0.15) -> bool:
    """Window `a` holds window `b` (same polarity), give or take `slack` of b's size."""
    mx, my = slack * (b[2] - b[0]), slack * (b[3] - b[1])
    return a[4] == b[4] and a[0] <= b[0] + mx and a[1] <= b[1] + my and a[2] >= b[2] - mx and a[3] >= b[3] - my


@functools.lru_cache(maxsize=8)
def _board_config(cfg: DiceConfig, die_px: float) -> DiceConfig:
    """Pip sizes follow from the expected die size when the board is known (the same every frame
    of one calibration: kept).  The die size also tells which faces may set the pip spacing of
    the frame's twos and threes (not three blobs in a row along a point's edge, far too large)."""
    return replace(cfg, hat_kernel_px=cfg.board_pip_hat_die * die_px, max_pip_px=cfg.board_max_pip_die * die_px,
                   rect_kernel=True, boundary_radius=0.0, ring_scale=cfg.board_ring_scale,
                   hat_levels=cfg.board_hat_levels, all_levels=True, face_tolerance=cfg.board_face_tolerance,
                   expected_edge_px=die_px)


def _die_edge_at(f: Face, board: Any, scale: float, offset: tuple[float, float]) -> float | None:
    """The board's die edge (camera px) at face `f`'s centre (work px), or None without a scale there."""
    try:
        return float(board.die_size_px((f.centre[0] / scale + offset[0], f.centre[1] / scale + offset[1])))
    except Exception:  # noqa: BLE001 - a board without a die scale there
        return None


def _size_fits(f: Face, board: Any, scale: float, offset: tuple[float, float], cfg: DiceConfig) -> bool:
    """With a board the die size is known: a face's implied edge must be near it."""
    edge = _die_edge_at(f, board, scale, offset)
    if edge is None:
        return True
    expected = edge * scale
    if f.value == 1:  # pip radius / its expected share of the edge (ones' pips vary more)
        ratio = f.extra["r"] / cfg.board_pip_die / max(expected, 1e-6)
        return cfg.board_one_size_min <= ratio <= cfg.board_one_size_max
    return cfg.board_size_min <= _edge_px(f, cfg) / max(expected, 1e-6) <= cfg.board_size_max


def read_dice(image_bgr: np.ndarray, config: DiceConfig | None = None, board: Any = None, *,
              background: BoardBackground | np.ndarray | None = None) -> list[DieReading]:
    """Find the dice in a BGR frame and read their top faces.  `board` (a calibration
    `BoardGeometry`) is optional: without it any photo works; with it the search keeps to the
    playing surface (and a margin around it, to see dice that fell off) and expects dice of the
    board's scale, and cocked dice are judged against the board plane.  `background` (with a
    board; `board_background(calibration)`, or the empty board's camera frame) lets the search
    skip what the empty board already shows."""
    return read_dice_timed(image_bgr, config, board, background=background)[0]


# ------------------------------------------------------------------------------------------------
# Stage 4: roll validity (RULES.md §1.6)


def roll_validity(
    dice: list[DieReading], board: Any, checker_mask: np.ndarray | None = None, *, opening: bool = False,
    occupied: Any = None,
) -> RollValidity:
    """Judge the dice lying on the board: `none` without dice; `void` when a die is off the playing
    surface (or on the bar), rests on a checker (most of its footprint in `checker_mask`, uint8
    255 = checker, image-sized), is cocked, when only one die lies on it (the other came to rest
    off the surface: `off_board`), or when the dice lie in different halves (neither of the last
    two for the single dice of an opening roll, `opening`); otherwise `valid` with the half they lie in.
    `occupied` (optional; an image-sized mask, 255 = not the empty board, or a function returning
    one; or 0..1 occupancy, > `rim_occupancy` counts) confirms a checker under a die: the checker's rim must show around the die."""
    if not dice:
        return RollValidity("none", None, None)
    halves: list[str] = []
    for d in dice:
        h = board.half(d.centre) if board is not None else None
        if h not in ("left", "right"):
            return RollValidity("void", "off_board", None)
        halves.append(h)
    if checker_mask is not None:
        for d in dice:
            if _on_checker(d, checker_mask, board):
                if callable(occupied):
                    occupied = occupied()
                if occupied is None or _rim_shows(d, checker_mask, occupied, board):
                    return RollValidity("void", "on_checker", None)
    if any(d.cocked for d in dice):
        return RollValidity("void", "cocked", None)
    cfg = DiceConfig()
    # One die read where a roll throws two is no evidence of a cocked second die: far more often
    # the reader missed a flat one (a die-sized body beside it is as often a shadow or a gap).
    if occupied is not None:
        for d in dice:
            if d.tilt >= (cfg.leaning_tilt_one if d.value == 1 else cfg.leaning_tilt):
                if callable(occupied):
                    occupied = occupied()
                if _leaning(d, occupied, board, cfg):
                    return RollValidity("void", "cocked", None)
    if len(dice) == 1 and cfg.lone_die_void and not opening:
        return RollValidity("void", "off_board", None)
    if len(set(halves)) > 1:
        if opening:
            return RollValidity("valid", None, None)
        return RollValidity("void", "different_halves", None)
    return RollValidity("valid", None, halves[0])  # type: ignore[arg-type]


def _depth(d: DieReading, mask: np.ndarray, die_px: float) -> tuple[float, float]:
    """How deep the die's centre lies inside the checker mask (px to the nearest pixel that is not
    checker; 0 when the centre is off every checker), and the share of its footprint (a square of
    the die's size) over checkers."""
    h, w = mask.shape[:2]
    cx, cy = d.centre
    r = max(2.0, die_px)
    x0, x1 = int(max(0, cx - r)), int(min(w, cx + r + 1))
    y0, y1 = int(max(0, cy - r)), int(min(h, cy + r + 1))
    ix, iy = int(round(cx)) - x0, int(round(cy)) - y0
    if x0 >= x1 or y0 >= y1 or not (0 <= ix < x1 - x0 and 0 <= iy < y1 - y0):
        return 0.0, 0.0
    region = (mask[y0:y1, x0:x1] > 0).astype(np.uint8)
    hf = die_px / 2.0
    fx0, fx1 = int(max(0, cx - hf)) - x0, int(min(w, cx + hf + 1)) - x0
    fy0, fy1 = int(max(0, cy - hf)) - y0, int(min(h, cy + hf + 1)) - y0
    cover = float(region[fy0:fy1, fx0:fx1].mean()) if fx1 > fx0 and fy1 > fy0 else 0.0
    if not region[iy, ix]:
        return 0.0, cover
    dist = cv2.distanceTransform(region, cv2.DIST_L2, 3)
    return float(dist[iy, ix]), cover


def _die_px(d: DieReading, board: Any) -> float:
    try:
        return float(board.die_size_px(d.centre))
    except Exception:  # noqa: BLE001 - no board scale: the top face's pips tell it roughly
        return float(max(d.box[2], d.box[3])) / 0.75


def _on_checker(d: DieReading, mask: np.ndarray, board: Any = None) -> bool:
    """The die rests on a checker: its centre lies well inside a checker's circle (a die flat on
    the board beside a stack has its centre outside every circle, or only grazes one)."""
    die_px = _die_px(d, board)
    depth, _ = _depth(d, mask, die_px)
    return depth >= DiceConfig().on_checker_depth * die_px


def changed_from_empty(lab: np.ndarray, background: np.ndarray, board: Any,
                       image_shape: tuple[int, int], near: list[tuple[float, float]] | None = None,
                       reach: float = 0.0, background_lab: np.ndarray | None = None) -> np.ndarray:
    """Image-sized float map of how unlike the empty board each pixel is (1 = `change_lab` Lab
    units, lightness counting less: shading), from the canonical frame's Lab image and the
    calibration's canonical empty-board image.  Used to confirm a checker's rim around a die and
    to see what a die leans on.  With `near` (image points, the dice): only within `reach` px of
    them (zero elsewhere).  `background_lab`: the empty board's Lab at the frame's size, when the
    caller keeps it (`Calibration.empty_lab`)."""
    cfg = DiceConfig()
    bg = background_lab if background_lab is not None else lab_at(background, lab.shape)
    d = lab.astype(np.float32) - bg
    # a lightness change within a share of the board's own lightness is lighting (a shadow band,
    # vignetting, a lamp moved), not a body: only the excess counts
    tol = cfg.change_light_tolerance * (bg[..., 0] + cfg.change_light_offset)
    dl = np.maximum(np.abs(d[..., 0]) - tol, 0.0)
    dist = np.sqrt(cfg.change_light_weight * dl * dl + d[..., 1] ** 2 + d[..., 2] ** 2) / cfg.change_lab
    return np.asarray(board.unwarp(dist, image_shape, near, reach))


def _leaning(d: DieReading, occupied: np.ndarray, board: Any, cfg: DiceConfig) -> bool:
    """The die's body runs into something (a checker, the rail, the other die): what is not the
    empty board around it reaches `leaning_reach` die edges from its centre and covers more than
    a flat die would.  Dice get cocked leaning on something, so with this contact a top face
    tilted by only `leaning_tilt` of the cocked tolerance is enough."""
    die_px = _die_px(d, board)
    h, w = occupied.shape[:2]
    cx, cy = d.centre
    r = cfg.leaning_reach * die_px
    x0, y0 = int(cx - r), int(cy - r)
    x1, y1 = int(cx + r) + 1, int(cy + r) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False
    m = (occupied[y0:y1, x0:x1] > cfg.rim_occupancy).astype(np.uint8)
    # contact is a body against a body: thin bridges (a shading change on a point that grazes
    # the die's shadow, noise) are opened away first
    k = max(3, int(round(cfg.leaning_bridge * die_px)) | 1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, st, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    c = lab[int(cy) - y0, int(cx) - x0]
    if c == 0:
        return False
    x, y, bw, bh, area = st[c]
    touch = x == 0 or y == 0 or x + bw >= m.shape[1] or y + bh >= m.shape[0]
    return bool(touch and area >= cfg.leaning_area * die_px * die_px)


def _rim_shows(d: DieReading, mask: np.ndarray, occupied: np.ndarray, board: Any = None) -> bool:
    """A checker under the die shows as a ring around it (a checker is ~2.4 die edges across) that
    is not the empty board; a die mistaken for a checker has the bare board around it."""
    die_px = _die_px(d, board)
    h, w = mask.shape[:2]
    cx, cy = d.centre
    r1 = 1.15 * die_px
    x0, x1 = int(max(0, cx - r1)), int(min(w, cx + r1 + 1))
    y0, y1 = int(max(0, cy - r1)), int(min(h, cy + r1 + 1))
    if x0 >= x1 or y0 >= y1:
        return True
    yy, xx = np.mgrid[y0:y1, x0:x1]
    rr = np.hypot(xx - cx, yy - cy)
    ring = (rr >= DiceConfig().rim_inner * die_px) & (rr <= r1) & (mask[y0:y1, x0:x1] > 0)
    if ring.sum() < 8:
        return True
    return bool((occupied[y0:y1, x0:x1][ring] > DiceConfig().rim_occupancy).mean() >= DiceConfig().rim_min_occupied)


def plausible_dice(dice: list[DieReading], board: Any, checker_mask: np.ndarray | None,
                   config: DiceConfig | None = None) -> list[DieReading]:
    """Drop lone "ones" that cannot be a die once the checkers are known: a light or dark spot on
    the rim of the checkers (the board showing in the gap between two touching checkers) whose die
    body would have to overlap the checkers while not resting on one."""
    if checker_mask is None or not dice:
        return list(dice)
    cfg = config or DiceConfig()
    out = []
    for d in dice:
        if d.value == 1:
            die_px = _die_px(d, board)
            depth, cover = _depth(d, checker_mask, die_px)
            if depth < cfg.on_checker_depth * die_px and cover >= cfg.gap_one_cover:
                continue
        out.append(d)
    return out
