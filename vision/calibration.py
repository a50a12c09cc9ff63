"""Board calibration: where the playing surface is in the camera image and what it looks like.

Fixed calibration beats per-frame board detection: the corners come once from four ArUco markers
(DICT_4X4_50, ids 0..3 at the TL, TR, BR, BL corners) or from four clicked corners, and give a
homography to a canonical top-down board.  :class:`BoardGeometry` knows the 24 points, the bar and
the halves in that frame; :class:`Calibration` adds what the empty board and the starting position
look like (background and checker colours), is saved as JSON, and can be re-checked against a
later frame to notice a bumped board or camera.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.config import VisionConfig

__all__ = [
    "CLICK",
    "DIE_PX_ADVISED",
    "BoardGeometry",
    "Calibration",
    "ColourModel",
    "plane_aspect",
    "detect_marker_corners",
    "calibrate",
    "recheck",
]

Point = tuple[float, float]
_CANON_CACHE_MAX = 4
#: a click a few pixels off at calibration, as the most each corner moves in `BoardGeometry.nudged`
#: (a share of the board's diagonal): how the empty board is averaged and training strips are cut
CLICK = 0.004


def _as_points(xy: Any) -> np.ndarray:
    arr = np.asarray(xy, dtype=np.float64)
    return arr.reshape(-1, 2)


def plane_aspect(corners: np.ndarray, image_size: tuple[int, int], hfov_deg: float) -> float:
    """Height / width of the rectangle whose corners (TL, TR, BR, BL) the camera shows.

    Seen obliquely a board's far half is foreshortened, so the ratio of its sides in the picture
    understates its height (a camera 35 degrees off vertical: 0.66 for a 0.79 board).  A pinhole
    camera with square pixels, its principal point at the picture's centre and the focal length
    of `hfov_deg` maps the board plane by H = K [r1 r2 t]: the homography from the unit square
    to the corners is K [r1, aspect * r2, t] up to scale, so aspect = |K^-1 h2| / |K^-1 h1|.  Seen
    from straight above this is the sides' ratio whatever the focal length; obliquely, a focal
    length 20% off errs by a few per cent where the sides' ratio errs by 15-30%."""
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    b = _camera_plane(cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32)), image_size, hfov_deg)[1]
    return float(np.linalg.norm(b[:, 1]) / max(float(np.linalg.norm(b[:, 0])), 1e-12))


