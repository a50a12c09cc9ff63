"""``referee plays`` and ``referee judge`` (INTERFACES.md §2)."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from typing import Any

from rules.errors import IllegalPlay, RulesError
from rules.plays import iter_results, judge
from rules.position import Position
from rules.steps import Dice
from rules.variants import find_variant

MAX_BATCH_LINE = 64 * 1024


def register(commands: Any) -> None:
    plays = commands.add_parser(
        "plays",
        help="list every legal play of a roll",
        description="Every legal play of a roll, one per line: notation and the resulting "
        "position ID (seen from the mover's side).",
    )
    plays.add_argument("--variant", default="backgammon", help="backgammon, nardy, gulbara, sixone")
    plays.add_argument("--position", help="position ID (or a JSON board)")
    plays.add_argument("--dice", help="the roll, e.g. 31")
    plays.add_argument("--batch", metavar="QUERIES.jsonl", help="many queries, one JSON object a line ('-' = stdin)")
    _common(plays)
    plays.set_defaults(func=run_plays)

    judge_cmd = commands.add_parser(
        "judge",
        help="is a position reachable with this roll?",
        description="Exit 0 and the play when AFTER is a legal result of the roll from BEFORE; "
        "exit 1 with the reason and the points that differ when it is not.",
    )
    judge_cmd.add_argument("--variant", default="backgammon")
    judge_cmd.add_argument("--before", required=True, help="position ID before the play")
    judge_cmd.add_argument("--after", required=True, help="position ID after the play (mover's view)")
    judge_cmd.add_argument("--dice", required=True)
    _common(judge_cmd)
    judge_cmd.set_defaults(func=run_judge)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--first-turn", action="store_true", help="the mover's first turn of the game")
    parser.add_argument("--roll-number", type=int, default=None, metavar="N",
                        help="gul bara: the game's Nth roll, both players together (doubles cascade from the 4th)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    parser.add_argument("--json", action="store_true", help="JSON output")


def _options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {pair!r} must be KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def _iter_plays(position: Position, dice: object, first_turn: bool, options: dict[str, Any],
                roll_number: int | None = None) -> Iterator[dict[str, str]]:
    """Each legal play as it is found (a gul bara cascade can have millions: never all held)."""
    if roll_number is not None and roll_number < 1:
        raise ValueError(f"roll number must be 1 or more, not {roll_number}")
    results = iter_results(position, Dice.parse(dice), first_turn=first_turn, options=options,
                           roll_number=roll_number)
    first = next(results, None)  # bad input is refused before anything is printed
    if first is None:
        return
    for result, play in itertools.chain((first,), results):
        if play.steps:
            yield {"notation": play.notation(), "result": result.id}


def _plays_json(position: Position, dice: object, first_turn: bool, options: dict[str, Any],
                roll_number: int | None = None) -> list[dict[str, str]]:
    return list(_iter_plays(position, dice, first_turn, options, roll_number))


def _position(text: str | None, variant: str, what: str, *, strict: bool = True) -> Position:
    if not text:
        raise ValueError(f"{what} is required")
    find_variant(variant)
    return Position.parse(text, variant, strict=strict)


def run_plays(args: argparse.Namespace) -> int:
    options = _options(args.set)
    if args.batch:
        return _run_batch(args.batch, options)
    variant = find_variant(args.variant)
    variant.validate_options(options)
    position = _position(args.position, variant.name, "--position")
    if args.dice is None:
        raise ValueError("--dice is required")
    plays = _iter_plays(position, args.dice, args.first_turn, options, args.roll_number)
    first = next(plays, None)  # errors in the input surface here, before any output
    out = sys.stdout
    if args.json:
        out.write('{"plays": [')
        for number, play in enumerate(itertools.chain((first,) if first else (), plays)):
            out.write((", " if number else "") + json.dumps(play))
        out.write("]}\n")
    else:
        for play in itertools.chain((first,) if first else (), plays):
            out.write(f"{play['notation']}\t{play['result']}\n")
    out.flush()
    return 0


def _batch_query(line: str, defaults: dict[str, str]) -> dict[str, Any]:
    try:
        query = json.loads(line)
    except json.JSONDecodeError as error:
        return {"error": f"not valid JSON: {error.msg}"}
    except RecursionError:
        return {"error": "not valid JSON: nested too deeply"}
    if not isinstance(query, dict):
        return {"error": "each line must be a JSON object"}
    try:
        variant = find_variant(str(query.get("variant", "backgammon")))
        options = dict(defaults)
        given = query.get("options") or {}
        if not isinstance(given, dict):
            return {"error": "options must be an object"}
        options.update(given)
        variant.validate_options(options)
        if "position" not in query or "dice" not in query:
            return {"error": "a query needs position and dice"}
        position = Position.parse(str(query["position"]), variant.name)
        first_turn = query.get("first_turn", False)
        if not isinstance(first_turn, bool):
            return {"error": "first_turn must be true or false"}
        roll_number = query.get("roll_number")
        if roll_number is not None and (not isinstance(roll_number, int) or isinstance(roll_number, bool)):
            return {"error": "roll_number must be a whole number"}
        return {"plays": _plays_json(position, query["dice"], first_turn, options, roll_number)}
    except (RulesError, ValueError) as error:
        return {"error": str(error)}


def _run_batch(path: str, defaults: dict[str, str]) -> int:
    """Answer each line; a line longer than MAX_BATCH_LINE ends the batch (exit 2).

    Lines are read at most MAX_BATCH_LINE + 1 characters at a time, so memory stays bounded
    whatever the input (``/dev/zero`` has no line ends at all): an over-long line is answered
    with an error and the batch stops there, since finding where it ends could take forever.
    """
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")  # noqa: SIM115
    try:
        out = sys.stdout
        number = 0
        while True:
            line = stream.readline(MAX_BATCH_LINE + 1)
            if not line:
                break
            number += 1
            if len(line) > MAX_BATCH_LINE and not line.endswith("\n"):
                out.write(json.dumps({"error": f"line {number} is longer than {MAX_BATCH_LINE} characters"}) + "\n")
                out.flush()
                raise ValueError(f"line {number} is longer than {MAX_BATCH_LINE} characters; batch stopped there")
            if not line.strip():
                continue
            out.write(json.dumps(_batch_query(line, defaults)) + "\n")
        out.flush()
    finally:
        if stream is not sys.stdin:
            stream.close()
    return 0


def run_judge(args: argparse.Namespace) -> int:
    options = _options(args.set)
    variant = find_variant(args.variant)
    variant.validate_options(options)
    before = _position(args.before, variant.name, "--before")
    after = _position(args.after, variant.name, "--after", strict=False)
    dice = Dice.parse(args.dice)
    try:
        if args.roll_number is not None and args.roll_number < 1:
            raise ValueError(f"--roll-number must be 1 or more, not {args.roll_number}")
        play = judge(before, after, dice, first_turn=args.first_turn, options=options,
                     roll_number=args.roll_number)
    except IllegalPlay as error:
        nearest = error.nearest if isinstance(error.nearest, Position) else None
        if args.json:
            print(json.dumps({
                "legal": False,
                "reason": error.reason,
                "detail": error.detail,
                "points": list(error.points),
                "nearest": nearest.id if nearest else None,
            }))
        else:
            print(f"illegal: {error}")
            if error.points:
                names = ["bar" if p == 25 else "off" if p == 0 else str(p) for p in error.points]
                print(f"points that differ: {' '.join(names)}")
            if nearest is not None:
                print(f"nearest legal result: {nearest.id}")
        return 1
    if args.json:
        print(json.dumps({"legal": True, "play": play.notation(), "result": after.id}))
    else:
        print(f"legal: {play.notation()}")
    return 0
