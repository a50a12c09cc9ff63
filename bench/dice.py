"""Accuracy and speed of `vision.dice.read_dice` on the real dice photos (not a test; prints).

    .venv/bin/python bench/dice.py [--subset all|odd|even] [--data DIR] [--show-failures]

A photo counts as correct when the multiset of values read equals the labelled multiset.
Photos are split by the number in their name (odd = tuning subset, even = held out).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synth.dice_photos import photo_number, photos_in  # noqa: E402
from vision.dice import read_dice_timed  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "dice-photos" / "images"


def labelled_values(txt: Path) -> list[int]:
    return sorted(int(line.split()[0]) + 1 for line in txt.read_text().splitlines() if line.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--subset", choices=["all", "odd", "even"], default="all")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args(argv)
    photos = photos_in(args.data, args.subset)
    ok = 0
    times = []
    per_split: Counter[str] = Counter()
    per_split_n: Counter[str] = Counter()
    failures = []
    t_start = time.perf_counter()
    for p in photos:
        img = cv2.imread(str(p))
        if img is None:
            raise SystemExit(f"cannot read {p}")
        readings, tm = read_dice_timed(img)
        times.append(tm.total_ms)
        got = sorted(r.value for r in readings)
        want_v = labelled_values(p.with_suffix(".txt"))
        split = "odd" if photo_number(p) % 2 else "even"
        per_split_n[split] += 1
        if got == want_v:
            ok += 1
            per_split[split] += 1
        else:
            failures.append((p.stem, want_v, got))
    wall = time.perf_counter() - t_start
    print(f"photos {len(photos)}  exact {ok}  accuracy {ok / max(1, len(photos)):.4f}")
    for split in ("odd", "even"):
        if per_split_n[split]:
            print(f"  {split}: {per_split[split]}/{per_split_n[split]} = {per_split[split] / per_split_n[split]:.4f}")
    if times:
        print(f"read_ms median {statistics.median(times):.1f}  p95 {sorted(times)[int(0.95 * (len(times) - 1))]:.1f}"
              f"  (wall {wall:.1f} s incl. JPEG decode)")
    if args.show_failures:
        for name, want_v, got in failures:
            print(f"  FAIL {name}: labelled {want_v} read {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
