"""`referee render` and `referee vision …` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from vision.evaluate import SUMMARY_KEYS


def test_render_one_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "frame.png"
    assert main(["render", "--position", "4HPwATDgc/ABMA", "--dice", "31", "-o", str(out), "--seed", "2"]) == 0
    label = json.loads(out.with_suffix(".json").read_text())
    assert out.is_file() and label["roll"] == "valid"
    assert sorted(d["value"] for d in label["dice"]) == [1, 3]
    assert sum(p[0] for p in label["points"]) == 15 and sum(p[1] for p in label["points"]) == 15


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "--position", "nonsense", "-o", "x.png"],
        ["render", "--position", "4HPwATDgc/ABMA", "--dice", "71", "-o", "x.png"],
        ["render", "--position", "4HPwATDgc/ABMA", "--style", "plastic", "-o", "x.png"],
        ["render", "--dataset", "d", "--frames", "0"],
        ["vision", "eval", "/nonexistent/dataset"],
        ["vision", "dice", "/nonexistent.png"],
    ],
)
def test_bad_input_is_one_line_exit_2(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee ") and len(err.strip().splitlines()) == 1


def test_eval_json_and_read(small_dataset: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["vision", "eval", str(small_dataset), "--json", "--limit", "4", "--csv", str(tmp_path / "f.csv")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert tuple(summary) == SUMMARY_KEYS and summary["frames"] == 4
    assert main(["vision", "read", str(small_dataset), "frames/start.png", "--json"]) == 0
    reading = json.loads(capsys.readouterr().out)
    assert reading["totals"] == {"light": 15, "dark": 15}
    assert reading["position"] == "4HPwATDgc/ABMA"
    assert {"points", "bar", "dice", "roll", "occluded", "confidence", "timings_ms"} <= set(reading)


def test_eval_reads_with_the_readers_that_suit_the_pictures(small_dataset: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """By default `vision eval` reads the 2-D renderer's frames with the classical readers and any
    other frames (here the same frames as if a camera had recorded them) with the learned ones,
    and says which; a reader named on the command line is used as named."""
    import shutil

    recorded = tmp_path / "recorded"
    shutil.copytree(small_dataset, recorded)
    meta = json.loads((recorded / "dataset.json").read_text(encoding="utf-8"))
    del meta["generator"]
    (recorded / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    for root, argv, expected in (
            (small_dataset, [], "checkers=classical,dice=classical,hands=classical"),
            (recorded, [], "checkers=learned,dice=learned,hands=learned"),
            (recorded, ["--dice", "classical"], "checkers=learned,dice=classical,hands=learned")):
        assert main(["vision", "eval", str(root), "--limit", "2", *argv]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert f"readers              {expected}" in lines
