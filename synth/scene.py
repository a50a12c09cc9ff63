"""The 3-D scene of one frame, its camera, its lights and its exact label (INTERFACES.md §3).

World coordinates are millimetres in POV-Ray's left-handed frame: the playing surface lies in
the plane y = 0, x runs along the board's width (u = x / width) and z from the near (bottom)
edge to the far (top) edge (v = 1 - z / height).  Everything a label says is taken from the
scene: the counts from the checkers placed, the dice centres by projecting the dice through the
camera that renders the frame.
"""

from __future__ import annotations

import colorsys
import math
import zlib
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rules.position import starting_position
from synth.designs import Design
from vision.observation import position_to_physical

__all__ = [
    "Camera", "Lamp", "Lighting", "CheckerPiece", "DiePiece", "Cube", "Hand", "Moment", "Rig",
    "make_rig", "random_moment", "moment_from_counts", "label_of", "board_xz", "point_centre_u", "DICE_KINDS",
    "place_dice", "recoloured",
]

Vec = np.ndarray


def _unit(v: Any) -> Vec:
    a = np.asarray(v, np.float64)
    return a / float(np.linalg.norm(a))


# --- camera ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Camera:
    """A pinhole camera: location, orthonormal right/up/forward axes, horizontal field of view."""

    location: tuple[float, float, float]
    right: tuple[float, float, float]
    up: tuple[float, float, float]
    forward: tuple[float, float, float]
    hfov_deg: float
    size: tuple[int, int]

    @property
    def focal_px(self) -> float:
        return self.size[0] / 2 / math.tan(math.radians(self.hfov_deg) / 2)

    def project(self, points: Any) -> Vec:
        """Image pixel coordinates (x right, y down) of world points (N, 3)."""
        p = np.atleast_2d(np.asarray(points, np.float64)) - np.asarray(self.location)
        xc = p @ np.asarray(self.right)
        yc = p @ np.asarray(self.up)
        zc = p @ np.asarray(self.forward)
        f = self.focal_px
        w, h = self.size
        return np.stack([w / 2 + f * xc / zc, h / 2 - f * yc / zc], axis=1)

    def turned(self, yaw: float, pitch: float, roll: float) -> Camera:
        """The same camera turned by small angles (radians) about its up, right and forward axes."""
        r, u, f = (np.asarray(a) for a in (self.right, self.up, self.forward))
        rot = _axis_rotation(u, yaw) @ _axis_rotation(r, pitch) @ _axis_rotation(f, roll)
        return Camera(self.location, tuple(rot @ r), tuple(rot @ u), tuple(rot @ f),  # type: ignore[arg-type]
                      self.hfov_deg, self.size)


