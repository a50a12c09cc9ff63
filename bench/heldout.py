"""The README's held-out table: the 3-D yardstick's held-out designs at fresh seeds, rendered when
missing and read by `referee vision eval`'s code, one row per design and seed, then pooled.

    .venv/bin/python bench/heldout.py --seed 31047 [--seed ...] [--cache DIR] [--jobs 2]
        [--frames 30] [--render-only] [--csv-dir DIR] [--checkers/--dice/--hands auto|learned|classical]
        [--no-gate] [--no-references] [--game-totals] [--recolour] [--design NAME ...]

Without ``--seed`` (as ``make bench`` runs it) a smoke run: seed 39001, 3 frames a design.
A set is ``CACHE/h{SEED}-{DESIGN}`` (``-f{FRAMES}`` after it when not 30), rendered as ``referee render3d --dataset DIR --design DESIGN
--frames 30 --seed SEED`` (1280x720, the lamp moved since calibration, a hand over 15 % of frames;
the same bytes on every machine), POV-Ray on one thread per job.  Each set is read as ``referee
vision eval DIR`` reads it (readers ``auto``: all three learned parts on these renders) and its
per-frame rows written to ``--csv-dir`` when given.  A seed counts as held out only until its
frames' failures are looked at: read it once, then say so.

Columns, over each set's frames: clear / hand frames; hands refused; clear frames refused; per-point
accuracy and boards exact over the clear frames (a refused one wrong on every point); dice exact and
valid rolls called void over the clear valid rolls; void rolls found; of the boards read wrong /
right, how many were doubted (below the referee's question threshold).

``--recolour``: the held-out designs painted anew for each seed (``referee render3d --recolour``:
field, points, frame and checkers in colours of their own, the rest as without), sets
``CACHE/h{SEED}-{DESIGN}-recoloured``: boards never trained on, in colours never seen.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synth.designs import DESIGNS  # noqa: E402
from vision.evaluate import FrameResult, tallies  # noqa: E402

HELD_OUT = tuple(d.name for d in DESIGNS if d.held_out)
SMOKE_SEED, SMOKE_FRAMES = 39001, 3
DEFAULT_CACHE = Path.home() / ".cache" / "referee-heldout"
HEADER = ("held-out design, seed", "clear / hand", "hands refused", "clear refused", "per-point", "boards exact",
          "dice exact", "void found", "valid→void", "wrong / right boards doubted")
GOAL = ("goal", "", "≥ 0.99", "≤ 0.01", "≥ 0.995", "≥ 0.97", "≥ 0.99", "≥ 0.95", "≤ 0.01", "≥ 0.9 / ≤ 0.05")


def set_dir(cache: Path, seed: int, design: str, frames: int, recolour: bool = False) -> Path:
    name = f"h{seed}-{design}" + ("" if frames == 30 else f"-f{frames}")
    return cache / (name + ("-recoloured" if recolour else ""))


def render(cache: Path, seeds: Sequence[int], designs: Sequence[str], frames: int, jobs: int,
           recolour: bool = False) -> list[str]:
    """Render every set not yet whole (no dataset.json) as `referee render3d` does
    (`synth.dataset3d.render_dataset`), ``jobs`` at once; the failures' one-line messages."""
    from synth.dataset3d import render_dataset

    todo = [(s, d) for s in seeds for d in designs
            if not (set_dir(cache, s, d, frames, recolour) / "dataset.json").is_file()]

    def one(item: tuple[int, str]) -> str | None:
        seed, design = item
        out = set_dir(cache, seed, design, frames, recolour)
        print(f"rendering {out.name} ({frames} frames)", file=sys.stderr, flush=True)
        try:
            render_dataset(out, design, frames, seed, threads=1, recolour=recolour)
        except (ValueError, OSError, RuntimeError) as error:
            return f"{out.name}: {error}"
        return None

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return [m for m in pool.map(one, todo) if m]


