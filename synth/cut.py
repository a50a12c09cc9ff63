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

from synth.designs import training_design
from vision.dataset import load_dataset

__all__ = ["cut_datasets", "not_for_training"]


def not_for_training(path: Path) -> str | None:
    """Why the dataset at ``path`` must not be trained on: it was rendered of a design held out from
    training, or of one `synth.designs` no longer lists (its ``generator.design``); else None (a
    tuning design, the 2-D renderer's sets and photos, which name none, or no readable dataset
    there: cutting it then says what is wrong)."""
    try:
        generator = load_dataset(path).meta.get("generator")
    except (ValueError, OSError):
        return None
    name = generator.get("design") if isinstance(generator, dict) else None
    if not isinstance(name, str):
        return None
    try:
        training_design(name)
    except ValueError as error:
        return str(error)
    return None


def cut_datasets(argv: list[str] | None, doc: str, cut: Callable[[Path, int, int], dict[str, np.ndarray]],
                 describe: Callable[[dict[str, np.ndarray]], str], *, jitter: int,
                 name: Callable[[Path], str] = lambda path: path.name, skip_bad: bool = False) -> int:
    """``DATASET... --out DIR [--jitter N] [--seed S] [--measure]``: ``cut(path, jitter, seed)`` of
    each dataset not cut yet to ``DIR/<name(path)>.npz`` (the seed is ``S`` plus the dataset's place
    in the list).  A dataset of a held-out design (`not_for_training`), cut already or not, stops the
    run (exit 2) unless ``--measure``; one that cannot be cut stops it too, or is skipped with
    ``skip_bad``."""
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
        # never skipped, even when cut already: a training run without it is not what was asked
        reason = None if args.measure else not_for_training(path)
        if reason:
            print(f"referee: {path}: {reason}", file=sys.stderr)
            return 2
        target = args.out / f"{name(path)}.npz"
        if target.exists():
            continue
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
