"""Train the learned dice reader (vision.dice_learned): the finder (a heat map of dice centres on
the rectified board) and the reader (value and "not flat" of one die's crop).

Development only (needs PyTorch; `make train-dice` sets up its own environment).  Reproducible:
every generator is seeded; the data are what `synth.dice_data` cut from labelled datasets; both
models are exported to ONNX for ONNX Runtime and OpenCV's `cv2.dnn` (the appliance never imports torch).

    python -m synth.train_dice --train CACHE/*.npz [--val CACHE/other*.npz] \
        --out vision/models --epochs 10 --seed 0 [--only-find | --only-read] [--read-layout fine]

Each run writes its record beside the models: ``dice.train.json`` (both networks),
``dice_find.train.json`` (``--only-find``) or ``dice_read.train.json`` (``--only-read``).

The reader's "not flat" is trained on each die crop: the die a frame's void reason (cocked, on a
checker) is about, as synth.dice_data marks it, against every other die.
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from synth.fit import fit
from vision.dice_learned import CROP_SIZE as CROP  # the reader's crop side, as at run time
from vision.dice_learned import standardise  # the model's input exactly as at run time

FIND_H, FIND_W = 256, 320


def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FindNet(nn.Module):
    """Board view (3, 256, 320), standardised -> heat map logits (1, 64, 80)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(_conv(3, 16, 2), _conv(16, 24), _conv(24, 32, 2), _conv(32, 32, dilation=2),
                                  _conv(32, 32, dilation=4), _conv(32, 32))
        self.head = nn.Conv2d(32, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


#: the reader's layers: a number is a 3x3 convolution to that many channels, "M" a 2x2 max pool;
#: after them an average over the crop and one linear layer to the eight outputs
READ_LAYOUTS: dict[str, tuple[int | str, ...]] = {
    # one convolution at the crop's full size (the reader until 2026-12-06)
    "plain": (24, "M", 32, "M", 48, "M", 64),
    # two at full size before the first pool: a die 13-20 px across keeps its one- or two-pixel
    # pips through a second layer before they are halved
    "fine": (16, 24, "M", 32, "M", 48, "M", 64),
}


class ReadNet(nn.Module):
    """Die crop (3, CROP, CROP), standardised -> 7 logits (no die, 1..6) and one "not flat" logit."""

    def __init__(self, layout: tuple[int | str, ...] = READ_LAYOUTS["plain"]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        channels = 3
        for step in layout:
            if step == "M":
                layers.append(nn.MaxPool2d(2))
            elif isinstance(step, int) and step > 0:
                layers.append(_conv(channels, step))
                channels = step
            else:
                raise ValueError(f"a reader's layer is a channel count or \"M\", not {step!r}")
        self.layout = tuple(layout)
        self.body = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(channels, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def export_reader(reader: nn.Module, path: Path) -> None:
    """Write a reader (in eval mode) as the ONNX model `vision.dice_learned` runs: input ``crop``
    (N, 3, CROP, CROP), output ``die`` (N, 8: seven value logits and the "not flat" logit)."""
    torch.onnx.export(reader, torch.zeros(1, 3, CROP, CROP), str(path), input_names=["crop"], output_names=["die"],
                      opset_version=13, dynamo=False, dynamic_axes={"crop": {0: "n"}, "die": {0: "n"}})


def from_onnx(path: Path) -> ReadNet:
    """A ReadNet holding the weights of an exported reader (``dice_read.onnx``, of any layout), to
    fine-tune it or merge it with others (synth.merge_readers).
    The export folded each batch norm into its convolution, so those convolutions get the folded
    weights and a bias, and the batch norms become identities (the statistics stay as trained)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    if "head.1.weight" not in weights:
        raise ValueError(f"{path}: not one reader (a merged reader? give one of its members)")
    # the convolutions' (weight, bias) and the layout read back from the graph in one walk: each
    # convolution's channels, each max pool
    convs: list[tuple[np.ndarray, np.ndarray]] = []
    layout: list[int | str] = []
    for node in graph.node:
        if node.op_type == "Conv":
            w, b = (weights[name] for name in node.input[1:])
            convs.append((w, b))
            layout.append(int(w.shape[0]))
        elif node.op_type == "MaxPool":
            layout.append("M")
    inputs = [3] + [int(w.shape[0]) for w, _ in convs[:-1]]
    if [int(w.shape[1]) for w, _ in convs] != inputs:
        raise ValueError(f"{path}: its convolutions are not one chain, as a reader's are")
    model = ReadNet(tuple(layout))  # a block for each convolution of the graph, built from it
    blocks = [m for m in model.body if isinstance(m, nn.Sequential)]
    for block, (w, b) in zip(blocks, convs, strict=True):
        conv = nn.Conv2d(w.shape[1], w.shape[0], 3, padding=1, bias=True)
        conv.weight.data = torch.from_numpy(w.copy())
        conv.bias.data = torch.from_numpy(b.copy())
        block[0], block[1] = conv, nn.Identity()
    model.head[1].weight.data = torch.from_numpy(weights["head.1.weight"].copy())
    model.head[1].bias.data = torch.from_numpy(weights["head.1.bias"].copy())
    return model


def inverted(batch: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """A ``share`` of the crops in negative (a white die with black pips looks as a black die
    with white pips; the hues turn too): dice of colours no training design has."""
    if share <= 0:  # draws nothing: a run without negatives is the run it was before this option
        return batch
    out = batch.copy()
    pick = rng.random(len(out)) < share
    out[pick] = 255 - out[pick]
    return out


def photometric(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light and camera changes: colour casts, gain, gamma, a light ramp, noise, blur."""
    x = batch.astype(np.float32)
    n, h, w = x.shape[:3]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in range(n):
        if rng.random() < 0.2:
            x[i] = x[i][..., rng.permutation(3)]
        if rng.random() < 0.5:
            angle = rng.uniform(0, 2 * np.pi)
            ramp = ((xx - w / 2) * np.cos(angle) + (yy - h / 2) * np.sin(angle)) / w
            x[i] *= (1 + rng.uniform(0, 0.8) * ramp)[..., None]
    x *= rng.uniform(0.85, 1.15, (n, 1, 1, 3)) * rng.uniform(0.55, 1.45, (n, 1, 1, 1))
    x = np.clip(x, 0, 255)
    x = 255.0 * (x / 255.0) ** rng.uniform(0.7, 1.4, (n, 1, 1, 1))
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 7, (n, 1, 1, 1))
    out = np.clip(x, 0, 255).astype(np.uint8)
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.4, 1.1)))
    return out


