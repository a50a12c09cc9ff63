"""The ``referee`` command: one argparse tree; each command group lives in its own module.

Exit codes (INTERFACES.md §2): 0 success, 1 a "no" answer, 2 bad input with a one-line message.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller import cmd_club, cmd_pin, cmd_records, cmd_render3d, cmd_rules, cmd_run, cmd_vision


class BadInput(Exception):
    """Raised by a command for input it cannot use; printed as one line, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Referee backgammon, long nardy, gul bara and six-one on a real board.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    for module in (cmd_rules, cmd_records, cmd_vision, cmd_render3d, cmd_run, cmd_club, cmd_pin):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (BadInput, ValueError, OSError, UnicodeError) as error:
        # Bad input (malformed ID, unreadable file, ...): one line naming the problem.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"referee {args.command}: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
