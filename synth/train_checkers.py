"""Train the checker counter: a small CNN that counts the checkers on one point strip (0..15)
and tells whether they are the light or the dark side's.

Development only (needs PyTorch; `make train` sets up its own environment).  Reproducible: every
generator is seeded, the data are the strips `synth.checker_data` cut from labelled datasets,
and the model is exported to ONNX for ONNX Runtime and OpenCV's `cv2.dnn` (the appliance never imports torch).

    python -m synth.train_checkers --train CACHE/*.npz --val CACHE/other*.npz \
        --out vision/models/checker_count.onnx --epochs 12 --seed 0

The bar reader (vision/models/bar_count.onnx) is this counter trained further on the bar:

    python -m synth.train_checkers --train CACHE/*.npz --init-onnx vision/models/checker_count.onnx \
        --point-share 0.1 --max-lr 1e-3 --epochs 4 --out vision/models/bar_count.onnx

The colour head answers "the lighter or the darker of the two sets", judged against the board
around the stack in the same light (a light checker in a shadow can be darker than a dark one in
the lamp's glare); it is trained only on strips with one colour of checkers.

Each strip comes with the same strip of the empty board photographed at calibration (six input
channels): the model learns what of the strip is the board's own pattern (marble veins, a dark
point, inlay) and what lies on it.  The empty board is photographed under the calibration's light,
not the light of play, and is left out (zeros) for a quarter of the strips, so the model reads a
board without an empty-board photo too.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

from synth.checker_data import NO_REFERENCE
from synth.fit import fit
from vision.learned import standardise  # the model's input exactly as at run time
from vision.strips import BAR_STRIPS, BOARD_STRIPS

MAX_COUNT = 15


class CheckerCounter(nn.Module):
    """Strip and its empty-board strip (6, 112, 32), standardised -> logits for 0..15 checkers,
    logits for light / dark."""

    def __init__(self, frozen_norms: bool = False) -> None:
        super().__init__()
        #: keep the batch norms as they are while training (a trained counter trained further)
        self.frozen_norms = frozen_norms

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.MaxPool2d(2))

        self.features = nn.Sequential(block(6, 16), block(16, 32), block(32, 48))  # -> 48 x 14 x 4
        self.trunk = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(48 * 14, 96), nn.ReLU(inplace=True))
        self.count = nn.Linear(96, MAX_COUNT + 1)
        self.colour = nn.Linear(96, 2)

    def train(self, mode: bool = True) -> CheckerCounter:
        super().train(mode)
        if self.frozen_norms:
            for module in self.modules():
                if isinstance(module, nn.BatchNorm2d):
                    module.eval()
        return self

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        count, colour, _ = self.read(x)
        return count, colour

    def read(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Count logits, colour logits and the 96 features both heads read (the run-time
        reader compares a strip's features with the same point's on the empty-board photo)."""
        f = self.trunk(self.features(x).mean(dim=3))  # pooled across the strip's width, kept along its length
        return self.count(f), self.colour(f), f


def from_exported(path: Path) -> CheckerCounter:
    """The counter exported to ``path``, as a model to train further: the export folds each batch
    norm into the convolution before it, so the norms here pass the convolution's bias on and stay
    frozen (``frozen_norms``); it reads exactly as the file does."""
    graph = onnx.load(str(path)).graph
    weights = {w.name: torch.from_numpy(numpy_helper.to_array(w).copy()) for w in graph.initializer}
    model = CheckerCounter(frozen_norms=True)
    convs = [node for node in graph.node if node.op_type == "Conv"]
    layers = [m for m in model.features.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in model.features.modules() if isinstance(m, nn.BatchNorm2d)]
    if not len(convs) == len(layers) == len(norms):
        raise ValueError(f"{path}: not a checker counter ({len(convs)} convolutions)")
    with torch.no_grad():
        for node, conv, norm in zip(convs, layers, norms, strict=True):
            conv.weight.copy_(weights[node.input[1]])
            norm.weight.fill_(1.0)
            norm.bias.copy_(weights[node.input[2]])
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        state = model.state_dict()
        heads = {name.removeprefix("model."): value for name, value in weights.items() if name.startswith("model.")}
        if set(heads) != {name for name in state if not name.startswith("features.")}:
            raise ValueError(f"{path}: not a checker counter (its layers are {sorted(heads)})")
        for name, value in heads.items():
            state[name].copy_(value)
    return model


