"""GPIO buttons on gpiozero's mock pins: a press reaches the referee's action."""

from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory

from controller.inputs import Buttons


def wait_for(condition, timeout: float = 2.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_turn_button_press_calls_the_action() -> None:
    factory = MockFactory()
    pressed: list[str] = []
    buttons = Buttons({"turn0": lambda: pressed.append("turn0"), "accept": lambda: pressed.append("accept")},
                      pin_factory=factory, bounce_time=None)
    try:
        factory.pin(5).drive_low()  # the button pulls the pin to ground
        assert wait_for(lambda: pressed == ["turn0"])
        factory.pin(5).drive_high()
        factory.pin(13).drive_low()
        assert wait_for(lambda: pressed == ["turn0", "accept"])
        assert buttons.presses == {"turn0": 1, "accept": 1}
    finally:
        buttons.close()


def test_a_failing_action_does_not_break_the_button() -> None:
    factory = MockFactory()
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise RuntimeError("boom")

    buttons = Buttons({"new_game": broken}, pin_factory=factory, bounce_time=None)
    try:
        for _ in range(2):
            factory.pin(19).drive_low()
            factory.pin(19).drive_high()
        assert wait_for(lambda: len(calls) == 2)
    finally:
        buttons.close()


def test_a_button_without_a_pin_is_refused() -> None:
    try:
        Buttons({"turn0": lambda: None}, pins={"accept": 13}, pin_factory=MockFactory())
    except ValueError as error:
        assert "turn0" in str(error)
    else:
        raise AssertionError("expected a ValueError")
