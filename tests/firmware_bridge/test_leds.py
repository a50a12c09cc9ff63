"""The players' vocabulary, the LED map, and choosing a back end from REFEREE_LEDS."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import AMBER, BLUE, GREEN, RED, WHITE, LedMap, Leds, NullLink, open_leds
from firmware_bridge.protocol import Led, LedState

from .conftest import FAST_LINK, FAST_SIM


class RecordingLink(NullLink):
    """A link that keeps every state it was asked to show."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[LedState] = []

    def show(self, state: LedState) -> None:
        super().show(state)
        self.shown.append(state)


def test_points_bar_trays_turn_status_map_to_the_default_strip() -> None:
    link = RecordingLink()
    leds = Leds(link, brightness=90)
    leds.show_points({13: RED, 5: GREEN}, blink=[13])
    leds.show_bar(BLUE)
    leds.show_tray("top", AMBER, blink=True)
    leds.show_turn("bottom")
    leds.show_status(GREEN)
    assert link.state == LedState.of(
        {12: Led(RED, True), 4: Led(GREEN), 24: Led(BLUE), 26: Led(AMBER, True), 27: Led(WHITE), 29: Led(GREEN)}, 90
    )
    leds.show_turn("top")
    leds.show_points({1: RED}, blink=True)
    assert link.state.as_dict()[28] == Led(WHITE) and 27 not in link.state.as_dict()
    assert {i for i in link.state.as_dict() if i < 24} == {0} and link.state.as_dict()[0].blink
    leds.clear()
    assert link.state == LedState.of({}, 90)


def test_alert_blinks_only_the_offending_points() -> None:
    link = RecordingLink()
    leds = Leds(link)
    leds.show_points({3: GREEN, 4: GREEN})
    leds.show_status(GREEN)
    leds.alert([13, 18])
    lit = link.state.as_dict()
    assert lit == {12: Led(RED, True), 17: Led(RED, True), 29: Led(GREEN)}
    assert leds.status()["alert"]
    leds.clear_alert()
    assert link.state.as_dict() == {29: Led(GREEN)} and not leds.status()["alert"]


def test_batch_sends_one_state() -> None:
    link = RecordingLink()
    leds = Leds(link)
    before = len(link.shown)
    with leds.batch():
        leds.show_points({1: RED}, blink=True)
        leds.show_bar(BLUE)
        leds.show_status(GREEN)
    assert len(link.shown) == before + 1
    assert set(link.state.as_dict()) == {0, 24, 29}


def test_a_differently_wired_strip_is_configuration(tmp_path: Path) -> None:
    # A strip that starts at point 24 and runs backwards, with two LEDs under the bar.
    layout: dict[str, Any] = {"count": 27, "points": {str(n): 24 - n for n in range(1, 25)}, "bar": [24, 25],
                              "status": 26}
    path = tmp_path / "leds.json"
    path.write_text(json.dumps(layout))
    led_map = LedMap.load(path)
    assert LedMap.from_dict(led_map.to_dict()) == led_map
    link = RecordingLink()
    leds = Leds(link, led_map)
    leds.show_points({24: RED, 1: GREEN})
    leds.show_bar(BLUE)
    leds.show_tray("bottom", RED)  # no tray LEDs on this board: nothing lights
    assert link.state.as_dict() == {0: Led(RED), 23: Led(GREEN), 24: Led(BLUE), 25: Led(BLUE)}
    assert LedMap.from_dict(LedMap.default().to_dict()) == LedMap.default()


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"points": {}}, "count"),
        ({"count": 30, "points": {str(n): n for n in range(1, 24)}}, "point 24"),
        ({"count": 10, "points": {str(n): n for n in range(1, 25)}}, "point 10 must be"),
        ({"count": 30, "points": {str(n): n for n in range(1, 25)}, "trays": {"left": 25}}, "side"),
    ],
)
def test_bad_maps_are_named(layout: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LedMap.from_dict(layout)


def test_players_words_are_checked() -> None:
    leds = Leds(RecordingLink())
    with pytest.raises(ValueError, match="point"):
        leds.show_points({25: RED})
    with pytest.raises(ValueError, match="side"):
        leds.show_turn("left")
    with pytest.raises(ValueError):
        leds.brightness = 300


def test_none_setting_and_env_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_LEDS", raising=False)
    with open_leds() as leds:
        assert leds.status()["backend"] == "none" and not leds.status()["connected"]
        leds.show_points({1: RED})
    monkeypatch.setenv("REFEREE_LEDS", "none")
    with open_leds() as leds:
        assert leds.sim is None


@pytest.mark.parametrize("setting", ["simulator", "serial:", "usb", ""])
def test_unknown_setting_is_one_line_value_error(setting: str) -> None:
    with pytest.raises(ValueError, match="REFEREE_LEDS") as err:
        open_leds(setting)
    assert "\n" not in str(err.value)


def test_sim_setting_runs_the_real_link_on_a_pty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_LEDS", "sim")
    with open_leds(link_options=FAST_LINK, sim_options=FAST_SIM) as leds:
        assert leds.sim is not None and leds.status()["port"] == leds.sim.port
        leds.alert([13])
        assert leds.wait_synced(2.0)
        assert leds.history()[-1].state == leds.state()
        assert leds.history()[-1].leds(30)[12] == Led(RED, True)
        assert leds.status()["connected"]


def test_serial_setting_with_a_missing_port_does_not_block() -> None:
    started = time.monotonic()
    with open_leds("serial:/nonexistent/ttyACM9", link_options=FAST_LINK) as leds:
        leds.alert([1])
        assert not leds.status()["connected"]
        assert leds.history() == []
    assert time.monotonic() - started < 1.5


def test_bring_up_tool_chases_the_map_on_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_bridge.__main__ import main

    assert main(["--leds", "sim", "--step", "0", "chase"]) == 0
    out = capsys.readouterr().out
    assert "point 24" in out and "tray top" in out and '"connected": true' in out
    assert main(["--leds", "bogus", "status"]) == 2


def test_the_example_map_in_hardware_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path(__file__).resolve().parents[2] / "hardware" / "leds.example.json"
    led_map = LedMap.load(path)
    assert led_map.count == 31 and led_map.slots["P12"] == (0,) and led_map.slots["bar"] == (6, 21)
    assert sorted(i for indices in led_map.slots.values() for i in indices) == list(range(31))
    monkeypatch.setenv("REFEREE_LED_MAP", str(path))
    with open_leds("none") as leds:
        leds.show_points({12: RED})
        assert leds.map == led_map and leds.state().as_dict() == {0: Led(RED)}