def _axis_rotation(axis: Vec, angle: float) -> Vec:
    a = _unit(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def look_camera(location: Vec, target: Vec, roll_deg: float, hfov_deg: float, size: tuple[int, int]) -> Camera:
    """A camera at ``location`` looking at ``target``, the board's far side up in the picture."""
    forward = _unit(target - location)
    right = _unit(np.cross([0.0, 0.0, 1.0], forward))
    up = np.cross(forward, right)
    cam = Camera(tuple(location), tuple(right), tuple(up), tuple(forward), hfov_deg, size)  # type: ignore[arg-type]
    return cam.turned(0.0, 0.0, math.radians(roll_deg))


# --- lights ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lamp:
    position: tuple[float, float, float]
    kelvin: float
    intensity: float
    size: float  # mm across the emitting area: a bare bulb ~20, a shade ~120, a softbox ~600
    kind: str  # bulb | shade | softbox | window


@dataclass(frozen=True)
class Lighting:
    lamps: tuple[Lamp, ...]
    ambient: float  # light bounced by the room, share of the main lamp

    def moved(self, rng: np.random.Generator) -> Lighting:
        """The light of play: the main lamp moved up to ±50 cm and in height, another colour
        temperature and ±30 % intensity; maybe a window as a second source."""
        main = self.lamps[0]
        x, y, z = main.position
        kind = main.kind if rng.random() < 0.6 else str(rng.choice(["bulb", "shade", "softbox"]))
        lamp = Lamp((x + float(rng.uniform(-500, 500)), max(450.0, y + float(rng.uniform(-250, 250))),
                     z + float(rng.uniform(-500, 500))),
                    float(np.clip(main.kelvin + rng.uniform(-1200, 1200), 2700, 6500)),
                    main.intensity * float(rng.uniform(0.7, 1.3)), LAMP_SIZES[kind], kind)
        lamps = [lamp]
        if rng.random() < 0.4:
            lamps.append(_window(rng))
        return Lighting(tuple(lamps), float(np.clip(self.ambient * rng.uniform(0.7, 1.4), 0.03, 0.3)))


LAMP_SIZES = {"bulb": 20.0, "shade": 140.0, "softbox": 600.0}


def _window(rng: np.random.Generator) -> Lamp:
    side = float(rng.choice([-1.0, 1.0]))
    return Lamp((side * float(rng.uniform(1500, 2500)), float(rng.uniform(900, 1600)), float(rng.uniform(-800, 1200))),
                float(rng.uniform(5500, 6500)), float(rng.uniform(0.25, 0.6)), 1200.0, "window")


# --- pieces ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckerPiece:
    x: float
    y: float  # height of its base
    z: float
    colour: int  # 0 light, 1 dark
    place: int  # 1..24 a point, 25 the bar
    tilt: tuple[float, float, float] = (0.0, 0.0, 0.0)  # degrees about x, y, z


@dataclass(frozen=True)
class DiePiece:
    value: int
    centre: tuple[float, float, float]
    yaw: float  # degrees
    size: float
    tilt: float = 0.0  # degrees, cocked when not 0
    tilt_dir: float = 0.0  # degrees: the horizontal direction the die leans to


@dataclass(frozen=True)
class Cube:
    centre: tuple[float, float, float]
    yaw: float
    size: float
    value: int  # 2..64 on top


@dataclass(frozen=True)
class Hand:
    tip: tuple[float, float, float]  # fingertips
    elbow: tuple[float, float, float]
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int] | None
    holding: str | None  # None | checker | cup
    width: float  # mm across the forearm


@dataclass
class Moment:
    """One frame: checkers, dice, cube, hand, shadows and the label they make."""

    points: list[tuple[int, int]]
    bar: tuple[int, int]
    checkers: list[CheckerPiece]
    dice: list[DiePiece] = field(default_factory=list)
    roll: str = "none"
    void_reason: str | None = None
    cube: Cube | None = None
    hand: Hand | None = None
    shade: tuple[float, float, float, float, float, float] | None = None  # a shadow-caster out of view:
    # x, y, z, radius, elongation, turn (degrees)
    exposure: float = 1.0  # drift of the camera's exposure
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # drift, R G B
    seed: int = 0
    #: this frame's own dice (``--dice-variety``), else the rig's
    dice_look: DiceLook | None = None


@dataclass(frozen=True)
class DiceLook:
    """How one frame's dice look when they are not the rig's: body, pips, edge rounding, drilled
    pips; and the pips' shape (`vary_pips`): their radius and spacing against the common die's,
    the one's pip radius against the others' and its own colour (a big red one, as on many sets)."""

    body: tuple[int, int, int]
    pips: tuple[int, int, int]
    rounding: float
    drilled: bool
    pip_scale: float = 1.0
    spread: float = 1.0
    one_scale: float = 1.0
    one_pip: tuple[int, int, int] | None = None


#: die bodies and pip colours of real sets: plastic in plain colours, ivory, casino red, black
DIE_BODIES = ((240, 238, 232), (230, 218, 190), (28, 28, 30), (176, 24, 30), (120, 14, 20), (30, 110, 60),
              (30, 60, 150), (230, 196, 50), (226, 110, 30), (90, 40, 120), (140, 140, 144), (120, 76, 44))
DIE_PIPS = ((246, 244, 238), (20, 20, 22), (200, 28, 34), (210, 170, 60), (30, 50, 140))


