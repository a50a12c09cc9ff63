"""The engines that run the learned models (vision.nets): ONNX Runtime and OpenCV's cv2.dnn give the
same outputs from the same model files, the readers read the same boards and dice with either, and
an engine that is unknown or missing is a one-line error, never a silent switch."""

from __future__ import annotations

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
def test_both_engines_give_the_same_outputs(model: str) -> None:
    shape, outputs = INPUTS[model]
    batch = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    by_ort = nets.load_net(MODELS / model, "test", "train", "onnxruntime").run(batch, outputs)
    by_cv2 = nets.load_net(MODELS / model, "test", "train", "cv2").run(batch, outputs)
    assert len(by_ort) == len(by_cv2) == (len(outputs) if outputs else 1)
    for a, b in zip(by_ort, by_cv2, strict=True):
        assert a.shape == b.shape and a.shape[0] == shape[0]
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_the_readers_read_alike_with_either_engine(small_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
