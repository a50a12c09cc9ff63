"""Every action refused without the PIN and with a wrong one, accepted with it; hosts, origins,
sizes, malformed input, headers, the PIN store and its rate limit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from rules.position import starting_position
from tests.web_ui.conftest import PIN, app_config
from web_ui import board_svg, create_app
from web_ui.control import ACTIONS
from web_ui.demo_view import DemoGame


def _start_layout() -> dict[str, list[int]]:
    layout = board_svg.layout_from_position(starting_position("backgammon"), 0)
    return {"bottom": list(layout.bottom), "top": list(layout.top)}


# action -> (payload, set-up that makes it sensible now, the command the demo game records)
CASES: dict[str, tuple[dict[str, Any], Callable[[DemoGame], object], str]] = {
    "new_game": ({"variant": "nardy", "player0": "Aziz", "player1": "Olga", "match_length": 3, "nardy.koks": "1"},
                 lambda g: None, "new_game"),
    "accept_illegal": ({}, lambda g: g.illegal("wrong distance", [(13, "missing")]), "accept_illegal"),
    "confirm_reading": ({}, lambda g: g.ask("Is point 6 right?", [6]), "confirm_reading"),
    "correct_reading": (_start_layout(), lambda g: None, "correct_reading"),
    "correct_dice": ({"die0": 6, "die1": 2}, lambda g: g.roll(6, 1), "correct_dice"),
    "double": ({}, lambda g: None, "double"),
    "take": ({}, lambda g: g.double(), "take"),
    "drop": ({}, lambda g: g.double(), "drop"),
    "resign": ({"points": 2}, lambda g: None, "resign"),
    "pause": ({}, lambda g: None, "pause"),
    "resume": ({}, lambda g: g.pause(), "resume"),
    "set_corners": ({"corners": [[10, 10], [630, 12], [620, 470], [15, 460]]}, lambda g: None, "set_corners"),
    "capture_empty": ({}, lambda g: None, "capture_empty"),
    "capture_start": ({"variant": "nardy"}, lambda g: None, "capture_start"),
    "tournament": ({"on": "1"}, lambda g: None, "set_tournament"),
    "resume_damaged": ({}, lambda g: None, "resume_damaged"),
}


def test_every_action_has_a_case() -> None:
    assert set(CASES) == set(ACTIONS)


def _names(game: DemoGame) -> list[str]:
    return [name for name, _ in game.calls]


@pytest.mark.parametrize("action", sorted(CASES))
def test_action_refused_without_pin(client: FlaskClient, game: DemoGame, action: str) -> None:
    body, setup, command = CASES[action]
    setup(game)
    before = _names(game)
    response = client.post(f"/api/{action}", json=body)
    assert response.status_code == 401
    assert response.json == {"ok": False, "error": "This action needs the PIN."}
    assert _names(game) == before


@pytest.mark.parametrize("action", sorted(CASES))
def test_action_refused_with_wrong_pin(client: FlaskClient, game: DemoGame, action: str) -> None:
    body, setup, command = CASES[action]
    setup(game)
    before = _names(game)
    response = client.post(f"/api/{action}", json={**body, "pin": "1111"})
    assert response.status_code == 403
    assert response.json["error"] == "Wrong PIN."
    assert _names(game) == before


@pytest.mark.parametrize("action", sorted(CASES))
def test_action_accepted_with_pin(client: FlaskClient, game: DemoGame, action: str) -> None:
    body, setup, command = CASES[action]
    setup(game)
    response = client.post(f"/api/{action}", json={**body, "pin": PIN})
    assert response.status_code == 200, response.json
    assert response.json["ok"] is True
    assert _names(game)[-1] == command


def test_pin_in_a_header_or_a_form_field(client: FlaskClient, game: DemoGame) -> None:
    assert client.post("/api/pause", headers={"X-Referee-Pin": PIN}).status_code == 200
    assert client.post("/api/resume", data={"pin": PIN}, headers={"Accept": "application/json"}).status_code == 200
    assert _names(game)[-2:] == ["pause", "resume"]


def test_form_post_without_script_redirects_back(client: FlaskClient) -> None:
    response = client.post("/api/pause", data={"pin": PIN}, headers={"Accept": "text/html"})
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/control")


def test_unlocked_session_acts_with_its_token(client: FlaskClient, game: DemoGame) -> None:
    response = client.post("/unlock", json={"pin": PIN})
    assert response.status_code == 200
    token = response.json["csrf"]
    cookie = response.headers["Set-Cookie"]
    assert "SameSite=Strict" in cookie and "HttpOnly" in cookie
    assert client.post("/api/pause", headers={"X-CSRF-Token": token}).status_code == 200
    # the cookie alone is not enough (cross-site request forgery): the token must come too
    assert client.post("/api/resume").status_code == 401
    assert client.post("/api/resume", headers={"X-CSRF-Token": "forged"}).status_code == 401
    assert client.post("/lock").status_code == 200
    assert client.post("/api/resume", headers={"X-CSRF-Token": token}).status_code == 401
    assert _names(game) == ["pause"]


def test_unlock_with_wrong_pin_is_refused(client: FlaskClient) -> None:
    response = client.post("/unlock", json={"pin": "0000"})
    assert response.status_code == 403
    assert "Set-Cookie" not in response.headers


def test_wrong_pins_are_rate_limited(client: FlaskClient, game: DemoGame) -> None:
    for _ in range(5):
        assert client.post("/api/pause", json={"pin": "9999"}).status_code == 403
    response = client.post("/api/pause", json={"pin": PIN})
    assert response.status_code == 429
    assert "Too many wrong PINs" in response.json["error"]
    assert int(response.headers["Retry-After"]) >= 1
    assert "pause" not in _names(game)


def test_rate_limit_is_per_client(client: FlaskClient) -> None:
    for _ in range(5):
        client.post("/api/pause", json={"pin": "9999"}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert client.post("/api/pause", json={"pin": PIN}, environ_base={"REMOTE_ADDR": "10.0.0.8"}).status_code == 200


def test_cross_site_origin_refused(client: FlaskClient, game: DemoGame) -> None:
    response = client.post("/api/pause", json={"pin": PIN}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert "another site" in response.json["error"]
    assert client.post("/api/pause", json={"pin": PIN}, headers={"Origin": "http://localhost"}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/control", "/events", "/api/pause"])
def test_foreign_host_refused(client: FlaskClient, path: str) -> None:
    method = client.post if path.startswith("/api") else client.get
    response = method(path, headers={"Host": "rebind.evil.example"})
    assert response.status_code == 400
    assert b"not served under that name" in response.data


def test_trusted_hosts_default_to_this_device(game: DemoGame, tmp_path: Path) -> None:
    app = create_app(game, game, app_config(tmp_path, TRUSTED_HOSTS=None))
    hosts = app.config["TRUSTED_HOSTS"]
    assert "localhost" in hosts and "127.0.0.1" in hosts
    assert app.test_client().get("/", headers={"Host": "127.0.0.1:8080"}).status_code == 200


def test_oversized_request_refused(client: FlaskClient, game: DemoGame) -> None:
    response = client.post("/api/new_game", json={"pin": PIN, "player0": "x" * 40_000})
    assert response.status_code == 413
    assert response.json["error"] == "The request is too large (at most 16 KB)."
    assert game.calls == []


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("pause", "{not json", "not a valid JSON object"),
        ("pause", "[1, 2]", "not a valid JSON object"),
        ("resign", {"points": "lots"}, "must be a whole number from 1 to 3"),
        ("resign", {"points": 7}, "must be a whole number from 1 to 3"),
        ("new_game", {"variant": "chess"}, "Unknown game"),
        ("new_game", {"variant": "backgammon", "player0": "x" * 33}, "at most 32 characters"),
        ("new_game", {"variant": "backgammon", "player0": ["list"]}, "must be text"),
        ("new_game", {"variant": "backgammon", "match_length": -1}, "from 0 to 99"),
        ("new_game", {"variant": "backgammon", "backgammon.crawford": "maybe"}, "takes"),
        ("new_game", {"variant": "backgammon", "backgammon.head_rule": "1"}, "has no option"),
        ("correct_reading", {"bottom": [1] * 24, "top": [0] * 25}, "must list 25 counts"),
        ("correct_reading", {"bottom": [16] + [0] * 24, "top": [0] * 25}, "whole number from 0 to 15"),
        ("correct_reading", {"bottom": [8, 8] + [0] * 23, "top": [0] * 25}, "not possible"),
        ("correct_reading", {"position": "notanid"}, "not possible"),
        ("set_corners", {"corners": [[1, 2], [3, 4], [5, 6]]}, "four corners"),
        ("set_corners", {"corners": [[1, 2], [3, 4], [5, 6], ["x", 8]]}, "four corners"),
        ("capture_start", {"variant": "go"}, "Unknown game"),
        ("tournament", {"on": "perhaps"}, "on or off"),
    ],
)
def test_malformed_input_refused_clearly(
    client: FlaskClient, game: DemoGame, action: str, body: Any, message: str
) -> None:
    if isinstance(body, str):
        response = client.post(f"/api/{action}", data=body, content_type="application/json",
                               headers={"X-Referee-Pin": PIN})
    else:
        response = client.post(f"/api/{action}", json={**body, "pin": PIN})
    assert response.status_code == 400, response.json
    assert message in response.json["error"]
    assert game.calls == []


def test_unknown_action_is_404(client: FlaskClient) -> None:
    response = client.post("/api/launch_missiles", json={"pin": PIN})
    assert response.status_code == 404
    assert "no action called launch_missiles" in response.json["error"]


def test_refusal_from_the_referee_is_shown(client: FlaskClient) -> None:
    response = client.post("/api/accept_illegal", json={"pin": PIN})
    assert response.status_code == 409
    assert response.json["error"] == "There is no illegal play to accept."


def test_actions_are_post_only(client: FlaskClient) -> None:
    assert client.get("/api/pause").status_code == 405


@pytest.mark.parametrize("path", ["/", "/control", "/calibration", "/records", "/board.svg", "/state.json"])
def test_reading_needs_no_pin_and_has_security_headers(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp


def test_no_external_assets(client: FlaskClient) -> None:
    for path in ("/", "/control", "/calibration", "/records"):
        html = client.get(path).get_data(as_text=True)
        assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "https://" not in html
        assert "<script>" not in html and " onclick=" not in html and " style=" not in html


def test_player_names_are_escaped(client: FlaskClient, game: DemoGame) -> None:
    evil = '<img src=x onerror=alert(1)>'
    assert client.post("/api/new_game", json={"pin": PIN, "variant": "backgammon", "player0": evil}).status_code == 200
    html = client.get("/").get_data(as_text=True)
    assert evil not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_first_start_asks_for_a_pin(game: DemoGame, tmp_path: Path) -> None:
    app = create_app(game, game, app_config(tmp_path, PIN=None))
    client = app.test_client()
    assert "Choose a PIN" in client.get("/control").get_data(as_text=True)
    response = client.post("/api/pause", json={"pin": "1234"})
    assert response.status_code == 403 and "No PIN has been set" in response.json["error"]
    # the first PIN needs the one-time code printed on the device's console (also in a 0600 file)
    code_file = tmp_path / "data" / "web" / "setup-code"
    code = code_file.read_text().strip()
    assert code == app.extensions["referee"].setup_code and code_file.stat().st_mode & 0o077 == 0
    refused = client.post("/setup-pin", json={"new_pin": "13579", "new_pin2": "13579"})
    assert refused.status_code == 403 and "setup code" in refused.json["error"]
    wrong = "0" * 8 if code != "0" * 8 else "1" * 8
    assert client.post("/setup-pin", json={"setup_code": wrong, "new_pin": "13579", "new_pin2": "13579"}).status_code == 403
    c = {"setup_code": code}
    assert client.post("/setup-pin", json={**c, "new_pin": "12", "new_pin2": "12"}).json["error"] == "A PIN is 4 to 12 digits."
    assert client.post("/setup-pin", json={**c, "new_pin": "13579", "new_pin2": "13570"}).status_code == 400
    assert client.post("/setup-pin", json={**c, "new_pin": "13579", "new_pin2": "13579"}).status_code == 200
    assert not code_file.exists()
    stored = json.loads((tmp_path / "data" / "web" / "pin.json").read_text())
    assert set(stored) == {"scheme", "n", "salt", "hash"} and stored["hash"] != "13579"
    assert (tmp_path / "data" / "web" / "pin.json").stat().st_mode & 0o077 == 0
    fresh = app.test_client()
    assert fresh.post("/api/pause", json={"pin": "13579"}).status_code == 200
    # once set, it cannot be replaced without the old PIN
    assert fresh.post("/setup-pin", json={"new_pin": "0000", "new_pin2": "0000"}).status_code == 401
    assert fresh.post("/setup-pin", json={"old_pin": "1111", "new_pin": "0000", "new_pin2": "0000"}).status_code == 403
    assert fresh.post("/setup-pin", json={"old_pin": "13579", "new_pin": "0000", "new_pin2": "0000"}).status_code == 200
    assert fresh.post("/api/resume", json={"pin": "0000"}).status_code == 200


def test_pin_survives_a_restart(game: DemoGame, tmp_path: Path) -> None:
    create_app(game, game, app_config(tmp_path))
    again = create_app(game, game, app_config(tmp_path, PIN=None))
    assert again.test_client().post("/api/pause", json={"pin": PIN}).status_code == 200
