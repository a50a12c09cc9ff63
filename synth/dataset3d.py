"""``referee-frames/1`` datasets (INTERFACES.md §3) from the physically based renderer, and their
contact sheets.

The references (``empty``, ``start``) are rendered under the calibration light by the camera as
calibrated (the dataset's corners); the frames under the light of play by the camera nudged a few
pixels after calibration.  The same design, seed and size give the same bytes.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from synth.designs import DESIGNS, Design, design
from synth.povray import develop, incident_light, render_linear, scene_text
from synth.scene import (
    BAR_RATE,
    Lighting,
    Moment,
    Rig,
    design_seed,
    label_of,
    make_rig,
    moment_from_counts,
    random_dice_look,
    random_moment,
    start_counts,
    vary_pips,
)

__all__ = ["design", "plan", "render_dataset", "render_moment", "contact_sheet", "list_designs", "parse_size"]

TOOL = "referee render3d"


def list_designs() -> list[str]:
    """One line per design: NAME<TAB>held-out|tuning<TAB>description."""
    return [f"{d.name}\t{d.kind}\t{d.description}" for d in DESIGNS]


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size {text!r} must be WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (64 <= w <= 4096 and 48 <= h <= 4096):
        raise ValueError(f"size {text!r} must be between 64x48 and 4096x4096")
    return w, h


def _exposure(linear: np.ndarray, rig: Rig, lighting: Lighting) -> tuple[float, np.ndarray]:
    """The camera's exposure and white balance, set once on the empty board at calibration.
    Exposure as a careful user sets it with a grey card: white paper under the calibration light
    would come out just below full scale, whatever the board's colours (a navy board stays dark),
    give or take the camera's own bias.  White balance: most of the way from the picture's
    average colour to grey, as a camera's automatic white balance does."""
    means = linear.reshape(-1, 3).mean(axis=0)
    grey = float(means.mean())
    awb = (grey / np.maximum(means, 1e-5)) ** 0.6
    awb = (awb / awb[1]).astype(np.float32)
    paper = 0.8 * incident_light(lighting, rig) + lighting.ambient
    return float(np.clip(0.7 / max(paper, 1e-4) * rig.exposure_bias, 0.05, 40.0)), awb


CameraSettings = tuple[float, np.ndarray]


def render_moment(rig: Rig, moment: Moment, lighting: Lighting, calibration: bool, settings: CameraSettings | None,
                  quality: str = "standard", threads: int | None = None,
                  window: tuple[int, int, int, int] | None = None) -> tuple[np.ndarray, CameraSettings]:
    """One developed frame and the camera's exposure and white balance (set from this frame when
    ``settings`` is None); ``window``: only that part traced (`synth.povray.render_linear`)."""
    camera = rig.camera if calibration else rig.play_camera
    linear = render_linear(scene_text(rig, moment, lighting, camera), camera.size, quality=quality, threads=threads,
                           window=window)
    if settings is None:
        settings = _exposure(linear, rig, lighting)
    gain, awb = settings
    image = develop(linear, rig, gain * moment.exposure, moment.white_balance, moment.seed, awb)
    return image, settings


def plan(design_name: str, frames: int, seed: int, size: tuple[int, int] = (1280, 720), *, same_light: bool = False,
         occluded_rate: float = 0.15, dice_variety: bool = False,
         pip_variety: bool = False, bar_rate: float = BAR_RATE,
         recolour: bool = False) -> tuple[Rig, Moment, Moment, list[Moment]]:
    """The scenes a dataset is rendered from: the rig, the empty board, the start position and
    the frames' moments (the labels are computed from these).  With ``dice_variety`` every frame
    has dice of its own look (drawn from a stream of their own: the rest is as without); with
    ``pip_variety`` too, pips of their own shape (`vary_pips`, from a stream of their own: the
    looks are as without).  With ``recolour`` the board and checkers in colours of their own
    (`synth.scene.recoloured`): training data from a tuning design, or a held-out design in colours
    never seen, to measure on (its set names the design, so the cutters refuse to train on it)."""
    if pip_variety and not dice_variety:
        raise ValueError("pip variety needs dice variety")
    rig = make_rig(design(design_name), seed, size, same_light=same_light, recolour=recolour)
    rng = np.random.default_rng([*design_seed(rig.design, seed), 1])
    empty = moment_from_counts(rig, [(0, 0)] * 24, (0, 0), seed + 2)
    points, bar = start_counts()
    start = moment_from_counts(rig, points, bar, seed + 3)
    moments = [random_moment(rig, rng, occluded_rate, bar_rate) for _ in range(frames)]
    if dice_variety:
        looks = np.random.default_rng([*design_seed(rig.design, seed), 2])
        shapes = np.random.default_rng([*design_seed(rig.design, seed), 4]) if pip_variety else None
        for moment in moments:
            look = random_dice_look(looks)
            moment.dice_look = look if shapes is None else vary_pips(look, shapes)
    return rig, empty, start, moments


