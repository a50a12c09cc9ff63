"""Render3d benchmark: seconds per 1280x720 frame of the physically based renderer (POV-Ray).

Renders ``--frames`` frames of each design (default: one tuning and one held-out design) at the
standard quality (and ``--fine``: anti-aliased) and prints the seconds per frame (references
included in the total).  ``--from-cache DIR`` instead summarises the ``timing.json`` that
`referee render3d` writes beside every dataset under DIR.  The machine's other load shows in the
figures: run it on a quiet machine.  ``--eval DIR`` reads every dataset under DIR with today's
reader (`referee vision eval`, with the hand gate and with it overruled) and prints the README's
table: one row per design, then the held-out and the tuning designs pooled over their frames.

    .venv/bin/python bench/render3d.py [--frames 3] [--design NAME ...] [--fine] [--from-cache DIR]
    .venv/bin/python bench/render3d.py --eval DIR [--checkers classical|learned]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synth.dataset3d import render_dataset  # noqa: E402
from synth.povray import povray_available  # noqa: E402


def from_cache(root: Path) -> int:
    rows = []
    for timing in sorted(root.glob("*/timing.json")):
        data = json.loads(timing.read_text(encoding="utf-8"))
        meta = json.loads((timing.parent / "dataset.json").read_text(encoding="utf-8"))
        rows.append((timing.parent.name, meta["generator"]["kind"], len(meta["frames"]), data["seconds_per_frame"],
                     data["quality"]))
    if not rows:
        print(f"no timing.json under {root}", file=sys.stderr)
        return 2
    for name, kind, frames, seconds, quality in rows:
        print(f"{name:30s} {kind:9s} {frames:4d} frames {seconds:6.2f} s/frame ({quality})")
    per = [r[3] for r in rows]
    print(f"{'all':30s} median {statistics.median(per):.2f} s/frame, range {min(per):.2f}-{max(per):.2f}")
    return 0


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def evaluate_all(root: Path, checkers: str) -> int:
    from vision.config import VisionConfig
    from vision.evaluate import evaluate, summarise

    rows = []
    pooled: dict[tuple[str, bool], list] = {}
    for meta_path in sorted(root.glob("*/dataset.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        kind = meta["generator"]["kind"]
        for gate in (True, False):
            summary, results = evaluate(meta_path.parent, VisionConfig(checker_reader=checkers), gate=gate)
            pooled.setdefault((kind, gate), []).extend(results)
            rows.append((meta_path.parent.name, kind, gate, summary))
    if not rows:
        print(f"no datasets under {root}", file=sys.stderr)
        return 2
    keyed = {(name, gate): summary for name, _, gate, summary in rows}
    print("| design | frames | clear refused (gate) | hands refused | point_accuracy (gate) | point_accuracy | "
          "board_exact | dice_exact | valid_flagged_void | void_detected |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    lines = []
    for name, kind, gate, _ in rows:
        if not gate:
            continue
        lines.append((f"{name} ({kind})", keyed[(name, True)], keyed[(name, False)]))
    for kind in ("held-out", "tuning"):
        if (kind, True) in pooled:
            lines.append((f"**{kind} together**", summarise(pooled[(kind, True)]), summarise(pooled[(kind, False)])))
    for title, on, off in lines:
        print(f"| {title} | {on['frames']} | {_fmt(on['false_occlusion'])} | {_fmt(on['occlusion_refused'])} | "
              f"{_fmt(on['point_accuracy'], 3)} | {_fmt(off['point_accuracy'], 3)} | {_fmt(off['board_exact'])} | "
              f"{_fmt(off['dice_exact'])} | {_fmt(off['valid_flagged_void'])} | {_fmt(off['void_detected'])} |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--design", action="append", default=None)
    parser.add_argument("--fine", action="store_true", help="also time the anti-aliased quality")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--from-cache", type=Path, default=None)
    parser.add_argument("--eval", type=Path, default=None, help="read every dataset under this directory")
    parser.add_argument("--checkers", choices=["classical", "learned"], default="classical")
    args = parser.parse_args()
    if args.eval is not None:
        return evaluate_all(args.eval, args.checkers)
    if args.from_cache is not None:
        return from_cache(args.from_cache)
    if not povray_available():
        print("POV-Ray is not installed (make setup installs Debian's povray)", file=sys.stderr)
        return 2
    w, h = (int(v) for v in args.size.split("x"))
    designs = args.design or ["tournament-felt-green", "tavla-mahogany-carved"]
    qualities = ["standard"] + (["fine"] if args.fine else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name in designs:
            for quality in qualities:
                seconds: list[float] = []
                t0 = time.perf_counter()
                render_dataset(Path(tmp) / f"{name}-{quality}", name, args.frames, 1901, (w, h), quality=quality,
                               progress=lambda i, n, s, got=seconds: got.append(s))
                total = time.perf_counter() - t0
                print(f"{name:30s} {quality:8s} {w}x{h}: median {statistics.median(seconds):.2f} s/frame, "
                      f"max {max(seconds):.2f}; {total:.1f} s for {args.frames} frames + 2 references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
