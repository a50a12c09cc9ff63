"""Bring-up tool: ``python -m firmware_bridge [--leds SETTING] [--map FILE] status|chase|point N|gpio``.

``status`` prints the link status; ``chase`` lights every place on the board in turn and names it,
so a builder can check the LED map; ``point N`` lights one point; ``gpio`` cycles the Pi's red and
green LEDs and beeps the buzzer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .gpio import DEFAULT_PINS, GpioSignals
from .leds import AMBER, GREEN, RED, SIDES, WHITE, LedMap, open_leds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge", description=__doc__.splitlines()[0])
    parser.add_argument("--leds", help="serial:PORT, sim or none (default: $REFEREE_LEDS)")
    parser.add_argument("--map", help="LED map JSON (default: one LED per point, then bar, trays, turn, status)")
    parser.add_argument("--step", type=float, default=0.6, help="seconds per place in chase")
    parser.add_argument("command", choices=["status", "chase", "point", "gpio"])
    parser.add_argument("point", nargs="?", type=int)
    args = parser.parse_args(argv)
    if args.command == "gpio":
        gpio = GpioSignals()
        print(f"pins (BCM): {DEFAULT_PINS}")
        gpio.set_link(True)
        time.sleep(1)
        gpio.set_link(False)
        gpio.alert(True)
        time.sleep(2)
        gpio.alert(False)
        gpio.close()
        return 0
    try:
        led_map = LedMap.load(args.map) if args.map else LedMap.default()
        leds = open_leds(args.leds, led_map=led_map)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with leds:
        synced = leds.wait_synced(5.0)
        if args.command == "status":
            print(json.dumps(leds.status(), indent=2))
            return 0 if synced else 1
        if args.command == "point":
            if args.point is None or not 1 <= args.point <= 24:
                print("error: point needs a number 1..24", file=sys.stderr)
                return 2
            leds.show_points({args.point: GREEN})
            leds.wait_synced(5.0)
            print(f"point {args.point} lit; Ctrl-C to end")
            _wait()
            return 0
        for n in range(1, 25):
            print(f"point {n}")
            leds.show_points({n: RED if n > 12 else GREEN})
            time.sleep(args.step)
        leds.show_points({})
        steps: list[tuple[str, str, str | None]] = [("bar", "bar", None)]
        steps += [(f"tray {s}", "tray", s) for s in SIDES] + [(f"turn {s}", "turn", s) for s in SIDES]
        steps.append(("status", "status", None))
        for name, place, side in steps:
            print(name)
            leds.clear()
            if place == "bar":
                leds.show_bar(AMBER)
            elif place == "tray" and side is not None:
                leds.show_tray(side, GREEN)
            elif place == "turn":
                leds.show_turn(side, WHITE)
            else:
                leds.show_status(GREEN, blink=True)
            time.sleep(args.step)
        leds.clear()
        leds.wait_synced(2.0)
        print(json.dumps(leds.status()))
    return 0


def _wait() -> None:
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
