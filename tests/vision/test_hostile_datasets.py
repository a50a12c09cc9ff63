"""Hostile images and datasets for `referee vision` (issue 23, item 12): one line, exit 2, no traceback."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.cli import main


def one_line_refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings are output a user sees too
        code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("shape", [(1, 10000, 3), (10000, 1, 3), (1, 1, 3), (3, 20000, 3)])
def test_dice_in_a_sliver_of_an_image_reads_no_dice(shape: tuple[int, int, int], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "sliver.png"
    assert cv2.imwrite(str(image), np.full(shape, 128, np.uint8))
    assert main(["vision", "dice", str(image), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"dice": []}


def _mutated(small_dataset: Path, tmp_path: Path, file: str, change: Callable[[dict[str, Any]], None]) -> Path:
    copy = tmp_path / "ds"
    shutil.copytree(small_dataset, copy)
    path = copy / file
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return copy


def _first_label(small_dataset: Path) -> str:
    meta = json.loads((small_dataset / "dataset.json").read_text())
    return str(Path(meta["frames"][0]).with_suffix(".json"))


@pytest.mark.parametrize(("where", "change", "message"), [
    ("dataset.json", lambda d: d.__setitem__("board", [1, 2]), "'board' must be an object"),
    ("dataset.json", lambda d: d.__setitem__("reference", "frames/empty.png"), "'reference' must be an object"),
    ("dataset.json", lambda d: d["board"].__setitem__("corners", [[1e300, 1e300], [2e300, 1], [3, 1e300], [0, 0]]),
     "board corners must be pixel positions"),
    ("dataset.json", lambda d: d["board"].__setitem__("corners", [["a", 1], [2, 1], [3, 1], [0, 0]]),
     "board corners must be four"),
    ("label", lambda d: d.__setitem__("bar", [0, 1]), "'bar' must be an object"),
    ("label", lambda d: d.__setitem__("dice", [{"value": "six"}]), "'dice' must be a list"),
    ("label", lambda d: d["points"].__setitem__(0, [None, 0]), "'points' must hold checker counts"),
])
def test_malformed_dataset_is_refused_in_one_line(where: str, change: Callable[[dict[str, Any]], None], message: str,
                                                  small_dataset: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    file = "dataset.json" if where == "dataset.json" else _first_label(small_dataset)
    dataset = _mutated(small_dataset, tmp_path, file, change)
    assert message in one_line_refusal(["vision", "eval", str(dataset), "--limit", "2"], capsys)
