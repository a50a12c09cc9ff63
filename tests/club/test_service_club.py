"""``referee run`` with ``club``/``table`` settings: the service publishes its matches and its
health; a lost camera shows on the club's dashboard as a device problem."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from club.mirror import Mirror
from club.protocol import parse_broker
from club.server import ClubListener
from club.web import create_club_app
from tests.club.broker import Broker
from tests.club.test_club_e2e import wait_for


def test_the_service_publishes_its_matches_and_health(tmp_path: Path, broker: Broker,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device

    from controller.referee import PAUSED
    from controller.service import Service, load_settings

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    Device.pin_factory = None
    config = tmp_path / "referee.toml"
    config.write_text(f'camera = "video:{tmp_path / "unplugged.mp4"}"\nleds = "none"\n'
                      f'data_dir = "{tmp_path / "data"}"\nplayers = ["Ana", "Ion"]\nmatch_length = 5\n')
    settings = load_settings(str(config), environ={"REFEREE_CLUB": broker.url, "REFEREE_TABLE": "T9"})
    mirror = Mirror(tmp_path / "club")
    listener = ClubListener(parse_broker(broker.url), mirror).start()
    service = Service(settings)
    closed = False
    try:
        service.open_match()
        service.open_camera()
        assert not service.step()
        assert service.referee is not None and service.referee.mode == PAUSED

        def row() -> dict[str, object]:
            rows = [r for r in mirror.state_json()["tables"] if r["table"] == "T9"]
            return rows[0] if rows else {}

        wait_for("T9 on the club's dashboard", lambda: row().get("online") is True
                 and row().get("players") == ["Ana", "Ion"] and row().get("match_length") == 5, timeout=20)
        client = create_club_app(mirror).test_client()
        wait_for("the lost camera on the dashboard",
                 lambda: "has-device" in client.get("/").get_data(as_text=True), timeout=20)
        first = Path(service.referee.journal.path).stem
        time.sleep(1.1)  # the service names a match journal by the second it starts
        service.new_game("nardy", ("Leyla", "Murad"), 0, {})
        wait_for("the new match at the club", lambda: row().get("variant") == "nardy", timeout=20)
        assert mirror.find("T9", first) is not None  # the first match's copy stays in the records
        closed = True
        service.close()
        wait_for("T9 offline after the service stopped", lambda: row().get("online") is False, timeout=20)
    finally:
        if not closed:
            service.close()
        listener.close()
        Device.pin_factory = None
