"""The real photos under tests/data/real/ (see each source's README) load and their labels are sane.

These sets are for measuring the readers (bench/dice.py, `referee vision eval`), not for tuning:
the tests check the data, not the readers' figures.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision.dataset import load_dataset

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
DICE_SETS = sorted(p.parent.parent for p in REAL.glob("*/images/classes.txt"))
BOARD_SETS = sorted(p.parent for p in REAL.glob("*/dataset.json"))
MAX_SIDE = 1280


def _sources() -> list[Path]:
    return sorted(p for p in REAL.iterdir() if p.is_dir())


def test_every_source_says_where_it_comes_from_and_its_licence() -> None:
    sources = _sources()
    assert sources, "no real data under tests/data/real"
    for source in sources:
        readme = source / "README.md"
        assert readme.is_file(), f"{source.name}: README.md missing"
        text = readme.read_text(encoding="utf-8")
        assert "github.com/" in text and "commit" in text, f"{source.name}: README must name repository and commit"
        assert (source / "LICENSE").is_file(), f"{source.name}: LICENSE missing"


@pytest.mark.parametrize("source", DICE_SETS, ids=lambda p: p.name)
def test_dice_photos_have_sane_labels(source: Path) -> None:
    images = source / "images"
    photos = sorted(images.glob("*.jpg"))
    assert photos, f"{source.name}: no photos"
    dice = 0
    for photo in photos:
        image = cv2.imread(str(photo))
        assert image is not None, f"{photo.name} is not a readable image"
        h, w = image.shape[:2]
        assert max(h, w) <= MAX_SIDE, f"{photo.name}: {w}x{h} is larger than {MAX_SIDE} px"
        label = photo.with_suffix(".txt")
        assert label.is_file(), f"{photo.name}: no label"
        lines = [line.split() for line in label.read_text().splitlines() if line.strip()]
        assert lines, f"{photo.name}: no dice labelled"
        for fields in lines:
            assert len(fields) == 5, f"{label.name}: {fields}"
            value = int(fields[0]) + 1
            cx, cy, bw, bh = (float(x) for x in fields[1:])
            assert 1 <= value <= 6, f"{label.name}: value {value}"
            assert 0 < bw < 0.5 and 0 < bh < 0.5, f"{label.name}: box {bw}x{bh}"
            assert bw / 2 <= cx <= 1 - bw / 2 + 1e-3 and bh / 2 <= cy <= 1 - bh / 2 + 1e-3, f"{label.name}: box off the photo"
            dice += 1
    assert dice >= max(len(photos), 10)  # a die a photo at least, ten at least in a set
    orphans = {p.stem for p in images.glob("*.txt")} - {p.stem for p in photos} - {"classes"}
    assert not orphans, f"labels without photos: {sorted(orphans)}"


@pytest.mark.parametrize("source", BOARD_SETS, ids=lambda p: p.name)
def test_board_datasets_load_and_hold_at_most_15_checkers_a_side(source: Path) -> None:
    dataset = load_dataset(source)
    assert dataset.frames
    assert dataset.corners is not None, "a real photo needs its corners (no markers)"
    tl, tr, br, bl = dataset.corners
    assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1], "corners not TL, TR, BR, BL"
    for name in dataset.frames:
        image = dataset.image(name)
        h, w = image.shape[:2]
        assert max(h, w) <= MAX_SIDE, f"{name}: {w}x{h} is larger than {MAX_SIDE} px"
        assert all(0 <= x < w and 0 <= y < h for x, y in dataset.corners), "a corner lies off the photo"
        label = dataset.label(name)
        points = label["points"]
        assert all(isinstance(n, int) and n >= 0 for pair in points for n in pair), f"{name}: counts"
        assert not any(light and dark for light, dark in points), f"{name}: a point holds both colours"
        bar = label.get("bar") or {}
        light = sum(p[0] for p in points) + int(bar.get("light", 0))
        dark = sum(p[1] for p in points) + int(bar.get("dark", 0))
        assert light <= 15 and dark <= 15, f"{name}: {light} light, {dark} dark"
        assert label.get("occluded") in (True, False)
        for die in label.get("dice") or []:
            assert 1 <= die["value"] <= 6
            x, y = die["centre"]
            assert 0 <= x < w and 0 <= y < h, f"{name}: a die lies off the photo"
        if label["roll"] == "valid":
            assert len(label.get("dice") or []) == 2, f"{name}: a valid roll is two dice"
        if label["roll"] == "none":
            assert not label.get("dice"), f"{name}: dice labelled with roll none"
