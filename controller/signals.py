"""The referee's announcements turned into light, sound and page events.

:class:`BoardSignals` is the ``Signals`` the referee talks to: it lights the LED strip (through
``firmware_bridge``), sounds the Pi's buzzer (the LED object's GPIO part) and forwards every
announcement to any listeners (the companion page's event stream).  A failing listener or a lost
LED link never reaches the referee.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from firmware_bridge import AMBER, BLUE, GREEN, RED, WHITE, Leds

log = logging.getLogger(__name__)

Listener = Callable[[str, dict[str, Any]], None]

#: Status LED colour per referee state.
STATUS = {"ok": GREEN, "question": BLUE, "void": AMBER, "illegal": RED, "paused": AMBER, "camera": RED, "disk": RED}


class BoardSignals:
    """Routes the referee's ``emit(kind, data)`` to the LEDs and to listeners."""

    def __init__(self, leds: Leds | None, seat_of: Callable[[int], str] | None = None) -> None:
        self.leds = leds
        self.seat_of = seat_of or (lambda player: "bottom" if player == 0 else "top")
        self.listeners: list[Listener] = []
        self.history: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def add_listener(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        with self._lock:
            self.history.append((kind, data))
        try:
            self._light(kind, data)
        except Exception:  # the strip is an aid; the game goes on without it
            log.exception("LEDs failed on %s", kind)
        for listener in list(self.listeners):
            try:
                listener(kind, data)
            except Exception:
                log.exception("listener failed on %s", kind)

    def _light(self, kind: str, data: dict[str, Any]) -> None:
        leds = self.leds
        if leds is None:
            return
        if kind in ("illegal", "guide", "mismatch"):
            points = {int(p): (RED if what == "extra" else GREEN) for p, what in data.get("points", {}).items()}
            on_board = {p: c for p, c in points.items() if 1 <= p <= 24}
            if kind == "illegal" or kind == "mismatch":
                leds.alert([], RED)  # buzzer and red LED on the Pi
            leds.show_points(on_board, blink=True)
            leds.show_bar(points.get(25, (0, 0, 0)), blink=25 in points)
            leds.show_status(STATUS["illegal"] if kind != "mismatch" else AMBER, blink=True)
        elif kind in ("corrected", "accepted", "play", "no_play", "verified", "ready", "answered", "matched"):
            leds.clear_alert()
            leds.show_bar()
            leds.show_status(STATUS["ok"])
        elif kind == "turn":
            player = data.get("player")
            leds.show_turn(self.seat_of(player) if player is not None else None, WHITE)
        elif kind == "void":
            # the roller's turn light blinks amber with the status light: throw again
            player = data.get("player")
            leds.show_status(STATUS["void"], blink=True)
            if player is not None:
                leds.show_turn(self.seat_of(player), AMBER, blink=True)
        elif kind == "rolled":
            leds.show_status(STATUS["ok"])
            player = data.get("player")
            if player is not None:
                leds.show_turn(self.seat_of(player), WHITE)
        elif kind == "question":
            leds.show_status(STATUS["question"], blink=True)
        elif kind == "paused":
            leds.show_status(STATUS["paused"], blink=True)
        elif kind == "resumed":
            leds.show_status(STATUS["ok"])
        elif kind == "disk":  # the journal cannot be written (disk full): solid red until it can
            leds.show_status(STATUS["disk"] if not data.get("ok") else STATUS["ok"])
        elif kind == "camera":
            leds.show_status(STATUS["camera"] if not data.get("ok") else STATUS["ok"], blink=not data.get("ok"))
        elif kind == "game_end":
            winner = data.get("winner")
            leds.clear_alert()
            if winner is not None:
                leds.show_tray(self.seat_of(winner), GREEN, blink=True)
