"""What the learned readers share: an ONNX model loaded for the engine that runs it (with a
one-line error when the file or the engine is missing), and turning logits into probabilities.

Two engines run the same model files and give the same outputs (within 1e-5):

- ``onnxruntime`` (the default): ONNX Runtime on the CPU, each model 1.5-1.8 times as fast as by
  OpenCV, the whole read 0.68-0.70 of its time (`python bench/vision.py --checkers learned --dice
  learned --hands learned --nets cv2 --nets onnxruntime` measures both in one run);
- ``cv2``: OpenCV's `cv2.dnn`, which needs nothing beyond OpenCV.

A model ``NAME.onnx`` may have an 8-bit copy beside it, ``NAME.int8.onnx`` (the checker
counter's, made by `make quantise-checkers`, synth.quantise: a third less time), which ONNX Runtime
runs in its place while `QUANTISED` is true (a copy that records another float model than the one
beside it is an error: `MADE_FROM`).  `cv2.dnn` always runs the float model: its 8-bit
kernels round otherwise than ONNX Runtime's (the counter's logits apart by up to 1.4 on random
input), so the two engines read alike only within the copy's error; with `QUANTISED` false they
run the same files.

The engine is chosen by ``$REFEREE_NETS`` (`ENGINE` in code); an engine that is asked for and
missing is an error, never a silent switch to the other.  Both use as many threads as
OpenCV is set to (`cv2.getNumThreads`: the benches set one), read when a model is loaded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["ENGINE", "ENGINES", "MADE_FROM", "QUANTISED", "Net", "check_engine", "fingerprint", "load_net", "quantised_copy",
           "sigmoid", "softmax"]

ENGINES = ("onnxruntime", "cv2")
#: the engine models are loaded for (`load_net`)
ENGINE = os.environ.get("REFEREE_NETS", "onnxruntime")
#: ONNX Runtime runs a model's 8-bit copy (`quantised_copy`) where there is one (`load_net`)
QUANTISED = True
#: the metadata key under which an 8-bit copy records its float model's `fingerprint`
MADE_FROM = "made_from_sha256"


def check_engine(engine: str | None = None) -> str:
    """``engine`` (`ENGINE` when None) when it is known and can run here; else a one-line
    ValueError (`referee run` asks this at start, before any frame is read)."""
    engine = ENGINE if engine is None else engine
    if engine not in ENGINES:
        raise ValueError(f"unknown engine for the models {engine!r} (choose {' or '.join(ENGINES)})")
    if engine == "onnxruntime":
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            raise ValueError("onnxruntime is not installed (make setup installs it; REFEREE_NETS=cv2 runs "
                             "the models with OpenCV instead)") from None
    return engine


class Net:
    """One ONNX model, loaded for one engine; `run` gives its outputs as float arrays."""

    def __init__(self, path: Path, engine: str) -> None:
        self.engine = check_engine(engine)
        #: the file it runs, and the model's metadata (ONNX Runtime only: cv2.dnn reads none)
        self.path = path
        self.metadata: dict[str, str] = {}
        threads = max(1, cv2.getNumThreads())
        if engine == "cv2":
            self._net = cv2.dnn.readNetFromONNX(str(path))
            return
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name
        self.metadata = dict(self._session.get_modelmeta().custom_metadata_map)

    def run(self, batch: np.ndarray, outputs: Sequence[str] | None = None) -> list[np.ndarray]:
        """The model's outputs for ``batch`` (float32, the model's input layout): the ones named in
        ``outputs``, in that order, or else the first alone (a list of one)."""
        batch = np.ascontiguousarray(batch, np.float32)
        if self.engine == "cv2":
            self._net.setInput(batch)
            if outputs is None:
                return [np.asarray(self._net.forward())]
            return [np.asarray(out) for out in self._net.forward(list(outputs))]
        found: list[Any] = self._session.run(None if outputs is None else list(outputs), {self._input: batch})
        return [np.asarray(out) for out in (found if outputs is not None else found[:1])]


def quantised_copy(path: str | Path) -> Path:
    """Where the 8-bit copy of the model at ``path`` lies: ``NAME.int8.onnx`` beside ``NAME.onnx``."""
    return Path(path).with_suffix(".int8.onnx")


def fingerprint(path: str | Path) -> str:
    """The SHA-256 of a model file: an 8-bit copy records its float model's (`MADE_FROM`)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_net(path: str | Path, what: str, target: str, engine: str | None = None) -> Net:
    """The ONNX model at ``path`` for ``engine`` (`ENGINE` when None, read at each call; ONNX
    Runtime runs its `quantised_copy` instead where there is one and `QUANTISED` is true), loaded
    once per model and engine; ``what`` names it and ``target`` the make target that builds it in
    the error when it is missing.  A copy made from another float model than the one at ``path``
    (the model trained again, the copy not made again) is a one-line error, never run."""
    engine = check_engine(engine)
    return _loaded(str(path), what, target, engine, engine == "onnxruntime" and QUANTISED)


@lru_cache(maxsize=16)
def _loaded(path: str, what: str, target: str, engine: str, quantised: bool) -> Net:
    """`load_net`'s net, the files looked for once per model, engine and `QUANTISED` (it is called
    for every frame read)."""
    copy = quantised_copy(path)
    if quantised and copy.is_file():
        net = Net(copy, engine)
        if not Path(path).is_file() or net.metadata.get(MADE_FROM) != fingerprint(path):
            raise ValueError(f"{what} model's 8-bit copy {str(copy)!r} was not made from {path!r} (python -m "
                             f"synth.quantise makes it again: make quantise-checkers)")
        return net
    if not Path(path).is_file():
        raise ValueError(f"{what} model {path!r} is missing (make {target} builds it)")
    return Net(Path(path), engine)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise probabilities of (N, K) logits, in float64."""
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def sigmoid(logits: np.ndarray) -> np.ndarray:
    """The probability of each logit, in float64."""
    return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(logits, np.float64))))