def _luma(rgb: tuple[int, int, int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def random_dice_look(rng: np.random.Generator) -> DiceLook:
    """Dice of any common set: a body colour, pips that stand out from it (by lightness, or red
    on a pale or black body), each colour a little off its catalogue shade."""
    body = DIE_BODIES[int(rng.integers(len(DIE_BODIES)))]
    red = lambda p: p[0] > 150 and p[1] < 60  # noqa: E731
    pips = [p for p in DIE_PIPS if abs(_luma(p) - _luma(body)) > 70
            or red(p) and (_luma(body) < 60 or _luma(body) > 160)]
    pip = pips[int(rng.integers(len(pips)))]

    def off(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
        r, g, b = (int(np.clip(v + rng.normal(0, 10), 0, 255)) for v in rgb)
        return r, g, b

    return DiceLook(off(body), off(pip), float(rng.uniform(0.04, 0.18)), bool(rng.random() < 0.7))


#: the red of a big one pip (a catalogue shade of DIE_PIPS)
ONE_RED = (200, 28, 34)


def vary_pips(look: DiceLook, rng: np.random.Generator) -> DiceLook:
    """``look`` with pips of another shape: smaller or larger and closer or wider apart than the
    common die's, and on half the sets a big one pip (1.5 to 2.6 times the others' radius), red on
    half of those whose body is pale."""
    pip_scale, spread = float(rng.uniform(0.75, 1.3)), float(rng.uniform(0.85, 1.1))
    big = bool(rng.random() < 0.5)
    one_scale = float(rng.uniform(1.5, 2.6)) if big else 1.0
    red_one = big and _luma(look.body) > 160 and bool(rng.random() < 0.5)
    return replace(look, pip_scale=pip_scale, spread=spread, one_scale=one_scale,
                   one_pip=ONE_RED if red_one else None)


@dataclass
class Rig:
    """What stays fixed for one dataset: design, checkers, dice, camera, the two lights."""

    design: Design
    light_colour: tuple[int, int, int]
    dark_colour: tuple[int, int, int]
    checker_d: float
    checker_t: float
    die_body: tuple[int, int, int]
    die_pips: tuple[int, int, int]
    die_size: float
    table: tuple[int, int, int]
    camera: Camera  # at calibration
    play_camera: Camera  # nudged after calibration
    calibration_light: Lighting
    play_light: Lighting
    vignetting: float
    noise: float
    jpeg: int
    white_balance: tuple[float, float, float]  # the camera's own cast, R G B
    seed: int
    lens_blur: float = 0.0  # the lens's softness, pixels (at 1280 wide)
    exposure_bias: float = 1.0  # the camera's metering off a grey card's, factor

    @property
    def height(self) -> float:
        return self.design.width * self.design.aspect

    def corners(self) -> Vec:
        """Image corners of the playing surface (TL, TR, BR, BL of the board) at calibration."""
        w, h = self.design.width, self.height
        return self.camera.project([[0, 0, h], [w, 0, h], [w, 0, 0], [0, 0, 0]])


def board_xz(design: Design, u: float, v: float) -> tuple[float, float]:
    return u * design.width, (1 - v) * design.width * design.aspect


def point_centre_u(design: Design, point: int) -> float:
    """u of the middle of point ``point`` (1..24; INTERFACES §3 numbering)."""
    left_w = (0.5 - design.bar / 2) / 6
    right0 = 0.5 + design.bar / 2
    if point <= 6:
        return right0 + (6 - point + 0.5) * left_w
    if point <= 12:
        return (12 - point + 0.5) * left_w
    if point <= 18:
        return (point - 13 + 0.5) * left_w
    return right0 + (point - 19 + 0.5) * left_w


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """sRGB colour (0..1) of a black body, after Tanner Helland's fit."""
    t = kelvin / 100
    r = 1.0 if t <= 66 else min(1.0, 1.292936 * (t - 60) ** -0.1332047)
    g = 0.3900816 * math.log(t) - 0.6318414 if t <= 66 else 1.1298909 * (t - 60) ** -0.0755148
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.5432068 * math.log(t - 10) - 1.1962541)
    return (float(np.clip(r, 0, 1)), float(np.clip(g, 0, 1)), float(np.clip(b, 0, 1)))


# --- the rig ----------------------------------------------------------------------------------
def _colour(rng: np.random.Generator, value: tuple[float, float], saturation: tuple[float, float]) -> tuple[int, int, int]:
    """A colour of any hue, its HSV value and saturation drawn from the ranges given."""
    r, g, b = colorsys.hsv_to_rgb(float(rng.uniform(0, 1)), float(rng.uniform(*saturation)), float(rng.uniform(*value)))
    return round(r * 255), round(g * 255), round(b * 255)


def recoloured(design: Design, rng: np.random.Generator) -> Design:
    """``design`` in colours of its own: its field, points, frame, outline and one pair of checkers
    each of any hue, from near black to near white, the bar a shade off the frame's (the checkers'
    sides still told apart by lightness, the lighter side at least 50 lighter in luma), its shapes
    and materials kept.  A tuning design so is training data, meant to keep a reader from learning
    eight boards' colours instead of their checkers; a held-out design so measures readers on
    colours never seen."""
    any_colour = lambda: _colour(rng, (0.08, 0.95), (0.0, 0.8))  # noqa: E731
    field_colour, points = any_colour(), (any_colour(), any_colour())
    frame_colour = any_colour()
    r, g, b = (int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in frame_colour)  # the frame's, a shade off
    while True:
        light, dark = _colour(rng, (0.55, 1.0), (0.0, 0.7)), _colour(rng, (0.06, 0.7), (0.0, 0.85))
        if _luma(light) - _luma(dark) >= 50:
            break
    outline = None if design.outline is None else any_colour()
    return replace(design, field_colour=field_colour, points=points, frame_colour=frame_colour,
                   bar_colour=(r, g, b), outline=outline,
                   checkers=replace(design.checkers, pairs=((light, dark),) * len(design.checkers.pairs)))


def design_seed(design: Design, seed: int) -> list[int]:
    """The random stream of one design and seed: the same seed gives every design its own
    camera, lamps and positions."""
    return [seed, zlib.crc32(design.name.encode())]


def make_rig(design: Design, seed: int, size: tuple[int, int] = (1280, 720), same_light: bool = False,
             recolour: bool = False) -> Rig:
    """Everything fixed for one dataset, drawn from the design's stream; with ``recolour`` the
    design in colours of its own (`recoloured`, from a stream of their own: the rest is drawn as
    without)."""
    if recolour:
        design = recoloured(design, np.random.default_rng([*design_seed(design, seed), 5]))
    rng = np.random.default_rng(design_seed(design, seed))
    light, dark = design.checkers.pairs[int(rng.integers(len(design.checkers.pairs)))]
    d = design.point_width * design.checkers.fill * float(rng.uniform(0.97, 1.0))
    body, pips = design.dice.colours[int(rng.integers(len(design.dice.colours)))]
    if rng.random() < 0.2:  # dice of a checker's colour
        body, pips = (light, dark) if rng.random() < 0.5 else (dark, light)
    die = float(rng.uniform(*design.dice.size))
    table = design.table[int(rng.integers(len(design.table)))]
    camera = _random_camera(design, rng, size)
    # nudged a few pixels after calibration
    shift = float(rng.uniform(1.0, 4.0)) / camera.focal_px
    ang = float(rng.uniform(0, 2 * math.pi))
    play_camera = camera.turned(shift * math.cos(ang), shift * math.sin(ang), float(rng.normal(0, 0.001)))
    w, h = design.width, design.width * design.aspect
    kind = str(rng.choice(["bulb", "shade", "softbox"]))
    lamp = Lamp((w / 2 + float(rng.uniform(-250, 250)), float(rng.uniform(700, 1300)), h / 2 + float(rng.uniform(-250, 300))),
                float(rng.uniform(2700, 6500)), 1.0, LAMP_SIZES[kind], kind)
    lamps = [lamp] + ([_window(rng)] if rng.random() < 0.2 else [])
    calibration = Lighting(tuple(lamps), float(rng.uniform(0.06, 0.18)))
    play = calibration if same_light else calibration.moved(rng)
    return Rig(
        design=design, light_colour=light, dark_colour=dark, checker_d=d,
        checker_t=d * design.checkers.thickness, die_body=body, die_pips=pips, die_size=die, table=table,
        camera=camera, play_camera=play_camera, calibration_light=calibration, play_light=play,
        vignetting=float(rng.uniform(0.08, 0.35)), noise=float(rng.uniform(0.8, 2.5)),
        jpeg=int(rng.integers(72, 96)),
        white_balance=(float(rng.uniform(0.92, 1.08)), 1.0, float(rng.uniform(0.92, 1.08))),
        seed=int(rng.integers(0, 2**31)), lens_blur=float(rng.uniform(0.55, 0.9)),
        exposure_bias=float(np.exp(rng.uniform(-0.3, 0.3))),
    )


def _random_camera(design: Design, rng: np.random.Generator, size: tuple[int, int]) -> Camera:
    """Straight down to 35° off vertical, from the near side (a little to either side), 55-80°
    lens, the whole board with its frame in the picture."""
    w, h = design.width, design.width * design.aspect
    fw = design.frame_width
    tilt = math.radians(float(rng.uniform(0, 35)))
    azimuth = math.radians(float(rng.uniform(-12, 12)))
    hfov = float(rng.uniform(55, 80))
    roll = float(rng.uniform(-3, 3))
    target = np.array([w / 2 + rng.uniform(-0.03, 0.03) * w, 0.0, h / 2 + rng.uniform(-0.03, 0.03) * h])
    back = np.array([math.sin(azimuth) * math.sin(tilt), math.cos(tilt), -math.cos(azimuth) * math.sin(tilt)])
    outline = np.array([[-fw, design.frame_height, -fw], [w + fw, design.frame_height, -fw],
                        [w + fw, design.frame_height, h + fw], [-fw, design.frame_height, h + fw]])
    fill = float(rng.uniform(0.82, 0.95))  # share of the picture the board's frame may take
    lo, hi = 100.0, 20000.0
    for _ in range(40):  # the nearest distance at which the frame fits
        mid = (lo + hi) / 2
        cam = look_camera(target + mid * back, target, roll, hfov, size)
        pts = cam.project(outline)
        margin_x = (1 - fill) / 2 * size[0]
        margin_y = (1 - fill) / 2 * size[1]
        inside = (pts[:, 0].min() >= margin_x and pts[:, 0].max() <= size[0] - margin_x
                  and pts[:, 1].min() >= margin_y and pts[:, 1].max() <= size[1] - margin_y)
        lo, hi = (lo, mid) if inside else (mid, hi)
    return look_camera(target + hi * back, target, roll, hfov, size)


# --- checkers -------------------------------------------------------------------------------
def _stack(design: Design, rig: Rig, point: int, colours: list[int], rng: np.random.Generator) -> list[CheckerPiece]:
    """A point's checkers as people leave them: a row from the edge, more in a second (third...)
    layer resting between those below, a little askew."""
    d, t = rig.checker_d, rig.checker_t
    u = point_centre_u(design, point)
    top = point >= 13
    out = []
    per_row = 5
    layer, index = 0, 0
    for colour in colours:
        if index >= per_row - layer:
            layer, index = layer + 1, 0
        dist = d / 2 + 0.6 + (index + layer / 2) * d * 1.01 + float(rng.uniform(0, 0.6))
        x = u * design.width + float(rng.normal(0, 0.04 * d))
        zv = dist if not top else rig.height - dist
        tilt = (float(rng.normal(0, 1.2)) if layer else 0.0, float(rng.uniform(0, 360)),
                float(rng.normal(0, 1.2)) if layer else 0.0)
        out.append(CheckerPiece(x, layer * t * 0.98, zv + float(rng.normal(0, 0.03 * d)), colour, point, tilt))
        index += 1
    return out


def _bar_stack(design: Design, rig: Rig, colour: int, count: int, rng: np.random.Generator) -> list[CheckerPiece]:
    """On the bar the light checkers lie on the near half, the dark on the far half."""
    d, t = rig.checker_d, rig.checker_t
    x = design.width / 2
    out = []
    for i in range(count):
        layer, index = (0, i) if i < 3 else (1, i - 3)
        dist = d * 0.6 + (index + layer / 2) * d * 1.02
        z = rig.height / 2 + (dist if colour == 1 else -dist)
        out.append(CheckerPiece(x + float(rng.normal(0, 0.03 * d)), design.bar_height + layer * t * 0.98, z,
                                colour, 25, (0.0, float(rng.uniform(0, 360)), 0.0)))
    return out


def place_checkers(rig: Rig, points: list[tuple[int, int]], bar: tuple[int, int],
                   rng: np.random.Generator) -> list[CheckerPiece]:
    out: list[CheckerPiece] = []
    for p in range(1, 25):
        light, dark = points[p - 1]
        if light or dark:
            out += _stack(rig.design, rig, p, [0] * light + [1] * dark, rng)
    for colour in (0, 1):
        out += _bar_stack(rig.design, rig, colour, bar[colour], rng)
    return out


#: the share of frames in which each side has checkers on the bar (one to three)
BAR_RATE = 0.2


def random_counts(rng: np.random.Generator, bar_rate: float = BAR_RATE) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """A plausible spread: each side's checkers on a few points, now and then (``bar_rate``) some
    on the bar."""
    owner = [-1] * 24
    counts = [[0, 0] for _ in range(24)]
    bar = [0, 0]
    for colour in (0, 1):
        total = int(rng.choice([15, 15, 15, 14, 13, 12, 10, 8, 5]))
        if rng.random() < bar_rate:
            bar[colour] = int(rng.integers(1, 4))
            total -= bar[colour]
        free = [p for p in range(24) if owner[p] == -1]
        chosen = [int(p) for p in rng.choice(free, size=min(int(rng.integers(2, 9)), len(free)), replace=False)]
        weights = rng.dirichlet(np.ones(len(chosen)) * (0.4 if rng.random() < 0.25 else 1.5))
        alloc = np.floor(weights * total).astype(int)
        for _ in range(total - int(alloc.sum())):
            alloc[int(rng.integers(len(chosen)))] += 1
        for p, a in zip(chosen, alloc, strict=True):
            if a > 0:
                owner[p] = colour
                counts[p][colour] = int(min(a, 15))
    return [(a, b) for a, b in counts], (bar[0], bar[1])


def start_counts() -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Backgammon's starting position, light checkers on the bottom side (INTERFACES §3)."""
    return position_to_physical(starting_position("backgammon"), True, "bottom-right")


# --- dice -------------------------------------------------------------------------------------
def _clear(x: float, z: float, radius: float, checkers: list[CheckerPiece], others: list[tuple[float, float]],
           rig: Rig) -> bool:
    for c in checkers:
        if math.hypot(x - c.x, z - c.z) < rig.checker_d / 2 + radius + 1.0:
            return False
    return all(math.hypot(x - ox, z - oz) >= 2 * radius + 2.0 for ox, oz in others)


def _half_range(rig: Rig, half: str, margin: float) -> tuple[float, float]:
    w = rig.design.width
    if half == "left":
        return margin, w * (0.5 - rig.design.bar / 2) - margin
    return w * (0.5 + rig.design.bar / 2) + margin, w - margin


def _flat_spot(rig: Rig, half: str, checkers: list[CheckerPiece], others: list[tuple[float, float]],
               rng: np.random.Generator) -> tuple[float, float] | None:
    s = rig.die_size
    radius = s * 0.75
    x0, x1 = _half_range(rig, half, radius + 1)
    for _ in range(400):
        x, z = float(rng.uniform(x0, x1)), float(rng.uniform(radius + 1, rig.height - radius - 1))
        if _clear(x, z, radius, checkers, others, rig):
            return x, z
    return None


def _flat_die(rig: Rig, value: int, x: float, z: float, rng: np.random.Generator, base: float = 0.0) -> DiePiece:
    s = rig.die_size
    return DiePiece(value, (x, base + s / 2, z), float(rng.uniform(0, 90)), s)


def _cocked_die(rig: Rig, value: int, half: str, checkers: list[CheckerPiece], others: list[DiePiece],
                rng: np.random.Generator) -> DiePiece | None:
    """A die leaning against a checker, the frame or the other die."""
    s = rig.die_size
    tilt = float(rng.uniform(18, 38))
    reach = s / 2 * (math.cos(math.radians(tilt)) + math.sin(math.radians(tilt)))
    x0, x1 = _half_range(rig, half, s)
    for _ in range(200):
        against = str(rng.choice(["checker", "frame", "die"], p=[0.5, 0.3, 0.2]))
        if against == "checker":
            pool = [c for c in checkers if c.y == 0 and x0 - s < c.x < x1 + s]
            if not pool:
                continue
            c = pool[int(rng.integers(len(pool)))]
            ang = float(rng.uniform(0, 2 * math.pi))
            dist = rig.checker_d / 2 + reach * 0.8
            x, z = c.x + dist * math.cos(ang), c.z + dist * math.sin(ang)
            lean = math.degrees(math.atan2(c.z - z, c.x - x))
        elif against == "frame":
            near = bool(rng.random() < 0.5)
            x = float(rng.uniform(x0, x1))
            z = reach * 0.8 if near else rig.height - reach * 0.8
            lean = -90.0 if near else 90.0
        else:
            if not others:
                continue
            o = others[0]
            ang = float(rng.uniform(0, 2 * math.pi))
            dist = o.size * 0.55 + reach * 0.8
            x, z = o.centre[0] + dist * math.cos(ang), o.centre[2] + dist * math.sin(ang)
            lean = math.degrees(math.atan2(o.centre[2] - z, o.centre[0] - x))
        if not (x0 <= x <= x1 and s * 0.4 <= z <= rig.height - s * 0.4):
            continue
        blockers = [c for c in checkers if not (against == "checker" and c.x == x and c.z == z)]
        clear_of = [(o.centre[0], o.centre[2]) for o in others] if against != "die" else []
        if not _clear(x, z, s * 0.45, [c for c in blockers if math.hypot(c.x - x, c.z - z) < rig.checker_d / 2 + s * 0.3],
                      clear_of, rig):
            continue
        return DiePiece(value, (x, reach, z), float(rng.uniform(0, 90)), s, tilt, lean)
    return None


#: the ways `place_dice` lays a roll: valid, or a void reason of RULES.md §1.6
DICE_KINDS = ("valid", "different_halves", "cocked", "on_checker", "off_board")


def place_dice(rig: Rig, moment: Moment, kind: str, rng: np.random.Generator) -> None:
    """Dice lying as ``kind`` (one of `DICE_KINDS`) says: valid, or a void reason of RULES.md §1.6."""
    values = [int(v) for v in rng.integers(1, 7, 2)]
    half = str(rng.choice(["left", "right"]))
    other_half = "right" if half == "left" else "left"
    dice: list[DiePiece] = []
    checkers = moment.checkers
    s = rig.die_size

    def flat(value: int, h: str) -> bool:
        spot = _flat_spot(rig, h, checkers, [(d.centre[0], d.centre[2]) for d in dice], rng)
        if spot is None:
            return False
        dice.append(_flat_die(rig, value, spot[0], spot[1], rng))
        return True

    ok = True
    if kind == "valid":
        ok = flat(values[0], half) and flat(values[1], half)
    elif kind == "different_halves":
        ok = flat(values[0], half) and flat(values[1], other_half)
    elif kind == "cocked":
        ok = flat(values[1], half)
        if ok:
            cocked = _cocked_die(rig, values[0], half, checkers, dice, rng)
            ok = cocked is not None
            if cocked is not None:
                dice.insert(0, cocked)
    elif kind == "on_checker":
        tops = _stack_tops(checkers, half)
        if not tops:
            ok = False
        else:
            c = tops[int(rng.integers(len(tops)))]
            jitter = rig.checker_d * 0.12
            dice.append(_flat_die(rig, values[0], c.x + float(rng.uniform(-jitter, jitter)),
                                  c.z + float(rng.uniform(-jitter, jitter)), rng, base=c.y + rig.checker_t))
            ok = flat(values[1], half)
    elif kind == "off_board":
        w, h, fw = rig.design.width, rig.height, rig.design.frame_width
        side = str(rng.choice(["near", "far", "left", "right"]))
        on_frame = fw >= s * 1.3 and rng.random() < 0.5
        if on_frame:
            off, base = fw / 2, rig.design.frame_height
        else:
            off, base = fw + s * float(rng.uniform(0.8, 2.0)), -board_base(rig.design)
        if side in ("near", "far"):
            x = float(rng.uniform(0.1, 0.9)) * w
            z = -off if side == "near" else h + off
        else:
            x = -off if side == "left" else w + off
            z = float(rng.uniform(0.1, 0.9)) * h
        dice.append(_flat_die(rig, values[0], x, z, rng, base=base))
        die_half = "left" if x < w / 2 else "right"
        ok = flat(values[1], die_half)
    if not ok:
        moment.dice, moment.roll, moment.void_reason = [], "none", None
        return
    moment.dice = dice
    moment.roll = "valid" if kind == "valid" else "void"
    moment.void_reason = None if kind == "valid" else kind


def _stack_tops(checkers: list[CheckerPiece], half: str) -> list[CheckerPiece]:
    tops: dict[int, CheckerPiece] = {}
    for c in checkers:
        if c.place == 25:
            continue
        if (half == "left") != (c.place in range(7, 19)):
            continue
        if c.place not in tops or c.y >= tops[c.place].y:
            tops[c.place] = c
    return list(tops.values())


def board_base(design: Design) -> float:
    """How far the board's underside lies below its playing surface (mm)."""
    return 8.0 + design.frame_height * 0.3


# --- hands, shadows, the moment -----------------------------------------------------------------
SKIN_TONES = ((242, 206, 180), (228, 184, 150), (206, 156, 118), (176, 122, 86), (134, 88, 60), (92, 60, 42))


def random_hand(rig: Rig, rng: np.random.Generator) -> Hand:
    w, h = rig.design.width, rig.height
    tip = (float(rng.uniform(0.1, 0.9)) * w, float(rng.uniform(15, 70)), float(rng.uniform(0.1, 0.9)) * h)
    side = str(rng.choice(["near", "near", "far", "left", "right"]))
    reach = float(rng.uniform(300, 420))
    rise = float(rng.uniform(120, 260))
    if side == "near":
        elbow = (tip[0] + float(rng.uniform(-150, 150)), tip[1] + rise, tip[2] - reach)
    elif side == "far":
        elbow = (tip[0] + float(rng.uniform(-150, 150)), tip[1] + rise, tip[2] + reach)
    elif side == "left":
        elbow = (tip[0] - reach, tip[1] + rise, tip[2] + float(rng.uniform(-120, 120)))
    else:
        elbow = (tip[0] + reach, tip[1] + rise, tip[2] + float(rng.uniform(-120, 120)))
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    sleeve = tuple(int(v) for v in rng.integers(20, 230, 3)) if rng.random() < 0.6 else None
    holding = rng.choice(["none", "checker", "cup"], p=[0.4, 0.35, 0.25])
    return Hand(tip, elbow, skin, sleeve, None if holding == "none" else str(holding),  # type: ignore[arg-type]
                float(rng.uniform(55, 75)))


def random_moment(rig: Rig, rng: np.random.Generator, occluded_rate: float = 0.15, bar_rate: float = BAR_RATE) -> Moment:
    points, bar = random_counts(rng, bar_rate)
    moment = Moment(points, bar, place_checkers(rig, points, bar, rng), seed=int(rng.integers(0, 2**31)))
    kind = str(rng.choice(["none", *DICE_KINDS],
                          p=[0.12, 0.52, 0.09, 0.09, 0.09, 0.09]))
    if kind != "none":
        place_dice(rig, moment, kind, rng)
    if rng.random() < 0.3:
        w, h = rig.design.width, rig.height
        spot = [(w / 2, rig.design.bar_height, h / 2), (w * 0.5, rig.design.frame_height, -rig.design.frame_width / 2),
                (w * 0.5, rig.design.frame_height, h + rig.design.frame_width / 2)][int(rng.integers(3))]
        size = max(18.0, rig.die_size * 1.35)
        if rig.design.bar_height == 0 or spot[1] == rig.design.frame_height and rig.design.frame_width < size:
            spot = (w / 2, -board_base(rig.design), -rig.design.frame_width - size)
        moment.cube = Cube((spot[0], spot[1] + size / 2, spot[2] + (0.0 if spot[2] != h / 2 else 0.0)),
                           float(rng.uniform(-20, 20)), size, int(rng.choice([2, 4, 8, 16, 32, 64])))
        if any(math.hypot(c.x - moment.cube.centre[0], c.z - moment.cube.centre[2]) < rig.checker_d / 2 + size
               and abs(c.y - spot[1]) < 5 for c in moment.checkers):
            moment.cube = None
    if rng.random() < occluded_rate:
        moment.hand = random_hand(rig, rng)
    if rng.random() < 0.25:  # a player's head between the lamp and the board
        lamp = np.asarray(rig.play_light.lamps[0].position)
        ground = np.array([rng.uniform(0, rig.design.width), 0.0, rng.uniform(0, rig.height)])
        k = float(rng.uniform(0.35, 0.6))
        c = ground + (lamp - ground) * k
        moment.shade = (float(c[0]), float(c[1]), float(c[2]), float(rng.uniform(70, 110)),
                        float(rng.choice([1.25, 3.5])), float(rng.uniform(0, 180)))  # a head, or an arm
    moment.exposure = float(rng.uniform(0.9, 1.1))
    moment.white_balance = (float(rng.uniform(0.96, 1.04)), 1.0, float(rng.uniform(0.96, 1.04)))
    return moment


def moment_from_counts(rig: Rig, points: list[tuple[int, int]], bar: tuple[int, int], seed: int) -> Moment:
    """A still board with these counts, no dice, no hand (the references)."""
    rng = np.random.default_rng(seed)
    return Moment(points, bar, place_checkers(rig, points, bar, rng), seed=seed)


def label_of(moment: Moment, camera: Camera) -> dict[str, Any]:
    """The §3 label: counts from the scene, dice centres projected through ``camera``."""
    dice = []
    for d in moment.dice:
        x, y = camera.project([d.centre])[0]
        dice.append({"value": d.value, "centre": [round(float(x), 1), round(float(y), 1)]})
    return {
        "points": [[int(a), int(b)] for a, b in moment.points],
        "bar": {"light": int(moment.bar[0]), "dark": int(moment.bar[1])},
        "dice": dice,
        "roll": moment.roll,
        "void_reason": moment.void_reason,
        "occluded": moment.hand is not None,
    }
