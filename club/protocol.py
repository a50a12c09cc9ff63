"""Topics and broker addresses shared by the referees' publisher and the club server (docs/CLUB.md).

Every table publishes under ``referee/<club>/<table>/``:

- ``events/<match>``: each journal line exactly as stored (``JSON<TAB>crc32``), header first
  (``seq`` 0), QoS 1, in order; receivers deduplicate by ``seq``.
- ``snapshot``: retained JSON summary of the table (players, score, position, dice, cube, whose
  turn, open alert/question, device health, and the match name and last ``seq``).
- ``status``: retained ``online``/``offline`` (the offline one is the MQTT last will).

The club server asks for what it lacks on ``replay`` (``{"match": NAME, "from": SEQ}``); the
referee answers from its journal on ``events/<match>``.  A director's action from the dashboard
(after the club server checked the director's PIN) goes on ``command``
(``{"action": "accept"|"confirm", "match": NAME, "seq": SEQ}``).  The club server says what its
copy holds on ``held`` (``{"match": NAME, "seq": SEQ}``): a table that has published a line the
copy still lacks publishes it again, and waits for it before it stops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

ROOT = "referee"
DEFAULT_CLUB = "club"
DEFAULT_PORT = 1883
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_name(name: str, what: str) -> str:
    """A table, club or match name usable as one topic level and as a file name."""
    if not NAME.match(name) or ".." in name:
        raise ValueError(f"{what} {name!r}: use letters, digits, '-', '_' or '.' (at most 64, no '..')")
    return name


@dataclass(frozen=True)
class BrokerAddress:
    """``mqtt://[user[:password]@]host[:port][/club]`` taken apart."""

    host: str
    port: int = DEFAULT_PORT
    club: str = DEFAULT_CLUB
    username: str | None = None
    password: str | None = None

    def __str__(self) -> str:
        return f"mqtt://{self.host}:{self.port}/{self.club}"


def parse_broker(url: str) -> BrokerAddress:
    """The broker and club of a setting such as ``mqtt://192.168.1.10:1883/tuesday``."""
    parts = urlsplit(url)
    if parts.scheme != "mqtt" or not parts.hostname:
        raise ValueError(f"club broker {url!r}: expected mqtt://HOST:PORT[/CLUB]")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise ValueError(f"club broker {url!r}: the port must be a number 1..65535") from None
    club = parts.path.strip("/") or DEFAULT_CLUB
    check_name(club, "club")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return BrokerAddress(parts.hostname, port, club, username, password)


def table_topic(club: str, table: str, leaf: str) -> str:
    return f"{ROOT}/{club}/{table}/{leaf}"


def events_topic(club: str, table: str, match: str) -> str:
    return f"{ROOT}/{club}/{table}/events/{match}"


def split_topic(topic: str) -> tuple[str, str, list[str]] | None:
    """(club, table, rest) of a club topic, None for anything else."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != ROOT:
        return None
    return parts[1], parts[2], parts[3:]
