"""The counter's 8-bit copy is calibrated on strips as the reader gives them to the counter
(synth.quantise.calibration_inputs; the quantising itself needs the training environment's
``onnx`` and is checked by its result, tests/vision/test_nets.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synth import checker_data
from synth.checker_data import NO_REFERENCE
from synth.quantise import BATCH, calibration_inputs
from vision.learned import standardise
from vision.render import render_dataset


@pytest.fixture(scope="module")
def strips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quantise")
    frames = render_dataset(root / "set", 12, seed=828282, occluded_rate=0.0)
    assert checker_data.main([str(frames), "--out", str(root / "strips"), "--jitter", "0"]) == 0
    return next((root / "strips").glob("*.npz"))


def test_the_calibration_strips_are_the_counters_input_drawn_the_same_each_time(strips: Path) -> None:
    inputs = calibration_inputs([strips], sample=250, seed=0)
    assert inputs.shape == (240, 6, 112, 32) and inputs.dtype == np.float32  # whole batches of 24
    assert np.array_equal(inputs, calibration_inputs([strips], sample=250, seed=0))
    assert not np.array_equal(inputs, calibration_inputs([strips], sample=250, seed=1))
    with np.load(strips) as data:
        frame_strips, references = standardise(data["strips"]), standardise(data["references"])
    # each is one of the set's strips, as `vision.learned.standardise` gives it to the counter, beside
    # its empty-board strip or, for about `NO_REFERENCE` of them, zeros
    beside = 0
    for row in inputs:
        match = np.flatnonzero(np.abs(frame_strips - row[:3]).reshape(len(frame_strips), -1).max(axis=1) < 1e-6)
        assert len(match) >= 1
        if np.any(row[3:]):
            beside += 1
            assert np.allclose(row[3:], references[match[0]], atol=1e-6)
    assert abs(beside / len(inputs) - (1 - NO_REFERENCE)) <= 0.08


def test_too_few_strips_is_a_clear_error(strips: Path, tmp_path: Path) -> None:
    with np.load(strips) as data:
        few = {key: value[:BATCH - 1] for key, value in data.items()}
    np.savez(tmp_path / "few.npz", **few)
    with pytest.raises(ValueError, match="too few to calibrate on"):
        calibration_inputs([tmp_path / "few.npz"], sample=100)
