"""The board's lights in the players' words: points 1-24, bar, trays, turn, status, alerts.

Which strip LED lights a physical point is configuration (:class:`LedMap`, a JSON file), because
strips are wired differently.  :func:`open_leds` chooses the back end from ``REFEREE_LEDS``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import protocol as p
from .gpio import GpioSignals
from .link import LedLink, NullLink, SerialLink
from .sim import Shown, SimulatedController

log = logging.getLogger(__name__)

Colour = p.Colour
OFF: Colour = (0, 0, 0)
RED: Colour = (255, 0, 0)
GREEN: Colour = (0, 255, 0)
BLUE: Colour = (0, 0, 255)
AMBER: Colour = (255, 120, 0)
WHITE: Colour = (255, 255, 255)

SIDES = ("bottom", "top")  # the board's near side (points 1-12) and far side (13-24)


@dataclass(frozen=True)
class LedMap:
    """Named places on the board -> strip indices.  Names: "P1".."P24", "bar", "tray:bottom",
    "tray:top", "turn:bottom", "turn:top", "status"."""

    count: int
    slots: Mapping[str, tuple[int, ...]]

    @classmethod
    def default(cls) -> LedMap:
        """One LED per point P1..P24 (indices 0..23), then bar, trays, turn lights and status (24..29)."""
        return cls.from_dict(DEFAULT_MAP)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LedMap:
        """Read the JSON layout documented in hardware/WIRING.md; ValueError naming the problem."""
        count = data.get("count")
        if not isinstance(count, int) or not 1 <= count <= 1000:
            raise ValueError(f"LED map: 'count' must be an integer 1..1000, not {count!r}")
        slots: dict[str, tuple[int, ...]] = {}

        def put(name: str, value: Any) -> None:
            indices = (value,) if isinstance(value, int) else tuple(value)
            if not indices or any(not isinstance(i, int) or not 0 <= i < count for i in indices):
                label = f"point {name[1:]}" if name.startswith("P") else name
                raise ValueError(f"LED map: {label} must be LED indices 0..{count - 1}, not {value!r}")
            slots[name] = indices

        points = data.get("points", {})
        for n in range(1, 25):
            if str(n) not in points:
                raise ValueError(f"LED map: point {n} has no LED")
            put(f"P{n}", points[str(n)])
        if "bar" in data:
            put("bar", data["bar"])
        for group in ("trays", "turn"):
            for side, value in data.get(group, {}).items():
                if side not in SIDES:
                    raise ValueError(f"LED map: {group} side must be one of {SIDES}, not {side!r}")
                put(f"{group.rstrip('s')}:{side}", value)
        if "status" in data:
            put("status", data["status"])
        return cls(count, slots)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> LedMap:
        """Read a JSON map file."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON layout (inverse of from_dict)."""

        def val(indices: tuple[int, ...]) -> int | list[int]:
            return indices[0] if len(indices) == 1 else list(indices)

        out: dict[str, Any] = {"count": self.count,
                               "points": {str(n): val(self.slots[f"P{n}"]) for n in range(1, 25)}}
        for name, indices in self.slots.items():
            if name in ("bar", "status"):
                out[name] = val(indices)
            elif ":" in name:
                group, side = name.split(":")
                out.setdefault("trays" if group == "tray" else group, {})[side] = val(indices)
        return out


DEFAULT_MAP: dict[str, Any] = {
    "count": 30,
    "points": {str(n): n - 1 for n in range(1, 25)},
    "bar": 24,
    "trays": {"bottom": 25, "top": 26},
    "turn": {"bottom": 27, "top": 28},
    "status": 29,
}


