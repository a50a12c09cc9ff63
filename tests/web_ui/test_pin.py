"""The PIN as a director meets it (issue 24, item 13): a PIN change ends older sessions, wrong
PINs slow down only the address they come from, with doubling waits, and never the director."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient

from tests.web_ui.conftest import PIN, app_config
from web_ui import create_app
from web_ui.demo_view import DemoGame
from web_ui.security import RateLimiter, setup_code_notice


def _from(address: str) -> dict[str, dict[str, str]]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_a_pin_change_ends_sessions_unlocked_before(client: FlaskClient, app, game: DemoGame) -> None:  # type: ignore[no-untyped-def]
    other = app.test_client()
    token = other.post("/unlock", json={"pin": PIN}).json["csrf"]
    assert other.post("/api/pause", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    assert client.post("/setup-pin", json={"old_pin": PIN, "new_pin": "97531", "new_pin2": "97531"}).status_code == 200
    refused = other.post("/api/resume", json={}, headers={"X-CSRF-Token": token})
    assert refused.status_code == 401
    assert "resume" not in [name for name, _ in game.calls]
    assert "Unlock control" in other.get("/control").get_data(as_text=True)


def test_a_pin_set_on_the_device_ends_sessions_too(app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    browser = app.test_client()
    token = browser.post("/unlock", json={"pin": PIN}).json["csrf"]
    app.extensions["referee"].pins.set("86420")  # what `referee pin set` does
    assert browser.post("/api/pause", json={}, headers={"X-CSRF-Token": token}).status_code == 401


def test_wrong_pins_from_many_addresses_never_lock_out_the_director(client: FlaskClient, game: DemoGame) -> None:
    for address in ("10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"):
        for _ in range(8):
            assert client.post("/api/pause", json={"pin": "9999"}, **_from(address)).status_code in (403, 429)
    assert client.post("/api/pause", json={"pin": PIN}, **_from("10.0.0.7")).status_code == 200
    assert client.post("/unlock", json={"pin": PIN}, **_from("10.0.0.8")).status_code == 200


def test_an_address_that_guesses_waits_longer_each_time() -> None:
    now = [1000.0]
    limiter = RateLimiter(free=5, base=2.0, longest=900.0, clock=lambda: now[0])
    for _ in range(5):
        assert limiter.wait_time("a") == 0
        limiter.failed("a")
    waits = []
    for _ in range(5):
        waits.append(limiter.wait_time("a"))
        now[0] += waits[-1]
        assert limiter.wait_time("a") == 0
        limiter.failed("a")
    assert waits == [2.0, 4.0, 8.0, 16.0, 32.0]
    assert limiter.wait_time("b") == 0  # another address is not slowed
    for _ in range(30):
        limiter.failed("a")
    assert limiter.wait_time("a") == 900.0  # capped
    limiter.succeeded("a")
    assert limiter.wait_time("a") == 0


def test_a_right_pin_clears_the_address(client: FlaskClient) -> None:
    for _ in range(4):
        client.post("/api/pause", json={"pin": "9999"})
    assert client.post("/api/pause", json={"pin": PIN}).status_code == 200
    for _ in range(4):
        assert client.post("/api/resume", json={"pin": "9999"}).status_code == 403  # four more free tries


def test_the_console_names_the_setup_code_until_a_pin_is_set(game: DemoGame, tmp_path: Path) -> None:
    app = create_app(game, game, app_config(tmp_path, PIN=None))
    st = app.extensions["referee"]
    notice = setup_code_notice(st, "http://127.0.0.1:8080/")
    assert st.setup_code and st.setup_code in notice and "referee pin set" in notice
    assert app.test_client().post("/setup-pin", json={"setup_code": st.setup_code, "new_pin": "2580",
                                                      "new_pin2": "2580"}).status_code == 200
    assert setup_code_notice(st, "http://127.0.0.1:8080/") == ""
    again = create_app(game, game, app_config(tmp_path, PIN=None))  # a restart: the PIN is kept, no code
    assert again.extensions["referee"].setup_code == ""
