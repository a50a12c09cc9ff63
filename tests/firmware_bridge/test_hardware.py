"""Hardware in the loop, opt-in: REFEREE_LEDS_HIL=serial:/dev/referee-leds names a real controller."""

from __future__ import annotations

import os
import random

import pytest

from firmware_bridge import open_leds
from firmware_bridge.protocol import Led, LedState

SETTING = os.environ.get("REFEREE_LEDS_HIL")
pytestmark = pytest.mark.skipif(not SETTING, reason="no controller wired (set REFEREE_LEDS_HIL=serial:PORT)")


def test_a_real_controller_acks_states_and_says_hello() -> None:
    assert SETTING is not None
    rng = random.Random(1)
    with open_leds(SETTING) as leds:
        assert leds.wait_synced(10.0), leds.status()
        status = leds.status()
        assert status["connected"] and status["firmware"] and status["led_count"]
        for _ in range(20):
            state = LedState.of({rng.randrange(status["led_count"]): Led((rng.randrange(1, 64), 0, 0), True)}, 32)
            leds.link.show(state)
            assert leds.wait_synced(5.0), leds.status()
        leds.clear()
        assert leds.wait_synced(5.0)