def render_dataset(out_dir: str | Path, design_name: str, frames: int, seed: int, size: tuple[int, int] = (1280, 720),
                   *, same_light: bool = False, occluded_rate: float = 0.15, dice_variety: bool = False,
                   bar_rate: float = BAR_RATE, recolour: bool = False, quality: str = "standard",
                   threads: int | None = None, progress: Any = None) -> Path:
    """Write a whole dataset: references under the calibration light, ``frames`` frames under the
    light of play."""
    if frames < 1:
        raise ValueError("--frames must be at least 1")
    rig, empty, start, moments = plan(design_name, frames, seed, size, same_light=same_light,
                                      occluded_rate=occluded_rate, dice_variety=dice_variety, bar_rate=bar_rate,
                                      recolour=recolour)
    out = Path(out_dir)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    image, settings = render_moment(rig, empty, rig.calibration_light, True, None, quality, threads)
    cv2.imwrite(str(out / "frames" / "empty.png"), image)
    image, _ = render_moment(rig, start, rig.calibration_light, True, settings, quality, threads)
    cv2.imwrite(str(out / "frames" / "start.png"), image)
    names = []
    seconds = []
    for i, moment in enumerate(moments, start=1):
        t1 = time.perf_counter()
        image, _ = render_moment(rig, moment, rig.play_light, False, settings, quality, threads)
        name = f"frames/{i:04d}"
        cv2.imwrite(str(out / f"{name}.png"), image)
        label = label_of(moment, rig.play_camera)
        (out / f"{name}.json").write_text(json.dumps(label) + "\n", encoding="utf-8")
        names.append(f"{name}.png")
        seconds.append(time.perf_counter() - t1)
        if progress is not None:
            progress(i, frames, seconds[-1])
    corners = rig.corners()
    meta = {
        "format": "referee-frames/1",
        "board": {"corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners]},
        "reference": {"empty": "frames/empty.png", "start": {"image": "frames/start.png", "variant": "backgammon"}},
        "frames": names,
        "generator": {
            "tool": TOOL, "design": rig.design.name, "kind": rig.design.kind, "seed": seed, "size": list(size),
            "same_light": same_light, **({"dice_variety": True} if dice_variety else {}),
            **({"bar_rate": bar_rate} if bar_rate != BAR_RATE else {}),
            **({"recolour": _design_colours(rig.design)} if recolour else {}), "checker_mm": round(rig.checker_d, 1), "die_mm": round(rig.die_size, 1),
            "hfov_deg": round(rig.camera.hfov_deg, 1),
            "tilt_deg": round(math.degrees(math.acos(-rig.camera.forward[1])), 1),
            "calibration_light": _light_json(rig.calibration_light),
            "play_light": _light_json(rig.play_light),
            "exposure_gain": round(settings[0], 3),
        },
    }
    (out / "dataset.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    # how long it took (kept apart: the dataset itself is the same bytes for the same seed)
    timing = {"seconds_per_frame": round(float(np.mean(seconds)), 2), "seconds_total": round(time.perf_counter() - t0, 1),
              "quality": quality}
    (out / "timing.json").write_text(json.dumps(timing) + "\n", encoding="utf-8")
    return out


def _design_colours(d: Design) -> dict[str, Any]:
    """The colours a recoloured design was drawn in (dataset.json's record of them)."""
    return {"field": list(d.field_colour), "points": [list(c) for c in d.points], "frame": list(d.frame_colour),
            "bar": list(d.bar_colour), "checkers": [list(c) for c in d.checkers.pairs[0]],
            **({"outline": list(d.outline)} if d.outline is not None else {})}


def _light_json(lighting: Lighting) -> list[dict[str, Any]]:
    return [{"kind": lamp.kind, "kelvin": round(lamp.kelvin), "intensity": round(lamp.intensity, 2),
             "position_mm": [round(v) for v in lamp.position]} for lamp in lighting.lamps]


# --- contact sheet --------------------------------------------------------------------------------
def _homography(corners: np.ndarray) -> np.ndarray:
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    return cv2.getPerspectiveTransform(unit, corners.astype(np.float32))


def _point_uv(point: int, bar: float = 0.0909) -> tuple[float, float]:
    left_w = (0.5 - bar / 2) / 6
    if point <= 6:
        u = 0.5 + bar / 2 + (6 - point + 0.5) * left_w
    elif point <= 12:
        u = (12 - point + 0.5) * left_w
    elif point <= 18:
        u = (point - 13 + 0.5) * left_w
    else:
        u = 0.5 + bar / 2 + (point - 19 + 0.5) * left_w
    return u, (0.06 if point >= 13 else 0.94)


def annotate(image: np.ndarray, label: dict[str, Any], corners: np.ndarray, bar: float = 0.0909) -> np.ndarray:
    """The frame with its label drawn over it: counts at each point's base (light/dark), bar
    counts, dice values at their centres, roll and occlusion."""
    out = image.copy()
    hom = _homography(corners)
    scale = out.shape[1] / 1280
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.polylines(out, [np.round(corners).astype(np.int32)], True, (0, 255, 255), max(1, int(2 * scale)))

    def text(s: str, xy: tuple[float, float], colour: tuple[int, int, int], size: float = 0.8) -> None:
        org = (int(xy[0]), int(xy[1]))
        cv2.putText(out, s, org, font, size * scale, (0, 0, 0), max(2, int(5 * scale)), cv2.LINE_AA)
        cv2.putText(out, s, org, font, size * scale, colour, max(1, int(2 * scale)), cv2.LINE_AA)

    for p in range(1, 25):
        light, dark = label["points"][p - 1]
        if not light and not dark:
            continue
        x, y = cv2.perspectiveTransform(np.array([[_point_uv(p, bar)]], np.float32), hom)[0, 0]
        s = f"{light}L" if light and not dark else f"{dark}D" if dark and not light else f"{light}L{dark}D"
        text(s, (x - 18 * scale, y + 8 * scale), (255, 255, 255) if light else (80, 160, 255))
    b = label.get("bar") or {}
    if b.get("light") or b.get("dark"):
        x, y = cv2.perspectiveTransform(np.array([[[0.5, 0.5]]], np.float32), hom)[0, 0]
        text(f"bar {b.get('light', 0)}L {b.get('dark', 0)}D", (x - 60 * scale, y), (0, 255, 0))
    for die in label.get("dice") or []:
        cx, cy = die["centre"]
        cv2.circle(out, (int(cx), int(cy)), int(16 * scale), (255, 0, 255), max(1, int(2 * scale)))
        text(str(die["value"]), (cx + 14 * scale, cy - 14 * scale), (255, 0, 255), 1.0)
    roll = label.get("roll", "none")
    caption = roll if roll != "void" else f"void: {label.get('void_reason')}"
    if label.get("occluded"):
        caption += "  OCCLUDED"
    text(caption, (12 * scale, 34 * scale), (0, 255, 255), 1.0)
    return out


def contact_sheet(dataset: str | Path, output: str | Path, columns: int = 4, limit: int | None = None,
                  tile_width: int = 640) -> int:
    """Frames of a dataset with their labels drawn over them, in a grid; returns the frame count."""
    root = Path(dataset)
    meta_path = root / "dataset.json"
    if not meta_path.is_file():
        raise ValueError(f"{str(root)!r} is not a dataset (no dataset.json)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    corners = np.asarray(meta["board"]["corners"], np.float64)
    gen = meta.get("generator") or {}
    bar = 0.0909
    if gen.get("design"):
        bar = design(str(gen["design"])).bar
    names = list(meta["frames"])[: limit or None]
    tiles = []
    for name in names:
        image = cv2.imread(str(root / name), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"frame {name!r} of {str(root)!r} is not readable")
        label = json.loads((root / name).with_suffix(".json").read_text(encoding="utf-8"))
        tile = annotate(image, label, corners, bar)
        cv2.putText(tile, Path(name).stem, (12, image.shape[0] - 16), cv2.FONT_HERSHEY_SIMPLEX,
                    image.shape[1] / 1280, (255, 255, 255), 2, cv2.LINE_AA)
        th = int(round(tile.shape[0] * tile_width / tile.shape[1]))
        tiles.append(cv2.resize(tile, (tile_width, th), interpolation=cv2.INTER_AREA))
    if not tiles:
        raise ValueError(f"{str(root)!r} has no frames")
    th = tiles[0].shape[0]
    rows = math.ceil(len(tiles) / columns)
    sheet = np.zeros((rows * th + 40, columns * tile_width, 3), np.uint8)
    title = f"{gen.get('design', root.name)} ({gen.get('kind', '?')}) seed {gen.get('seed', '?')}"
    cv2.putText(sheet, title, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
    for i, tile in enumerate(tiles):
        r, c = divmod(i, columns)
        tile = cv2.resize(tile, (tile_width, th)) if tile.shape[0] != th else tile
        sheet[40 + r * th: 40 + (r + 1) * th, c * tile_width: (c + 1) * tile_width] = tile
    out = Path(output)
    if not cv2.imwrite(str(out), sheet):
        raise ValueError(f"could not write {str(out)!r}")
    return len(tiles)
