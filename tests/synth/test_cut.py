"""The data cutters of the learned parts (synth.cut, shared by synth.gate_data, synth.checker_data
and synth.dice_data) cut a set of a held-out 3-D design only when told it is for measuring: the
readers are measured on those designs, so training on one would make every held-out figure a
tuning figure."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from synth import checker_data, dice_data, gate_data
from synth.designs import DESIGNS
from vision.render import render_dataset

HELD_OUT = next(d.name for d in DESIGNS if d.held_out)
TUNING = next(d.name for d in DESIGNS if not d.held_out)
CUTTERS = {"gate_data": gate_data.main, "checker_data": checker_data.main, "dice_data": dice_data.main}


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_dataset(tmp_path_factory.mktemp("cut") / "set", 2, seed=737373, occluded_rate=0.0)


def as_design(frames: Path, design: str) -> Path:
    """The same frames, labelled as rendered by `referee render3d` of ``design``."""
    meta_path = frames / "dataset.json"
    meta = json.loads(meta_path.read_text())
    meta["generator"] = {"tool": "referee render3d", "design": design}
    meta_path.write_text(json.dumps(meta))
    return frames


@pytest.mark.parametrize("cutter", sorted(CUTTERS))
def test_a_held_out_design_is_cut_only_for_measuring(cutter: str, frames: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    main: Callable[[list[str] | None], int] = CUTTERS[cutter]
    out = tmp_path / "out"
    assert main([str(as_design(frames, HELD_OUT)), "--out", str(out), "--jitter", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and HELD_OUT in err and "held-out" in err
    assert not list(out.glob("*.npz"))
    assert main([str(as_design(frames, TUNING)), "--out", str(out), "--jitter", "0"]) == 0
    assert len(list(out.glob("*.npz"))) == 1
    # for measuring (validation sets, scoring scripts) it is cut
    measured = tmp_path / "measured"
    assert main([str(as_design(frames, HELD_OUT)), "--out", str(measured), "--jitter", "0", "--measure"]) == 0
    assert len(list(measured.glob("*.npz"))) == 1
    # and once cut, for training it is still refused: its cut file left in a training folder
    capsys.readouterr()
    assert main([str(frames), "--out", str(measured), "--jitter", "0"]) == 2
    assert HELD_OUT in capsys.readouterr().err


def test_a_folder_that_is_no_dataset_is_still_skipped_where_the_cutter_skips(tmp_path: Path) -> None:
    (tmp_path / "not-a-set").mkdir()
    assert checker_data.main([str(tmp_path / "not-a-set"), "--out", str(tmp_path / "out")]) == 0
    assert gate_data.main([str(tmp_path / "not-a-set"), "--out", str(tmp_path / "out")]) == 2
