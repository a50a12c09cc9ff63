"""GPIO signals on gpiozero's mock pins: what the pins went through."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from firmware_bridge import GpioSignals, Leds, NullLink, open_leds

from .conftest import FAST_LINK, FAST_SIM

RED, GREEN, BUZZER = 23, 24, 18


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()


def _states(pin: MockPin) -> list[bool]:
    return [bool(s.state) for s in pin.states]


def _wait_states(pin: MockPin, count: int, timeout: float = 2.0) -> list[bool]:
    """Wait for a background blink/beep to put ``count`` states through the pin."""
    deadline = time.monotonic() + timeout
    while len(pin.states) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    return _states(pin)


def test_alert_with_the_strip_up_is_red_steady_and_one_beep(factory: MockFactory) -> None:
    gpio = GpioSignals(pin_factory=factory, beep_s=0.01)
    gpio.set_link(True)
    gpio.alert(True)
    factory.pin(GREEN).assert_states([False, True])
    factory.pin(RED).assert_states([False, True])
    assert _wait_states(factory.pin(BUZZER), 3) == [False, True, False]
    gpio.alert(False)
    factory.pin(RED).assert_states([False, True, False])
    gpio.close()


def test_without_the_strip_the_pi_is_the_alert_channel(factory: MockFactory) -> None:
    gpio = GpioSignals(pin_factory=factory, beep_s=0.01, blink_s=0.01)
    gpio.alert(True)  # link never came up
    assert gpio.status() == {"link_ok": False, "alert": True, "fallback": True}
    assert _wait_states(factory.pin(BUZZER), 7) == [False, True, False, True, False, True, False]
    red = _wait_states(factory.pin(RED), 5)
    assert red[:5] == [False, True, False, True, False]  # blinking
    gpio.alert(False)
    assert not factory.pin(RED).state and not factory.pin(BUZZER).state
    factory.pin(GREEN).assert_states([False])
    gpio.close()


def test_other_pins_and_absent_outputs(factory: MockFactory) -> None:
    gpio = GpioSignals(red=5, green=None, buzzer=None, pin_factory=factory)
    gpio.set_link(True)
    gpio.alert(True)
    factory.pin(5).assert_states([False, True])
    gpio.close()


def test_leds_drive_the_pi_outputs_from_the_link_state(factory: MockFactory) -> None:
    leds = Leds(NullLink(), gpio=GpioSignals(pin_factory=factory, beep_s=0.01, blink_s=0.01))
    leds.alert([5])
    assert leds.status()["gpio"]["fallback"]
    leds.clear()
    assert not factory.pin(RED).state
    leds.close()


def test_unplugged_strip_turns_green_off_and_alerts_fall_back(factory: MockFactory) -> None:
    gpio = GpioSignals(pin_factory=factory, beep_s=0.01, blink_s=0.01)
    with open_leds("sim", gpio=gpio, link_options=FAST_LINK, sim_options=FAST_SIM) as leds:
        assert leds.wait_synced(2.0)
        deadline = time.monotonic() + 2.0
        while not gpio.link_ok and time.monotonic() < deadline:
            time.sleep(0.005)
        assert factory.pin(GREEN).state
        assert leds.sim is not None
        leds.sim.unplug()
        deadline = time.monotonic() + 2.0
        while gpio.link_ok and time.monotonic() < deadline:
            time.sleep(0.005)
        leds.alert([7])
        assert gpio.fallback and not factory.pin(GREEN).state
        leds.sim.replug()
        assert leds.sim.wait_for(leds.state(), 3.0)
        deadline = time.monotonic() + 2.0
        while gpio.fallback and time.monotonic() < deadline:
            time.sleep(0.005)
        assert gpio.link_ok and not gpio.fallback and factory.pin(RED).state  # back to steady red
        assert _states(factory.pin(GREEN))[-1]
