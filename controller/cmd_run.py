"""`referee` commands of this group (filled in by the issue that owns it)."""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    """Add this group's sub-commands to the `referee` parser."""
    del commands


def _unused(args: argparse.Namespace) -> int:  # pragma: no cover
    return 0
