"""The per-frame gate: is something moving, is a hand or arm over the board, is the scene settled?

It runs on every camera frame, so it works on a small downscaled copy (``config.gate_width`` px
wide) and costs a few milliseconds.  A hand or arm reaches the playing surface from outside it,
so an occluder is a region that differs from the reference frame both *outside* the surface
(crossing the board's rim, and reaching beyond ``hand_far_margin`` or the image border, or
covering more of the rim than a die can) and *inside* it; checkers and dice never cross the rim
(a die that fell off lies next to it).  A frame with an occluder is never read; "settled" means
no motion and no occluder for ``settle_seconds``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import BoardGeometry, Calibration
from vision.config import VisionConfig
from vision.occluder import hand_probability

__all__ = ["Gate", "GateState", "detect_occluder"]


@dataclass
class GateState:
    moving: bool
    hand: bool
    settled: bool
    still_for: float  # seconds without motion or hand
    ms: float  # time this frame cost in the gate


class _GateModel:
    """Downscaled reference and masks, computed once per calibration and frame size."""

    def __init__(self, calib: Calibration, config: VisionConfig, shape: tuple[int, int]) -> None:
        h, w = shape
        self.scale = config.gate_width / w
        self.size = (config.gate_width, max(8, int(round(h * self.scale))))
        gw, gh = self.size
        geo = calib.geometry
        self.inside = geo.surface_mask((gh, gw), self.scale, grow=-0.01) > 0
        self.outside = ~(geo.surface_mask((gh, gw), self.scale, grow=config.hand_outside_margin) > 0)
        # When the board fills the view, an arm enters through the image border right next to
        # the rim: the border (off the surface itself) counts as outside too.
        border = np.zeros((gh, gw), bool)
        border[:2, :] = border[-2:, :] = True
        border[:, :2] = border[:, -2:] = True
        self.outside |= border & ~(geo.surface_mask((gh, gw), self.scale, grow=0.005) > 0)
        # Where the view cuts the surface or its rim, an arm enters straight onto the surface
        # through the image border: broader there than `hand_entry_checkers` checkers (a stack
        # at the near edge touching the border is one checker broad), it counts as coming from
        # outside and afar.
        entry = border & (geo.surface_mask((gh, gw), self.scale, grow=config.hand_outside_margin) > 0)
        self.entry: np.ndarray | None = entry if entry.any() else None  # None: the view shows the rim all round
        centre = np.asarray(geo.to_image([0.5, 0.5]), np.float64).reshape(2)
        self.entry_min = int(math.ceil(2 * config.hand_entry_checkers * geo.checker_diameter_px(centre) * self.scale))
        # ... not in the checkers' colours (adjacent stacks there touch into a broad band)
        colours = calib.colours
        self.checker_lab = (np.array([colours.light, colours.dark], np.float32) if colours.learnt else None)
        self.near = geo.surface_mask((gh, gw), self.scale, grow=0.02) > 0
        # An arm reaches in from afar: its outside part extends beyond `hand_far_margin` (or to the
        # image border); a die that fell off the surface lies by the rim, a checker borne off too.
        self.far = ~(geo.surface_mask((gh, gw), self.scale, grow=config.hand_far_margin) > 0) | (border & self.outside)
        self.surface_px = max(1, int(self.inside.sum()))
        surface_w = float(np.linalg.norm(geo.corners[1] - geo.corners[0])) * self.scale
        self.bridge = max(3, int(round((config.hand_outside_margin + 0.015) * surface_w)) + 2) | 1
        ref = calib.reference_frame
        if ref is not None and ref.shape[:2] == (h, w):
            small = cv2.resize(ref, self.size, interpolation=cv2.INTER_AREA)
            self.ref_lab: np.ndarray | None = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
            ring = self.outside & ~(geo.surface_mask((gh, gw), self.scale, grow=0.25) > 0)
            self.ring = ring if ring.sum() > 50 else self.outside
        else:
            self.ref_lab = None
            self.ring = self.outside


def _skin(lab: np.ndarray) -> np.ndarray:
    """Skin-like pixels (any complexion): warm hue, moderate chroma, not too dark."""
    a = lab[..., 1] - 128
    b = lab[..., 2] - 128
    return (lab[..., 0] > 45) & (a > 6) & (a < 45) & (b > 8) & (b < 50) & (b > 0.5 * a)


def _unlike_checkers(model: _GateModel, px: np.ndarray, gain: float, config: VisionConfig) -> np.ndarray:
    """Per Lab pixel (n, 3) seen under lighting `gain`: farther than `hand_entry_checker_lab`
    from both learnt checker colours."""
    assert model.checker_lab is not None
    px = px / np.array([gain, 1.0, 1.0], np.float32)
    return np.asarray(np.linalg.norm(px[:, None, :] - model.checker_lab[None], axis=2).min(axis=1)
                      > config.hand_entry_checker_lab)


def detect_occluder(model: _GateModel, small_bgr: np.ndarray, config: VisionConfig,
                    geometry: BoardGeometry | None = None) -> bool:
    """True when a hand or arm is over the playing surface (``geometry``: the calibration's, for
    the learned test)."""
    if config.hand_test == "learned":
        if geometry is None:
            raise ValueError("the learned hand test needs the board's geometry")
        return hand_probability(small_bgr, geometry) >= config.hand_probability
    lab = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    if model.ref_lab is None:
        skin = _skin(lab) & model.inside
        return bool(skin.sum() > config.skin_min_fraction * model.surface_px)
    ref = model.ref_lab
    # Global brightness change measured outside the board, where nothing should have changed.
    ring_now = lab[..., 0][model.ring]
    ring_ref = ref[..., 0][model.ring]
    gain = float(np.median(ring_now + 8) / max(np.median(ring_ref + 8), 1.0)) if ring_now.size else 1.0
    gain = float(np.clip(gain, 0.6, 1.6))
    diff = lab - ref
    # Relative lightness change: a soft shadow darkens everything by a similar fraction.
    lum = np.abs(lab[..., 0] - ref[..., 0] * gain) / (ref[..., 0] * gain + 20) * 100
    chroma = np.sqrt(diff[..., 1] ** 2 + diff[..., 2] ** 2)
    raw = ((chroma > config.hand_chroma_threshold) | (lum > config.hand_luma_threshold)).astype(np.uint8)
    changed = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    # The arm may match the board's rim in colour: bridge the rim band before linking.
    bridged = cv2.dilate(changed, np.ones((model.bridge, model.bridge), np.uint8))
    count, labels = cv2.connectedComponents(bridged, connectivity=8)
    if count <= 1:
        return False
    total = small_bgr.shape[0] * small_bgr.shape[1]
    on = changed > 0
    out_ids = np.bincount(labels[model.outside & on], minlength=count)
    in_ids = np.bincount(labels[model.inside & on], minlength=count)
    far_ids = np.bincount(labels[model.far & on], minlength=count)
    if model.entry is not None:
        entry = model.entry & (raw > 0)
        raw_entry_ids = np.bincount(labels[entry], minlength=count)  # in any colour
        sleeve = raw_entry_ids >= model.entry_min
        if model.checker_lab is not None and entry.any():
            ys, xs = np.nonzero(entry)
            checker = ~_unlike_checkers(model, lab[ys, xs], gain, config)
            entry[ys[checker], xs[checker]] = False
        entry_ids = np.bincount(labels[entry], minlength=count)
        broad = entry_ids >= model.entry_min
        # ... or narrower (a thin arm or a hand seen from the far side), when what it covers
        # inside is not in the checkers' colours (a stack at that edge is of them); or that broad
        # only counting every colour (a sleeve), when what it covers is mostly unlike them
        narrow = (entry_ids >= model.entry_min * config.hand_entry_narrow) & ~broad
        sleeve &= ~broad
        if model.checker_lab is not None and (narrow | sleeve).any():
            ys, xs = np.nonzero((model.inside & on) & (narrow | sleeve)[labels])
            unlike = _unlike_checkers(model, lab[ys, xs], gain, config)
            unlike_ids = np.bincount(labels[ys[unlike], xs[unlike]], minlength=count)
            broad |= narrow & (unlike_ids >= config.hand_min_inside * model.surface_px)
            sleeve &= ~broad & (unlike_ids >= config.hand_entry_unlike * np.maximum(in_ids, 1))
            broad |= sleeve
            entry_ids = np.where(sleeve, raw_entry_ids, entry_ids)
        far_ids = np.where(broad, np.maximum(far_ids, entry_ids), far_ids)
        out_ids = np.where(broad, out_ids + entry_ids, out_ids)
    for k in range(1, count):
        if far_ids[k] < config.hand_min_far and out_ids[k] < config.hand_min_outside_broad * total:
            continue
        if out_ids[k] >= config.hand_min_outside * total and in_ids[k] >= config.hand_min_inside * model.surface_px:
            return True
        # An arm barely visible outside (the board fills the view, or it matches the rim) but
        # covering much of the surface.  (A die fallen on the rim at the image border, linked
        # with the checkers beside it, looks the same at this scale: such a frame is refused.
        # Telling them apart by the colours inside failed for arms of the checkers' colour.)
        if out_ids[k] >= config.hand_min_outside_large * total and in_ids[k] >= config.hand_min_inside_large * model.surface_px:
            return True
    return False


class Gate:
    """Feed it every frame; it says whether the scene is moving, occluded or settled."""

    def __init__(self, calib: Calibration, config: VisionConfig | None = None) -> None:
        self.calib = calib
        self.config = config or VisionConfig()
        self._model: _GateModel | None = None
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None

    def _prepare(self, frame: np.ndarray) -> tuple[_GateModel, np.ndarray]:
        h, w = frame.shape[:2]
        if self._model is None or self._model.size[0] != self.config.gate_width or (
            abs(self._model.scale - self.config.gate_width / w) > 1e-9
        ):
            self._model = _GateModel(self.calib, self.config, (h, w))
        small = cv2.resize(frame, self._model.size, interpolation=cv2.INTER_AREA)
        return self._model, small

    def occluded(self, frame: np.ndarray) -> bool:
        """Only the hand test (used by the reader on a frame it is about to read)."""
        model, small = self._prepare(frame)
        return detect_occluder(model, small, self.config, self.calib.geometry)

    def update(self, frame: np.ndarray, now: float | None = None) -> GateState:
        t0 = time.perf_counter()
        now = time.monotonic() if now is None else now
        model, small = self._prepare(frame)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        moving = False
        if self._previous is not None and self._previous.shape == gray.shape:
            delta = cv2.absdiff(gray, self._previous)
            moved = (delta > self.config.motion_threshold) & model.near
            moving = bool(moved.sum() > self.config.motion_fraction * model.surface_px)
        self._previous = gray
        hand = detect_occluder(model, small, self.config, self.calib.geometry)
        if moving or hand or self._still_since is None:
            self._still_since = now if not (moving or hand) else None
        still_for = 0.0 if self._still_since is None else now - self._still_since
        settled = self._still_since is not None and still_for >= self.config.settle_seconds
        return GateState(moving, hand, settled, still_for, (time.perf_counter() - t0) * 1000)

    def reset(self) -> None:
        self._previous = None
        self._still_since = None
