"""The checker counter in 8-bit integers (vision/models/checker_count.int8.onnx), which ONNX Runtime
runs in place of the float model (`vision.nets.quantised_copy`, `vision.nets.QUANTISED`): weights
per output channel, activations per tensor, their ranges calibrated on strips as the reader cuts
them (`synth.checker_data` files of the tuning designs and the 2-D renderer), with and without the
empty-board strip beside them (the model's input built by the run-time code,
`vision.learned.standardise`).  The copy records the float model's fingerprint
(`vision.nets.MADE_FROM`): a copy of another float model is never run.

Runs in the training environment (`make quantise-checkers`: ONNX Runtime's quantisation tool needs
the ``onnx`` package, which the appliance does not).

    python -m synth.quantise --model vision/models/checker_count.onnx --strips FILE.npz ... \\
        --out vision/models/checker_count.int8.onnx [--sample 768] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from synth.checker_data import NO_REFERENCE
from vision.learned import standardise
from vision.nets import MADE_FROM, fingerprint

__all__ = ["calibration_inputs", "main", "quantise"]

#: strips per calibration batch (a board's 24 points)
BATCH = 24


def calibration_inputs(files: Sequence[Path], sample: int, seed: int = 0) -> np.ndarray:
    """(N, 6, H, W) float32: ``sample`` strips (whole `BATCH`es) drawn (seeded) from the ``synth.checker_data`` files,
    each beside its empty-board strip, or zeros for `NO_REFERENCE` of them and where the set had
    no photo of the empty board."""
    strips, references = [], []
    for path in files:
        with np.load(path) as data:
            strips.append(data["strips"])
            references.append(data["references"])
    all_strips, all_refs = np.concatenate(strips), np.concatenate(references)
    if len(all_strips) < BATCH:
        raise ValueError(f"{len(all_strips)} strips: too few to calibrate on (at least {BATCH})")
    rng = np.random.default_rng(seed)
    pick = rng.permutation(len(all_strips))[:sample]
    pick = pick[:len(pick) - len(pick) % BATCH]  # whole batches (the entropy calibration stacks them)
    has_reference = all_refs[pick].reshape(len(pick), -1).any(axis=1) & (rng.random(len(pick)) >= NO_REFERENCE)
    refs = standardise(all_refs[pick]) * has_reference[:, None, None, None].astype(np.float32)
    return np.ascontiguousarray(np.concatenate([standardise(all_strips[pick]), refs], axis=1))


def quantise(model: Path, out: Path, inputs: np.ndarray) -> None:
    """Write ``model`` quantised to 8 bits to ``out`` (QLinearConv operators, the form ONNX
    Runtime runs fastest here), activation ranges set by the entropy of ``inputs``' histograms,
    ``model``'s fingerprint recorded in it."""
    import onnx
    import onnxruntime
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches: Iterator[np.ndarray] = (inputs[i:i + BATCH] for i in range(0, len(inputs), BATCH))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.batches, None)
            return None if batch is None else {name: batch}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Batches(), quant_format=QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                        calibrate_method=CalibrationMethod.Entropy)
    copy = onnx.load(str(out))
    # only the operator sets its operators come from (the tool declares every one it knows, and an
    # older ONNX Runtime refuses to load a model declaring one newer than it knows)
    used = {node.domain for node in copy.graph.node} | {""}
    kept = [entry for entry in copy.opset_import if entry.domain in used]
    del copy.opset_import[:]
    copy.opset_import.extend(kept)
    onnx.helper.set_model_props(copy, {MADE_FROM: fingerprint(model)})
    onnx.checker.check_model(copy)
    onnx.save(copy, str(out))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="the float model")
    parser.add_argument("--strips", type=Path, nargs="+", required=True, help="synth.checker_data files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=768, help="strips calibrated on")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        inputs = calibration_inputs(args.strips, args.sample, args.seed)
    except (OSError, KeyError, ValueError) as error:
        print(f"quantise: {error}", file=sys.stderr)
        return 1
    quantise(args.model, args.out, inputs)
    print(f"{args.out}: {args.model.name} in 8 bits, calibrated on {len(inputs)} strips "
          f"({int((inputs[:, 3:] != 0).reshape(len(inputs), -1).any(axis=1).sum())} beside the empty board)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
