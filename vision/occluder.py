"""The learned hand test: a small CNN (vision/models/occluder.onnx, trained by synth.train_gate)
looks at the board and a margin around it, rectified through the calibration's homography, and
says whether a hand or arm is over the playing surface.  Run by `vision.nets` (ONNX Runtime, or
OpenCV's `cv2.dnn`).

It judges the frame as it is, with no reference photo: a lamp moved since calibration, a shadow
of a head or an arm falling across the rim, or a stale empty-board photo cannot look like an arm
to it, as they do to a comparison with the reference.  It was trained with such shadows and light
changes on purpose.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.calibration import BoardGeometry
from vision.nets import load_net, sigmoid, softmax

__all__ = ["MODEL_PATH", "VIEW_MARGIN", "VIEW_SIZE", "OccluderNet", "hand_probability", "occluder_view", "view_matrix",
           "view_quad"]

MODEL_PATH = Path(__file__).with_name("models") / "occluder.onnx"
#: the view's size in pixels (width, height)
VIEW_SIZE = (96, 80)
#: margin around the playing surface, in board units on every side (the rim and the table beyond)
VIEW_MARGIN = 0.3
#: frames are first shrunk to this width (area-averaged), as the gate does, then rectified
PRESCALE_WIDTH = 160


def view_quad(margin: float = VIEW_MARGIN) -> np.ndarray:
    """The view's corners in board units: TL, TR, BR, BL."""
    return np.array([[-margin, -margin], [1 + margin, -margin], [1 + margin, 1 + margin], [-margin, 1 + margin]])


def occluder_view(image: np.ndarray, geometry: BoardGeometry, size: tuple[int, int] = VIEW_SIZE,
                  margin: float = VIEW_MARGIN) -> np.ndarray:
    """The board and its surroundings of a camera frame (any size: the geometry's image size is
    scaled to it), rectified to ``size`` (H, W, 3) uint8.  What lies outside the camera's view is
    black.  A frame wider than `PRESCALE_WIDTH` is first shrunk to it (area-averaged), so the
    view is the same whether it is cut from the camera's frame or the gate's copy."""
    h, w = image.shape[:2]
    if w > PRESCALE_WIDTH:
        small = (PRESCALE_WIDTH, max(8, int(round(h * PRESCALE_WIDTH / w))))
        image = cv2.resize(image, small, interpolation=cv2.INTER_AREA)
        h, w = image.shape[:2]
    m = view_matrix(geometry, (w, h), size, margin)
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def view_matrix(geometry: BoardGeometry, image_size: tuple[int, int], size: tuple[int, int],
                margin: float) -> np.ndarray:
    """The homography from the pixels of a frame of ``image_size`` (width, height; the
    calibration's frame scaled to it) to a view of ``size`` showing the board with ``margin``
    board units around it (`view_quad`)."""
    sx, sy = image_size[0] / geometry.image_size[0], image_size[1] / geometry.image_size[1]
    quad = geometry.to_image(view_quad(margin)) * np.array([sx, sy])
    vw, vh = size
    dst = np.array([[0, 0], [vw, 0], [vw, vh], [0, vh]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(quad.astype(np.float32), dst))


def standardise(views: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 -> (N, 3, H, W) float32 scaled to 0..1 then each view to zero mean, unit
    spread (as synth.train_gate does)."""
    x = views.astype(np.float32) / 255.0
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 0.03
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


class OccluderNet:
    """The ONNX model, loaded once."""

    def __init__(self, path: str | Path = MODEL_PATH, engine: str | None = None) -> None:
        self.net = load_net(path, "hand", "train", engine)

    def probabilities(self, views: np.ndarray) -> np.ndarray:
        """(N, H, W, 3) uint8 views -> (N,) probability of a hand or arm over the surface."""
        logits = np.asarray(self.net.run(standardise(views))[0], np.float64).reshape(len(views), -1)
        if logits.shape[1] == 1:
            return sigmoid(logits[:, 0])
        return softmax(logits)[:, 1]


def hand_probability(image: np.ndarray, geometry: BoardGeometry, model: str | Path = MODEL_PATH) -> float:
    """Probability that a hand or arm is over the playing surface of this frame."""
    return float(OccluderNet(model).probabilities(occluder_view(image, geometry)[None])[0])
