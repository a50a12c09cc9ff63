"""Pi <-> LED controller: wire protocol, serial link, simulated controller, LEDs and GPIO signals.

Speaks LEDs, not backgammon, and imports nothing else of the referee's.  Start with
:func:`open_leds` (``REFEREE_LEDS=serial:PORT | sim | none``).
"""

from .gpio import GpioSignals
from .leds import AMBER, BLUE, GREEN, OFF, RED, WHITE, LedMap, Leds, open_leds
from .link import NullLink, SerialLink
from .protocol import Led, LedState
from .sim import Faults, Shown, SimulatedController

__all__ = [
    "AMBER", "BLUE", "GREEN", "OFF", "RED", "WHITE",
    "Faults", "GpioSignals", "Led", "LedMap", "LedState", "Leds", "NullLink", "SerialLink", "Shown",
    "SimulatedController", "open_leds",
]
