"""``referee pin set``: the control PIN, set on the device itself (the page then asks no stranger)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    pin = commands.add_parser("pin", help="the companion page's control PIN",
                              description="Set the PIN that protects every action on the companion page. "
                              "Changing it ends every browser session unlocked with the old one.")
    actions = pin.add_subparsers(dest="pin_action", metavar="ACTION")
    actions.required = True
    set_pin = actions.add_parser("set", help="set or change the PIN (asked twice, or one line on standard input)")
    set_pin.add_argument("--data-dir", help="the referee's data directory (default $REFEREE_DATA_DIR or ./data)")
    set_pin.add_argument("--stdin", action="store_true", help="read the PIN from standard input (scripts)")
    set_pin.set_defaults(func=run_pin_set)


def run_pin_set(args: argparse.Namespace) -> int:
    from web_ui.security import PinStore, check_pin_format

    data_dir = Path(args.data_dir or os.environ.get("REFEREE_DATA_DIR") or "data")
    if args.stdin:
        pin = sys.stdin.readline().strip()
    else:
        pin = getpass.getpass("new PIN (4 to 12 digits): ")
        if getpass.getpass("again: ") != pin:
            raise ValueError("the two PINs differ")
    check_pin_format(pin)
    store = PinStore(data_dir / "web" / "pin.json")
    store.set(pin)
    (data_dir / "web" / "setup-code").unlink(missing_ok=True)
    print(f"PIN saved in {store.path}; browser sessions unlocked before are ended")
    return 0
