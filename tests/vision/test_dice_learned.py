"""The learned dice reader (vision.dice_learned): its models load and stay small, it reads the dice
of a 2-D renderer seed it never saw, flags cocked dice and judges rolls by RULES.md §1.6, and the
pipeline and `referee vision eval --dice learned` use it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from controller.cli import main
from vision.calibration import BoardGeometry
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.dice_learned import FIND_MODEL, READ_MODEL, read_dice
from vision.pipeline import Reader, learned_roll_validity
from vision.render import render_dataset

UNSEEN_SEED = 22999  # training used 2-D seeds 22001-22005 (and 22006 to watch it)


@pytest.fixture(scope="module")
def unseen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_dataset(tmp_path_factory.mktemp("dice-learned") / "set", 40, UNSEEN_SEED, occluded_rate=0.0)


def test_the_models_load_and_stay_small() -> None:
    for model in (FIND_MODEL, READ_MODEL):
        assert model.is_file() and model.stat().st_size < 1_000_000, model


def test_reads_the_dice_of_an_unseen_seed(unseen: Path) -> None:
    dataset = load_dataset(unseen)
    geometry = calibration_for(dataset).geometry
    exact = valid = 0
    for name in dataset.frames:
        label = dataset.label(name)
        if label.get("roll") != "valid":
            continue
        valid += 1
        said = Counter(d.value for d in read_dice(dataset.image(name), geometry))
        exact += said == Counter(int(d["value"]) for d in label["dice"])
    assert valid >= 10
    assert exact / valid >= 0.8, f"{exact} of {valid} valid rolls read exactly"


def test_void_rolls_are_found_and_valid_ones_kept(unseen: Path) -> None:
    dataset = load_dataset(unseen)
    reader = Reader(calibration_for(dataset), VisionConfig(dice_reader="learned"))
    said = {"valid": Counter(), "void": Counter()}
    for name in dataset.frames:
        label = dataset.label(name)
        if label.get("roll") in said:
            observation = reader.read(dataset.image(name), hand=False)
            said[label["roll"]][observation.roll] += 1
    assert sum(said["void"].values()) >= 5
    assert said["void"]["void"] / sum(said["void"].values()) >= 0.7, said
    assert said["valid"]["void"] / sum(said["valid"].values()) <= 0.2, said


def _die(x: float, y: float, cocked: bool = False) -> SimpleNamespace:
    return SimpleNamespace(centre=(x, y), cocked=cocked, value=3)


def test_learned_roll_validity_follows_the_rules() -> None:
    geometry = BoardGeometry.from_corners([[100, 100], [1100, 100], [1100, 900], [100, 900]], (1200, 1000))
    right = [_die(900, 500), _die(980, 560)]
    assert learned_roll_validity([], geometry, None) == ("none", None, None)
    assert learned_roll_validity(right, geometry, None) == ("valid", None, "right")
    assert learned_roll_validity([_die(300, 500), _die(900, 500)], geometry, None)[1] == "different_halves"
    assert learned_roll_validity([_die(900, 500)], geometry, None)[1] == "off_board"  # the other fell off
    assert learned_roll_validity([_die(900, 500), _die(1150, 500)], geometry, None)[1] == "off_board"
    mask = np.zeros((1000, 1200), np.uint8)
    assert learned_roll_validity([_die(900, 500, cocked=True), _die(980, 560)], geometry, mask)[1] == "cocked"
    mask[480:520, 880:920] = 255  # a checker under the tilted die
    assert learned_roll_validity([_die(900, 500, cocked=True), _die(980, 560)], geometry, mask)[1] == "on_checker"


def test_vision_eval_takes_the_learned_dice(unseen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "eval", str(unseen), "--dice", "learned", "--json", "--limit", "6"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["frames"] == 6 and "dice_exact" in summary
