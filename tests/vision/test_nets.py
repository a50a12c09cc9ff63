"""The engines that run the learned models (vision.nets): ONNX Runtime and OpenCV's cv2.dnn give the
same outputs from the same model files, the readers read the same boards and dice with either, and
an engine that is unknown or missing is a one-line error, never a silent switch.  The checker
counter's 8-bit copy, which ONNX Runtime runs in its place, reads the points as the float model
does."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import vision.nets as nets
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.pipeline import Reader

MODELS = Path(nets.__file__).with_name("models")
#: each model, its input's shape for a small batch, and the outputs it is read by
INPUTS = {"checker_count.onnx": ((26, 6, 112, 32), ["count", "colour", "features"]),
          "bar_count.onnx": ((2, 6, 112, 32), ["count", "colour", "features"]),
          "occluder.onnx": ((2, 3, 80, 96), None), "dice_find.onnx": ((1, 3, 256, 320), None),
          "dice_read.onnx": ((9, 3, 32, 32), None)}


@pytest.mark.parametrize("model", sorted(INPUTS))
def test_both_engines_give_the_same_outputs(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nets, "QUANTISED", False)  # the same files under both
    shape, outputs = INPUTS[model]
    batch = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    by_ort = nets.load_net(MODELS / model, "test", "train", "onnxruntime").run(batch, outputs)
    by_cv2 = nets.load_net(MODELS / model, "test", "train", "cv2").run(batch, outputs)
    assert len(by_ort) == len(by_cv2) == (len(outputs) if outputs else 1)
    for a, b in zip(by_ort, by_cv2, strict=True):
        assert a.shape == b.shape and a.shape[0] == shape[0]
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_the_readers_read_alike_with_either_engine(small_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nets, "QUANTISED", False)  # the same files under both
    dataset = load_dataset(small_dataset)
    config = VisionConfig(checker_reader="learned", dice_reader="learned", hand_test="learned")
    calib = calibration_for(dataset, config)
    frames = [dataset.image(name) for name in dataset.frames[:10]]
    readings = {}
    for engine in nets.ENGINES:
        monkeypatch.setattr(nets, "ENGINE", engine)
        reader = Reader(calib, config)
        readings[engine] = [reader.read(frame) for frame in frames]
    for by_ort, by_cv2 in zip(readings["onnxruntime"], readings["cv2"], strict=True):
        assert (by_ort.refused, by_ort.points, by_ort.bar, by_ort.roll) == (by_cv2.refused, by_cv2.points,
                                                                           by_cv2.bar, by_cv2.roll)
        assert [d["value"] for d in by_ort.dice] == [d["value"] for d in by_cv2.dice]
        assert by_ort.confidence == pytest.approx(by_cv2.confidence, abs=1e-3)
    assert sum(not r.refused for r in readings["cv2"]) >= 5


def test_an_unknown_or_missing_engine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown engine for the models 'tensorflow'"):
        nets.load_net(MODELS / "dice_read.onnx", "dice", "train-dice", "tensorflow")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as on a machine without it
    with pytest.raises(ValueError, match="onnxruntime is not installed") as error:
        nets.load_net(MODELS / "dice_read.onnx", "dice", "train-dice", "onnxruntime")
    assert "\n" not in str(error.value)
    assert nets.load_net(MODELS / "dice_read.onnx", "dice", "train-dice", "cv2").engine == "cv2"


def test_onnx_runtime_runs_the_counters_8_bit_copy_and_cv2_the_float_model(monkeypatch: pytest.MonkeyPatch) -> None:
    model = MODELS / "checker_count.onnx"
    copy = nets.quantised_copy(model)
    assert copy.name == "checker_count.int8.onnx" and copy.is_file() and copy.stat().st_size < model.stat().st_size
    assert nets.load_net(model, "test", "train", "onnxruntime").path == copy
    assert nets.load_net(model, "test", "train", "cv2").path == model
    batch = np.random.default_rng(3).standard_normal((4, 6, 112, 32)).astype(np.float32)
    by_copy = nets.load_net(model, "test", "train", "onnxruntime").run(batch)[0]
    assert np.allclose(by_copy, nets.load_net(copy, "test", "train", "onnxruntime").run(batch)[0])
    float_by_cv2 = nets.load_net(model, "test", "train", "cv2").run(batch)[0]
    assert not np.allclose(by_copy, float_by_cv2, atol=1e-4)  # it is another model ...
    monkeypatch.setattr(nets, "QUANTISED", False)
    np.testing.assert_allclose(nets.load_net(model, "test", "train", "onnxruntime").run(batch)[0], float_by_cv2,
                               atol=1e-4)  # ... and without it, the float one
    assert nets.load_net(model, "test", "train", "onnxruntime").path == model
    # a model with no copy beside it is run as it is
    monkeypatch.setattr(nets, "QUANTISED", True)
    assert nets.load_net(MODELS / "dice_read.onnx", "test", "train", "onnxruntime").path == MODELS / "dice_read.onnx"


def test_a_copy_made_from_another_float_model_is_a_clear_error(tmp_path: Path) -> None:
    """The counter trained again and its copy not made again: the copy records the float model it
    was made from (synth.quantise), and a copy of another is never run."""
    model = tmp_path / "checker_count.onnx"
    shutil.copy(MODELS / "checker_count.onnx", model)
    shutil.copy(MODELS / "checker_count.int8.onnx", nets.quantised_copy(model))
    assert nets.load_net(model, "test", "train", "onnxruntime").path == nets.quantised_copy(model)
    retrained = tmp_path / "retrained" / "checker_count.onnx"
    retrained.parent.mkdir()
    shutil.copy(MODELS / "bar_count.onnx", retrained)  # another counter of the same form
    shutil.copy(MODELS / "checker_count.int8.onnx", nets.quantised_copy(retrained))
    with pytest.raises(ValueError, match="8-bit copy .* was not made from") as error:
        nets.load_net(retrained, "checker", "train", "onnxruntime")
    assert "\n" not in str(error.value) and "make quantise-checkers" in str(error.value)
    assert nets.load_net(retrained, "checker", "train", "cv2").path == retrained  # cv2 runs the float model


def _strips_of(root: Path) -> np.ndarray:
    """Each clear frame's point strips beside the empty board's, and once more without it, as the
    reader gives them to the counter."""
    from vision.learned import standardise
    from vision.strips import board_strips

    dataset = load_dataset(root)
    geometry = calibration_for(dataset).geometry
    empty = standardise(board_strips(dataset.reference("empty")[0], geometry))
    batches = []
    for name, _ in dataset.clear_frames():
        strips = standardise(board_strips(dataset.image(name), geometry))
        batches += [np.concatenate([strips, empty], axis=1), np.concatenate([strips, np.zeros_like(empty)], axis=1)]
    return np.concatenate(batches)


@pytest.mark.parametrize("fixture", ["small_dataset", "wooden_dataset", "marble_dataset"])
def test_the_counters_8_bit_copy_reads_the_points_as_the_float_model(fixture: str, request: pytest.FixtureRequest,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy made from another float model (a counter trained again and not quantised again)
    reads otherwise: this fails."""
    batch = _strips_of(request.getfixturevalue(fixture))
    outputs = ["count", "colour", "features"]
    by_copy = nets.load_net(MODELS / "checker_count.onnx", "test", "train", "onnxruntime").run(batch, outputs)
    monkeypatch.setattr(nets, "QUANTISED", False)
    by_float = nets.load_net(MODELS / "checker_count.onnx", "test", "train", "onnxruntime").run(batch, outputs)
    count_copy, count_float = nets.softmax(by_copy[0]), nets.softmax(by_float[0])
    assert (count_copy.argmax(1) == count_float.argmax(1)).mean() >= 0.99
    assert np.abs(count_copy - count_float).max(axis=1).mean() <= 0.02
    occupied = count_float.argmax(1) > 0  # an empty point's colour is no one's
    assert (by_copy[1].argmax(1) == by_float[1].argmax(1))[occupied].mean() >= 0.97
    # the features, which the reader compares with the empty board's, point the same way
    unit = [f / np.linalg.norm(f, axis=1, keepdims=True) for f in (by_copy[2], by_float[2])]
    assert (1 - (unit[0] * unit[1]).sum(axis=1)).mean() <= 0.002
