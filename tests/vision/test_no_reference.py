"""A board read without a photo of the empty board (only its four corners) must never become a
confident empty board: the reading is estimated from the frame itself and doubted, so the referee
asks instead of judging it.  And `vision eval` says how well confidence separates right readings
from wrong ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from controller.cli import main
from vision.calibration import Calibration, calibrate
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.evaluate import evaluate
from vision.pipeline import Reader


def _corners_only(source: Path, dest: Path, frames: int) -> Path:
    """A copy of a dataset with its references dropped and only its first clear frames."""
    meta = json.loads((source / "dataset.json").read_text())
    kept = []
    for name in meta["frames"]:
        label = json.loads((source / name).with_suffix(".json").read_text())
        if label["occluded"]:
            continue
        for suffix in (".png", ".json"):
            target = (dest / name).with_suffix(suffix)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy((source / name).with_suffix(suffix), target)
        kept.append(name)
        if len(kept) == frames:
            break
    meta.pop("reference", None)
    meta["frames"] = kept
    (dest / "dataset.json").write_text(json.dumps(meta))
    return dest


def test_one_photo_and_its_corners_is_not_read_as_a_confident_empty_board(small_dataset: Path,
                                                                          tmp_path: Path) -> None:
    dataset = load_dataset(_corners_only(small_dataset, tmp_path / "one", 1))
    name = dataset.frames[0]
    image, label = dataset.image(name), dataset.label(name)
    calib = calibration_for(dataset)
    assert calib.background_source == "estimated"
    obs = Reader(calib).read(image, hand=False)
    occupied = sum(1 for light, dark in label["points"] if light or dark)
    found = sum(1 for (light, dark), (t_light, t_dark) in zip(obs.points or [], label["points"], strict=True)
                if (light or dark) and (t_light or t_dark))
    assert occupied >= 4
    assert found >= occupied // 2, "most occupied points are seen without an empty-board photo"
    assert not obs.is_sure()
    assert any("empty board" in p for p in obs.problems())


def test_with_the_empty_board_photo_a_reading_is_not_doubted_for_it(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    assert calib.background_source == "empty"
    name = next(n for n in dataset.frames if not dataset.label(n)["occluded"])
    obs = Reader(calib).read(dataset.image(name), hand=False)
    assert not any("empty board" in p for p in obs.problems())


def test_the_estimate_source_survives_save_and_load(small_dataset: Path, tmp_path: Path) -> None:
    dataset = load_dataset(small_dataset)
    image = dataset.image(dataset.frames[0])
    calib = calibrate(dataset.corners, (image.shape[1], image.shape[0]), play=image)
    calib.save(tmp_path / "calibration.json")
    assert Calibration.load(tmp_path / "calibration.json").background_source == "estimated"


def test_vision_read_of_a_photo_with_corners_only_reports_the_doubt(small_dataset: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = _corners_only(small_dataset, tmp_path / "few", 3)
    frame = json.loads((root / "dataset.json").read_text())["frames"][2]
    assert main(["vision", "read", str(root), str(root / frame)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sure"] is False
    assert any("empty board" in p for p in out["problems"])


def test_eval_reports_how_confidence_separates_right_from_wrong(small_dataset: Path) -> None:
    summary, results = evaluate(small_dataset, limit=12)
    read = [r for r in results if not r.occluded and not r.refused]
    wrong = [r for r in read if not r.board_exact]
    right = [r for r in read if r.board_exact]
    assert right, "the 2-D renderer's frames are mostly read exactly"
    assert summary["right_doubted"] == sum(not r.sure for r in right) / len(right)
    assert summary["wrong_doubted"] == (sum(not r.sure for r in wrong) / len(wrong) if wrong else None)


def test_eval_without_references_reads_each_frame_alone_and_doubts_it(small_dataset: Path) -> None:
    summary, results = evaluate(small_dataset, limit=8, references=False)
    assert summary["frames"] == 8
    assert all(not r.sure for r in results)


def test_the_learned_counter_read_from_one_photo_is_judged_when_it_is_sure_enough(small_dataset: Path,
                                                                                 tmp_path: Path) -> None:
    """The learned counter does not compare with the estimated empty board: from one photo and its
    corners (the learned hand test, which needs no reference, watching for hands), a reading it is
    sure of (`ALONE_CONFIDENCE`, higher than the referee's own question threshold) is judged, not
    asked about; one it is less sure of is asked about, saying why."""
    from vision.pipeline import ALONE_CONFIDENCE

    dataset = load_dataset(_corners_only(small_dataset, tmp_path / "alone", 6))
    config = VisionConfig(checker_reader="learned", hand_test="learned")
    judged_right = 0
    for name in dataset.frames:
        image, label = dataset.image(name), dataset.label(name)
        calib = calibration_for(dataset, config, frame=image)
        assert calib.background_source == "estimated"
        obs = Reader(calib, config).read(image, hand=False)
        unsure = obs.confidence < ALONE_CONFIDENCE
        assert any("sure of it" in p for p in obs.problems()) == unsure
        if obs.is_sure():
            judged_right += obs.points == [tuple(p) for p in label["points"]]
    assert judged_right >= 2, "readings the counter is sure of are judged without an empty-board photo"


def test_from_one_photo_the_classical_hand_test_leaves_every_reading_doubted(small_dataset: Path,
                                                                           tmp_path: Path) -> None:
    """From one photo the classical hand test compares the frame with itself and cannot see a hand:
    whatever the counter, the reading stays a guess."""
    dataset = load_dataset(_corners_only(small_dataset, tmp_path / "guess", 3))
    config = VisionConfig(checker_reader="learned", hand_test="classical")
    for name in dataset.frames:
        image = dataset.image(name)
        obs = Reader(calibration_for(dataset, config, frame=image), config).read(image, hand=False)
        assert not obs.is_sure()
        assert any("is a guess" in p for p in obs.problems())


def test_an_empty_board_read_by_the_learned_counter_without_its_photo_is_never_sure(small_dataset: Path) -> None:
    """Read without a photo of the empty board (from its own photo alone, or calibrated from the
    start position only), an empty board (the learned counter sees no checker there) is asked
    about, never judged: nothing tells it from a board whose checkers were all missed."""
    dataset = load_dataset(small_dataset)
    empty, _ = dataset.reference("empty")
    start, _ = dataset.reference("start")
    assert empty is not None and start is not None
    config = VisionConfig(checker_reader="learned", hand_test="learned")
    size = (empty.shape[1], empty.shape[0])
    for calib in (calibrate(dataset.corners, size, play=empty, config=config),
                  calibrate(dataset.corners, size, start=start, config=config)):
        assert calib.background_source in ("estimated", "start")
        obs = Reader(calib, config).read(empty, hand=False)
        assert obs.points is not None and obs.totals == (0, 0)
        assert not obs.is_sure()
        assert any("no checker seen" in p for p in obs.problems()), calib.background_source
