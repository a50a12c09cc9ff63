"""What the learned readers share: loading an ONNX model into OpenCV's `cv2.dnn` (with a
one-line error when the file is missing) and turning its logits into probabilities."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

__all__ = ["load_net", "sigmoid", "softmax"]


def load_net(path: str | Path, what: str, target: str) -> cv2.dnn.Net:
    """The ONNX model at ``path``; ``what`` names it and ``target`` the make target that builds
    it in the error when it is missing."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} model {str(path)!r} is missing (make {target} builds it)")
    return cv2.dnn.readNetFromONNX(str(path))


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise probabilities of (N, K) logits, in float64."""
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def sigmoid(logits: np.ndarray) -> np.ndarray:
    """The probability of each logit, in float64."""
    return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(logits, np.float64))))
