"""Board designs of the physically based renderer (issue 19): what a board, its checkers and its
dice are made of and how big they are.

A third of the designs are *held out*: never looked at for tuning or training a reader, reported
apart.  When a held-out design has been used for tuning it joins the tuning designs and a new
held-out design is made.  The names are referred to by the learned checker model's card and the
Makefile's ``train`` target; do not rename them.

Colours are sRGB 0..255 (converted to linear light for POV-Ray).  Lengths are millimetres.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["Design", "DESIGNS", "design", "Checkers", "Dice"]

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Checkers:
    """A set of checkers; one of ``pairs`` is drawn per dataset."""

    pairs: tuple[tuple[RGB, RGB], ...]  # (light, dark)
    material: str  # plastic | wood | stone | acrylic | bakelite
    fill: float = 0.92  # diameter / point width (a checker just fits its point)
    thickness: float = 0.24  # thickness / diameter
    bevel: float = 0.08  # bevel radius / diameter
    groove: bool = True  # concentric groove on the top
    rim: bool = False  # a raised rim around the top
    engraved: bool = False  # an engraved or inlaid top (ring / disc of another shade)


@dataclass(frozen=True)
class Dice:
    """Dice of a set; one colour pair is drawn per dataset."""

    colours: tuple[tuple[RGB, RGB], ...]  # (body, pips)
    size: tuple[float, float] = (14.0, 16.0)  # edge, mm
    rounding: float = 0.12  # edge radius / edge
    drilled: bool = True  # drilled pips (else painted)


@dataclass(frozen=True)
class Design:
    name: str
    held_out: bool
    description: str
    width: float  # playing surface width (bar included), mm
    aspect: float  # surface height / width
    bar: float  # bar width / surface width
    bar_height: float  # mm above the surface (0: a printed bar)
    frame_width: float  # mm
    frame_height: float  # mm above the surface
    field: str  # material of the field: felt cork leatherette wood vinyl acrylic marble magnetic
    field_colour: RGB
    points: tuple[RGB, RGB]  # P1's colour first
    point_style: str  # printed | stitched | inlaid | painted
    frame: str  # material of the frame and bar
    frame_colour: RGB
    bar_colour: RGB
    checkers: Checkers
    dice: Dice
    outline: RGB | None = None  # a line around every point
    point_length: float = 0.42  # point length / surface height
    lacquer: float = 0.0  # 0..1: how much the surfaces mirror (gloss of the finish)
    table: tuple[RGB, ...] = dataclasses.field(default=((120, 96, 70), (70, 72, 78), (150, 140, 125), (40, 40, 44)))

    @property
    def kind(self) -> str:
        return "held-out" if self.held_out else "tuning"

    @property
    def point_width(self) -> float:
        return self.width * (1 - self.bar) / 12


IVORY, BLACK = (232, 222, 196), (34, 32, 32)
WHITE = (238, 236, 230)
RED_DICE = ((176, 24, 30), (246, 244, 238))
WHITE_DICE = ((240, 238, 232), (20, 20, 22))
IVORY_DICE = ((230, 218, 190), (25, 22, 20))
BLACK_DICE = ((28, 28, 30), (236, 234, 228))

DESIGNS: tuple[Design, ...] = (
    # --- tuning ---------------------------------------------------------------------------
    Design(
        "acrylic-smoked", False, "smoked acrylic case, frosted white and clear-red points, acrylic checkers",
        width=470, aspect=0.80, bar=0.085, bar_height=6, frame_width=24, frame_height=9,
        field="acrylic", field_colour=(62, 60, 66), points=((205, 205, 210), (170, 40, 52)),
        point_style="printed", frame="acrylic", frame_colour=(45, 44, 50), bar_colour=(50, 48, 56),
        checkers=Checkers(((WHITE, (160, 20, 36)), ((235, 235, 240), (30, 30, 36))), "acrylic",
                          thickness=0.22, bevel=0.06, groove=False, rim=True),
        dice=Dice((RED_DICE, WHITE_DICE), (14, 16), 0.06, drilled=True), lacquer=0.7,
    ),
    Design(
        "felt-navy-lowcontrast", False, "navy felt field, stitched navy-blue and slate points (low contrast), "
        "dark blue checkers on dark points",
        width=500, aspect=0.79, bar=0.09, bar_height=10, frame_width=34, frame_height=14,
        field="felt", field_colour=(38, 48, 82), points=((52, 66, 108), (84, 90, 104)),
        point_style="stitched", frame="leatherette", frame_colour=(30, 32, 40), bar_colour=(32, 34, 44),
        checkers=Checkers((((214, 212, 200), (34, 44, 86)), ((196, 200, 206), (28, 30, 52))), "plastic",
                          groove=True),
        dice=Dice((WHITE_DICE, ((40, 52, 110), (240, 240, 240))), (15, 17), 0.10), outline=(120, 124, 140),
    ),
    Design(
        "leatherette-cream", False, "cream leatherette field, printed brown and tan points, ivory on cream checkers",
        width=480, aspect=0.78, bar=0.095, bar_height=12, frame_width=32, frame_height=16,
        field="leatherette", field_colour=(222, 206, 172), points=((112, 70, 44), (196, 160, 110)),
        point_style="printed", frame="leatherette", frame_colour=(92, 58, 36), bar_colour=(96, 62, 38),
        checkers=Checkers(((IVORY, (96, 46, 30)), ((236, 226, 204), (60, 36, 24))), "plastic",
                          rim=True, groove=True),
        dice=Dice((IVORY_DICE, ((120, 60, 36), (236, 228, 210))), (14, 16), 0.12),
    ),
    Design(
        "nardy-oak-painted", False, "oak nardy board, painted dark-brown and red points with outline, "
        "lacquered, wooden checkers",
        width=560, aspect=0.86, bar=0.07, bar_height=18, frame_width=40, frame_height=22,
        field="wood", field_colour=(200, 160, 108), points=((78, 46, 26), (150, 42, 30)),
        point_style="painted", frame="wood", frame_colour=(150, 104, 60), bar_colour=(140, 96, 56),
        checkers=Checkers((((226, 200, 156), (70, 40, 22)), ((240, 232, 214), (40, 30, 24))), "wood",
                          fill=0.90, thickness=0.30, bevel=0.10, groove=True, engraved=True),
        dice=Dice((IVORY_DICE, WHITE_DICE), (13, 15), 0.14), outline=(40, 26, 14), lacquer=0.5,
    ),
    Design(
        "nardy-walnut-inlaid", False, "walnut nardy board, inlaid maple and rosewood points, heavy lacquer, "
        "brown checkers on walnut",
        width=560, aspect=0.84, bar=0.075, bar_height=20, frame_width=46, frame_height=26,
        field="wood", field_colour=(110, 70, 42), points=((214, 186, 140), (70, 34, 22)),
        point_style="inlaid", frame="wood", frame_colour=(88, 54, 32), bar_colour=(84, 50, 30),
        checkers=Checkers((((228, 210, 172), (92, 56, 34)), ((220, 200, 160), (58, 34, 20))), "wood",
                          fill=0.93, thickness=0.30, bevel=0.09, groove=True, engraved=True),
        dice=Dice((IVORY_DICE, ((200, 170, 120), (30, 20, 14))), (15, 17), 0.16), outline=(30, 18, 10),
        lacquer=0.9,
    ),
    Design(
        "tournament-cork", False, "cork field, printed black and red points, cork frame, white and black checkers",
        width=500, aspect=0.78, bar=0.09, bar_height=8, frame_width=30, frame_height=12,
        field="cork", field_colour=(176, 130, 84), points=((30, 28, 28), (180, 30, 30)),
        point_style="printed", frame="leatherette", frame_colour=(24, 24, 26), bar_colour=(28, 28, 30),
        checkers=Checkers(((WHITE, BLACK), (IVORY, (150, 28, 30))), "bakelite", groove=True, rim=True),
        dice=Dice((RED_DICE, WHITE_DICE, BLACK_DICE), (15, 17), 0.08),
    ),
    Design(
        "tournament-felt-green", False, "green felt field, stitched ivory and red points, ivory and black checkers",
        width=510, aspect=0.80, bar=0.09, bar_height=12, frame_width=36, frame_height=15,
        field="felt", field_colour=(40, 96, 52), points=((226, 222, 204), (150, 30, 34)),
        point_style="stitched", frame="leatherette", frame_colour=(40, 30, 24), bar_colour=(44, 32, 26),
        checkers=Checkers(((IVORY, BLACK), (WHITE, (120, 20, 26))), "plastic", groove=True),
        dice=Dice((RED_DICE, WHITE_DICE), (16, 18), 0.08), outline=(230, 220, 180),
    ),
    Design(
        "travel-vinyl", False, "folding travel board, printed vinyl, low flat frame, small checkers",
        width=360, aspect=0.76, bar=0.06, bar_height=0, frame_width=16, frame_height=5,
        field="vinyl", field_colour=(226, 214, 180), points=((30, 80, 60), (200, 70, 40)),
        point_style="printed", frame="vinyl", frame_colour=(120, 30, 30), bar_colour=(130, 34, 34),
        checkers=Checkers((((244, 244, 240), (40, 40, 44)), ((238, 230, 200), (150, 24, 24))), "plastic",
                          fill=0.94, thickness=0.20, bevel=0.05, groove=False),
        dice=Dice((WHITE_DICE, BLACK_DICE), (12, 13), 0.10, drilled=False),
    ),
    # --- held out -------------------------------------------------------------------------
    Design(
        "tournament-leatherette-black", True, "black leatherette field, stitched grey and red points, "
        "black checkers on dark points",
        width=520, aspect=0.79, bar=0.10, bar_height=14, frame_width=38, frame_height=18,
        field="leatherette", field_colour=(34, 34, 36), points=((92, 94, 98), (150, 30, 34)),
        point_style="stitched", frame="leatherette", frame_colour=(20, 20, 22), bar_colour=(24, 24, 26),
        checkers=Checkers((((236, 236, 232), (22, 22, 24)), ((226, 222, 210), (60, 60, 64))), "bakelite",
                          groove=True, rim=True),
        dice=Dice((RED_DICE, ((30, 30, 32), (236, 30, 36))), (16, 19), 0.08), outline=(200, 200, 200),
    ),
    Design(
        "tavla-mahogany-carved", True, "mahogany tavla, carved frame, inlaid lemonwood and ebony points, "
        "lacquer glare, red-brown on mahogany checkers",
        width=560, aspect=0.85, bar=0.08, bar_height=24, frame_width=54, frame_height=28,
        field="wood", field_colour=(130, 58, 36), points=((222, 196, 120), (34, 24, 20)),
        point_style="inlaid", frame="carved", frame_colour=(104, 44, 26), bar_colour=(100, 42, 24),
        checkers=Checkers((((236, 224, 196), (110, 40, 26)), ((230, 214, 170), (40, 22, 16))), "wood",
                          fill=0.91, thickness=0.28, bevel=0.10, groove=True, engraved=True),
        dice=Dice((IVORY_DICE, RED_DICE), (13, 15), 0.16), outline=(200, 170, 90), lacquer=0.9,
    ),
    Design(
        "travel-magnetic", True, "small magnetic travel board, glossy printed field, thin flat checkers",
        width=340, aspect=0.80, bar=0.07, bar_height=0, frame_width=14, frame_height=4,
        field="magnetic", field_colour=(240, 238, 230), points=((40, 60, 140), (220, 150, 40)),
        point_style="printed", frame="vinyl", frame_colour=(30, 30, 40), bar_colour=(40, 40, 60),
        checkers=Checkers((((246, 246, 244), (30, 30, 34)), ((244, 230, 120), (40, 60, 150))), "plastic",
                          fill=0.95, thickness=0.14, bevel=0.03, groove=False),
        dice=Dice((WHITE_DICE,), (12, 12.5), 0.12, drilled=False),
    ),
    Design(
        "marble-white", True, "white marble field, grey and black marble points, stone checkers, white on white",
        width=540, aspect=0.80, bar=0.09, bar_height=10, frame_width=40, frame_height=14,
        field="marble", field_colour=(232, 230, 226), points=((150, 150, 154), (40, 40, 44)),
        point_style="inlaid", frame="marble", frame_colour=(60, 60, 64), bar_colour=(66, 66, 70),
        checkers=Checkers((((240, 240, 236), (44, 44, 48)), ((226, 222, 214), (90, 70, 60))), "stone",
                          fill=0.90, thickness=0.26, bevel=0.07, groove=False, engraved=True),
        dice=Dice((WHITE_DICE, BLACK_DICE, ((200, 200, 200), (20, 20, 20))), (15, 18), 0.04),
        lacquer=0.6,
    ),
)

_BY_NAME = {d.name: d for d in DESIGNS}


def design(name: str) -> Design:
    """The design called ``name``, or ValueError listing them."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown design {name!r} (see referee render3d --list-designs)") from None


def training_design(name: str) -> Design:
    """The design called ``name`` when a reader may be trained on it, else ValueError (unknown, or
    held out: the readers are measured on those designs, never trained on them)."""
    found = design(name)
    if found.held_out:
        raise ValueError(f"{name} is a held-out design: never trained on")
    return found
