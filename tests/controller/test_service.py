"""Service settings (TOML + environment) and the systemd notify socket."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from controller.service import load_settings, sd_notify


def test_settings_come_from_toml_with_the_environment_on_top(tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text(
        'camera = "picamera2"\nleds = "serial:/dev/ttyACM0"\n'
        '[game]\nvariant = "long nardy"\nmatch_length = 3\nplayers = ["Aziz", "Lola"]\n'
        'options = { prime_check = "every_step" }\n[web]\nport = 8081\ntournament = true\n'
        '[gpio]\nbuzzer = 23\n',
        encoding="utf-8",
    )
    settings = load_settings(str(config), {"REFEREE_LEDS": "sim", "REFEREE_DATA_DIR": str(tmp_path)})
    assert settings.variant == "nardy" and settings.match_length == 3
    assert settings.players == ("Aziz", "Lola") and settings.tournament and settings.port == 8081
    assert settings.camera == "picamera2" and settings.leds == "sim" and settings.data_dir == str(tmp_path)
    assert settings.gpio_buzzer == 23


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('colour = "red"\n', "unknown setting"),
        ('[game]\nvariant = "chess"\n', "unknown variant"),
        ('[game]\noptions = { prime_check = "sometimes" }\nvariant = "nardy"\n', "prime_check"),
        ("port = [\n", "not valid TOML"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_settings(str(config), {})


def test_systemd_notify_reaches_the_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        assert sd_notify("READY=1")
        assert server.recv(64) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sd_notify("WATCHDOG=1")
    assert "NOTIFY_SOCKET" not in os.environ


def test_a_lost_camera_pauses_the_game_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device

    from controller.referee import PAUSED
    from controller.service import Service, ServiceSettings

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    Device.pin_factory = None  # gpiozero picks the mock factory from the environment
    settings = ServiceSettings(camera=f"video:{tmp_path / 'unplugged.mp4'}", leds="none",
                               data_dir=str(tmp_path)).validate()
    service = Service(settings)
    try:
        service.open_match()
        service.open_camera()
        assert service.referee is not None
        assert not service.step()
        assert service.referee.mode == PAUSED
        assert ("camera", {"ok": False}) in service.signals.history
        assert service.hub.snapshot().paused
        assert list(tmp_path.glob("match-*.jsonl"))  # the match journal exists from the start
    finally:
        service.close()
        Device.pin_factory = None
