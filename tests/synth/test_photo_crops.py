"""Reader crops from real dice photos (synth.dice_photos): sizes from the labels, crops that hold
the labelled die as the reader cuts a die on a board, no-die crops away from every die, and a file
the dice training reads."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from synth.dice_photos import FACE_TO_SIZE, PIP_SPAN, crop, die_sizes, main, photo_samples, read_boxes
from vision.dice_learned import CROP_DIES, CROP_SIZE

NELL = Path(__file__).resolve().parents[1] / "data" / "real" / "dice-nellbyler" / "images"


def test_sizes_come_from_whole_die_boxes_or_from_the_pips_of_the_other_dice() -> None:
    boxes = [(1, 10.0, 10.0, 8.0), (5, 50.0, 50.0, 33.0), (6, 90.0, 90.0, 35.0)]
    assert die_sizes(boxes, pips_only=False) == pytest.approx([FACE_TO_SIZE * 8, FACE_TO_SIZE * 33, FACE_TO_SIZE * 35])
    # a one's box is one pip: its size is that of the photo's other dice
    assert die_sizes(boxes, pips_only=True) == pytest.approx([FACE_TO_SIZE * 34 / PIP_SPAN] * 3)
    assert die_sizes([(1, 10.0, 10.0, 8.0)], pips_only=True) is None


def test_a_crop_holds_a_drawn_die_in_its_middle_at_the_readers_scale() -> None:
    image = np.full((200, 300, 3), 200, np.uint8)
    cv2.rectangle(image, (140, 90), (160, 110), (0, 0, 0), -1)  # a 21-px die centred on (150, 100)
    out = crop(image, 150.0, 100.0, 21 * FACE_TO_SIZE)
    assert out.shape == (CROP_SIZE, CROP_SIZE, 3)
    dark = np.argwhere(out[..., 0] < 100)
    width = dark[:, 1].max() - dark[:, 1].min() + 1
    assert width == pytest.approx(CROP_SIZE / (CROP_DIES * FACE_TO_SIZE), abs=1.5)
    assert dark.mean(axis=0) == pytest.approx([CROP_SIZE / 2 - 0.5] * 2, abs=1.0)


def test_every_labelled_die_gives_its_crops_and_negatives_lie_away_from_the_dice() -> None:
    photo = sorted(NELL.glob("*.jpg"))[0]
    image = cv2.imread(str(photo))
    boxes = read_boxes(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    crops, values = photo_samples(photo, np.random.default_rng(0), jitter=3, negatives=2, pips_only=False)
    assert sorted(v for v in values if v) == sorted([value for value, *_ in boxes] * 3)
    assert values.count(0) == 2
    assert all(c.shape == (CROP_SIZE, CROP_SIZE, 3) for c in crops)
    again, _ = photo_samples(photo, np.random.default_rng(0), jitter=3, negatives=2, pips_only=False)
    assert all(np.array_equal(a, b) for a, b in zip(crops, again, strict=True))  # seeded


def test_the_command_writes_what_the_dice_training_reads(tmp_path: Path) -> None:
    out = tmp_path / "photos.npz"
    assert main([str(NELL), "--out", str(out), "--subset", "odd", "--jitter", "1", "--negatives", "1"]) == 0
    with np.load(out) as data:
        n = len(data["crops"])
        assert n and data["crops"].shape[1:] == (CROP_SIZE, CROP_SIZE, 3)
        assert len(data["values"]) == len(data["crop_frame"]) == len(data["crop_tilted"]) == n
        assert (data["crop_tilted"] == -1).all()  # whether a die lies flat is not known: not taught
        assert len(data["views"]) == len(data["heats"]) == len(data["tilted"]) == 0
        assert set(np.unique(data["values"])) <= set(range(7)) and (data["values"] == 0).any()