def turned(batch: np.ndarray, rng: np.random.Generator, degrees: float = 12.0) -> np.ndarray:
    """Each crop turned by a few degrees: the crops are cut with the board's "up" at the top
    (vision.dice_learned.die_crop), from a camera model that is only nearly right."""
    out = np.empty_like(batch)
    n, h, w = batch.shape[:3]
    for i, angle in enumerate(rng.uniform(-degrees, degrees, n)):
        m = cv2.getRotationMatrix2D((w / 2, h / 2), float(angle), 1.0)
        out[i] = cv2.warpAffine(batch[i], m, (w, h), borderMode=cv2.BORDER_REFLECT)
    return out


def load(paths: list[Path]) -> dict[str, np.ndarray]:
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("views", "heats", "crops", "values", "crop_frame", "tilted",
                                                          "crop_tilted")}
    frames = 0
    for path in paths:
        with np.load(path) as data:
            for key in parts:
                value = data[key]
                if key == "crop_frame":
                    value = value + frames
                parts[key].append(value)
            frames += len(data["tilted"])
    return {k: np.concatenate(v) for k, v in parts.items()}


def train_find(data: dict[str, np.ndarray], val: dict[str, np.ndarray] | None, epochs: int, batch: int,
               rng: np.random.Generator) -> tuple[FindNet, list[dict[str, float]]]:
    model = FindNet()
    views, heats = data["views"], data["heats"].astype(np.float32)
    pos_weight = torch.tensor([30.0])

    def loss_of(pick: np.ndarray) -> torch.Tensor:
        x, y = photometric(views[pick], rng), heats[pick].copy()
        flip = rng.random(len(pick)) < 0.5
        x[flip], y[flip] = x[flip][:, :, ::-1], y[flip][:, :, ::-1]
        flip = rng.random(len(pick)) < 0.5
        x[flip], y[flip] = x[flip][:, ::-1], y[flip][:, ::-1]
        logits = model(torch.from_numpy(standardise(x)))[:, 0]
        return F.binary_cross_entropy_with_logits(logits, torch.from_numpy(np.ascontiguousarray(y)),
                                                  pos_weight=pos_weight)

    score = (lambda: find_scores(model, val)) if val is not None else None
    return model, fit(model, len(views), epochs, batch, rng, loss_of, score, "find_loss", 5)


