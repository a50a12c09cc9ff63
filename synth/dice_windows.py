"""More training crops for the learned dice reader's value and "not flat" outputs, at a fraction
of a frame's cost: scenes of the 3-D yardstick's **tuning** designs with every frame's dice of
their own look (`--dice-variety`), each traced only in a window around its dice (POV-Ray's
``+SC/+EC/+SR/+ER``, a few per cent of the picture), developed as a whole frame is, and cut into
die crops as `synth.dice_data` cuts them (each die ``jitter`` + 1 times, its centre and scale a
little off; "not flat" for the die a cocked or on-a-checker roll is about).  No finder views and no
no-die crops: the windows are mostly dice (those come from whole frames, `synth.dice_data`).
With ``--kind`` every scene's dice lie as that kind says (``cocked``: one die leaning on a checker,
the frame or the other die, the other flat), placed afresh from a stream of their own; without it
they lie as the scene drew them (mostly valid rolls).  With ``--pip-variety`` the dice's pips are
of their own shape too (smaller, larger, closer, wider; big or red ones: `synth.scene.vary_pips`).

    python -m synth.dice_windows --design NAME --scenes 150 --seed 2801 --out CACHE/x.npz [--jitter 3] [--kind cocked]
        [--pip-variety]

Development only: the crops feed `synth.train_dice` (its .npz layout).  Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from synth.dataset3d import plan, render_moment
from synth.designs import training_design
from synth.dice_data import crop_samples, frame_tilted, labelled_die_crop
from synth.scene import DICE_KINDS, label_of, place_dice
from vision.calibration import calibrate

__all__ = ["window_crops", "main"]

#: the traced window reaches this many die sizes beyond the dice's centres
MARGIN = 2.2


def window_crops(design: str, scenes: int, seed: int, jitter: int = 3, threads: int | None = 1,
                 kind: str | None = None, pip_variety: bool = False) -> dict[str, np.ndarray]:
    """Die crops of ``scenes`` scenes of ``design`` (the scenes with no die give none); with
    ``kind``, each scene's dice laid again as that kind; with ``pip_variety``, pips of every shape."""
    training_design(design)
    if kind is not None and kind not in DICE_KINDS:
        raise ValueError(f"--kind must be one of {', '.join(DICE_KINDS)}, not {kind!r}")
    rig_size = (1280, 720)
    rig, empty_moment, _, moments = plan(design, scenes, seed, rig_size, occluded_rate=0.0, dice_variety=True,
                                         pip_variety=pip_variety)
    if kind is not None:
        laying = np.random.default_rng([seed, 3])
        for moment in moments:
            place_dice(rig, moment, kind, laying)
    empty, settings = render_moment(rig, empty_moment, rig.calibration_light, True, None, threads=threads)
    geometry = calibrate(rig.corners(), rig_size, empty=empty).geometry
    rng = np.random.default_rng(seed)
    crops, values, crop_frame, crop_tilted = [], [], [], []
    for index, moment in enumerate(moments):
        label = label_of(moment, rig.play_camera)
        dice = [(float(d["centre"][0]), float(d["centre"][1]), int(d["value"])) for d in label["dice"]]
        if not dice:
            continue
        reach = MARGIN * max(geometry.die_size_px((x, y)) for x, y, _ in dice)
        xs, ys = [x for x, _, _ in dice], [y for _, y, _ in dice]
        window = (int(min(xs) - reach), int(min(ys) - reach), int(max(xs) + reach) + 1, int(max(ys) + reach) + 1)
        try:
            image, _ = render_moment(rig, moment, rig.play_light, False, settings, threads=threads, window=window)
        except ValueError:  # every die off the picture
            continue
        tilted = frame_tilted(label)
        for k, (x, y, value) in enumerate(dice):
            for _ in range(1 + jitter):
                crops.append(labelled_die_crop(image, geometry, x, y, rng))
                values.append(value)
                crop_frame.append(index)
                crop_tilted.append(int(tilted and k == 0))
    return crop_samples(crops, values, crop_frame, crop_tilted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", required=True)
    parser.add_argument("--scenes", type=int, default=150)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--jitter", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kind", choices=DICE_KINDS, help="lay every scene's dice as this kind")
    parser.add_argument("--pip-variety", action="store_true", help="pips of every shape (big and red ones too)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    try:
        data = window_crops(args.design, args.scenes, args.seed, args.jitter, args.threads, args.kind, args.pip_variety)
    except (ValueError, OSError) as error:
        print(f"synth.dice_windows: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    print(f"{args.out}: {len(data['crops'])} die crops, {int((data['crop_tilted'] == 1).sum())} not flat, "
          f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
