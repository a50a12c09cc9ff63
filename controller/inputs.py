"""The Pi's buttons, through gpiozero: each player's turn (clock) button, accept, new game.

Pins are settings (BCM numbers); the pin factory is gpiozero's own choice (``lgpio`` on the Pi,
``GPIOZERO_PIN_FACTORY=mock`` or a ``pin_factory`` argument in tests).  Presses become calls on
the referee through the ``actions`` given, so this module knows nothing of game rules.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import Button

log = logging.getLogger(__name__)

#: Default BCM pins (hardware/WIRING.md): turn buttons for player 0 and 1, accept, new game.
DEFAULT_BUTTONS = {"turn0": 5, "turn1": 6, "accept": 13, "new_game": 19}


class Buttons:
    """Wires named buttons to actions; ``close()`` releases the pins."""

    def __init__(
        self,
        actions: Mapping[str, Callable[[], Any]],
        pins: Mapping[str, int | str | None] | None = None,
        *,
        pin_factory: Any = None,
        bounce_time: float | None = 0.05,
    ) -> None:
        pins = dict(DEFAULT_BUTTONS if pins is None else pins)
        unknown = set(actions) - set(pins)
        if unknown:
            raise ValueError(f"no pin set for button(s): {', '.join(sorted(unknown))}")
        self.buttons: dict[str, Button] = {}
        self.presses: dict[str, int] = {}
        for name, action in actions.items():
            pin = pins[name]
            if pin is None:
                continue
            button = Button(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
            button.when_pressed = self._handler(name, action)
            self.buttons[name] = button
            self.presses[name] = 0

    def _handler(self, name: str, action: Callable[[], Any]) -> Callable[[], None]:
        def pressed() -> None:
            self.presses[name] += 1
            try:
                action()
            except Exception:  # a button must never take the referee down
                log.exception("button %s failed", name)
        return pressed

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()
