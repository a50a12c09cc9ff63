"""bench/counters.py compares checker counter files on the same frames: its figures must be what
vision.learned.count_points reads, the same file must read the same under any name, and a missing
file is a one-line error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.vision.benches import load_bench
from vision.dataset import calibration_for, load_dataset
from vision.learned import MODEL_PATH, count_points, empty_board


def _bench() -> ModuleType:
    return load_bench("counters")


def test_the_counters_rows_are_what_count_points_reads(small_dataset: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "renamed.onnx"
    shutil.copy(MODEL_PATH, copy)
    assert _bench().main([str(small_dataset), "--model", str(MODEL_PATH), "--model", str(copy), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    mine, renamed = (r for r in rows if r["dataset"] == small_dataset.name)
    for key in ("frames", "points_wrong", "colour_wrong", "nudged_wrong", "alone_wrong", "board_exact"):
        assert mine[key] == renamed[key], key
    dataset = load_dataset(small_dataset)
    calibration = calibration_for(dataset)
    geometry = calibration.geometry
    photo, _ = dataset.reference("empty")
    empty = empty_board(photo, geometry)
    wrong = alone = exact = frames = 0
    for name, label in dataset.clear_frames():
        truth = [tuple(pair) for pair in label["points"]]
        read = count_points(dataset.image(name), geometry, empty=empty, sides=calibration.colours.hues)
        missed = sum(pair != true for pair, true in zip(read.pairs, truth, strict=True))
        alone += sum(pair != true for pair, true in zip(count_points(dataset.image(name), geometry).pairs, truth,
                                                         strict=True))
        wrong, exact, frames = wrong + missed, exact + (missed == 0), frames + 1
    assert (mine["frames"], mine["points_wrong"], mine["alone_wrong"]) == (frames, wrong, alone)
    assert mine["board_exact"] == pytest.approx(exact / frames, abs=1e-4)
    assert 0 <= mine["colour_wrong"] <= mine["points_wrong"]
    assert [r["reader"] for r in rows if r["dataset"] == "pooled"] == [str(MODEL_PATH), str(copy)]


def test_a_missing_counter_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        _bench().main([str(tmp_path), "--model", str(tmp_path / "none.onnx")])
    assert str(stop.value) == f"no counter at {tmp_path / 'none.onnx'}"
