"""A void roll shown by the LEDs (issue 24 item 3): the roller's turn light and the status light
blink amber until the dice are thrown again; a valid roll puts the turn light back to white."""

from __future__ import annotations

from controller.signals import STATUS, BoardSignals
from firmware_bridge import AMBER, WHITE, Leds
from firmware_bridge.link import NullLink
from firmware_bridge.protocol import Led


def test_void_roll_blinks_the_rollers_turn_light_amber() -> None:
    leds = Leds(NullLink())
    signals = BoardSignals(leds, seat_of=lambda player: "top" if player == 1 else "bottom")
    shown = leds.state()
    signals.emit("turn", {"player": 1})
    signals.emit("void", {"player": 1, "reason": "cocked"})
    scene = leds._scene
    assert scene["turn:top"] == Led(AMBER, True) and "turn:bottom" not in scene
    assert scene["status"] == Led(STATUS["void"], True)
    assert leds.state() != shown
    signals.emit("rolled", {"player": 1, "dice": [5, 3]})
    assert scene["turn:top"] == Led(WHITE, False) and scene["status"] == Led(STATUS["ok"], False)
