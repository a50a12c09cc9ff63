"""Merge dice readers trained alike from different seeds into one model whose reading is the mean
of theirs (vision/models/dice_read.onnx): for each crop, the members' probabilities of "no die"
and of each value averaged, and their probabilities that the die does not lie flat averaged.

The merged model gives what one reader gives (seven logits and a "not flat" logit: log
probabilities, which the softmax and the sigmoid of `vision.dice_learned` turn back into the
means), so the appliance reads it exactly as it reads one reader.

Development only (needs PyTorch and onnx, as synth.train_dice):

    python -m synth.merge_readers MEMBER_DIR... --out vision/models

Each MEMBER_DIR holds a ``dice_read.onnx`` and the ``dice_read.train.json`` its run wrote
(``synth.train_dice --only-read``); the merged record, ``dice_read.train.json`` in ``--out``,
lists the members' records in the order given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
import torch.nn as nn

from synth.train_dice import ReadNet, export_reader, from_onnx

#: probabilities are kept off 0 and 1 by this much before their logarithms
EPSILON = 1e-7


class MeanReader(nn.Module):
    """The members' readings averaged as probabilities, given back as logits."""

    def __init__(self, members: list[ReadNet]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = [member(x) for member in self.members]
        values = torch.stack([torch.softmax(o[:, :7], dim=1) for o in outs]).mean(0)
        flat = torch.stack([torch.sigmoid(o[:, 7:]) for o in outs]).mean(0).clamp(EPSILON, 1 - EPSILON)
        return torch.cat([torch.log(values.clamp_min(EPSILON)), torch.log(flat) - torch.log1p(-flat)], dim=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("members", nargs="+", type=Path, help="folders each holding dice_read.onnx and its record")
    parser.add_argument("--out", type=Path, required=True, help="folder for the merged dice_read.onnx")
    args = parser.parse_args(argv)
    if len(args.members) < 2:
        parser.error("give at least two members to merge")
    for folder in args.members:
        for name in ("dice_read.onnx", "dice_read.train.json"):
            if not (folder / name).is_file():
                parser.error(f"{folder} has no {name}")
    merged = MeanReader([from_onnx(folder / "dice_read.onnx").eval() for folder in args.members]).eval()
    args.out.mkdir(parents=True, exist_ok=True)
    export_reader(merged, args.out / "dice_read.onnx")
    record = {
        "merged": "mean of the members' probabilities (no die and each value; not flat)",
        "read_parameters": int(sum(p.numel() for p in merged.parameters())),
        "members": [json.loads((folder / "dice_read.train.json").read_text(encoding="utf-8"))
                    for folder in args.members],
    }
    (args.out / "dice_read.train.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
