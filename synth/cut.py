"""One ``.npz`` per labelled dataset: the command line shared by the data cutters of the learned
parts (synth.checker_data, synth.gate_data, synth.dice_data).  A set of a held-out 3-D design
(synth.designs) is cut only with ``--measure`` (validation sets of a training run, a script that
scores a reader): the readers are measured on those designs, never trained on them, and the
training recipes (the Makefile's `train-*`) never pass it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from synth.designs import design as find_design
from vision.dataset import load_dataset

__all__ = ["cut_datasets", "refuse_held_out"]


def refuse_held_out(path: Path) -> None:
    """ValueError when the dataset at ``path`` was rendered of a design held out from training (its
    ``generator.design``; the 2-D renderer's sets and photos name none)."""
    generator = load_dataset(path).meta.get("generator")
    name = generator.get("design") if isinstance(generator, dict) else None
    if isinstance(name, str) and find_design(name).held_out:
        raise ValueError(f"{name} is a held-out design: never trained on")


def cut_datasets(argv: list[str] | None, doc: str, cut: Callable[[Path, int, int], dict[str, np.ndarray]],
                 describe: Callable[[dict[str, np.ndarray]], str], *, jitter: int,
                 name: Callable[[Path], str] = lambda path: path.name, skip_bad: bool = False) -> int:
    """``DATASET... --out DIR [--jitter N] [--seed S] [--measure]``: ``cut(path, jitter, seed)`` of
    each dataset not cut yet to ``DIR/<name(path)>.npz`` (the seed is ``S`` plus the dataset's place
    in the list).  A dataset of a held-out design (`refuse_held_out`) stops the run (exit 2) unless
    ``--measure``; one that cannot be cut stops it too, or is skipped with ``skip_bad``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jitter", type=int, default=jitter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measure", action="store_true",
                        help="cut sets of held-out designs too: for measuring a reader, never for training it")
    args: Any = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(args.datasets):
        target = args.out / f"{name(path)}.npz"
        if target.exists():
            continue
        try:
            if not args.measure:
                refuse_held_out(path)
        except ValueError as error:  # never skipped: a training run without it is not what was asked
            print(f"referee: {path}: {error}", file=sys.stderr)
            return 2
        try:
            data = cut(path, args.jitter, args.seed + i)
        except (ValueError, OSError) as error:
            print(f"{'skipped' if skip_bad else 'referee'}: {path}: {error}", file=sys.stderr)
            if skip_bad:
                continue
            return 2
        np.savez_compressed(target, **data)
        print(f"{target}: {describe(data)}")
    return 0