class _Exported(nn.Module):
    """The counter as exported: three outputs."""

    def __init__(self, model: CheckerCounter) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.model.read(x)


def model_input(strips: np.ndarray, references: np.ndarray, has_reference: np.ndarray) -> np.ndarray:
    """(N, 6, H, W): the standardised strips and, where there is one, their empty-board strips
    (else zeros), as vision.learned builds it at run time."""
    refs = standardise(references) * has_reference[:, None, None, None].astype(np.float32)
    return np.ascontiguousarray(np.concatenate([standardise(strips), refs], axis=1))


def augment(batch: np.ndarray, rng: np.random.Generator, perm: np.ndarray, flip: np.ndarray) -> np.ndarray:
    """Light, colour and camera changes a club's board can show that the renders may not.
    ``perm`` (N, 3) channel orders and ``flip`` (N,) mirrors are given, so that a strip and its
    empty-board strip get the same colours and the same side while their light changes apart."""
    x = batch.astype(np.float32)
    n = len(x)
    # colour: shuffle channels (other checker/point colours), white balance, gain, gamma
    x = np.take_along_axis(x, perm[:, None, None, :], axis=3)
    x *= rng.uniform(0.85, 1.15, (n, 1, 1, 3)) * rng.uniform(0.55, 1.4, (n, 1, 1, 1))
    x = np.clip(x, 0, 255)
    gamma = rng.uniform(0.7, 1.4, (n, 1, 1, 1))
    x = 255.0 * (x / 255.0) ** gamma
    # a light gradient along the strip (a lamp off to one side, a shadow's edge)
    ramp = np.linspace(-1, 1, x.shape[1], dtype=np.float32)[None, :, None, None]
    x *= 1 + rng.uniform(-0.35, 0.35, (n, 1, 1, 1)) * ramp
    # sensor noise and softness
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 9, (n, 1, 1, 1))
    out = np.clip(x, 0, 255).astype(np.uint8)
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        import cv2

        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.5, 1.3)))
    out[flip] = out[flip][:, :, ::-1]
    return out


def augment_pair(strips: np.ndarray, references: np.ndarray, has_reference: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
    """The model's input for a training batch: both strips augmented with the same colours and
    mirror but their own light; the empty-board strip dropped for `NO_REFERENCE` of them."""
    n = len(strips)
    perm = np.array([rng.permutation(3) if rng.random() < 0.5 else np.arange(3) for _ in range(n)])
    flip = rng.random(n) < 0.5
    shown = has_reference & (rng.random(n) >= NO_REFERENCE)
    return model_input(augment(strips, rng, perm, flip), augment(references, rng, perm, flip), shown)


def load(paths: list[Path], empty_keep: float = 1.0, seed: int = 0, point_share: float = 1.0) -> dict[str, np.ndarray]:
    """Strips, references, has_reference, counts and colours (-1: none) of the given strip files;
    ``empty_keep``: the share of empty points kept (most points are empty); ``point_share`` below
    1: every bar half kept and only that share of the points (the bar reader's data)."""
    rng = np.random.default_rng(seed)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("strips", "references", "has_reference", "counts", "colours")}
    for path in paths:
        with np.load(path) as data:
            n = len(data["counts"])
            if n % BOARD_STRIPS:
                raise ValueError(f"{path}: {n} strips, not {BOARD_STRIPS} a frame (synth.checker_data)")
            keep = (data["counts"] > 0) | (rng.random(n) < empty_keep)
            if point_share < 1:  # every bar half (the last two strips of each frame) and a share of the points
                keep = (np.arange(n) % BOARD_STRIPS >= BAR_STRIPS) | (keep & (rng.random(n) < point_share))
            parts["strips"].append(data["strips"][keep])
            refs = data["references"][keep] if "references" in data else np.zeros_like(data["strips"][keep])
            parts["references"].append(refs)
            parts["has_reference"].append(refs.reshape(len(refs), -1).any(axis=1))
            parts["counts"].append(np.clip(data["counts"][keep].astype(np.int64), 0, MAX_COUNT))
            parts["colours"].append(data["colours"][keep].astype(np.int64))
    return {k: np.concatenate(v) for k, v in parts.items()}


