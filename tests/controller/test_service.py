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


def test_the_readers_come_from_the_settings(tmp_path: Path) -> None:
    from vision.config import VisionConfig

    config = tmp_path / "referee.toml"
    config.write_text('readers = "checkers=classical, dice=learned"\n', encoding="utf-8")
    settings = load_settings(str(config), {})
    chosen = VisionConfig.with_readers(settings.readers)
    assert (chosen.checker_reader, chosen.dice_reader, chosen.hand_test) == ("classical", "learned", "learned")
    on_top = VisionConfig.with_readers(load_settings(str(config), {"REFEREE_READERS": "classical"}).readers)
    assert (on_top.checker_reader, on_top.dice_reader, on_top.hand_test) == ("classical",) * 3
    # auto, the default: the learned readers on a real camera's pictures, the classical ones on
    # the 2-D renderer's (the synthetic camera), which they were tuned on
    default = load_settings(None, {}).readers
    real = VisionConfig.with_readers(default, synthetic=False)
    assert (real.checker_reader, real.dice_reader, real.hand_test) == ("learned",) * 3
    rendered = VisionConfig.with_readers(default, synthetic=True)
    assert (rendered.checker_reader, rendered.dice_reader, rendered.hand_test) == ("classical",) * 3
    part = VisionConfig.with_readers("hands=classical", synthetic=False)  # the parts not named: auto
    assert (part.checker_reader, part.dice_reader, part.hand_test) == ("learned", "learned", "classical")
    assert part.readers() == "checkers=learned,dice=learned,hands=classical"


@pytest.mark.parametrize(("spec", "message"), [
    ("neural", "'neural' is not auto, classical or learned, or PART=READER"),
    ("checkers=learned,pips=learned", "'pips=learned'"),
    ("dice=learned,dice=classical", "dice is named twice"),
    ("", "'' is not"),
    (1, "must be text"),
])
def test_bad_readers_are_named(spec: object, message: str) -> None:
    from controller.service import ServiceSettings

    with pytest.raises(ValueError, match=message):
        ServiceSettings(readers=spec).validate()  # type: ignore[arg-type]
    if spec and isinstance(spec, str):
        with pytest.raises(ValueError, match=message):
            load_settings(None, {"REFEREE_READERS": spec})


def test_a_bad_engine_for_the_models_is_named_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """$REFEREE_NETS is checked with the other settings, before a frame is read."""
    import sys

    import vision.nets as nets
    from controller.service import ServiceSettings

    monkeypatch.setattr(nets, "ENGINE", "tensorflow")
    with pytest.raises(ValueError, match="unknown engine for the models 'tensorflow'"):
        ServiceSettings(readers="learned").validate()
    with pytest.raises(ValueError, match="unknown engine for the models 'tensorflow'"):
        ServiceSettings(camera="v4l2:0").validate()  # auto: the learned readers on a real camera
    assert ServiceSettings(camera="synthetic").validate()  # the classical readers: no model runs
    monkeypatch.setattr(nets, "ENGINE", "onnxruntime")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as on a machine without it
    with pytest.raises(ValueError, match="onnxruntime is not installed"):
        ServiceSettings(readers="dice=learned").validate()
    monkeypatch.setattr(nets, "ENGINE", "cv2")
    assert ServiceSettings(readers="learned").validate().readers == "learned"


def test_the_service_referees_with_the_readers_it_is_set_to(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A board calibrated and watched by the service with the learned readers: its table reads
    the camera's frames with them."""
    from gpiozero import Device

    from controller.service import Service, ServiceSettings
    from vision.dataset import calibration_for, load_dataset
    from vision.render import render_dataset

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    Device.pin_factory = None
    root = render_dataset(tmp_path / "frames", 3, seed=616161, style="tournament", occluded_rate=0.0)
    dataset = load_dataset(root)
    data = tmp_path / "data"
    data.mkdir()
    calibration_for(dataset).save(data / "calibration.json")
    settings = ServiceSettings(camera=f"frames:{root}", leds="none", data_dir=str(data),
                               readers="checkers=learned,dice=learned").validate()
    service = Service(settings)
    try:
        service.load_calibration()
        service.open_match()
        assert service.table is not None
        reader = service.table.reader
        assert (reader.config.checker_reader, reader.config.dice_reader, reader.config.hand_test) == (
            "learned", "learned", "classical")
        name = dataset.frames[0]
        seen = reader.read(dataset.image(name), hand=False)
        assert "learned" in seen.timings and "checkers" not in seen.timings  # the learned counter read it
        assert seen.points is not None
        truth = [tuple(p) for p in dataset.label(name)["points"]]
        assert sum(a == b for a, b in zip(seen.points, truth, strict=True)) >= 22
    finally:
        service.close()
        Device.pin_factory = None


def test_by_default_the_service_reads_a_recorded_board_with_the_learned_readers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """readers = auto: frames that no renderer drew (a camera's recording) are read with the
    learned readers, the 2-D renderer's with the classical ones, and the log says which."""
    import json
    import logging
    import shutil

    from gpiozero import Device

    from controller.service import Service, ServiceSettings
    from vision.dataset import calibration_for, load_dataset
    from vision.render import render_dataset

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    caplog.set_level(logging.INFO, logger="controller.service")
    rendered = render_dataset(tmp_path / "rendered", 2, seed=717171, style="tournament", occluded_rate=0.0)
    recorded = tmp_path / "recorded"
    shutil.copytree(rendered, recorded)
    meta = json.loads((recorded / "dataset.json").read_text(encoding="utf-8"))
    del meta["generator"]
    (recorded / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    gone = tmp_path / "gone"  # a frames: folder that is no dataset (any more): as a real camera, and said
    for root, expected in ((recorded, "learned"), (rendered, "classical"), (gone, "learned")):
        Device.pin_factory = None
        data = tmp_path / f"data-{root.name}"
        data.mkdir()
        calibration_for(load_dataset(root if root != gone else rendered)).save(data / "calibration.json")
        service = Service(ServiceSettings(camera=f"frames:{root}", leds="none", data_dir=str(data)).validate())
        try:
            service.load_calibration()
            service.open_match()
            assert service.table is not None
            config = service.table.reader.config
            assert (config.checker_reader, config.dice_reader, config.hand_test) == (expected,) * 3
            assert f"reading the board with checkers={expected},dice={expected},hands={expected}" in caplog.text
        finally:
            service.close()
            Device.pin_factory = None
    assert f"camera frames:{gone}: " in caplog.text and "chosen as for a real camera" in caplog.text
