"""POV-Ray 3.7 scene files for a :class:`synth.scene.Moment` and the camera that films it.

POV-Ray traces the light (area lights with soft shadows, specular glare, reflections of lacquer
and acrylic, textures of felt, cork, wood grain and marble) into a linear 16-bit picture; the
camera is then simulated here: exposure, white balance, the lens's vignetting, noise that grows
with the gain, JPEG.  Everything is seeded: the same rig and moment give the same bytes.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from synth.designs import Design
from synth.scene import Camera, Lighting, Moment, Rig, board_base, kelvin_rgb, point_centre_u

__all__ = ["scene_text", "render_linear", "develop", "incident_light", "povray_available", "POVRAY"]

POVRAY = "povray"


def povray_available() -> bool:
    return shutil.which(POVRAY) is not None


def _lin(rgb: tuple[int, int, int] | tuple[float, float, float], scale: float = 1.0) -> str:
    """sRGB 0..255 to a linear POV colour."""
    r, g, b = ((max(0.0, min(255.0, float(c) * scale)) / 255.0) ** 2.2 for c in rgb)
    return f"rgb <{r:.5f},{g:.5f},{b:.5f}>"


def _v(p: tuple[float, float, float] | np.ndarray) -> str:
    return f"<{float(p[0]):.3f},{float(p[1]):.3f},{float(p[2]):.3f}>"


# --- materials --------------------------------------------------------------------------------
def material(kind: str, colour: tuple[int, int, int], lacquer: float, seed: int, scale: float = 1.0) -> str:
    """A POV texture for a surface of ``kind``."""
    c = colour
    gloss = (f"finish {{ specular {0.15 + 0.45 * lacquer:.2f} roughness {0.02 - 0.017 * lacquer:.4f} "
             f"reflection {{ {0.01 + 0.05 * lacquer:.3f}, {0.04 + 0.12 * lacquer:.3f} }} }}") if lacquer > 0 else ""
    if kind == "felt":
        return (f"texture {{ pigment {{ granite color_map {{ [0 {_lin(c, 0.88)}] [1 {_lin(c, 1.08)}] }} scale 0.7 }} "
                "normal { granite 0.25 scale 0.5 } finish { diffuse 0.85 specular 0.0 } }")
    if kind == "cork":
        return (f"texture {{ pigment {{ granite turbulence 0.4 color_map {{ [0 {_lin(c, 0.6)}] [0.5 {_lin(c, 1.0)}] "
                f"[1 {_lin(c, 1.18)}] }} scale 2.2 translate <{seed % 97},0,{seed % 89}> }} "
                "normal { granite 0.5 scale 1.5 } finish { diffuse 0.85 specular 0.03 } }")
    if kind == "leatherette":
        return (f"texture {{ pigment {{ {_lin(c)} }} normal {{ bumps 0.12 scale 1.6 }} "
                "finish { diffuse 0.8 specular 0.08 roughness 0.03 } }")
    if kind in ("vinyl", "magnetic"):
        return (f"texture {{ pigment {{ {_lin(c)} }} normal {{ bumps 0.04 scale 3 }} "
                f"finish {{ diffuse 0.8 specular {0.35 if kind == 'vinyl' else 0.6} roughness 0.01 "
                f"reflection {{ 0.0, 0.04 }} }} }}")
    if kind == "acrylic":
        return (f"texture {{ pigment {{ {_lin(c)} }} finish {{ diffuse 0.6 specular 0.9 roughness 0.002 "
                "reflection { 0.04, 0.2 } } }")
    if kind == "marble":
        return (f"texture {{ pigment {{ marble turbulence 0.9 octaves 6 color_map {{ [0 {_lin(c, 1.0)}] "
                f"[0.75 {_lin(c, 0.96)}] [0.9 {_lin(c, 0.75)}] [1 {_lin(c, 0.55)}] }} "
                f"scale {60 * scale:.1f} rotate <10,{seed % 180},25> }} {gloss or 'finish { specular 0.5 roughness 0.01 }'} }}")
    if kind == "stone":
        return (f"texture {{ pigment {{ granite color_map {{ [0 {_lin(c, 0.82)}] [0.6 {_lin(c, 1.0)}] [1 {_lin(c, 1.1)}] }} "
                "scale 6 } finish { diffuse 0.75 specular 0.35 roughness 0.02 } }")
    if kind in ("wood", "carved"):
        extra = ""
        return (f"texture {{ pigment {{ wood turbulence 0.08 octaves 4 color_map {{ [0 {_lin(c, 1.08)}] "
                f"[0.55 {_lin(c, 0.95)}] [0.8 {_lin(c, 0.78)}] [1 {_lin(c, 1.02)}] }} scale <3,3,1> "
                f"rotate <0,90,0> scale {scale:.2f} translate <0,{seed % 37},{seed % 53}> }} {extra}"
                f"{gloss or 'finish { diffuse 0.8 specular 0.1 roughness 0.05 }'} }}")
    if kind == "plastic":
        return (f"texture {{ pigment {{ {_lin(c)} }} finish {{ diffuse 0.75 specular 0.45 roughness 0.015 "
                "reflection { 0.0, 0.05 } } }")
    if kind == "bakelite":
        return (f"texture {{ pigment {{ {_lin(c)} }} normal {{ bumps 0.05 scale 2 }} finish {{ diffuse 0.75 "
                "specular 0.6 roughness 0.008 reflection { 0.01, 0.06 } } }")
    raise ValueError(f"unknown material {kind!r}")


def _checker_texture(design: Design, colour: tuple[int, int, int], seed: int) -> str:
    kind = design.checkers.material
    if kind == "wood":
        return material("wood", colour, 0.4, seed, scale=0.35)
    if kind == "stone":
        return material("stone", colour, 0.0, seed)
    if kind == "acrylic":
        return (f"texture {{ pigment {{ {_lin(colour)} }} finish {{ diffuse 0.7 specular 0.9 roughness 0.003 "
                "reflection { 0.02, 0.12 } } }")
    return material(kind, colour, 0.0, seed)


# --- objects ----------------------------------------------------------------------------------
def _checker_object(name: str, rig: Rig, colour: tuple[int, int, int], seed: int) -> str:
    ch = rig.design.checkers
    r, t = rig.checker_d / 2, rig.checker_t
    b = max(0.4, min(ch.bevel * rig.checker_d, t / 2 - 0.1))
    tex = _checker_texture(rig.design, colour, seed)
    shade = 0.78 if sum(colour) > 300 else 1.45
    r0, g0, b0 = (min(255, int(c * shade + (0 if shade < 1 else 12))) for c in colour)
    inner = (r0, g0, b0)
    body = (f"union {{ cylinder {{ <0,0,0>, <0,{t:.3f},0>, {r - b:.3f} }} cylinder {{ <0,{b:.3f},0>, <0,{t - b:.3f},0>, {r:.3f} }} "
            f"torus {{ {r - b:.3f}, {b:.3f} translate y*{b:.3f} }} torus {{ {r - b:.3f}, {b:.3f} translate y*{t - b:.3f} }} ")
    if ch.rim:
        body += f"torus {{ {r * 0.84:.3f}, {max(0.5, r * 0.05):.3f} translate y*{t:.3f} }} "
    body += "}"
    cuts = []
    if ch.groove:
        cuts.append(f"torus {{ {r * 0.62:.3f}, {max(0.35, r * 0.035):.3f} translate y*{t:.3f} }}")
    if ch.engraved:
        cuts.append(f"cylinder {{ <0,{t - 0.35:.3f},0>, <0,{t + 1:.3f},0>, {r * 0.42:.3f} {_checker_texture(rig.design, inner, seed + 1)} }}")
    if cuts:
        body = f"difference {{ {body} {' '.join(cuts)} }}"
    return f"#declare {name} = object {{ {body} {tex} }}\n"


PIP_GRID = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
            4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
SIDES = {1: (2, 3), 6: (2, 3), 2: (1, 3), 5: (1, 3), 3: (1, 2), 4: (1, 2)}


def _pip_texture(rgb: tuple[int, int, int]) -> str:
    return f"pigment {{ {_lin(rgb)} }} finish {{ diffuse 0.8 specular 0.1 }}"


def _die_object(name: str, value: int, size: float, rounding: float, drilled: bool, body: str, pip: str,
                pip_scale: float = 1.0, spread: float = 1.0, one_scale: float = 1.0, one_pip: str | None = None) -> str:
    """A die with ``value`` up: pips ``pip_scale`` times the common die's radius, ``spread`` times
    its spacing; the one's pip ``one_scale`` times the others' (its own texture ``one_pip``)."""
    s = size
    h = s / 2
    a, b = SIDES[value]
    # face normal -> value; the in-face axes
    faces = [((0, 1, 0), value, (1, 0, 0), (0, 0, 1)), ((0, -1, 0), 7 - value, (1, 0, 0), (0, 0, 1)),
             ((1, 0, 0), a, (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), 7 - a, (0, 1, 0), (0, 0, 1)),
             ((0, 0, 1), b, (1, 0, 0), (0, 1, 0)), ((0, 0, -1), 7 - b, (1, 0, 0), (0, 1, 0))]
    g = 0.27 * s * spread
    cuts, one_cut = [], []
    for normal, v, e1, e2 in faces:
        n = np.asarray(normal, float)
        pr = 0.085 * s * pip_scale * (one_scale if v == 1 else 1.0)
        for i, j in PIP_GRID[v]:
            centre = n * h + np.asarray(e1) * i * g + np.asarray(e2) * j * g
            if drilled:
                cut = f"sphere {{ {_v(centre + n * pr * 0.35)}, {pr:.3f} }}"
            else:
                cut = f"cylinder {{ {_v(centre - n * 0.15)}, {_v(centre + n * 0.5)}, {pr * 0.95:.3f} }}"
            (one_cut if v == 1 and one_pip is not None else cuts).append(cut)
    rr = max(0.2, rounding * s)
    one = f" object {{ {one_cut[0]} texture {{ {one_pip} }} }}" if one_cut else ""
    return (f"#declare {name} = difference {{ object {{ Round_Box(<{-h:.3f},{-h:.3f},{-h:.3f}>, <{h:.3f},{h:.3f},{h:.3f}>, "
            f"{rr:.3f}, 0) texture {{ {body} }} }} union {{ {' '.join(cuts)} texture {{ {pip} }} }}{one} }}\n")


def _board(rig: Rig) -> str:
    d = rig.design
    w, h = d.width, d.width * d.aspect
    fw, fh = d.frame_width, d.frame_height
    base = board_base(d)
    out = []
    frame_tex = material(d.frame, d.frame_colour, d.lacquer if d.frame in ("wood", "carved", "marble") else 0.0, rig.seed + 5)
    bar_tex = material(d.frame, d.bar_colour, d.lacquer if d.frame in ("wood", "carved", "marble") else 0.0, rig.seed + 6)
    field_tex = material(d.field, d.field_colour, d.lacquer if d.field in ("wood", "marble") else 0.0, rig.seed + 7,
                         scale=1.0)
    out.append(f"box {{ <{-fw:.2f},{-base:.2f},{-fw:.2f}>, <{w + fw:.2f},-1.5,{h + fw:.2f}> {frame_tex} }}")
    out.append(f"box {{ <0,-1.5,0>, <{w:.2f},0,{h:.2f}> {field_tex} }}")
    walls = [((-fw, -1.5, -fw), (0, fh, h + fw)), ((w, -1.5, -fw), (w + fw, fh, h + fw)),
             ((0, -1.5, -fw), (w, fh, 0)), ((0, -1.5, h), (w, fh, h + fw))]
    for a, b in walls:
        out.append(f"box {{ {_v(a)}, {_v(b)} {frame_tex} }}")
    if d.frame == "carved":  # a moulded bead along the frame's inner edge and a carved groove on top
        r = fh * 0.22
        bead = [((0, fh, 0), (w, fh, 0)), ((0, fh, h), (w, fh, h)), ((0, fh, 0), (0, fh, h)), ((w, fh, 0), (w, fh, h))]
        for a, b in bead:
            out.append(f"cylinder {{ {_v(a)}, {_v(b)}, {r:.2f} {frame_tex} }}")
        for a, _ in bead:
            out.append(f"sphere {{ {_v(a)}, {r:.2f} {frame_tex} }}")
    bx0, bx1 = w * (0.5 - d.bar / 2), w * (0.5 + d.bar / 2)
    if d.bar_height > 0:
        out.append(f"box {{ <{bx0:.2f},-1,0>, <{bx1:.2f},{d.bar_height:.2f},{h:.2f}> {bar_tex} }}")
    else:
        out.append(f"box {{ <{bx0:.2f},-1,0>, <{bx1:.2f},0.15,{h:.2f}> {bar_tex} }}")
    # points
    pw = d.point_width
    length = d.point_length * h
    lac = d.lacquer if d.point_style in ("inlaid", "painted") else 0.0
    kinds = {"inlaid": "wood" if d.field == "wood" else d.field, "painted": "vinyl", "printed": "vinyl",
             "stitched": "felt" if d.field == "felt" else "leatherette"}
    pkind = kinds[d.point_style]
    if d.field == "marble":
        pkind = "marble"
    point_tex = [material(pkind, d.points[k], lac, rig.seed + 11 + k, scale=0.6) for k in range(2)]
    if d.point_style == "printed" and d.field in ("vinyl", "magnetic", "acrylic"):
        point_tex = [material("vinyl", d.points[k], 0.0, 0) for k in range(2)]
    height = {"inlaid": 0.05, "painted": 0.12, "printed": 0.1, "stitched": 0.5}[d.point_style]
    outline_tex = (f"texture {{ pigment {{ {_lin(d.outline)} }} finish {{ diffuse 0.8 specular 0.1 }} "
                   f"{'normal { bumps 0.6 scale 0.4 }' if d.point_style == 'stitched' else ''} }}") if d.outline else ""
    for p in range(1, 25):
        uc = point_centre_u(d, p)
        xc = uc * w
        inset = 0.04 * pw
        top = p >= 13
        zb = h if top else 0.0
        zt = h - length if top else length
        x0, x1 = xc - pw / 2 + inset, xc + pw / 2 - inset
        tex = point_tex[p % 2]
        out.append(f"prism {{ linear_sweep linear_spline -1, {height:.2f}, 4, <{x0:.2f},{zb:.2f}>, <{x1:.2f},{zb:.2f}>, "
                   f"<{xc:.2f},{zt:.2f}>, <{x0:.2f},{zb:.2f}> {tex} }}")
        if d.outline:
            o = 1.4
            sgn = -1 if top else 1
            out.append(f"prism {{ linear_sweep linear_spline -1, {height - 0.02:.2f}, 4, <{x0 - o:.2f},{zb:.2f}>, "
                       f"<{x1 + o:.2f},{zb:.2f}>, <{xc:.2f},{zt + sgn * o * 2.2:.2f}>, <{x0 - o:.2f},{zb:.2f}> {outline_tex} }}")
    table = rig.table
    out.append(f"plane {{ y, {-base:.2f} texture {{ pigment {{ wood turbulence 0.1 color_map {{ [0 {_lin(table)}] "
               f"[1 {_lin(table, 0.8)}] }} scale 12 rotate y*90 }} finish {{ diffuse 0.8 specular 0.05 }} }} }}")
    return "\n".join(out) + "\n"


def _lights(lighting: Lighting) -> str:
    out = []
    for i, lamp in enumerate(lighting.lamps):
        r, g, b = kelvin_rgb(lamp.kelvin)
        lin = [c**2.2 for c in (r, g, b)]
        lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        k = lamp.intensity / max(lum, 1e-3)
        col = f"rgb <{lin[0] * k:.4f},{lin[1] * k:.4f},{lin[2] * k:.4f}>"
        n = {"bulb": 3, "shade": 4, "softbox": 5, "window": 5}[lamp.kind]
        size = lamp.size
        dist = float(np.linalg.norm(np.asarray(lamp.position) - np.array(METERING_POINT)))
        fade = f"fade_distance {dist:.1f} fade_power 2" if i == 0 else ""
        out.append(f"light_source {{ {_v(lamp.position)} color {col} area_light <{size:.1f},0,0>, <0,0,{size:.1f}>, {n}, {n} "
                   f"adaptive 1 circular orient {fade} }}")
    main = lighting.lamps[0]
    r, g, b = (c**2.2 for c in kelvin_rgb(main.kelvin))
    a = lighting.ambient
    out.append(f"global_settings {{ assumed_gamma 1.0 max_trace_level 6 ambient_light rgb <{r * a:.4f},{g * a:.4f},{b * a:.4f}> }}")
    return "\n".join(out) + "\n"


METERING_POINT = (250.0, 0.0, 200.0)  # where the main lamp's fall-off is 1 (mm; near every board's middle)


def incident_light(lighting: Lighting, rig: Rig) -> float:
    """How brightly the lamps light a flat white surface at the board's middle (POV-Ray's
    diffuse term: intensity x cosine x fall-off)."""
    del rig
    total = 0.0
    for lamp in lighting.lamps:
        to_lamp = np.asarray(lamp.position) - np.asarray(METERING_POINT)
        cos = max(0.0, float(to_lamp[1] / np.linalg.norm(to_lamp)))
        total += lamp.intensity * cos  # the main lamp's fall-off is 1 there; windows have none
    return total


def _camera(cam: Camera) -> str:
    w, h = cam.size
    f = cam.focal_px / h  # direction length when up is 1 and right is w/h
    fwd = np.asarray(cam.forward) * f
    right = np.asarray(cam.right) * (w / h)
    up = np.asarray(cam.up)
    return (f"camera {{ perspective location {_v(cam.location)} direction <{fwd[0]:.9f},{fwd[1]:.9f},{fwd[2]:.9f}> "
            f"right <{right[0]:.9f},{right[1]:.9f},{right[2]:.9f}> up <{up[0]:.9f},{up[1]:.9f},{up[2]:.9f}> }}\n")


def _hand(rig: Rig, moment: Moment) -> str:
    hand = moment.hand
    assert hand is not None
    tip, elbow = np.asarray(hand.tip), np.asarray(hand.elbow)
    axis = tip - elbow
    length = float(np.linalg.norm(axis))
    dirn = axis / length
    side = np.cross(dirn, [0.0, 1.0, 0.0])
    side /= max(float(np.linalg.norm(side)), 1e-6)
    wr = hand.width / 2
    wrist = tip - dirn * wr * 3.2
    skin = (f"texture {{ pigment {{ {_lin(hand.skin)} }} normal {{ bumps 0.08 scale 2 }} "
            "finish { diffuse 0.75 specular 0.12 roughness 0.05 } }")
    parts = [f"cone {{ {_v(elbow)}, {wr:.1f}, {_v(wrist)}, {wr * 0.72:.1f} }}",
             f"sphere {{ {_v(elbow)}, {wr:.1f} }}",
             f"sphere {{ {_v(wrist)}, {wr * 0.72:.1f} }}"]
    palm = wrist + dirn * wr * 1.3
    parts.append(f"sphere {{ 0, 1 scale <{wr * 1.1:.1f},{wr * 0.45:.1f},{wr * 1.3:.1f}> "
                 f"rotate y*{-math.degrees(math.atan2(dirn[2], dirn[0])) + 90:.1f} translate {_v(palm)} }}")
    for k in range(4):
        off = (k - 1.5) * wr * 0.42
        f0 = palm + side * off + dirn * wr * 0.8
        f1 = tip + side * off * 1.1 - dirn * abs(k - 1.5) * wr * 0.3 - np.array([0, wr * 0.15, 0])
        fr = wr * 0.17
        parts.append(f"cylinder {{ {_v(f0)}, {_v(f1)}, {fr:.1f} }} sphere {{ {_v(f1)}, {fr:.1f} }}")
    thumb0 = palm - side * wr * 0.9
    thumb1 = thumb0 + dirn * wr * 1.1 - side * wr * 0.4 - np.array([0, wr * 0.2, 0])
    parts.append(f"cylinder {{ {_v(thumb0)}, {_v(thumb1)}, {wr * 0.2:.1f} }} sphere {{ {_v(thumb1)}, {wr * 0.2:.1f} }}")
    out = [f"union {{ {' '.join(parts)} {skin} }}"]
    if hand.sleeve is not None:
        end = elbow + axis * 0.45
        out.append(f"cone {{ {_v(elbow - dirn * 200)}, {wr * 1.35:.1f}, {_v(end)}, {wr * 1.2:.1f} "
                   f"texture {{ pigment {{ {_lin(hand.sleeve)} }} normal {{ bumps 0.3 scale 3 }} finish {{ diffuse 0.85 }} }} }}")
    else:
        out.append(f"cone {{ {_v(elbow - dirn * 200)}, {wr * 1.05:.1f}, {_v(elbow)}, {wr:.1f} {skin} }}")
    under = np.array([0.0, -wr * 0.55, 0.0])
    if hand.holding == "checker":
        out.append(f"object {{ CheckerL rotate x*70 rotate y*{-math.degrees(math.atan2(dirn[2], dirn[0])):.1f} "
                   f"translate {_v(palm + dirn * wr * 1.2 + under)} }}")
    elif hand.holding == "cup":
        c = palm + under * 2 - np.array([0.0, 40.0, 0.0])
        out.append(f"difference {{ cylinder {{ {_v(c)}, {_v(c + np.array([0, 85.0, 0]))}, 34 }} "
                   f"cylinder {{ {_v(c + np.array([0, 3.0, 0]))}, {_v(c + np.array([0, 90.0, 0]))}, 31 }} "
                   f"texture {{ pigment {{ {_lin((70, 40, 28))} }} normal {{ bumps 0.3 scale 1 }} finish {{ diffuse 0.8 specular 0.2 }} }} }}")
    return "\n".join(out) + "\n"


def scene_text(rig: Rig, moment: Moment, lighting: Lighting, camera: Camera) -> str:
    """The whole POV-Ray scene of one frame."""
    d = rig.design
    out = ['#version 3.7;\n#include "shapes.inc"\n',
           "#default { finish { ambient 1 diffuse 0.8 } }\n",
           _lights(lighting), _camera(camera), _board(rig)]
    out.append(_checker_object("CheckerL", rig, rig.light_colour, rig.seed + 21))
    out.append(_checker_object("CheckerD", rig, rig.dark_colour, rig.seed + 22))
    for c in moment.checkers:
        name = "CheckerL" if c.colour == 0 else "CheckerD"
        tx, ty, tz = c.tilt
        out.append(f"object {{ {name} rotate y*{ty:.1f} rotate <{tx:.2f},0,{tz:.2f}> translate <{c.x:.2f},{c.y:.2f},{c.z:.2f}> }}\n")
    finish = "finish { diffuse 0.75 specular 0.5 roughness 0.01 reflection { 0.0, 0.06 } }"
    look = moment.dice_look
    body_rgb, pip_rgb = (look.body, look.pips) if look else (rig.die_body, rig.die_pips)
    rounding, drilled = (look.rounding, look.drilled) if look else (d.dice.rounding, d.dice.drilled)
    body = f"pigment {{ {_lin(body_rgb)} }} {finish}"
    pip = _pip_texture(pip_rgb)
    pip_scale, spread, one_scale = (look.pip_scale, look.spread, look.one_scale) if look else (1.0, 1.0, 1.0)
    one_pip = None if look is None or look.one_pip is None else _pip_texture(look.one_pip)
    declared: set[int] = set()
    for i, die in enumerate(moment.dice):
        if die.value not in declared:
            out.append(_die_object(f"Die{die.value}", die.value, rig.die_size, rounding, drilled, body, pip,
                                   pip_scale, spread, one_scale, one_pip))
            declared.add(die.value)
        lean = f"rotate x*{-die.tilt:.2f} rotate y*{90 - die.tilt_dir:.2f} " if die.tilt else ""
        out.append(f"object {{ Die{die.value} rotate y*{die.yaw + 37 * i:.1f} {lean}translate {_v(die.centre)} }}\n")
    if moment.cube is not None:
        cube = moment.cube
        h = cube.size / 2
        text = str(cube.value)
        out.append(f"union {{ object {{ Round_Box(<{-h:.2f},{-h:.2f},{-h:.2f}>, <{h:.2f},{h:.2f},{h:.2f}>, {cube.size * 0.08:.2f}, 0) "
                   f"pigment {{ {_lin((236, 232, 222))} }} finish {{ specular 0.4 roughness 0.02 }} }} "
                   f"text {{ ttf \"timrom.ttf\" \"{text}\" 0.2, 0 pigment {{ {_lin((20, 20, 24))} }} "
                   f"scale {cube.size * 0.55:.2f} rotate x*90 translate <{-cube.size * 0.14 * len(text):.2f},{h + 0.05:.2f},{-cube.size * 0.18:.2f}> }} "
                   f"rotate y*{cube.yaw:.1f} translate {_v(cube.centre)} }}\n")
    if moment.hand is not None:
        out.append(_hand(rig, moment))
    if moment.shade is not None:
        x, y, z, r, long, turn = moment.shade
        out.append(f"sphere {{ 0, {r:.1f} scale <1,1,{long:.2f}> rotate y*{turn:.1f} translate <{x:.1f},{y:.1f},{z:.1f}> "
                   "no_image no_reflection pigment { rgb 0 } }\n")
    return "".join(out)


# --- rendering ------------------------------------------------------------------------------------
def render_linear(text: str, size: tuple[int, int], *, quality: str = "standard", threads: int | None = None,
                  window: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Trace a scene into a linear RGB float picture (H, W, 3), BGR order as OpenCV keeps it.
    ``window`` (x0, y0, x1, y1, pixels): trace only that part of the picture (the rest stays
    black), for training crops at a fraction of a frame's time."""
    if not povray_available():
        raise OSError("POV-Ray is not installed (Debian package povray)")
    w, h = size
    with tempfile.TemporaryDirectory(prefix="render3d-") as tmp:
        scene = Path(tmp) / "scene.pov"
        scene.write_text(text, encoding="utf-8")
        args = [POVRAY, "scene.pov", "+Oframe.png", f"+W{w}", f"+H{h}", "+FN16", "File_Gamma=1.0", "-D", "-V", "-GA",
                "+Q9"]
        if quality == "fine":  # anti-aliased: about twice the time
            args += ["+A0.3", "+AM1"]
        elif quality != "standard":
            raise ValueError(f"quality {quality!r} must be standard or fine")
        if threads:
            args.append(f"+WT{threads}")
        if window is not None:
            x0, y0, x1, y1 = (int(v) for v in window)
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x1 - x0 < 2 or y1 - y0 < 2:
                raise ValueError(f"window {window} is outside the {w}x{h} picture")
            args += [f"+SC{x0 + 1}", f"+EC{x1}", f"+SR{y0 + 1}", f"+ER{y1}"]  # 1-based, inclusive
        env = dict(os.environ, HOME=tmp)  # no user configuration; the system one keeps I/O in this directory
        done = subprocess.run(args, cwd=tmp, capture_output=True, text=True, env=env, check=False)
        out = Path(tmp) / "frame.png"
        if done.returncode != 0 or not out.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise OSError(f"POV-Ray failed: {' | '.join(tail)}")
        image = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise OSError("POV-Ray wrote an unreadable picture")
    return image.astype(np.float32) / 65535.0


