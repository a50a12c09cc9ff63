"""Fixtures: a simulated controller on a real pty and a fast serial link to it."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import Led, LedState
from firmware_bridge.sim import SimulatedController

# Short timeouts so recovery tests wait milliseconds, not the production seconds.
FAST_LINK = {"ack_timeout": 0.05, "heartbeat_s": 0.1, "reconnect_s": 0.02, "max_retries": 4}
FAST_SIM = {"host_timeout_s": 0.6, "blink_half_s": 0.05}


@pytest.fixture
def sim() -> Iterator[SimulatedController]:
    controller = SimulatedController(30, seed=1, **FAST_SIM)
    controller.start()
    yield controller
    controller.close()


@pytest.fixture
def link(sim: SimulatedController) -> Iterator[SerialLink]:
    serial_link = SerialLink(sim.port, **FAST_LINK)
    yield serial_link
    serial_link.close()


def random_state(rng: random.Random, count: int = 29, most: int = 6) -> LedState:
    """A state like the referee's: a few lit LEDs, some blinking."""
    leds = {
        rng.randrange(count): Led((rng.randrange(1, 256), rng.randrange(256), rng.randrange(256)), rng.random() < 0.3)
        for _ in range(rng.randint(1, most))
    }
    return LedState.of(leds, rng.choice([32, 128, 255]))
