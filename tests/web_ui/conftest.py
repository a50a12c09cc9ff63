"""Fixtures: a fresh demo game and app per test; a real waitress server for the browser tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web_ui import create_app, make_server
from web_ui.demo_view import DemoGame

PIN = "2468"


def app_config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "TESTING": True,
        "DATA_DIR": str(tmp_path / "data"),
        "PIN": PIN,
        "PIN_COST": 2**8,  # cheap scrypt for tests
        "TRUSTED_HOSTS": ["localhost", "127.0.0.1"],
        "SSE_HEARTBEAT": 0.2,
        "SSE_MAX_SECONDS": 0.4,
    }
    config.update(extra)
    return config


@pytest.fixture
def game(tmp_path: Path) -> DemoGame:
    return DemoGame(tmp_path / "records")


@pytest.fixture
def app(game: DemoGame, tmp_path: Path) -> Flask:
    return create_app(game, game, app_config(tmp_path))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class LiveServer:
    """The app on waitress on 127.0.0.1 and a free port, in a thread."""

    def __init__(self, app: Flask, game: DemoGame) -> None:
        self.app = app
        self.game = game
        self.server = make_server(app, "127.0.0.1", 0, threads=8)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True, name="waitress-test")

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # Let the event streams notice their browsers are gone before the sockets close.
        deadline = time.monotonic() + 3
        while self.app.extensions["referee"].streams and time.monotonic() < deadline:
            time.sleep(0.05)
        self.server.close()
        self.thread.join(timeout=3)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    game = DemoGame(tmp_path / "records")
    app = create_app(game, game, app_config(tmp_path, TESTING=False, SSE_HEARTBEAT=0.25, SSE_MAX_SECONDS=60.0))
    with LiveServer(app, game) as server:
        yield server