def row(name: str, results: Sequence[FrameResult]) -> tuple[str, ...]:
    """One line of the table: `vision.evaluate.tallies` of the frames' scores, as shares with
    their counts."""
    counts = tallies(list(results))

    def share(key: str) -> str:
        num, den = counts[key]
        return "—" if den == 0 else f"{num / den:.2f} ({num}/{den})"

    points, of_points = counts["point_accuracy"]
    clear, hands = counts["false_occlusion"][1], counts["occlusion_refused"][1]
    doubted_wrong, wrong = counts["wrong_doubted"]
    doubted_right, right = counts["right_doubted"]
    return (name, f"{clear} / {hands}", share("occlusion_refused"), share("false_occlusion"),
            "—" if not of_points else f"{points / of_points:.3f}", share("board_exact"), share("dice_exact"),
            share("void_detected"), share("valid_flagged_void"),
            f"{f'{doubted_wrong} of {wrong}' if wrong else '—'} / {doubted_right} of {right}")


def markdown(rows: Sequence[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in (*rows, GOAL)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, action="append",
                        help=f"a fresh seed (repeat for more); none: a smoke run of seed {SMOKE_SEED}, {SMOKE_FRAMES} frames")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"where the sets live (default {DEFAULT_CACHE})")
    parser.add_argument("--design", action="append", choices=HELD_OUT, help="only these held-out designs")
    parser.add_argument("--frames", type=int, default=None, help="frames per set (default 30)")
    parser.add_argument("--jobs", type=int, default=2, help="sets rendered at once, one POV-Ray thread each")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--csv-dir", type=Path, help="write each set's per-frame rows here (SET.csv)")
    for part in ("checkers", "dice", "hands"):
        parser.add_argument(f"--{part}", choices=["auto", "classical", "learned"], default="auto")
    parser.add_argument("--no-gate", action="store_true", help="read every frame whatever the hand gate says")
    parser.add_argument("--no-references", action="store_true", help="each frame from that photo and its corners alone")
    parser.add_argument("--game-totals", action="store_true",
                        help="each frame read knowing the game's checkers on the board, as the referee reads "
                             "(vision.evaluate.game_totals)")
    parser.add_argument("--recolour", action="store_true", help="the held-out designs in colours of their own")
    args = parser.parse_args(argv)
    designs = args.design or list(HELD_OUT)
    if not args.seed:  # as `make bench` runs it: a few frames, to show the command works end to end
        args.seed, args.frames = [SMOKE_SEED], args.frames or SMOKE_FRAMES
    args.frames = args.frames or 30

    failures = render(args.cache, args.seed, designs, args.frames, args.jobs, args.recolour)
    if failures:
        for message in failures:
            print(f"heldout: render failed: {message}", file=sys.stderr)
        return 1
    if args.render_only:
        return 0

    import cv2

    from vision.config import VisionConfig
    from vision.evaluate import evaluate

    cv2.setNumThreads(1)
    if args.csv_dir:
        args.csv_dir.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, ...]] = []
    pooled: list[FrameResult] = []
    for seed in args.seed:
        of_seed: list[FrameResult] = []
        for design in designs:
            path = set_dir(args.cache, seed, design, args.frames, args.recolour)
            config = VisionConfig.with_readers(f"checkers={args.checkers},dice={args.dice},hands={args.hands}",
                                               synthetic=False)
            read_as = "-game-totals" if args.game_totals else ""
            csv_path = args.csv_dir / f"{path.name}{read_as}.csv" if args.csv_dir else None
            _, results = evaluate(path, config, csv_path=csv_path, references=not args.no_references,
                                  gate=not args.no_gate, totals=args.game_totals)
            rows.append(row(f"{design}{' recoloured' if args.recolour else ''} {seed}"
                            f"{', game totals' if args.game_totals else ''}", results))
            of_seed += results
        if len(designs) > 1:
            rows.append(row(f"**pooled {seed}**", of_seed))
        pooled += of_seed
    if len(args.seed) > 1:
        rows.append(row("**pooled, seeds " + ", ".join(map(str, args.seed)) + "**", pooled))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