class Leds:
    """The referee's lights: a strip through a link, plus optional Pi GPIO signals."""

    def __init__(
        self,
        link: LedLink,
        led_map: LedMap | None = None,
        *,
        gpio: GpioSignals | None = None,
        brightness: int = 128,
        sim: SimulatedController | None = None,
    ) -> None:
        self.link = link
        self.map = led_map or LedMap.default()
        self.gpio = gpio
        self.sim = sim
        self._brightness = brightness
        self._scene: dict[str, p.Led] = {}
        self._alert = False
        self._batching = 0
        self._lock = threading.RLock()  # held while pushing, so concurrent callers cannot reorder states
        if gpio is not None:
            link.add_listener(gpio.set_link)
        self._push()

    # ----- players' vocabulary ----------------------------------------------------------------

    def show_points(self, colours: Mapping[int, Colour], blink: bool | Iterable[int] = False) -> None:
        """Light physical points 1..24 ({point: colour}); all other points go dark.
        ``blink``: True for all of them, or the points that blink."""
        blinking = set(colours) if blink is True else set() if blink is False else set(blink)
        for point in colours:
            if not 1 <= point <= 24:
                raise ValueError(f"no such point: {point} (points are 1..24)")
        with self._lock:
            for n in range(1, 25):
                self._scene.pop(f"P{n}", None)
            for point, colour in colours.items():
                self._scene[f"P{point}"] = p.Led(tuple(colour), point in blinking)  # type: ignore[arg-type]
        self._push()

    def show_point(self, point: int, colour: Colour, blink: bool = False) -> None:
        """Light one point, leaving the others as they are."""
        if not 1 <= point <= 24:
            raise ValueError(f"no such point: {point} (points are 1..24)")
        self._set(f"P{point}", colour, blink)

    def show_bar(self, colour: Colour = OFF, blink: bool = False) -> None:
        self._set("bar", colour, blink)

    def show_tray(self, side: str, colour: Colour = OFF, blink: bool = False) -> None:
        """Light the bear-off tray on ``side`` ("bottom" or "top")."""
        self._set(f"tray:{_side(side)}", colour, blink)

    def show_turn(self, side: str | None, colour: Colour = WHITE, blink: bool = False) -> None:
        """Light the turn LED of ``side``; the other side's goes dark (None: both dark)."""
        with self._lock:
            for s in SIDES:
                self._scene.pop(f"turn:{s}", None)
            if side is not None:
                self._scene[f"turn:{_side(side)}"] = p.Led(colour, blink)
        self._push()

    def show_status(self, colour: Colour, blink: bool = False) -> None:
        self._set("status", colour, blink)

    def alert(self, points: Iterable[int], colour: Colour = RED) -> None:
        """An illegal play: blink ``points`` in ``colour`` (other points dark), red LED and buzzer on the Pi."""
        points = list(points)
        self._alert = True
        self.show_points(dict.fromkeys(points, colour), blink=True)
        if self.gpio is not None:
            self.gpio.alert(True)

    def clear_alert(self) -> None:
        """End an alert: points dark, Pi red LED and buzzer off."""
        self._alert = False
        self.show_points({})
        if self.gpio is not None:
            self.gpio.alert(False)

    def clear(self) -> None:
        """Everything dark (the Pi's green link LED keeps telling the link state)."""
        self._alert = False
        with self._lock:
            self._scene.clear()
        self._push()
        if self.gpio is not None:
            self.gpio.alert(False)

    @property
    def brightness(self) -> int:
        return self._brightness

    @brightness.setter
    def brightness(self, value: int) -> None:
        if not 0 <= value <= 255:
            raise ValueError(f"brightness must be 0..255, not {value}")
        self._brightness = value
        self._push()

    # ----- state and plumbing -----------------------------------------------------------------

    def state(self) -> p.LedState:
        """The whole strip state these calls add up to (what the controller is asked to show)."""
        with self._lock:
            leds: dict[int, p.Led] = {}
            for slot, led in self._scene.items():
                for index in self.map.slots.get(slot, ()):
                    leds[index] = led
            return p.LedState.of(leds, self._brightness)

    def status(self) -> dict[str, Any]:
        """Link status plus alert and GPIO state, for the page."""
        out = dict(self.link.status())
        out["alert"] = self._alert
        if self.gpio is not None:
            out["gpio"] = self.gpio.status()
        return out

    def wait_synced(self, timeout: float) -> bool:
        """Wait until the controller acked the current state."""
        return self.link.wait_synced(timeout)

    def history(self) -> list[Shown]:
        """Every frame the simulated controller displayed, oldest first (empty without ``REFEREE_LEDS=sim``)."""
        return [] if self.sim is None else list(self.sim.history)

    def close(self) -> None:
        """Stop the link (and the simulator and GPIO devices we own)."""
        self.link.close()
        if self.sim is not None:
            self.sim.close()
        if self.gpio is not None:
            self.gpio.close()

    def __enter__(self) -> Leds:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _set(self, slot: str, colour: Colour, blink: bool) -> None:
        with self._lock:
            if tuple(colour) == OFF:
                self._scene.pop(slot, None)
            else:
                self._scene[slot] = p.Led(tuple(colour), blink)  # type: ignore[arg-type]
        self._push()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group several calls into one state change: ``with leds.batch(): leds.show_points(...); ...``."""
        with self._lock:
            self._batching += 1
            try:
                yield
            finally:
                self._batching -= 1
                self._push()

    def _push(self) -> None:
        with self._lock:
            if not self._batching:
                self.link.show(self.state())


def _side(side: str) -> str:
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, not {side!r}")
    return side


def open_leds(
    setting: str | None = None,
    *,
    led_map: LedMap | None = None,
    gpio: GpioSignals | None = None,
    brightness: int = 128,
    link_options: Mapping[str, Any] | None = None,
    sim_options: Mapping[str, Any] | None = None,
) -> Leds:
    """Open the LEDs named by ``setting`` (default: ``$REFEREE_LEDS``, else "none"):
    ``serial:PORT``, ``sim`` (a simulated controller on a pty, real serial link) or ``none``.
    The LED map defaults to the JSON file ``$REFEREE_LED_MAP`` names, else :meth:`LedMap.default`."""
    if setting is None:
        setting = os.environ.get("REFEREE_LEDS", "none")
    setting = setting.strip()
    if led_map is None:
        map_file = os.environ.get("REFEREE_LED_MAP")
        led_map = LedMap.load(map_file) if map_file else LedMap.default()
    if setting == "none":
        return Leds(NullLink(), led_map, gpio=gpio, brightness=brightness)
    if setting.startswith("serial:") and len(setting) > len("serial:"):
        link = SerialLink(setting[len("serial:"):], **dict(link_options or {}))
        return Leds(link, led_map, gpio=gpio, brightness=brightness)
    if setting == "sim":
        sim = SimulatedController(led_map.count, **dict(sim_options or {}))
        port = sim.start()
        link = SerialLink(port, **dict(link_options or {}))
        return Leds(link, led_map, gpio=gpio, brightness=brightness, sim=sim)
    raise ValueError(f"REFEREE_LEDS: unknown setting {setting!r} (expected serial:PORT, sim or none)")
