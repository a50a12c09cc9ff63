"""The learned checker counter: a small CNN (vision/models/checker_count.onnx, trained by
synth.train_checkers) counts the checkers on each point strip (vision.strips) and tells whether
they are the lighter or the darker side's, run with OpenCV's `cv2.dnn`.

It needs no photo of the empty board and no learnt checker colours: the strips are read as they
are, each judged against the board around it in the same light.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.calibration import BoardGeometry
from vision.nets import load_net, softmax
from vision.strips import bar_strips, point_strips

__all__ = ["MODEL_PATH", "CheckerCounter", "PointCounts", "count_points"]

MODEL_PATH = Path(__file__).with_name("models") / "checker_count.onnx"


@dataclass
class PointCounts:
    """Per point (P1..P24): checkers counted, the counter's probability for that count, and the
    stack's colour (0 light, 1 dark, None empty); the bar's (light, dark) and its probability."""

    counts: list[int]
    probabilities: list[float]
    colours: list[int | None]
    bar: tuple[int, int] = (0, 0)
    bar_probability: float = 1.0

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return [(n, 0) if c == 0 else (0, n) if c == 1 else (0, 0)
                for n, c in zip(self.counts, self.colours, strict=True)]


class CheckerCounter:
    """The ONNX model, loaded once."""

    def __init__(self, path: str | Path = MODEL_PATH) -> None:
        self.net = load_net(path, "checker", "train")

    def probabilities(self, strips: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, H, W, 3) uint8 strips -> (N, 16) probabilities of 0..15 checkers and (N, 2) of
        light / dark."""
        self.net.setInput(standardise(strips))
        count, colour = self.net.forward(["count", "colour"])
        return softmax(count), softmax(colour)


def standardise(strips: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 -> (N, 3, H, W) float32, each strip to zero mean and unit spread (as in
    training, synth.train_checkers.standardise)."""
    x = strips.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


@lru_cache(maxsize=2)
def _counter(path: str) -> CheckerCounter:
    return CheckerCounter(path)


def count_points(image: np.ndarray, geometry: BoardGeometry, model: str | Path = MODEL_PATH) -> PointCounts:
    """Checkers on each of the 24 points and on the bar of a camera frame.  A probability is that
    of the count times, when occupied, that of the colour.  The bar is read as its two halves
    (each a stack from the middle), whatever colour each holds."""
    strips = np.concatenate([point_strips(image, geometry), bar_strips(image, geometry)])
    count_p, colour_p = _counter(str(model)).probabilities(strips)
    counts = [int(i) for i in count_p.argmax(axis=1)]
    colours: list[int | None] = [int(colour_p[i].argmax()) if counts[i] else None for i in range(len(strips))]
    probabilities = [float(count_p[i, counts[i]]) * (float(colour_p[i].max()) if counts[i] else 1.0)
                     for i in range(len(strips))]
    bar = [0, 0]
    for i in (24, 25):
        if colours[i] is not None:
            bar[colours[i]] += counts[i]
    return PointCounts(counts=counts[:24], probabilities=probabilities[:24], colours=colours[:24],
                       bar=(bar[0], bar[1]), bar_probability=min(probabilities[24:]))
