"""`referee import` and `referee export`: GNU Backgammon match files <-> game journals."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from recording.export import FORMATS, export_journal, import_to_journal
from recording.moves import IllegalRecord


def register(commands: Any) -> None:
    """Add this group's sub-commands to the `referee` parser."""
    imp = commands.add_parser(
        "import",
        help="turn a GNU Backgammon .mat or .sgf file into a journal, validating every play",
        description="Read a .mat or .sgf match file, check every play with the rules engine and "
        "store it as a new game journal. Exit 1 naming the first illegal play.",
    )
    imp.add_argument("file", metavar="FILE", help="a .mat or .sgf match file")
    imp.add_argument("-o", "--output", metavar="JOURNAL", required=True, help="the journal to create")
    imp.add_argument("--device", default="", help="device name to record in the journal header")
    imp.set_defaults(func=run_import)

    exp = commands.add_parser(
        "export",
        help="write a game record (mat, sgf, json, txt) from a journal",
        description="Write a game record derived from a journal, atomically. .mat and .sgf hold "
        "backgammon only; .json and .txt hold every variant.",
    )
    exp.add_argument("journal", metavar="JOURNAL")
    exp.add_argument("--format", "-f", choices=FORMATS, default="mat")
    exp.add_argument("-o", "--output", metavar="FILE", help="where to write (default: beside the journal)")
    exp.add_argument("--salvage", action="store_true",
                     help="export what survives of a damaged journal (it is refused otherwise)")
    exp.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    try:
        journal = import_to_journal(args.file, args.output, device=args.device)
    except IllegalRecord as error:
        print(f"referee import: {error}", file=sys.stderr)
        return 1
    state = journal.state
    print(
        f"{args.output}: {len(journal.records)} events, {len(state.results)} games, "
        f"score {state.score[0]:g}-{state.score[1]:g}"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    path = export_journal(args.journal, args.format, args.output, salvage=args.salvage,
                          warn=lambda text: print(f"referee export: warning: {text}", file=sys.stderr))
    print(path)
    return 0
