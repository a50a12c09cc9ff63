"""The learned dice reader's value on real photos of dice, each die cut from its labelled box as the
reader cuts a die on a board (synth.dice_photos).  Not a test; prints.

    .venv/bin/python bench/dice_values.py [--model ONNX] [--data DIR [--pips-only] [--subset odd|even|all]]

Without ``--data``: the held-out half of ../shared/data/dice-photos (even photos; boxes around the
pips only) and every dice set of tests/data/real (boxes around whole dice: dice-damiantab,
dice-nellbyler, dice-piechowiak, dice-skovy).  A die counts when its value is read (the reader's likeliest value, its crop and the
mirrored crop averaged, as on a board); a photo counts when every die of it is.  The finder is
not measured here: it needs a board.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from synth.dice_photos import crop, labelled_photo, photos_in  # noqa: E402
from vision.dice_learned import READ_MODEL, read_crops  # noqa: E402

REAL = ROOT / "tests" / "data" / "real"
#: the held-out half of the shared ivory dice, then every committed real dice set (those with a classes.txt)
DEFAULTS = [(ROOT.parent / "shared" / "data" / "dice-photos" / "images", True, "even"),
            *((labels.parent, False, "all") for labels in sorted(REAL.glob("dice-*/images/classes.txt")))]


def measure(model: Path, folder: Path, pips_only: bool, subset: str) -> tuple[int, int, int, int]:
    """(dice read right, dice, photos read right, photos) of a folder of labelled photos."""
    dice_ok = dice = photos_ok = photos = 0
    for photo in photos_in(folder, subset):
        labelled = labelled_photo(photo, pips_only)
        if labelled is None:
            continue
        image, boxes, sizes = labelled
        crops = np.stack([crop(image, x, y, size) for (_, x, y, _), size in zip(boxes, sizes, strict=True)])
        read = [int(v) + 1 for v in read_crops(crops, model)[:, 1:].argmax(axis=1)]
        truth = [value for value, *_ in boxes]
        dice_ok += sum(r == t for r, t in zip(read, truth, strict=True))
        dice += len(truth)
        photos_ok += read == truth
        photos += 1
    return dice_ok, dice, photos_ok, photos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=READ_MODEL)
    parser.add_argument("--data", type=Path)
    parser.add_argument("--pips-only", action="store_true", help="the boxes enclose the top face's pips only")
    parser.add_argument("--subset", choices=("odd", "even", "all"), default="all")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    sets = [(args.data, args.pips_only, args.subset)] if args.data else DEFAULTS
    for folder, pips_only, subset in sets:
        dice_ok, dice, photos_ok, photos = measure(args.model, folder, pips_only, subset)
        if not dice:
            print(f"{folder}: no labelled dice")
            continue
        print(f"{folder.parent.name} ({subset}): dice {dice_ok}/{dice} = {dice_ok / dice:.3f}, "
              f"photos with every die read {photos_ok}/{photos} = {photos_ok / photos:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