def develop(linear: np.ndarray, rig: Rig, gain: float, white_balance: tuple[float, float, float],
            seed: int, awb: np.ndarray | None = None) -> np.ndarray:
    """The camera: exposure, white balance (R G B), the lens's softness and vignetting, noise
    growing with the gain, sRGB, JPEG; ``awb``: the B G R gains the camera's white balance settled on at calibration.  Returns an
    8-bit BGR picture."""
    rng = np.random.default_rng(seed)
    if awb is None:
        awb = np.ones(3, np.float32)
    h, w = linear.shape[:2]
    wb = np.array([white_balance[2] * rig.white_balance[2], white_balance[1], white_balance[0] * rig.white_balance[0]],
                  np.float32) * awb
    img = linear * gain * wb[None, None, :]
    if rig.lens_blur > 0:  # the lens is never perfectly sharp (and hides the tracer's aliasing)
        img = cv2.GaussianBlur(img, (0, 0), rig.lens_blur * w / 1280)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (1 - rig.vignetting * r2)[..., None]
    # photon noise in linear light, scaled by the gain the camera needed
    sigma = rig.noise / 255 * math.sqrt(max(gain, 0.2))
    img = img + rng.normal(0, 1, img.shape).astype(np.float32) * sigma * np.sqrt(np.clip(img, 0, 1) + 0.02)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(np.clip(img, 0.0031308, None), 1 / 2.4) - 0.055)
    out = np.clip(srgb * 255 + 0.5, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rig.jpeg)])
    if not ok:
        raise OSError("JPEG encoding failed")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:
        raise OSError("JPEG decoding failed")
    return decoded
