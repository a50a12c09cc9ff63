"""`referee render3d`: the physically based renderer's datasets, designs and contact sheets
(INTERFACES.md §6; issue 19)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(commands: Any) -> None:
    """Add `render3d` to the `referee` parser."""
    r3 = commands.add_parser("render3d", help="ray-traced (POV-Ray) frames of real-looking boards with exact labels")
    r3.add_argument("--list-designs", action="store_true",
                    help="print the board designs: NAME<TAB>held-out|tuning<TAB>description")
    r3.add_argument("--dataset", metavar="DIR", help="write a labelled referee-frames/1 dataset")
    r3.add_argument("--design", metavar="NAME", help="board design (see --list-designs)")
    r3.add_argument("--frames", type=int, default=40)
    r3.add_argument("--seed", type=int, default=0)
    r3.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT (default 1280x720)")
    r3.add_argument("--same-light", action="store_true",
                    help="play under the calibration light (the lamp not moved)")
    r3.add_argument("--dice-variety", action="store_true",
                    help="every frame's dice of their own colours (any common set), not the design's")
    r3.add_argument("--occluded-rate", type=float, default=0.15, help="share of frames with a hand over the board")
    r3.add_argument("--bar-rate", type=float, default=0.2,
                    help="share of frames in which each side has checkers on the bar (default 0.2)")
    r3.add_argument("--recolour", action="store_true",
                    help="the board and checkers in colours of their own (any hue, dark to light): training data "
                         "from a tuning design, or a held-out design to measure on (still held out)")
    r3.add_argument("--fine", action="store_true", help="anti-aliased (about twice the time)")
    r3.add_argument("--threads", type=int, default=None, help="POV-Ray render threads (default: all cores)")
    r3.add_argument("--contact-sheet", metavar="DIR", help="draw a dataset's frames with their labels")
    r3.add_argument("-o", "--output", metavar="FILE", help="contact sheet image to write (.png/.jpg)")
    r3.add_argument("--limit", type=int, default=None, help="contact sheet: only the first N frames")
    r3.add_argument("--columns", type=int, default=4, help="contact sheet: frames per row")
    r3.add_argument("--quiet", action="store_true", help="no progress lines")
    r3.set_defaults(func=_render3d)


def _render3d(args: argparse.Namespace) -> int:
    from synth import dataset3d

    if args.list_designs:
        for line in dataset3d.list_designs():
            print(line)
        return 0
    if args.contact_sheet:
        if not args.output:
            raise ValueError("give -o FILE for the contact sheet")
        if not args.output.lower().endswith((".png", ".jpg", ".jpeg")):
            raise ValueError(f"output {args.output!r} must end in .png or .jpg")
        if not 1 <= args.columns <= 12:
            raise ValueError("--columns must be 1 to 12")
        n = dataset3d.contact_sheet(args.contact_sheet, args.output, columns=args.columns, limit=args.limit)
        print(f"wrote {args.output} ({n} frames)")
        return 0
    if not args.dataset or not args.design:
        raise ValueError("give --dataset DIR --design NAME (or --list-designs, or --contact-sheet DIR -o FILE)")
    if args.frames < 1:
        raise ValueError("--frames must be at least 1")
    if not 0 <= args.occluded_rate <= 1:
        raise ValueError("--occluded-rate must be between 0 and 1")
    if not 0 <= args.bar_rate <= 1:
        raise ValueError("--bar-rate must be between 0 and 1")
    size = dataset3d.parse_size(args.size)
    dataset3d.design(args.design)  # unknown design: one line, before anything is written

    def progress(i: int, n: int, seconds: float) -> None:
        if not args.quiet:
            print(f"frame {i}/{n} {seconds:.1f} s", file=sys.stderr, flush=True)

    out = dataset3d.render_dataset(args.dataset, args.design, args.frames, args.seed, size,
                                   same_light=args.same_light, occluded_rate=args.occluded_rate,
                                   dice_variety=args.dice_variety, bar_rate=args.bar_rate, recolour=args.recolour,
                                   quality="fine" if args.fine else "standard", threads=args.threads,
                                   progress=progress)
    print(f"wrote {args.frames} frames to {out}")
    return 0
