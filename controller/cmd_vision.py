"""`referee vision eval|read|dice` and `referee render` (INTERFACES.md §2)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    """Add this group's sub-commands to the `referee` parser."""
    vision = commands.add_parser("vision", help="read camera frames: eval, read, dice")
    sub = vision.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    sub.required = True

    ev = sub.add_parser("eval", help="score every frame of a labelled dataset")
    ev.add_argument("dataset", metavar="DATASET")
    ev.add_argument("--json", action="store_true", help="print the summary as JSON")
    ev.add_argument("--csv", metavar="FILE", help="write one row per frame")
    ev.add_argument("--limit", type=int, default=None, help="only the first N frames")
    ev.add_argument("--checkers", choices=["auto", "classical", "learned"], default="auto",
                    help="how the points' checkers are counted (learned: the CNN of vision/models); auto (default): classical on the 2-D renderer's datasets, learned on others")
    ev.add_argument("--hands", choices=["auto", "classical", "learned"], default="auto",
                    help="how the gate tells a hand over the board (learned: the CNN of vision/models); auto (default): classical on the 2-D renderer's datasets, learned on others")
    ev.add_argument("--dice", choices=["auto", "classical", "learned"], default="auto",
                    help="dice reader: classical (vision.dice) or learned (vision.dice_learned); auto (default): classical on the 2-D renderer's datasets, learned on others")
    ev.add_argument("--no-gate", action="store_true",
                    help="read every frame whatever the hand gate says (to measure the readers alone)")
    ev.add_argument("--no-references", action="store_true",
                    help="read each frame from that photo and the corners alone (no empty or start photo)")
    ev.add_argument("--game-totals", action="store_true",
                    help="read each frame as the referee does in a game, knowing each side's checkers on the board "
                         "(the labels' counts, the side on roll perhaps bearing off up to four)")
    ev.set_defaults(func=_eval)

    rd = sub.add_parser("read", help="read one frame of a calibrated board")
    rd.add_argument("dataset", metavar="DATASET", help="dataset whose calibration (corners, references) to use")
    rd.add_argument("image", metavar="IMAGE")
    rd.add_argument("--json", action="store_true", help="JSON output (the default is also JSON)")
    rd.set_defaults(func=_read)

    di = sub.add_parser("dice", help="find and read the dice in a photo")
    di.add_argument("image", metavar="IMAGE")
    di.add_argument("--json", action="store_true")
    di.set_defaults(func=_dice)

    rn = commands.add_parser("render", help="synthetic camera frames with exact labels")
    rn.add_argument("--position", metavar="ID", help="position ID (gnubg, nardy:…) or JSON board")
    rn.add_argument("--variant", default=None, help="variant of an unprefixed ID (default backgammon)")
    rn.add_argument("--dice", default="", help="dice on the board, e.g. 31 (one digit: an opening die)")
    rn.add_argument("--roll", default="valid",
                    choices=["valid", "different_halves", "cocked", "on_checker", "off_board"],
                    help="how the dice lie")
    rn.add_argument("--on-roll", default="light", choices=["light", "dark"], help="colour of the side on roll")
    rn.add_argument("--orientation", default="bottom-right", help="where light's home board lies")
    rn.add_argument("--hand", action="store_true", help="a hand over the board (occluded)")
    rn.add_argument("--style", default=None, help="board style: tournament, wooden, felt")
    rn.add_argument("--checkers", default=None, help="checker colours, e.g. white-red")
    rn.add_argument("--seed", type=int, default=0)
    rn.add_argument("-o", "--output", metavar="FILE", help="image to write (label beside it as .json)")
    rn.add_argument("--dataset", metavar="DIR", help="write a whole labelled dataset instead")
    rn.add_argument("--frames", type=int, default=100)
    rn.add_argument("--occluded-rate", type=float, default=0.12)
    rn.set_defaults(func=_render)


def _print_summary(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary))
        return
    for key, value in summary.items():
        if value is None:
            text = "n/a"
        elif isinstance(value, float):
            text = f"{value:.4f}" if "ms" not in key else f"{value:.1f}"
        else:
            text = str(value)
        print(f"{key:20s} {text}")


def _eval(args: argparse.Namespace) -> int:
    from vision.config import VisionConfig
    from vision.dataset import load_dataset
    from vision.evaluate import evaluate

    config = VisionConfig.with_readers(f"checkers={args.checkers},dice={args.dice},hands={args.hands}",
                                       synthetic=load_dataset(args.dataset).rendered_2d)
    summary, _ = evaluate(args.dataset, config, csv_path=args.csv, limit=args.limit,
                          references=not args.no_references, gate=not args.no_gate, totals=args.game_totals)
    _print_summary(summary if args.json else {**summary, "readers": config.readers()}, args.json)
    return 0


