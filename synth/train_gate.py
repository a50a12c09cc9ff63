"""Train the learned hand test: a small CNN that says whether a hand or arm is over the playing
surface, from the board and a margin around it rectified through the homography (vision.occluder).

Development only (needs PyTorch; `make train` sets up its own environment).  Reproducible: every
generator is seeded; the data are the views `synth.gate_data` cut from labelled datasets; the
model is exported to ONNX for ONNX Runtime and OpenCV's `cv2.dnn` (the appliance never imports torch).

    python -m synth.train_gate --train CACHE/*.npz [--val CACHE/other*.npz] \
        --out vision/models/occluder.onnx --epochs 8 --seed 0

What a comparison with the empty board mistakes for an arm is added on purpose while training,
labelled "no hand": soft shadows of any shape crossing the rim (a head, an arm held away from the
board, the lamp moved), the hard dark shadow a small lamp throws of a head or an arm held between it
and the board (`_cast_shadow`), light ramps and vignetting, glare spots, colour casts and noise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from synth.fit import fit
from vision.occluder import standardise  # the model's input exactly as at run time

VIEW_H, VIEW_W = 80, 96


class HandNet(nn.Module):
    """View (3, 80, 96), standardised -> one logit: a hand or arm over the surface."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                                 nn.ReLU(inplace=True), nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, 16), block(16, 24), block(24, 32), block(32, 48))  # -> 48 x 5 x 6
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(48 * 5 * 6, 64), nn.ReLU(inplace=True),
                                  nn.Linear(64, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def _ellipse(mask: np.ndarray, rng: np.random.Generator, across: tuple[float, float],
             down: tuple[float, float]) -> None:
    """Fill an ellipse anywhere in ``mask``, its half-axes drawn from ``across`` and ``down``, at
    any angle."""
    centre = (int(rng.uniform(0, VIEW_W)), int(rng.uniform(0, VIEW_H)))
    axes = (int(rng.uniform(*across)), int(rng.uniform(*down)))
    cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)


def _soft_blob(rng: np.random.Generator) -> np.ndarray:
    """A soft-edged shadow mask (H, W) 0..1: an ellipse or a band of random size, often crossing
    the rim."""
    mask = np.zeros((VIEW_H, VIEW_W), np.float32)
    if rng.random() < 0.5:
        _ellipse(mask, rng, (6, 40), (6, 30))
    else:  # a band: an arm held above the board, a post, the edge of the lamp's pool
        p0 = (int(rng.uniform(-20, VIEW_W + 20)), int(rng.uniform(-20, VIEW_H + 20)))
        p1 = (int(rng.uniform(-20, VIEW_W + 20)), int(rng.uniform(-20, VIEW_H + 20)))
        cv2.line(mask, p0, p1, 1.0, int(rng.uniform(4, 22)))
    sigma = float(rng.uniform(1.5, 8))
    return cv2.GaussianBlur(mask, (0, 0), sigma)