def evaluate(model: nn.Module, data: dict[str, np.ndarray]) -> tuple[float, float]:
    """Share of strips counted right; share of one-coloured stacks given the right colour."""
    model.eval()
    right = colour_right = 0
    counts, colours = data["counts"], data["colours"]
    with torch.no_grad():
        for i in range(0, len(counts), 512):
            x = model_input(data["strips"][i:i + 512], data["references"][i:i + 512], data["has_reference"][i:i + 512])
            count_logits, colour_logits = model(torch.from_numpy(x))
            right += int((count_logits.argmax(1).numpy() == counts[i:i + 512]).sum())
            known = colours[i:i + 512] >= 0
            colour_right += int((colour_logits.argmax(1).numpy()[known] == colours[i:i + 512][known]).sum())
    return right / max(1, len(counts)), colour_right / max(1, int((colours >= 0).sum()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="+", type=Path, required=True)
    parser.add_argument("--val", nargs="*", type=Path, default=[])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", type=Path, default=None, help="start from this state dict (.pt) instead of scratch")
    parser.add_argument("--init-onnx", type=Path, default=None,
                        help="start from this exported counter (its batch norms kept as they are)")
    parser.add_argument("--empty-keep", type=float, default=0.35, help="share of empty points trained on")
    parser.add_argument("--point-share", type=float, default=1.0,
                        help="below 1: every bar half and this share of the points (the bar reader)")
    parser.add_argument("--max-lr", type=float, default=3e-3, help="the one-cycle schedule's peak")
    args = parser.parse_args(argv)
    if not 0 < args.point_share <= 1:
        parser.error("--point-share must be above 0 and at most 1")
    if args.init is not None and args.init_onnx is not None:
        parser.error("give --init or --init-onnx, not both")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    data = load(args.train, args.empty_keep, args.seed, args.point_share)
    strips, counts, colours = data["strips"], data["counts"], data["colours"]
    val = load(args.val) if args.val else None
    # stacks of 6..15 are rarer than empty points: weight the loss toward them
    freq = np.bincount(counts, minlength=MAX_COUNT + 1).astype(np.float64) + 20.0
    weight = torch.tensor((freq.sum() / freq) ** 0.5 / ((freq.sum() / freq) ** 0.5).mean(), dtype=torch.float32)
    model = CheckerCounter() if args.init_onnx is None else from_exported(args.init_onnx)
    if args.init is not None:
        model.load_state_dict(torch.load(args.init))

    def loss_of(pick: np.ndarray) -> torch.Tensor:
        x = torch.from_numpy(augment_pair(strips[pick], data["references"][pick], data["has_reference"][pick], rng))
        y = torch.from_numpy(counts[pick])
        c = torch.from_numpy(colours[pick])
        count_logits, colour_logits = model(x)
        loss = F.cross_entropy(count_logits, y, weight=weight, label_smoothing=0.02)
        if bool((c >= 0).any()):
            loss = loss + 0.5 * F.cross_entropy(colour_logits[c >= 0], c[c >= 0])
        return loss

    def score() -> dict[str, float]:
        assert val is not None
        count_ok, colour_ok = evaluate(model, val)
        return {"val_count_accuracy": round(count_ok, 5), "val_colour_accuracy": round(colour_ok, 5)}

    history = fit(model, len(strips), args.epochs, args.batch, rng, loss_of, score if val is not None else None,
                  max_lr=args.max_lr)
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out.with_suffix(".pt"))
    torch.onnx.export(_Exported(model), torch.zeros(1, 6, 112, 32), str(args.out), input_names=["strip"],
                      output_names=["count", "colour", "features"],
                      dynamic_axes={"strip": {0: "n"}, "count": {0: "n"}, "colour": {0: "n"}, "features": {0: "n"}},
                      opset_version=13, dynamo=False)
    card = {
        "model": args.out.name, "input": "point strip 32x112 BGR and the same strip of the empty board (zeros: none), each standardised (vision.learned)",
        "output": "count: logits for 0..15 checkers; colour: logits for light, dark; features: the 96 both read", "seed": args.seed,
        "epochs": args.epochs,
        "init": args.init.name if args.init else args.init_onnx.name if args.init_onnx else None,
        "point_share": args.point_share, "max_lr": args.max_lr,
        "train": [p.name for p in args.train], "val": [p.name for p in args.val],
        "train_strips": int(len(strips)), "empty_keep": args.empty_keep, "history": history,
        "parameters": int(sum(p.numel() for p in model.parameters())),
    }
    args.out.with_suffix(".train.json").write_text(json.dumps(card, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
