"""Reader crops (as synth.dice_data writes them) from real photos of dice labelled in YOLO format.

Each photo ``NAME.jpg`` has ``NAME.txt`` with one line per die, ``class cx cy w h`` (class = value
- 1, the box normalised to the photo's size), as ``../shared/data/dice-photos`` and
``tests/data/real/dice-nellbyler`` do.  Every die gives crops as the learned reader cuts them on a
board (vision.dice_learned: `CROP_DIES` die sizes wide, scaled to `CROP_SIZE`), its centre and
scale a little off as a finder's peak would leave them; spots at least one and a half die sizes
from every die give "no die" crops.  The photos are taken from above, with the photo's top as "up".

A die's size comes from its box (`FACE_TO_SIZE` of it); with ``--pips-only`` (a box around the top face's pips only, as in
the dice-photos set) from the photo's other boxes instead: the pips of a two to six span about
two thirds of the face, so the face is the median of those boxes' longer sides over 0.66 (a photo
with ones alone gives no crops).

    python -m synth.dice_photos DIR --out FILE.npz [--subset odd|even|all] [--pips-only]
                                [--jitter 4] [--negatives 2] [--seed 0]

``--subset`` picks photos by the number their name ends in (as bench/dice.py splits them).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import cv2
import numpy as np

from synth.dice_data import crop_samples, peak_offset
from vision.dice_learned import CROP_DIES, square_crop

#: the top face's pips (of a two to six) span this share of the face, across and down
PIP_SPAN = 0.66
#: the reader's die size (`BoardGeometry.die_size_px`, 0.42 checker diameters) is about this share
#: of a die's face seen from above: the committed reader reads the tuning photos (the odd ones of
#: the dice-photos set) best there (0.61 of their dice, against 0.60 / 0.57 / 0.46 at 0.5 / 0.7 / 0.8)
FACE_TO_SIZE = 0.6

#: a photo's labelled dice: (value, centre x, centre y, the box's longer side) in pixels
Boxes = list[tuple[int, float, float, float]]
#: photos are first shrunk so that their longer side is at most this many pixels
MAX_SIDE = 1600


def photo_number(path: Path) -> int:
    m = re.search(r"(\d+)$", path.stem)
    return int(m.group(1)) if m else 0


def read_boxes(label: Path, width: int, height: int) -> Boxes:
    """(value, centre x, centre y, longer box side) in pixels of a photo of ``width`` x ``height``."""
    boxes = []
    for line in label.read_text().splitlines():
        if not line.strip():
            continue
        c, x, y, w, h = line.split()
        boxes.append((int(c) + 1, float(x) * width, float(y) * height, max(float(w) * width, float(h) * height)))
    return boxes


def die_sizes(boxes: Boxes, pips_only: bool) -> list[float] | None:
    """Each die's size in pixels as the reader takes it (`FACE_TO_SIZE` of its face); None when it
    cannot be told (ones alone, pips only)."""
    if not pips_only:
        return [FACE_TO_SIZE * side for _, _, _, side in boxes]
    spans = [side for value, _, _, side in boxes if value >= 2]
    if not spans:
        return None
    return [FACE_TO_SIZE * float(np.median(spans)) / PIP_SPAN] * len(boxes)


def crop(image: np.ndarray, x: float, y: float, size: float) -> np.ndarray:
    """The reader's square around (x, y) for a die of ``size`` pixels, the photo's top as "up"."""
    return square_crop(image, (x, y), CROP_DIES * size)


def photos_in(folder: Path, subset: str = "all") -> list[Path]:
    """The labelled photos of a folder (``NAME.jpg`` beside ``NAME.txt``), all or the odd or even
    ones by the number their name ends in."""
    photos = sorted(p for p in folder.glob("*.jpg") if p.with_suffix(".txt").exists())
    if subset == "all":
        return photos
    return [p for p in photos if photo_number(p) % 2 == (1 if subset == "odd" else 0)]


def labelled_photo(photo: Path, pips_only: bool) -> tuple[np.ndarray, Boxes, list[float]] | None:
    """A photo (shrunk to `MAX_SIDE`), its dice's boxes and sizes; None when the sizes cannot be
    told (`die_sizes`) or no die is labelled."""
    image = cv2.imread(str(photo))
    if image is None:
        raise ValueError(f"{photo}: not an image")
    h, w = image.shape[:2]
    if max(h, w) > MAX_SIDE:
        f = MAX_SIDE / max(h, w)
        image = cv2.resize(image, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
        h, w = image.shape[:2]
    boxes = read_boxes(photo.with_suffix(".txt"), w, h)
    sizes = die_sizes(boxes, pips_only)
    return None if not boxes or sizes is None else (image, boxes, sizes)


def photo_samples(photo: Path, rng: np.random.Generator, jitter: int, negatives: int,
                  pips_only: bool) -> tuple[list[np.ndarray], list[int]]:
    """Crops and their values (0 = no die) from one photo."""
    labelled = labelled_photo(photo, pips_only)
    if labelled is None:
        return [], []
    image, boxes, sizes = labelled
    h, w = image.shape[:2]
    crops, values = [], []
    for (value, x, y, _), size in zip(boxes, sizes, strict=True):
        for _ in range(jitter):
            dx, dy, scale = peak_offset(rng)
            crops.append(crop(image, x + dx * size, y + dy * size, size * scale))
            values.append(value)
    size = float(np.median(sizes))
    found = 0
    for _ in range(negatives * 20):
        if found == negatives:
            break
        x, y = rng.uniform(size, w - size), rng.uniform(size, h - size)
        if all(np.hypot(x - bx, y - by) > 1.5 * s for (_, bx, by, _), s in zip(boxes, sizes, strict=True)):
            crops.append(crop(image, x, y, size))
            values.append(0)
            found += 1
    return crops, values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--subset", choices=("odd", "even", "all"), default="all")
    parser.add_argument("--pips-only", action="store_true")
    parser.add_argument("--jitter", type=int, default=4, help="crops per die")
    parser.add_argument("--negatives", type=int, default=2, help="no-die crops per photo")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    photos = photos_in(args.photos, args.subset)
    if not photos:
        parser.error(f"no labelled photos in {args.photos}")
    crops: list[np.ndarray] = []
    values: list[int] = []
    for photo in photos:
        c, v = photo_samples(photo, rng, args.jitter, args.negatives, args.pips_only)
        crops += c
        values += v
    n = len(crops)
    # whether a die lies flat is not known: not taught
    np.savez_compressed(args.out, **crop_samples(crops, values, [0] * n, [-1] * n))
    print(f"{args.out}: {len(photos)} photos, {sum(v > 0 for v in values)} die crops, "
          f"{sum(v == 0 for v in values)} no-die crops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