def _read(args: argparse.Namespace) -> int:
    from vision.config import VisionConfig
    from vision.dataset import calibration_for, load_dataset, read_image
    from vision.pipeline import Reader

    dataset = load_dataset(args.dataset)
    config = VisionConfig.with_readers("auto", synthetic=dataset.rendered_2d)
    path = Path(args.image)
    if not path.is_file() and (dataset.root / path).is_file():
        path = dataset.root / path
    image = read_image(path)
    calib = calibration_for(dataset, config, image_size=(image.shape[1], image.shape[0]), frame=image)
    observation = Reader(calib, config).read(image)
    out = observation.to_json()
    # The position as the rules see it, light on roll, light's home board bottom right
    # (INTERFACES §3 board frame); null when the frame was refused or cannot be a position.
    out["position"] = None
    if observation.points is not None:
        try:
            position = observation.to_position("backgammon", light_on_roll=True)
        except ValueError:
            position = None
        if position is not None and position.is_valid():
            out["position"] = position.id
    print(json.dumps(out))
    return 0


def _dice(args: argparse.Namespace) -> int:
    from vision.dataset import read_image
    from vision.pipeline import dice_module

    module = dice_module()
    if module is None:
        raise ValueError("the dice reader (vision.dice) is not installed")
    image = read_image(args.image)
    dice = module.read_dice(image)
    out = {"dice": [{"value": int(d.value), "box": [int(round(v)) for v in d.box]} for d in dice]}
    if args.json:
        print(json.dumps(out))
    else:
        values = " ".join(str(d["value"]) for d in out["dice"]) or "no dice"
        print(values)
    return 0


def _parse_dice(text: str) -> tuple[int, ...]:
    text = text.strip()
    if not text:
        return ()
    if not text.isdigit() or len(text) > 2 or any(c not in "123456" for c in text):
        raise ValueError(f"dice {text!r} must be one or two digits 1..6, e.g. 31")
    return tuple(int(c) for c in text)


def _render(args: argparse.Namespace) -> int:
    import cv2

    from rules.position import Position
    from vision import render
    from vision.observation import ORIENTATIONS

    if args.dataset:
        if args.frames < 1:
            raise ValueError("--frames must be at least 1")
        if not 0 <= args.occluded_rate <= 1:
            raise ValueError("--occluded-rate must be between 0 and 1")
        out = render.render_dataset(args.dataset, args.frames, args.seed, style=args.style,
                                    checkers=args.checkers, occluded_rate=args.occluded_rate)
        print(f"wrote {args.frames} frames to {out}")
        return 0
    if not args.position or not args.output:
        raise ValueError("give --position ID and -o FILE (or --dataset DIR)")
    if args.orientation not in ORIENTATIONS:
        raise ValueError(f"--orientation must be one of {', '.join(ORIENTATIONS)}")
    if args.style is not None and args.style not in render.BOARD_STYLES:
        raise ValueError(f"unknown board style {args.style!r} (one of {', '.join(render.BOARD_STYLES)})")
    if args.checkers is not None and args.checkers not in render.CHECKER_PAIRS:
        raise ValueError(f"unknown checker colours {args.checkers!r} (one of {', '.join(render.CHECKER_PAIRS)})")
    position = Position.parse(args.position, args.variant)
    dice = _parse_dice(args.dice)
    import numpy as np

    rng = np.random.default_rng(args.seed)
    setup = render.random_setup(rng, args.style or "tournament", args.checkers)
    scene = render.scene_from_position(position, dice, light_on_roll=args.on_roll == "light", seed=args.seed,
                                       hand=args.hand, roll=args.roll, orientation=args.orientation,
                                       aspect=setup.board.aspect)
    image, label = render.render(setup, scene)
    output = Path(args.output)
    if output.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise ValueError(f"output {str(output)!r} must end in .png or .jpg")
    if not cv2.imwrite(str(output), image):
        raise ValueError(f"could not write {str(output)!r}")
    label["corners"] = [[round(float(x), 2), round(float(y), 2)] for x, y in setup.corners]
    label["position"] = position.id
    output.with_suffix(".json").write_text(json.dumps(label) + "\n", encoding="utf-8")
    print(f"wrote {output}", file=sys.stdout)
    return 0
