"""``referee club`` (the club server) and ``referee club init`` (a secured broker set-up), INTERFACES.md §6."""

from __future__ import annotations

import argparse
import os
from typing import Any


def register(commands: Any) -> None:
    club = commands.add_parser(
        "club",
        help="the club server: every table's board, score and records on one dashboard",
        description="Subscribes to every referee on the club's MQTT broker, keeps a copy of each "
        "table's journal under --data-dir and serves the dashboard (/), /club/state.json and the "
        "records of every match.  'referee club init' writes a Mosquitto configuration with one "
        "login per table.",
    )
    club.add_argument("action", nargs="?", choices=("init",), help="init: write a secured broker set-up")
    club.add_argument("--broker", help="mqtt://[USER[:PASSWORD]@]HOST:PORT[/CLUB] (club default: 'club')")
    club.add_argument("--port", type=int, default=8090, help="port of the dashboard (default 8090)")
    club.add_argument("--host", default="0.0.0.0", help="address the dashboard listens on (default all)")
    club.add_argument("--data-dir", help="journal copies (default $REFEREE_CLUB_DATA_DIR or ./data/club)")
    club.add_argument("--user", help="broker login of the club server (default: from the URL)")
    club.add_argument("--password-file", help="file holding the club server's broker password")
    club.add_argument("--pin-file", help="file holding the director's PIN (4-12 digits) for actions from the "
                      "dashboard; also $REFEREE_CLUB_PIN; without one the dashboard only shows")
    club.add_argument("--tables", type=int, default=10, help="init: how many tables (T1..TN; default 10)")
    club.add_argument("--out", default="club-broker", help="init: directory to write (default ./club-broker)")
    club.set_defaults(func=run_club_command)


def run_club_command(args: argparse.Namespace) -> int:
    from club.protocol import parse_broker

    if not args.broker:
        raise ValueError("--broker is required, e.g. --broker mqtt://127.0.0.1:1883")
    address = parse_broker(args.broker)
    if args.action == "init":
        from club.setup import CLUB_USER, table_names, write_club_config

        tables = table_names(args.tables)
        write_club_config(args.out, address, tables)
        out = os.path.abspath(args.out)
        print(f"wrote {out}/mosquitto.conf, passwd, acl and referees/T1..T{len(tables)}.toml")
        print(f"  broker:      mosquitto -c {out}/mosquitto.conf")
        print(f"  club server: referee club --broker {address} --user {CLUB_USER} "
              f"--password-file {out}/club.password --pin-file {out}/director.pin")
        print(f"  each table:  add {out}/referees/TN.toml to that referee's settings")
        return 0
    if not 0 < args.port < 65536:
        raise ValueError("--port must be 1..65535")
    password = os.environ.get("REFEREE_CLUB_PASSWORD") or None
    if args.password_file:
        with open(args.password_file, encoding="utf-8") as stream:
            password = stream.read().strip()
    pin = os.environ.get("REFEREE_CLUB_PIN") or None
    if args.pin_file:
        with open(args.pin_file, encoding="utf-8") as stream:
            pin = stream.read().strip()
    if pin is not None:
        from web_ui.security import check_pin_format

        check_pin_format(pin)
    from club.run import run_club
    from club.web import data_dir_default

    return run_club(args.broker, args.port, args.data_dir or data_dir_default(), args.host,
                    args.user, password, pin)
