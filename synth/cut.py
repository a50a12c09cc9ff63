"""One ``.npz`` per labelled dataset: the command line shared by the data cutters of the learned
parts (synth.checker_data, synth.gate_data, synth.dice_data)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cut_datasets"]


def cut_datasets(argv: list[str] | None, doc: str, cut: Callable[[Path, int, int], dict[str, np.ndarray]],
                 describe: Callable[[dict[str, np.ndarray]], str], *, jitter: int,
                 name: Callable[[Path], str] = lambda path: path.name, skip_bad: bool = False) -> int:
    """``DATASET... --out DIR [--jitter N] [--seed S]``: ``cut(path, jitter, seed)`` of each dataset
    not cut yet to ``DIR/<name(path)>.npz`` (the seed is ``S`` plus the dataset's place in the
    list).  A dataset that cannot be cut stops the run (exit 2), or is skipped with ``skip_bad``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jitter", type=int, default=jitter)
    parser.add_argument("--seed", type=int, default=0)
    args: Any = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(args.datasets):
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
