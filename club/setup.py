"""``referee club init``: a Mosquitto configuration for a club LAN, with one login per table.

Writes into one directory: ``mosquitto.conf`` (listener, no anonymous clients, persistence),
``passwd`` (hashed by ``mosquitto_passwd`` from the mosquitto package), ``acl`` (a table may
write only its own ``referee/<club>/<table>/…`` topics and read only its own ``replay``, ``command``
and ``held``; the club server reads every table and writes only ``replay``, ``command`` and ``held``), ``referees/<table>.toml`` (the
settings to add to each referee's ``referee.toml``) and ``club.password`` for the club server.
"""

from __future__ import annotations

import getpass
import os
import secrets
import shutil
import subprocess
from pathlib import Path

from club.protocol import BrokerAddress, check_name

CLUB_USER = "club"


def table_names(count: int, prefix: str = "T") -> list[str]:
    if not 1 <= count <= 500:
        raise ValueError(f"--tables must be 1..500, not {count}")
    return [check_name(f"{prefix}{n}", "table") for n in range(1, count + 1)]


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        stream.write(text)


def acl_text(club: str, tables: list[str]) -> str:
    lines = ["# referee club init: who may read and write which topics", "",
             f"user {CLUB_USER}", f"topic read referee/{club}/#", f"topic write referee/{club}/+/replay",
             f"topic write referee/{club}/+/command", f"topic write referee/{club}/+/held", ""]
    for table in tables:
        lines += [f"user {table}", f"topic write referee/{club}/{table}/#", f"topic read referee/{club}/{table}/replay",
                  f"topic read referee/{club}/{table}/command", f"topic read referee/{club}/{table}/held", ""]
    return "\n".join(lines)


def write_club_config(out: str | os.PathLike[str], address: BrokerAddress, tables: list[str],
                      passwd_tool: str | None = None, listen: str | None = None) -> dict[str, str]:
    """Write the files; returns each login's password (the referees' settings hold them too)."""
    tool = passwd_tool or shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not Path(tool).exists():
        raise ValueError("mosquitto_passwd not found: install the mosquitto package (apt-get install mosquitto)")
    directory = Path(out).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "referees").mkdir(exist_ok=True)
    (directory / "store").mkdir(exist_ok=True)
    passwords = {name: secrets.token_urlsafe(12) for name in [CLUB_USER, *tables]}
    passwd = directory / "passwd"
    _write_private(passwd, "".join(f"{user}:{password}\n" for user, password in passwords.items()))
    done = subprocess.run([tool, "-U", str(passwd)], capture_output=True, text=True)
    if done.returncode != 0:
        passwd.unlink(missing_ok=True)
        raise ValueError(f"mosquitto_passwd failed: {(done.stderr or done.stdout).strip()}")
    (directory / "acl").write_text(acl_text(address.club, tables), encoding="utf-8")
    host = listen if listen is not None else address.host
    (directory / "mosquitto.conf").write_text(
        "# referee club init: the club's broker (run: mosquitto -c THIS_FILE)\n"
        "per_listener_settings false\n"
        "# the broker runs as the owner of these files (they hold the password hashes)\n"
        f"user {getpass.getuser()}\n"
        f"listener {address.port} {host}\n"
        "allow_anonymous false\n"
        f"password_file {passwd}\n"
        f"acl_file {directory / 'acl'}\n"
        "persistence true\n"
        f"persistence_location {directory / 'store'}/\n"
        "max_queued_messages 100000\n",
        encoding="utf-8")
    url = f"mqtt://{address.host}:{address.port}/{address.club}"
    for table in tables:
        _write_private(directory / "referees" / f"{table}.toml",
                       f'# add to this table\'s referee.toml\nclub = "{url}"\ntable = "{table}"\n'
                       f'club_user = "{table}"\nclub_password = "{passwords[table]}"\n')
    _write_private(directory / "club.password", passwords[CLUB_USER] + "\n")
    _write_private(directory / "director.pin", "".join(secrets.choice("0123456789") for _ in range(6)) + "\n")
    return passwords