def find_scores(model: FindNet, val: dict[str, np.ndarray]) -> dict[str, float]:
    """Share of labelled dice with a heat peak above 0.3 within 2 cells, and false peaks per view."""
    model.eval()
    found = missed = false = 0
    with torch.no_grad():
        for i in range(0, len(val["views"]), 32):
            heat = torch.sigmoid(model(torch.from_numpy(standardise(val["views"][i:i + 32]))))[:, 0].numpy()
            for h, target in zip(heat, val["heats"][i:i + 32].astype(np.float32), strict=True):
                peaks = (h >= cv2.dilate(h, np.ones((3, 3), np.uint8))) & (h >= 0.3)
                truth = (target >= cv2.dilate(target, np.ones((3, 3), np.uint8))) & (target > 0.9)
                near = cv2.dilate(truth.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
                for y, x in zip(*np.nonzero(truth), strict=True):
                    if peaks[max(0, y - 2):y + 3, max(0, x - 2):x + 3].any():
                        found += 1
                    else:
                        missed += 1
                false += int((peaks & ~near).sum())
    return {"val_dice_found": round(found / max(1, found + missed), 4),
            "val_false_peaks_per_view": round(false / max(1, len(val["views"])), 3)}


def train_read(data: dict[str, np.ndarray], val: dict[str, np.ndarray] | None, epochs: int, batch: int,
               rng: np.random.Generator, init: Path | None = None, invert: float = 0.0,
               max_lr: float = 3e-3, keep: float = 0.0,
               no_die_share: float | None = None,
               layout: tuple[int | str, ...] = READ_LAYOUTS["plain"]) -> tuple[ReadNet, list[dict[str, float]]]:
    """The reader, afresh or fine-tuned from ``init``; ``keep`` > 0 (with ``init``) also pulls its
    outputs towards the initial reader's on every crop, those shown in negative too (learning
    without forgetting: what it learnt from data not in this run stays); ``no_die_share``: the
    no-die crops weigh this share of the value loss, whatever the mix of this run (chosen by hand:
    a mix of mostly dice teaches it to see dice everywhere)."""
    model = from_onnx(init) if init is not None else ReadNet(layout)
    # the initial reader, kept as it is (a copy, not the file read again)
    teacher = copy.deepcopy(model).eval() if init is not None and keep > 0 else None
    crops, values = data["crops"], data["values"].astype(np.int64)
    tilted = data["crop_tilted"].astype(np.float32)
    share = float((tilted > 0.5).sum()) / max(1.0, float((tilted >= 0).sum()))
    pos_weight = torch.tensor([min(10.0, (1 - share) / max(share, 1e-3)) / 2])

    class_weight = None
    if no_die_share is not None:
        n_none, n_dice = float((values == 0).sum()), float((values > 0).sum())
        class_weight = torch.ones(7)
        class_weight[0] = no_die_share / (1 - no_die_share) * n_dice / max(1.0, n_none)

    def loss_of(pick: np.ndarray) -> torch.Tensor:
        x = turned(photometric(inverted(crops[pick], rng, invert), rng), rng)
        if rng.random() < 0.5:  # a mirror keeps "up" at the top
            x = np.ascontiguousarray(x[:, :, ::-1])
        inputs = torch.from_numpy(standardise(x))
        out = model(inputs)
        target = torch.from_numpy(values[pick])
        if class_weight is not None:
            weights = class_weight[target]
            loss = (F.cross_entropy(out[:, :7], target, reduction="none") * weights).sum() / weights.sum()
        else:
            loss = F.cross_entropy(out[:, :7], target)
        if teacher is not None:
            with torch.no_grad():
                old = teacher(inputs)
            loss = loss + keep * (F.kl_div(F.log_softmax(out[:, :7], 1), F.softmax(old[:, :7], 1), reduction="batchmean")
                                  + F.binary_cross_entropy_with_logits(out[:, 7], torch.sigmoid(old[:, 7])))
        dice = tilted[pick] >= 0  # "not flat", on die crops only
        if dice.any():
            loss = loss + 0.5 * F.binary_cross_entropy_with_logits(
                out[:, 7][torch.from_numpy(dice)], torch.from_numpy(tilted[pick][dice]), pos_weight=pos_weight)
        return loss

    score = (lambda: read_scores(model, val)) if val is not None else None
    return model, fit(model, len(crops), epochs, batch, rng, loss_of, score, "read_loss", 5, max_lr)


def read_scores(model: ReadNet, val: dict[str, np.ndarray]) -> dict[str, float]:
    model.eval()
    with torch.no_grad():
        out = torch.cat([model(torch.from_numpy(standardise(val["crops"][i:i + 512])))
                         for i in range(0, len(val["crops"]), 512)]).numpy()
    said = out[:, :7].argmax(1)
    values = val["values"]
    dice = values > 0
    tilted, tilt = val["crop_tilted"], out[:, 7] > 0
    return {"val_value_right": round(float((said[dice] == values[dice]).mean()), 4),
            "val_no_die_right": round(float((said[~dice] == 0).mean()), 4),
            "val_tilted_found": round(float(tilt[tilted == 1].mean()), 4) if (tilted == 1).any() else -1.0,
            "val_flat_called_tilted": round(float(tilt[tilted == 0].mean()), 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="+", type=Path, required=True)
    parser.add_argument("--val", nargs="*", type=Path, default=[])
    parser.add_argument("--out", type=Path, required=True, help="folder for dice_find.onnx and dice_read.onnx")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--read-epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only-read", action="store_true", help="train the reader only")
    parser.add_argument("--only-find", action="store_true", help="train the finder only")
    parser.add_argument("--init-read", type=Path, help="fine-tune this exported reader instead of starting afresh")
    parser.add_argument("--invert", type=float, default=0.0, help="share of reader crops shown in negative")
    parser.add_argument("--read-layout", choices=sorted(READ_LAYOUTS),
                        help="the reader's layers (READ_LAYOUTS; default plain; not with --init-read, "
                             "whose reader keeps its own)")
    parser.add_argument("--read-lr", type=float, default=3e-3, help="the reader's peak learning rate")
    parser.add_argument("--no-die-share", type=float, default=None,
                        help="share of the value loss the no-die crops weigh (default: as they come)")
    parser.add_argument("--keep", type=float, default=0.0,
                        help="with --init-read: weight pulling the reader towards the initial one's outputs")
    args = parser.parse_args(argv)
    if args.no_die_share is not None and not 0 < args.no_die_share < 1:
        parser.error("--no-die-share must lie between 0 and 1")
    if args.keep and args.init_read is None:
        parser.error("--keep pulls towards the reader of --init-read: give one")
    if args.read_layout is not None and args.init_read is not None:
        parser.error("--read-layout with --init-read: a fine-tuned reader keeps the layout it has")
    if args.only_read and args.only_find:
        parser.error("--only-read and --only-find leave nothing to train together")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    data = load(args.train)
    val = load(args.val) if args.val else None
    counts = {"views": len(data["views"]), "dice": int((data["values"] > 0).sum()),
              "no_die": int((data["values"] == 0).sum()), "tilted_frames": int(data["tilted"].sum())}
    print(json.dumps(counts), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    # the run's record beside its models: dice.train.json for both, else the one network's own
    card: dict[str, object] = {
        "seed": args.seed, "threads": args.threads, "train": [p.name for p in args.train],
        "val": [p.name for p in args.val], "train_views": counts["views"], "train_dice": counts["dice"],
        "train_no_die": counts["no_die"], "train_not_flat": int((data["crop_tilted"] == 1).sum()),
        "train_tilted_frames": counts["tilted_frames"],
    }
    if not args.only_find:
        reader, read_history = train_read(data, val, args.read_epochs, 256, rng, args.init_read, args.invert,
                                          args.read_lr, args.keep, args.no_die_share,
                                          READ_LAYOUTS[args.read_layout or "plain"])
        export_reader(reader.eval(), args.out / "dice_read.onnx")
        card.update({"crop_size": CROP, "read_epochs": args.read_epochs, "read_lr": args.read_lr,
                     "invert": args.invert, "keep": args.keep, "no_die_share": args.no_die_share,
                     "init": args.init_read.name if args.init_read is not None else None,
                     "read_layout": "-".join(str(step) for step in reader.layout),
                     "read_parameters": int(sum(p.numel() for p in reader.parameters())),
                     "read_history": read_history})
    if not args.only_read:
        finder, find_history = train_find(data, val, args.epochs, 16, rng)
        finder.eval()
        torch.onnx.export(finder, torch.zeros(1, 3, FIND_H, FIND_W), str(args.out / "dice_find.onnx"),
                          input_names=["view"], output_names=["heat"], opset_version=13, dynamo=False)
        card.update({"epochs": args.epochs, "find_parameters": int(sum(p.numel() for p in finder.parameters())),
                     "find_history": find_history})
    name = "dice_read" if args.only_read else "dice_find" if args.only_find else "dice"
    (args.out / f"{name}.train.json").write_text(json.dumps(card, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
