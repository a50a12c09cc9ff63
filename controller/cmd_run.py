"""``referee demo`` and ``referee run`` (INTERFACES.md §2)."""

from __future__ import annotations

import argparse
import os
from typing import Any


def register(commands: Any) -> None:
    demo = commands.add_parser(
        "demo",
        help="referee the built-in scripted games through the whole pipeline",
        description="The whole referee on built-in scripted games: synthetic camera frames, the "
        "simulated LED controller on a pseudo-terminal, gpiozero mock pins, the journal and "
        "exports, and the companion page (unless --headless).",
    )
    demo.add_argument("--headless", action="store_true", help="no web page; run to the end and exit")
    demo.add_argument("--port", type=int, default=8080, help="port of the companion page (default 8080)")
    demo.add_argument("--data-dir", help="where journals and exports go (default $REFEREE_DATA_DIR or ./data/demo)")
    demo.add_argument("--max-turns", type=int, default=None, help="stop each game after this many turns")
    demo.add_argument("--game", action="append", choices=("backgammon", "nardy"),
                      help="which built-in game (default: both)")
    demo.add_argument("--resume", action="store_true",
                      help="continue an unfinished game's journal in the data directory (after a crash)")
    demo.add_argument("--accept-loss", action="store_true",
                      help="with --resume: a journal damaged in the middle (events missing) resumes from before "
                      "the damage; the lines after it are saved beside it")
    demo.add_argument("--club", help="also publish to the club's broker: mqtt://[USER:PASSWORD@]HOST:PORT[/CLUB]")
    demo.add_argument("--table", help="this board's table name at the club (with --club)")
    demo.set_defaults(func=run_demo)

    run = commands.add_parser(
        "run",
        help="the referee service on a Raspberry Pi",
        description="Runs the referee at a real board: camera ($REFEREE_CAMERA), LED controller "
        "($REFEREE_LEDS), GPIO (gpiozero), journal and page.  Settings from a TOML file and the "
        "environment (INTERFACES.md §5).",
    )
    run.add_argument("--config", help="TOML settings file")
    run.add_argument("--club", help="publish to the club's broker (setting club, $REFEREE_CLUB)")
    run.add_argument("--table", help="this board's table name at the club (setting table, $REFEREE_TABLE)")
    run.add_argument("--readers", help="vision readers: auto (default: classical on the 2-D renderer's "
                     "pictures, the synthetic camera or its frames: datasets; learned on a real camera), "
                     "classical, learned, or part by part, e.g. "
                     "checkers=learned,dice=learned (setting readers, $REFEREE_READERS)")
    run.set_defaults(func=run_service)


def run_demo(args: argparse.Namespace) -> int:
    if args.max_turns is not None and args.max_turns < 1:
        raise ValueError("--max-turns must be at least 1")
    if not 0 < args.port < 65536:
        raise ValueError("--port must be 1..65535")
    club = args.club or os.environ.get("REFEREE_CLUB") or None
    table = args.table or os.environ.get("REFEREE_TABLE") or None
    if club:
        from club.protocol import check_name, parse_broker

        parse_broker(club)
        if not table:
            raise ValueError("--club needs --table NAME (this board's table at the club)")
        check_name(table, "table")
    from controller.demo import main_demo

    if args.accept_loss and not args.resume:
        raise ValueError("--accept-loss goes with --resume")
    return main_demo(args.headless, args.port, args.data_dir, args.max_turns, tuple(args.game or ()), args.resume,
                     club=club, table=table, accept_loss=args.accept_loss)


def run_service(args: argparse.Namespace) -> int:
    from controller.service import main_service

    return main_service(args.config, club=args.club, table=args.table, readers=args.readers)