def _camera_plane(hinv: np.ndarray, image_size: tuple[int, int], hfov_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The pinhole camera matrix K (square pixels, principal point at the picture's centre,
    ``hfov_deg`` wide) and K^-1 times ``hinv`` (the homography from the unit square to the board's
    corners in the picture): the board's axes and origin in camera coordinates, up to scale."""
    w, h = image_size
    f = w / 2 / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    return k, np.linalg.inv(k) @ hinv


def lab_at(background: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A BGR image's Lab (float32, OpenCV's 8-bit scale), resized to ``shape`` if need be."""
    lab = cv2.cvtColor(background, cv2.COLOR_BGR2LAB).astype(np.float32)
    if lab.shape[:2] != shape[:2]:
        lab = cv2.resize(lab, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return lab


#: A die should span at least this many pixels everywhere on the board: on the 3-D yardstick's
#: tuning sets (seeds 31007, 31009, 31013 and the 2-D 22999; 199 valid rolls, learned readers)
#: rolls whose smaller die spanned 20 px or more were read exactly 0.98 of the time, 16-20 px 0.81,
#: 14-16 px 0.68.  The calibration page says so when the camera sees the dice smaller.
DIE_PX_ADVISED = 20.0


@dataclass
class BoardGeometry:
    """The playing surface in one camera image: homography plus the layout of points and bar.

    Board coordinates are normalised: u = 0 at the left edge .. 1 at the right edge, v = 0 at the
    top .. 1 at the bottom (the board frame of INTERFACES.md §3).
    """

    corners: np.ndarray  # (4, 2) image px: TL, TR, BR, BL
    image_size: tuple[int, int]  # (w, h)
    bar_u: tuple[float, float] = (0.4545, 0.5455)
    aspect: float = 0.78  # physical height / width of the surface
    checker_u: float = 0.0705  # checker diameter in u units
    point_length: float = 0.42  # painted triangle length in v units
    _h: np.ndarray = field(init=False, repr=False)
    _hinv: np.ndarray = field(init=False, repr=False)
    _warps: dict[int, np.ndarray] = field(init=False, repr=False, default_factory=dict)
    _scales: dict[tuple[float, float], tuple[float, float]] = field(init=False, repr=False, compare=False,
                                                               default_factory=dict)
    _poses: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(init=False, repr=False, compare=False,
                                                                          default_factory=dict)

    def __post_init__(self) -> None:
        self.corners = _as_points(self.corners)
        if self.corners.shape != (4, 2):
            raise ValueError("board corners must be four (x, y) pairs")
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float64)
        self._hinv = cv2.getPerspectiveTransform(unit.astype(np.float32), self.corners.astype(np.float32))
        self._h = np.linalg.inv(self._hinv)
        area = cv2.contourArea(self.corners.astype(np.float32))
        if abs(area) < 100:
            raise ValueError("board corners enclose no area")
        self._warps = {}
        self._scales = {}
        self._poses = {}

    # --- construction ----------------------------------------------------------------------
    @classmethod
    def from_corners(
        cls, corners: Any, image_size: tuple[int, int], config: VisionConfig | None = None
    ) -> BoardGeometry:
        """Geometry from four corners (TL, TR, BR, BL of the board); proportions from their sides,
        or from `plane_aspect` when the view is oblique."""
        config = config or VisionConfig()
        pts = _as_points(corners)
        if pts.shape != (4, 2):
            raise ValueError("board corners must be four (x, y) pairs")
        width = (np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[3])) / 2
        height = (np.linalg.norm(pts[3] - pts[0]) + np.linalg.norm(pts[2] - pts[1])) / 2
        aspect = float(height / max(width, 1.0))
        # seen from (nearly) above the sides' ratio is the board's; obliquely it understates it
        seen = plane_aspect(pts, image_size, config.camera_hfov_deg)
        if abs(seen - aspect) > config.oblique_margin * aspect:
            aspect = seen
        aspect = float(np.clip(aspect, 0.5, 1.2))
        half_bar = config.bar_fraction / 2
        return cls(
            corners=pts,
            image_size=(int(image_size[0]), int(image_size[1])),
            bar_u=(0.5 - half_bar, 0.5 + half_bar),
            aspect=aspect,
            checker_u=config.checker_fraction,
        )

    def nudged(self, rng: np.random.Generator, amount: float = CLICK) -> BoardGeometry:
        """The same board with each corner moved by up to ``amount`` of the board's diagonal in x
        and y (a click a few pixels off, a camera nudged after calibration)."""
        size = float(np.linalg.norm(self.corners[2] - self.corners[0]))
        return replace(self, corners=self.corners + rng.uniform(-amount, amount, self.corners.shape) * size)

    # --- coordinate transforms -------------------------------------------------------------
    def to_board(self, xy: Any) -> np.ndarray:
        pts = _as_points(xy)
        out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self._h).reshape(-1, 2)
        return out[0] if np.asarray(xy).ndim == 1 else out

    def to_image(self, uv: Any) -> np.ndarray:
        pts = _as_points(uv)
        out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self._hinv).reshape(-1, 2)
        return out[0] if np.asarray(uv).ndim == 1 else out

    # --- layout ----------------------------------------------------------------------------
    @property
    def checker_v(self) -> float:
        """Checker diameter in v units."""
        return self.checker_u / self.aspect

    def point_u(self, point: int) -> tuple[float, float]:
        """The u-range of physical point 1..24's column."""
        if not 1 <= point <= 24:
            raise ValueError(f"point must be 1..24, not {point}")
        left_w = self.bar_u[0] / 6
        right_w = (1 - self.bar_u[1]) / 6
        if point <= 6:  # bottom right, P1 at the right edge
            i = 6 - point
            return (self.bar_u[1] + i * right_w, self.bar_u[1] + (i + 1) * right_w)
        if point <= 12:  # bottom left, P7 next to the bar
            i = 12 - point
            return (i * left_w, (i + 1) * left_w)
        if point <= 18:  # top left, P13 at the left edge
            i = point - 13
            return (i * left_w, (i + 1) * left_w)
        i = point - 19  # top right, P19 next to the bar
        return (self.bar_u[1] + i * right_w, self.bar_u[1] + (i + 1) * right_w)

    @staticmethod
    def point_is_top(point: int) -> bool:
        return point >= 13

    def point_polygon(self, point: int) -> np.ndarray:
        u0, u1 = self.point_u(point)
        v0, v1 = (0.0, 0.5) if self.point_is_top(point) else (0.5, 1.0)
        return self.to_image([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])

    def triangle_polygon(self, point: int) -> np.ndarray:
        u0, u1 = self.point_u(point)
        if self.point_is_top(point):
            return self.to_image([[u0, 0.0], [u1, 0.0], [(u0 + u1) / 2, self.point_length]])
        return self.to_image([[u0, 1.0], [u1, 1.0], [(u0 + u1) / 2, 1 - self.point_length]])

    def bar_polygon(self) -> np.ndarray:
        b0, b1 = self.bar_u
        return self.to_image([[b0, 0], [b1, 0], [b1, 1], [b0, 1]])

    def surface_polygon(self) -> np.ndarray:
        return self.corners.copy()

    # --- queries ---------------------------------------------------------------------------
    def on_surface(self, xy: Any, margin: float = 0.0) -> bool:
        u, v = self.to_board(np.asarray(xy, dtype=np.float64).reshape(2))
        return bool(margin <= u <= 1 - margin and margin <= v <= 1 - margin)

    def half(self, xy: Any) -> str | None:
        u, v = self.to_board(np.asarray(xy, dtype=np.float64).reshape(2))
        if not (0 <= u <= 1 and 0 <= v <= 1):
            return None
        if u < self.bar_u[0]:
            return "left"
        if u > self.bar_u[1]:
            return "right"
        return "bar"

    def side(self, xy: Any) -> str | None:
        u, v = self.to_board(np.asarray(xy, dtype=np.float64).reshape(2))
        if not (0 <= u <= 1 and 0 <= v <= 1):
            return None
        return "top" if v < 0.5 else "bottom"

    def region(self, xy: Any) -> int | str | None:
        u, v = self.to_board(np.asarray(xy, dtype=np.float64).reshape(2))
        if not (0 <= u <= 1 and 0 <= v <= 1):
            return None
        if self.bar_u[0] <= u <= self.bar_u[1]:
            return "bar"
        for point in range(1, 25):
            u0, u1 = self.point_u(point)
            if u0 <= u <= u1 and (v < 0.5) == self.point_is_top(point):
                return point
        return None

    def px_per_unit(self, xy: Any) -> tuple[float, float]:
        """Image px per board unit (u, v) near image point ``xy``."""
        at = np.asarray(xy, dtype=np.float64).reshape(2)
        key = (float(at[0]), float(at[1]))  # the dice stages ask about the same few points often
        hit = self._scales.get(key)
        if hit is not None:
            return hit
        u, v = self.to_board(at)
        eps = 0.01
        p = self.to_image([[u, v], [u + eps, v], [u, v + eps]])
        scales = (float(np.linalg.norm(p[1] - p[0]) / eps), float(np.linalg.norm(p[2] - p[0]) / eps))
        if len(self._scales) > 512:
            self._scales.clear()
        self._scales[key] = scales
        return scales

    def checker_diameter_px(self, xy: Any) -> float:
        sx, sy = self.px_per_unit(xy)
        return float((sx * self.checker_u + sy * self.checker_v) / 2)

    def die_size_px(self, xy: Any) -> float:
        return 0.42 * self.checker_diameter_px(xy)

    def smallest_die_px(self) -> float:
        """How many pixels a die spans where the board is seen smallest (over its corners, the
        middles of its edges and its centre): the camera's resolution where the dice are read
        least well (`DIE_PX_ADVISED`)."""
        grid = np.array([(u, v) for u in (0.0, 0.5, 1.0) for v in (0.0, 0.5, 1.0)], np.float64)
        return min(self.die_size_px(xy) for xy in self.to_image(grid))

    def up_direction(self, xy: Any, hfov_deg: float | None = None) -> tuple[float, float]:
        """The unit direction in the image in which "up" (the board's normal, toward the camera)
        points at image point ``xy``: where a flat die's top face lies from its base, so its side
        faces show on the other side.  A pinhole camera as in `plane_aspect` (``hfov_deg``: the
        configuration's `camera_hfov_deg`); straight below the camera, where up points at the
        camera itself, (0, -1)."""
        k, b, normal = self._camera_pose(VisionConfig.camera_hfov_deg if hfov_deg is None else hfov_deg)
        u, v = (float(c) for c in self.to_board(xy).reshape(2))
        base = b @ np.array([u, v, 1.0])
        pts = (k @ np.stack([base, base + 0.02 * normal], axis=1)).T
        pts = pts[:, :2] / pts[:, 2:3]
        d = pts[1] - pts[0]
        n = float(np.linalg.norm(d))
        return (0.0, -1.0) if n < 1e-6 else (float(d[0] / n), float(d[1] / n))

    def _camera_pose(self, hfov_deg: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """K, the board's axes and origin in camera coordinates (board widths) and its unit normal
        toward the camera, for a pinhole camera ``hfov_deg`` wide (computed once per width)."""
        pose = self._poses.get(hfov_deg)
        if pose is None:
            k, b = _camera_plane(self._hinv, self.image_size, hfov_deg)
            b = b / np.linalg.norm(b[:, 0])
            if b[2, 2] < 0:  # the board lies in front of the camera
                b = -b
            normal = np.cross(b[:, 0], b[:, 1] / max(float(np.linalg.norm(b[:, 1])), 1e-12))
            if float(normal @ b[:, 2]) > 0:  # toward the camera
                normal = -normal
            pose = self._poses[hfov_deg] = (k, b, normal)
        return pose

    # --- canonical image -------------------------------------------------------------------
    def canonical_size(self, width: int) -> tuple[int, int]:
        return width, max(8, int(round(width * self.aspect)))

    def unwarp(self, canonical: np.ndarray, image_shape: tuple[int, ...],
               near: list[tuple[float, float]] | None = None, reach: float = 0.0) -> np.ndarray:
        """A canonical image (of any width) back in camera pixels, nearest pixel, 0 off the
        surface; with ``near`` (image points), only within ``reach`` px of them (0 elsewhere)."""
        ih, iw = image_shape[0], image_shape[1]
        m = self.warp_matrix(canonical.shape[1])
        if near is None:
            return cv2.warpPerspective(canonical, m, (iw, ih), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
        out = np.zeros((ih, iw), canonical.dtype)
        if not near:
            return out
        xy = np.asarray(near, np.float64).reshape(-1, 2)
        x0, y0 = (int(max(0, np.floor(v - reach))) for v in xy.min(axis=0))
        x1, y1 = int(min(iw, np.ceil(xy[:, 0].max() + reach) + 1)), int(min(ih, np.ceil(xy[:, 1].max() + reach) + 1))
        if x1 > x0 and y1 > y0:
            # the window's pixels map through the same homography (shifted to the window's origin)
            shift = np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
            out[y0:y1, x0:x1] = cv2.warpPerspective(canonical, m @ shift, (x1 - x0, y1 - y0),
                                                    flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
        return out

    def warp_matrix(self, width: int) -> np.ndarray:
        """Homography from image px to canonical px (``width`` px across the surface)."""
        if width not in self._warps:
            cw, ch = self.canonical_size(width)
            scale = np.diag([cw, ch, 1.0])
            self._warps[width] = scale @ self._h
            if len(self._warps) > _CANON_CACHE_MAX:
                self._warps.pop(next(iter(self._warps)))
        return self._warps[width]

    def warp(self, image: np.ndarray, width: int = 640) -> np.ndarray:
        """The playing surface seen from straight above, ``width`` px wide."""
        return cv2.warpPerspective(
            image, self.warp_matrix(width), self.canonical_size(width), flags=cv2.INTER_LINEAR
        )

    def surface_mask(self, shape: tuple[int, int], scale: float = 1.0, grow: float = 0.0) -> np.ndarray:
        """uint8 mask (255 inside the surface, grown by ``grow`` board units) at ``scale`` of the image."""
        g = grow
        poly = self.to_image([[-g, -g], [1 + g, -g], [1 + g, 1 + g], [-g, 1 + g]]) * scale
        mask = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 255)
        return mask

    # --- persistence -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "corners": self.corners.round(2).tolist(),
            "image_size": list(self.image_size),
            "bar_u": list(self.bar_u),
            "aspect": self.aspect,
            "checker_u": self.checker_u,
            "point_length": self.point_length,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardGeometry:
        try:
            return cls(
                corners=np.asarray(data["corners"], dtype=np.float64),
                image_size=(int(data["image_size"][0]), int(data["image_size"][1])),
                bar_u=(float(data["bar_u"][0]), float(data["bar_u"][1])),
                aspect=float(data["aspect"]),
                checker_u=float(data["checker_u"]),
                point_length=float(data.get("point_length", 0.42)),
            )
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"calibration geometry is incomplete: {error}") from None


@dataclass
class ColourModel:
    """Mean colours (Lab, float) of the two checker colours; 'light' is the brighter one."""

    light: tuple[float, float, float] = (215.0, 128.0, 135.0)
    dark: tuple[float, float, float] = (55.0, 130.0, 128.0)
    learnt: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"light": list(self.light), "dark": list(self.dark), "learnt": self.learnt}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ColourModel:
        return cls(tuple(data["light"]), tuple(data["dark"]), bool(data.get("learnt", True)))  # type: ignore[arg-type]

    @property
    def centres(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The learnt (light, dark) Lab centres (OpenCV's 8-bit Lab), or None when only the
        defaults are known."""
        if not self.learnt:
            return None
        return np.asarray(self.light, np.float32), np.asarray(self.dark, np.float32)

    @property
    def hues(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The light and dark sides' hues, CIELAB (a*, b*), when learnt from the start position
        (None with the defaults): what `vision.learned.other_side_by_hue` judges a stack by when
        the learned reader has not read the start photo itself (`vision.learned.StartColours`)."""
        centres = self.centres
        if centres is None:
            return None
        light, dark = centres
        return light[1:] - 128.0, dark[1:] - 128.0


def _encode_png(image: np.ndarray | None) -> str | None:
    if image is None:
        return None
    ok, buf = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover
        raise ValueError("could not encode a calibration image")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def _encode_jpg(image: np.ndarray | None) -> str | None:
    if image is None:
        return None
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:  # pragma: no cover
        raise ValueError("could not encode a calibration image")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def _decode_image(text: str | None) -> np.ndarray | None:
    if not text:
        return None
    data = np.frombuffer(base64.b64decode(text), np.uint8)
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@dataclass
class Calibration:
    """Geometry plus appearance: canonical background (empty board), reference camera frame,
    checker colours, the photo of the start position.  Everything a reader needs besides the frame
    itself."""

    geometry: BoardGeometry
    colours: ColourModel = field(default_factory=ColourModel)
    background: np.ndarray | None = None  # canonical BGR image of the empty board
    reference_frame: np.ndarray | None = None  # camera frame (full size) for the gate / recheck
    canonical_width: int = 640
    #: where ``background`` came from: "empty" (a photo of the empty board), "start" (estimated
    #: from the start position, whose points are mostly empty), "frames" (the median of many play
    #: frames), "estimated" (from a single frame in play: a guess, so the classical reader's every
    #: reading is doubted; the learned counter does not use it, `vision.pipeline.ALONE_CONFIDENCE`)
    background_source: str = "empty"
    #: the photo of the start position (camera frame, full size), when calibrated with one, and the
    #: variant whose start it shows: the learned counter learns from it how this board's two sides
    #: look (`vision.learned.start_colours`)
    start_frame: np.ndarray | None = None
    start_variant: str = "backgammon"
    _empty_lab: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False, compare=False)

    def empty_lab(self, shape: tuple[int, ...]) -> np.ndarray:
        """The empty board's Lab image at ``shape`` (see `lab_at`): computed once per background
        image and size, the checker and dice stages both compare against it."""
        if self.background is None:
            raise ValueError("this calibration has no empty-board image")
        hit = self._empty_lab
        if hit is None or hit[0] is not self.background or hit[1].shape[:2] != shape[:2]:
            hit = self._empty_lab = (self.background, lab_at(self.background, shape))
        return hit[1]

    def save(self, path: str | Path) -> None:
        # calibrated from the start position alone, its photo is the reference photo too: kept once
        start_is_reference = (self.start_frame is not None and self.reference_frame is not None
                              and np.array_equal(self.start_frame, self.reference_frame))
        data = {
            "format": "referee-calibration/1",
            "geometry": self.geometry.to_json(),
            "colours": self.colours.to_json(),
            "canonical_width": self.canonical_width,
            "background_png": _encode_png(self.background),
            "background_source": self.background_source,
            "reference_jpg": _encode_jpg(self.reference_frame),
            "start_jpg": None if start_is_reference else _encode_jpg(self.start_frame),
            "start_is_reference": start_is_reference,
            "start_variant": self.start_variant,
        }
        Path(path).write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise ValueError(f"calibration file {str(path)!r} is not JSON") from None
        if not isinstance(data, dict) or data.get("format") != "referee-calibration/1":
            raise ValueError(f"calibration file {str(path)!r} is not a referee calibration")
        reference = _decode_image(data.get("reference_jpg"))
        start = reference.copy() if data.get("start_is_reference") and reference is not None else None
        return cls(
            geometry=BoardGeometry.from_json(data["geometry"]),
            colours=ColourModel.from_json(data["colours"]),
            background=_decode_image(data.get("background_png")),
            reference_frame=reference,
            canonical_width=int(data.get("canonical_width", 640)),
            background_source=str(data.get("background_source", "empty")),
            start_frame=_decode_image(data.get("start_jpg")) if start is None else start,
            start_variant=str(data.get("start_variant", "backgammon")),
        )


# --- markers ------------------------------------------------------------------------------------
def _aruco_detect(gray: np.ndarray) -> tuple[list[np.ndarray], np.ndarray | None]:
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(aruco.DICT_4X4_50)
    if hasattr(aruco, "ArucoDetector"):  # OpenCV >= 4.7
        detector = aruco.ArucoDetector(dictionary, aruco.DetectorParameters())
        corners, ids, _ = detector.detectMarkers(gray)
    else:  # pragma: no cover - Raspberry Pi OS apt OpenCV 4.6
        corners, ids, _ = aruco.detectMarkers(gray, dictionary, parameters=aruco.DetectorParameters_create())
    return list(corners), ids


def detect_marker_corners(image: np.ndarray) -> np.ndarray | None:
    """Board corners from ArUco markers 0..3 (TL, TR, BR, BL), or None if any is missing.

    Each marker sits just outside its corner; the board corner is the marker corner nearest to the
    centre of the four markers.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids = _aruco_detect(gray)
    if ids is None:
        return None
    found: dict[int, np.ndarray] = {}
    for quad, marker_id in zip(corners, ids.reshape(-1), strict=False):
        if 0 <= int(marker_id) <= 3:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float64)
    if len(found) < 4:
        return None
    centre = np.mean([q.mean(axis=0) for q in found.values()], axis=0)
    out = []
    for k in range(4):
        quad = found[k]
        out.append(quad[np.argmin(np.linalg.norm(quad - centre, axis=1))])
    return np.array(out)


# --- learning appearance ------------------------------------------------------------------------
def _lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)


def _refine_bar(geometry: BoardGeometry, canon: np.ndarray, expected: float) -> None:
    """Find the bar in the empty board: the central column band whose colour differs from both
    neighbouring point columns and is uniform from top to bottom."""
    h, w = canon.shape[:2]
    lab = _lab(cv2.GaussianBlur(canon, (5, 5), 0))
    band = np.concatenate([lab[int(0.02 * h) : int(0.12 * h)], lab[int(0.88 * h) : int(0.98 * h)]])
    col = np.median(band, axis=0)  # (w, 3) colour near both edges, per column
    centre = slice(int(0.38 * w), int(0.62 * w))
    # Vertical uniformity: bar columns look the same at the edges and in the middle row.
    mid = np.median(lab[int(0.45 * h) : int(0.55 * h)], axis=0)
    uniform = np.linalg.norm(col - mid, axis=1)
    grad = np.linalg.norm(np.diff(col, axis=0), axis=1)
    grad = np.convolve(grad, np.ones(3) / 3, mode="same")
    cg = grad[centre]
    offset = centre.start
    half = cg.size // 2
    left = int(np.argmax(cg[:half])) + offset + 1
    right = int(np.argmax(cg[half:])) + half + offset + 1
    width = (right - left) / w
    if not 0.7 * expected <= width <= 1.4 * expected:
        return
    # The band between the two strongest edges must be uniform and centred.
    if np.median(uniform[left:right]) > 25 or abs((left + right) / 2 / w - 0.5) > 0.05:
        return
    geometry.bar_u = (left / w, right / w)


def _warp_mask_back(geometry: BoardGeometry, mask_canon: np.ndarray, width: int) -> np.ndarray:
    w, h = geometry.image_size
    return cv2.warpPerspective(
        mask_canon, geometry.warp_matrix(width), (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP
    )


def _learn_colours(
    calib: Calibration, start: np.ndarray, config: VisionConfig, variant: str
) -> None:
    """Checker colours from the starting position.

    The start position is known, only its orientation on the board is not: try the four
    orientations, keep the one whose expected stacks differ most from the empty board, and take
    the median colour of each side's stacks.  The brighter side is 'light'.
    """
    from vision.checkers import normalise_illumination, occupancy_map
    from vision.observation import start_layouts

    if calib.background is None:
        return
    geo = calib.geometry
    canon = normalise_illumination(geo.warp(start, calib.canonical_width), calib.background)
    occ = occupancy_map(canon, calib.background, config)
    lab = _lab(canon)
    h, w = canon.shape[:2]
    d = geo.checker_u * w
    try:
        layouts = start_layouts(variant)
    except Exception:  # noqa: BLE001 - an unknown variant simply teaches no colours
        return

    def region(point: int, count: int) -> tuple[slice, slice]:
        u0, u1 = geo.point_u(point)
        cx = (u0 + u1) / 2 * w
        cols = slice(int(cx - 0.2 * d), int(cx + 0.2 * d) + 1)
        length = min(count, 5) * d
        a, b = int(0.15 * d), int(max(0.3 * d, length - 0.15 * d))
        rows = slice(a, b) if geo.point_is_top(point) else slice(h - b, h - a)
        return rows, cols

    best: tuple[float, list[tuple[int, int]]] | None = None
    for counts in layouts.values():
        inside = [occ[region(p + 1, max(a, b))].mean() for p, (a, b) in enumerate(counts) if a or b]
        outside = [occ[region(p + 1, 1)].mean() for p, (a, b) in enumerate(counts) if not (a or b)]
        score = float(np.mean(inside) - np.mean(outside))
        if best is None or score > best[0]:
            best = (score, counts)
    assert best is not None
    if best[0] < 0.2:
        return
    groups: list[list[np.ndarray]] = [[], []]
    for p, (a, b) in enumerate(best[1]):
        if a or b:
            groups[0 if a else 1].append(lab[region(p + 1, max(a, b))].reshape(-1, 3))
    if not groups[0] or not groups[1]:
        return
    first = np.median(np.concatenate(groups[0]), axis=0)
    second = np.median(np.concatenate(groups[1]), axis=0)
    if np.linalg.norm(first - second) < 15:
        return
    light, dark = (first, second) if first[0] >= second[0] else (second, first)
    calib.colours = ColourModel(tuple(float(v) for v in light), tuple(float(v) for v in dark), True)  # type: ignore[arg-type]


def calibrate(
    corners: Any | None,
    image_size: tuple[int, int],
    *,
    empty: np.ndarray | None = None,
    start: np.ndarray | None = None,
    variant: str = "backgammon",
    config: VisionConfig | None = None,
    play: np.ndarray | None = None,
) -> Calibration:
    """Build a calibration from corners (or markers found in a reference frame) and references.

    ``empty`` is the empty board, ``start`` the starting position with light checkers on the
    bottom side; either may be missing.  ``play``: with neither, a frame of a game in progress to
    estimate the empty board from (marked ``background_source="estimated"``: readings against it
    are doubted).  Raises ValueError when no corners can be found.
    """
    config = config or VisionConfig()
    if corners is None:
        for frame in (empty, start, play):
            if frame is not None:
                corners = detect_marker_corners(frame)
                if corners is not None:
                    break
    if corners is None:
        raise ValueError("no board corners given and no ArUco markers 0..3 found")
    geo = BoardGeometry.from_corners(corners, image_size, config)
    calib = Calibration(geometry=geo, canonical_width=config.canonical_width)
    if empty is not None:
        canon = geo.warp(empty, config.canonical_width)
        _refine_bar(geo, canon, config.bar_fraction)
        calib.background = canon
        calib.reference_frame = empty.copy()
    elif start is not None:
        calib.background = _background_from_columns(geo, start, config)
        calib.background_source = "start"
        calib.reference_frame = start.copy()
    elif play is not None:
        calib.background = _background_from_columns(geo, play, config)
        calib.background_source = "estimated"
        # the gate compares with the frame the estimate came from (the skin test alone, with no
        # reference, takes wooden and cream boards for hands)
        calib.reference_frame = play.copy()
    if start is not None:
        calib.start_frame, calib.start_variant = start.copy(), variant
        _learn_colours(calib, start, config, variant)
        if calib.background is not None:
            _refine_checker_size(calib, start, config, variant)
    return calib


def _background_from_columns(geo: BoardGeometry, start: np.ndarray, config: VisionConfig) -> np.ndarray:
    """An empty-board estimate from a frame with checkers on it: each point column is replaced by
    the median of the same-coloured columns on its side (most of which are empty at the start)."""
    canon = geo.warp(start, config.canonical_width)
    out = canon.copy()
    h, w = canon.shape[:2]
    for top in (True, False):
        points = range(13, 25) if top else range(1, 13)
        rows = slice(0, h // 2) if top else slice(h // 2, h)
        for parity in (0, 1):
            cols = []
            for p in points:
                if p % 2 != parity:
                    continue
                u0, u1 = geo.point_u(p)
                x0 = int(round(u0 * w))
                cols.append(canon[rows, x0 : x0 + int(round((u1 - u0) * w)) - 1])
            width = min(c.shape[1] for c in cols)
            stack = np.stack([c[:, :width] for c in cols])
            med = np.median(stack, axis=0).astype(np.uint8)
            for p in points:
                if p % 2 != parity:
                    continue
                u0, _ = geo.point_u(p)
                x0 = int(round(u0 * w))
                out[rows, x0 : x0 + width] = med
    return out


def _refine_checker_size(calib: Calibration, start: np.ndarray, config: VisionConfig, variant: str) -> None:
    """Measure the checker diameter from stacks of known size in the start position (backgammon:
    stacks of 5 are the longest runs)."""
    if variant != "backgammon":
        return
    from vision.checkers import stack_extents

    extents = stack_extents(calib, start, config)
    runs = sorted(extents.values(), reverse=True)
    if len(runs) < 8:
        return
    fives = runs[:4]  # four stacks of five in the starting position
    d_v = float(np.median(fives)) / 5
    d_u = d_v * calib.geometry.aspect
    if 0.6 * config.checker_fraction < d_u < 1.4 * config.checker_fraction:
        calib.geometry.checker_u = d_u


def recheck(calib: Calibration, frame: np.ndarray, config: VisionConfig | None = None) -> float | None:
    """How far (px) the board appears to have moved since calibration, or None if unknown.

    Uses the markers when they are visible, otherwise phase correlation of the board's outer
    frame against the reference frame.  Compare with ``config.recheck_max_shift_px``.
    """
    corners = detect_marker_corners(frame)
    if corners is not None:
        return float(np.max(np.linalg.norm(corners - calib.geometry.corners, axis=1)))
    if calib.reference_frame is None:
        return None
    a = cv2.cvtColor(calib.reference_frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    b = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if a.shape != b.shape:
        return None
    ring = calib.geometry.surface_mask(a.shape, grow=0.06) > 0
    ring &= ~(calib.geometry.surface_mask(a.shape, grow=-0.01) > 0)
    win = np.where(ring, 1.0, 0.0).astype(np.float32)
    (dx, dy), _ = cv2.phaseCorrelate(a * win, b * win)
    return float(np.hypot(dx, dy))