def _cast_shadow(rng: np.random.Generator) -> np.ndarray:
    """A hard-edged shadow mask (H, W) 0..1 as a bare bulb throws it: a head (a large ellipse) or an
    arm reaching in from beyond the view (a thick band with a rounded end), a quarter to a half of
    the board across."""
    mask = np.zeros((VIEW_H, VIEW_W), np.float32)
    if rng.random() < 0.35:
        _ellipse(mask, rng, (12, 32), (10, 26))
    else:
        angle = rng.uniform(0, 2 * np.pi)
        tip = np.array([rng.uniform(0.15, 0.85) * VIEW_W, rng.uniform(0.15, 0.85) * VIEW_H])
        root = tip + 2 * VIEW_W * np.array([np.cos(angle), np.sin(angle)])
        width = int(rng.uniform(16, 34))
        cv2.line(mask, (int(root[0]), int(root[1])), (int(tip[0]), int(tip[1])), 1.0, width, cv2.LINE_AA)
        cv2.circle(mask, (int(tip[0]), int(tip[1])), int(width * rng.uniform(0.5, 0.8)), 1.0, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(0.6, 3.0)))


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, shadow, colour and camera changes (see the module's docstring)."""
    x = batch.astype(np.float32)
    n = len(x)
    yy, xx = np.mgrid[0:VIEW_H, 0:VIEW_W].astype(np.float32)
    for i in range(n):
        if rng.random() < 0.25:
            x[i] = x[i][..., rng.permutation(3)]
        for _ in range(int(rng.integers(0, 3))):
            x[i] *= (1 - rng.uniform(0.25, 0.75) * _soft_blob(rng))[..., None]
        if rng.random() < 0.3:
            x[i] *= (1 - rng.uniform(0.55, 0.9) * _cast_shadow(rng))[..., None]
        if rng.random() < 0.6:  # the lamp elsewhere: a ramp of light across the view
            angle = rng.uniform(0, 2 * np.pi)
            ramp = ((xx - VIEW_W / 2) * np.cos(angle) + (yy - VIEW_H / 2) * np.sin(angle)) / VIEW_W
            x[i] *= (1 + rng.uniform(0, 0.9) * ramp)[..., None]
        if rng.random() < 0.3:  # vignetting
            r2 = ((xx - VIEW_W / 2) ** 2 + (yy - VIEW_H / 2) ** 2) / (VIEW_W / 2) ** 2
            x[i] *= (1 - rng.uniform(0, 0.35) * r2)[..., None]
        if rng.random() < 0.2:  # glare on lacquer
            x[i] += (rng.uniform(60, 200) * _soft_blob(rng))[..., None]
    x *= rng.uniform(0.85, 1.15, (n, 1, 1, 3)) * rng.uniform(0.5, 1.5, (n, 1, 1, 1))
    x = np.clip(x, 0, 255)
    x = 255.0 * (x / 255.0) ** rng.uniform(0.7, 1.4, (n, 1, 1, 1))
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 8, (n, 1, 1, 1))
    out = np.clip(x, 0, 255).astype(np.uint8)
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.4, 1.2)))
    flip = rng.random(n) < 0.5
    out[flip] = out[flip][:, :, ::-1]
    flip = rng.random(n) < 0.5
    out[flip] = out[flip][:, ::-1]
    return out


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    views, hands = [], []
    for path in paths:
        with np.load(path) as data:
            views.append(data["views"])
            hands.append(data["hands"].astype(np.float32))
    return np.concatenate(views), np.concatenate(hands)


def evaluate(model: nn.Module, views: np.ndarray, hands: np.ndarray) -> tuple[float, float]:
    """Share of views with a hand called a hand; share of clear views called a hand."""
    model.eval()
    said = []
    with torch.no_grad():
        for i in range(0, len(views), 512):
            said.append(model(torch.from_numpy(standardise(views[i:i + 512])))[:, 0].numpy() > 0)
    hand = np.concatenate(said)
    truth = hands > 0.5
    return float(hand[truth].mean()) if truth.any() else 0.0, float(hand[~truth].mean()) if (~truth).any() else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="+", type=Path, required=True)
    parser.add_argument("--val", nargs="*", type=Path, default=[])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    views, hands = load(args.train)
    val = load(args.val) if args.val else None
    pos = float(hands.mean())
    pos_weight = torch.tensor([(1 - pos) / max(pos, 1e-3)], dtype=torch.float32)
    model = HandNet()

    def loss_of(pick: np.ndarray) -> torch.Tensor:
        x = torch.from_numpy(standardise(augment(views[pick], rng)))
        return F.binary_cross_entropy_with_logits(model(x)[:, 0], torch.from_numpy(hands[pick]), pos_weight=pos_weight)

    def score() -> dict[str, float]:
        assert val is not None
        caught, false = evaluate(model, *val)
        return {"val_hands_refused": round(caught, 4), "val_clear_refused": round(false, 4)}

    history = fit(model, len(views), args.epochs, args.batch, rng, loss_of, score if val is not None else None)
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out.with_suffix(".pt"))
    torch.onnx.export(model, torch.zeros(1, 3, VIEW_H, VIEW_W), str(args.out), input_names=["view"],
                      output_names=["hand"], dynamic_axes={"view": {0: "n"}, "hand": {0: "n"}},
                      opset_version=13, dynamo=False)
    card = {
        "model": args.out.name, "input": f"board view {VIEW_W}x{VIEW_H} BGR, standardised (vision.occluder)",
        "output": "hand: one logit, a hand or arm over the playing surface", "seed": args.seed,
        "epochs": args.epochs, "train": [p.name for p in args.train], "val": [p.name for p in args.val],
        "train_views": int(len(views)), "train_hands": int(hands.sum()), "history": history,
        "parameters": int(sum(p.numel() for p in model.parameters())),
    }
    args.out.with_suffix(".train.json").write_text(json.dumps(card, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
