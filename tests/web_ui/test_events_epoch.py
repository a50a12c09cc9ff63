"""Event ids carry the server's run (issue 24, item 11): a page whose ``Last-Event-ID`` belongs to
another run — the referee restarted — is told to start its log again and brought up to date,
never left waiting for ids the new run will not reach for a long time."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from web_ui.demo_view import DemoGame


def _messages(client: FlaskClient, last: str) -> list[dict[str, object]]:
    body = client.get("/events", headers={"Last-Event-ID": last}).get_data(as_text=True)
    out = []
    for block in body.split("\n\n"):
        fields: dict[str, object] = {}
        for line in block.splitlines():
            key, _, value = line.partition(": ")
            fields[key] = json.loads(value) if key == "data" else value
        if "event" in fields:
            out.append(fields)
    return out


def test_an_id_of_another_run_resyncs_the_page(client: FlaskClient, game: DemoGame) -> None:
    game.roll(3, 1)
    game.play("8/5 6/5")
    epoch = client.application.extensions["referee"].epoch
    for stale in ("0badc0de-99", "0badc0de-1", f"{epoch}-99", "42", "nonsense"):
        messages = _messages(client, stale)
        kinds = [m.get("event") for m in messages if "event" in m]
        assert kinds[0] == "reset", (stale, kinds)
        assert kinds[-1] == "state" and messages[-1]["id"] == f"{epoch}-2"
        texts = [m["data"]["text"] for m in messages if m.get("event") == "log"]  # type: ignore[index]
        assert texts == ["Rolled 3-1", "Ana played 8/5 6/5"], texts


def test_an_id_of_this_run_replays_only_what_was_missed(client: FlaskClient, game: DemoGame) -> None:
    game.roll(3, 1)
    game.play("8/5 6/5")
    epoch = client.application.extensions["referee"].epoch
    messages = _messages(client, f"{epoch}-1")
    kinds = [m.get("event") for m in messages if "event" in m]
    assert kinds == ["log", "state"] and messages[-1]["id"] == f"{epoch}-2"


def test_two_apps_have_different_runs(app, game: DemoGame, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.web_ui.conftest import app_config
    from web_ui import create_app

    again = create_app(game, game, app_config(tmp_path))
    assert again.extensions["referee"].epoch != app.extensions["referee"].epoch
