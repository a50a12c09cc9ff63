from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.club.broker import MOSQUITTO, Broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: apt-get install mosquitto (the Makefile's APT_PACKAGES)")
    directory = tmp_path / "broker"
    directory.mkdir()
    running = Broker(directory).start()
    yield running
    running.stop()
