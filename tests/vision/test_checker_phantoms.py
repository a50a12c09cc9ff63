"""A warm light cast on a white point's base changes a speck at the board edge and a short
stretch above it: together they are shorter than one checker from the edge, so they are no
checker (`edge_speck_run`).  On a seeded recording whose light casts did read as phantom
checkers, no empty point holds a checker and most frames are read exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.pipeline import Reader
from vision.render import render_dataset


@pytest.fixture(scope="module")
def cast_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # wooden board, white-red checkers, a warm light cast over part of the near side
    return render_dataset(tmp_path_factory.mktemp("frames") / "cast", 30, seed=9852)


def test_a_light_cast_at_the_edge_is_no_checker(cast_recording: Path) -> None:
    dataset = load_dataset(cast_recording)
    config = VisionConfig()
    reader = Reader(calibration_for(dataset, config), config)
    phantoms, exact, read = [], 0, 0
    for name in dataset.frames:
        label = dataset.label(name)
        if label["occluded"]:
            continue
        obs = reader.read(dataset.image(name))
        if obs.points is None:
            continue
        read += 1
        truth = [tuple(p) for p in label["points"]]
        phantoms += [(name, i + 1) for i, (t, r) in enumerate(zip(truth, obs.points, strict=True))
                     if t == (0, 0) and r != (0, 0)]
        exact += all(t == tuple(r) for t, r in zip(truth, obs.points, strict=True))
    assert read >= 20
    assert not phantoms, phantoms
    assert exact >= read - 2, (exact, read)
