"""Shared by every test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def gnubg_user_folder() -> None:
    """GNU Backgammon makes ``~/.gnubg`` on its first start, and two started at once on a fresh
    machine both try: the second stops with "~/.gnubg: File exists" (half the time here; the tests
    start two at a time, and pytest-xdist's workers side by side).  Made here first, as any
    earlier run of gnubg leaves it; each worker runs this, and making it twice is harmless."""
    (Path.home() / ".gnubg").mkdir(exist_ok=True)
