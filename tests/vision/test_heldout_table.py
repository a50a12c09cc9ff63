"""bench/heldout.py prints the README's held-out table: its figures must be `referee vision eval`'s."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from tests.vision.benches import load_bench
from vision.config import VisionConfig
from vision.evaluate import evaluate


def _bench() -> ModuleType:
    return load_bench("heldout")


def _share(cell: str) -> float | None:
    if cell == "—":
        return None
    match = re.fullmatch(r"([0-9.]+) \((\d+)/(\d+)\)", cell)
    assert match, cell
    num, den = int(match.group(2)), int(match.group(3))
    assert float(match.group(1)) == pytest.approx(num / den, abs=0.005)
    return num / den


def test_the_table_row_is_the_eval_summary(small_dataset: Path) -> None:
    summary, results = evaluate(small_dataset, VisionConfig())
    bench = _bench()
    row = dict(zip(bench.HEADER, bench.row("tournament", results), strict=True))
    clear = sum(not r.occluded for r in results)
    assert row["clear / hand"] == f"{clear} / {len(results) - clear}"
    for column, key in (("hands refused", "occlusion_refused"), ("clear refused", "false_occlusion"),
                        ("boards exact", "board_exact"), ("dice exact", "dice_exact"),
                        ("void found", "void_detected"), ("valid→void", "valid_flagged_void")):
        assert _share(row[column]) == summary[key], column
    assert float(row["per-point"]) == pytest.approx(summary["point_accuracy"], abs=0.0005)
    read = [r for r in results if not r.occluded and not r.refused]
    wrong, right = row["wrong / right boards doubted"].split(" / ")
    assert right == f"{sum(not r.sure for r in read if r.board_exact)} of {sum(r.board_exact for r in read)}"
    wrong_read = [r for r in read if not r.board_exact]
    assert wrong == (f"{sum(not r.sure for r in wrong_read)} of {len(wrong_read)}" if wrong_read else "—")
    table = bench.markdown([bench.row("tournament", results)])
    assert table.splitlines()[-1].startswith("| goal |") and "tournament" in table


def test_an_unknown_design_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        _bench().main(["--seed", "1", "--design", "no-such-board"])
    assert stop.value.code == 2
    assert "no-such-board" in capsys.readouterr().err


@pytest.mark.slow
def test_recoloured_held_out_sets_live_apart_from_the_plain_ones(tmp_path: Path) -> None:
    """``--recolour`` renders a held-out design painted anew into a set of its own name (a plain set
    of the same seed is never taken for it), its colours recorded, still held out."""
    from synth.povray import povray_available

    if not povray_available():
        pytest.skip("POV-Ray is not installed (make setup installs it)")
    bench = _bench()
    argv = ["--seed", "39003", "--design", "travel-magnetic", "--frames", "1", "--cache", str(tmp_path), "--render-only"]
    assert bench.main([*argv, "--recolour"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["h39003-travel-magnetic-f1-recoloured"]
    meta = json.loads((tmp_path / "h39003-travel-magnetic-f1-recoloured" / "dataset.json").read_text())
    assert meta["generator"]["kind"] == "held-out" and "recolour" in meta["generator"]
