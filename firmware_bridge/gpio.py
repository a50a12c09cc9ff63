"""Pi GPIO signals through gpiozero: a green "link OK" LED, a red alert LED and a buzzer.

When the strip is unreachable these are the fallback alert channel: the red LED blinks and the
buzzer beeps three times instead of once.  The pin factory is gpiozero's (``GPIOZERO_PIN_FACTORY``)
unless one is passed; RPi.GPIO is never imported here.
"""

from __future__ import annotations

from typing import Any

from gpiozero import LED, Buzzer

DEFAULT_PINS = {"red": 23, "green": 24, "buzzer": 18}  # BCM numbers, see hardware/WIRING.md


class GpioSignals:
    """The three Pi outputs, driven in the referee's words."""

    def __init__(
        self,
        red: int | str | None = DEFAULT_PINS["red"],
        green: int | str | None = DEFAULT_PINS["green"],
        buzzer: int | str | None = DEFAULT_PINS["buzzer"],
        *,
        pin_factory: Any = None,
        beep_s: float = 0.15,
        blink_s: float = 0.25,
    ) -> None:
        self.red = LED(red, pin_factory=pin_factory) if red is not None else None
        self.green = LED(green, pin_factory=pin_factory) if green is not None else None
        self.buzzer = Buzzer(buzzer, pin_factory=pin_factory) if buzzer is not None else None
        self.beep_s = beep_s
        self.blink_s = blink_s
        self.link_ok = False
        self.alerting = False
        self.fallback = False

    def set_link(self, ok: bool) -> None:
        """Green on while the strip's controller answers; re-rings an active alert on the new channel."""
        if ok == self.link_ok:
            return
        self.link_ok = ok
        if self.green is not None:
            self.green.value = ok
        if self.alerting:
            self.alert(True)

    def alert(self, on: bool) -> None:
        """Raise (or drop) the alert: red steady and one beep, or red blinking and three beeps without the strip."""
        self.alerting = on
        if not on:
            self.fallback = False
            if self.red is not None:
                self.red.off()
            if self.buzzer is not None:
                self.buzzer.off()
            return
        fallback = not self.link_ok
        self.fallback = fallback
        if self.red is not None:
            if fallback:
                self.red.blink(on_time=self.blink_s, off_time=self.blink_s, background=True)
            else:
                self.red.on()
        if self.buzzer is not None:
            self.buzzer.beep(on_time=self.beep_s, off_time=self.beep_s, n=3 if fallback else 1, background=True)

    def status(self) -> dict[str, Any]:
        return {"link_ok": self.link_ok, "alert": self.alerting, "fallback": self.fallback}

    def close(self) -> None:
        for device in (self.red, self.green, self.buzzer):
            if device is not None:
                device.close()
