"""The serial link against the simulated controller on a real pseudo-terminal, with faults."""

from __future__ import annotations

import random
import threading
import time

from firmware_bridge import protocol as p
from firmware_bridge.link import SerialLink
from firmware_bridge.sim import Faults, SimulatedController

from .conftest import FAST_LINK, FAST_SIM, random_state


def _until(test: object, timeout: float = 3.0) -> bool:
    """Poll a condition the code under test exposes only through status()."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return False


def test_state_reaches_the_strip_and_status_reports_it(sim: SimulatedController, link: SerialLink) -> None:
    state = p.LedState.of({12: p.Led((255, 0, 0), True), 4: (0, 255, 0)}, 64)
    link.show(state)
    assert sim.wait_for(state, 2.0)
    assert link.wait_synced(2.0)
    status = link.status()
    assert status["connected"] and status["in_sync"] and status["port"] == sim.port
    assert status["firmware"] == "sim-1.0" and status["led_count"] == 30
    assert status["last_ack_age_s"] is not None and status["last_ack_age_s"] < 1.0
    assert status["retries"] == 0 and status["bad_frames"] == 0


def test_blinking_and_brightness_are_rendered_by_the_controller(sim: SimulatedController, link: SerialLink) -> None:
    sim.max_brightness = 100
    state = p.LedState.of({0: p.Led((255, 0, 0), blink=True), 1: (0, 255, 0)}, 200)
    link.show(state)
    assert sim.wait_for(state, 2.0)
    on, off = sim.rendered(0.01), sim.rendered(0.06)  # blink half-period 0.05 s
    assert on[0] == (100, 0, 0) and off[0] == (0, 0, 0)
    assert on[1] == off[1] == (0, 100, 0)


def test_every_state_is_shown_exactly_despite_drops_and_corruption() -> None:
    faults = Faults(drop=0.10, corrupt=0.01)
    rng = random.Random(2024)
    with SimulatedController(30, seed=11, faults=faults, **FAST_SIM) as sim, SerialLink(sim.port, **FAST_LINK) as link:
        wanted = [random_state(rng) for _ in range(60)]
        for state in wanted:
            link.show(state)
            assert sim.wait_for(state, 5.0), f"never shown: {state}"
        assert link.wait_synced(5.0)
        shown_states = {s.state for s in sim.history if s.reason == "set"}
        assert shown_states <= set(wanted) | {p.BLANK}, "the strip showed a state nobody set"
        assert sim.stats.dropped_in + sim.stats.dropped_out > 0 and sim.stats.bytes_corrupted > 0
        assert link.status()["retries"] > 0


def test_a_burst_of_states_ends_on_the_last_one() -> None:
    rng = random.Random(5)
    with SimulatedController(30, seed=3, faults=Faults(drop=0.1, corrupt=0.01), **FAST_SIM) as sim, \
            SerialLink(sim.port, **FAST_LINK) as link:
        wanted = [random_state(rng) for _ in range(50)]
        for state in wanted:
            link.show(state)
        assert sim.wait_for(wanted[-1], 5.0)
        assert {s.state for s in sim.history if s.reason == "set"} <= set(wanted) | {p.BLANK}


def test_unplug_and_replug_recovers_and_resends(sim: SimulatedController, link: SerialLink) -> None:
    first = p.LedState.of({3: (255, 0, 0)})
    link.show(first)
    assert sim.wait_for(first, 2.0)
    sim.unplug()
    second = p.LedState.of({5: (0, 0, 255)})
    started = time.monotonic()
    link.show(second)
    assert time.monotonic() - started < 0.5, "show() must not wait for the controller"
    assert _until(lambda: not link.status()["connected"])
    assert sim.shown.reason == "unplugged"
    sim.replug()
    assert sim.wait_for(second, 3.0)
    assert link.status()["reconnects"] >= 1 and _until(lambda: link.status()["connected"])


def test_controller_reset_is_noticed_and_the_state_resent(sim: SimulatedController, link: SerialLink) -> None:
    state = p.LedState.of({7: (255, 255, 0)})
    link.show(state)
    assert sim.wait_for(state, 2.0)
    sim.reset()
    assert sim.wait_for(state, 2.0)
    assert [s.reason for s in sim.history[-2:]] == ["reset", "set"]
    assert link.status()["resends"] >= 1


def test_reset_whose_hello_is_lost_is_caught_by_the_heartbeat(sim: SimulatedController, link: SerialLink) -> None:
    state = p.LedState.of({8: (0, 255, 255)})
    link.show(state)
    assert sim.wait_for(state, 2.0)
    sim.faults.drop = 1.0  # the HELLO after the reset never arrives
    sim.reset()
    sim.faults.drop = 0.0
    assert sim.shown.state == p.BLANK
    assert sim.wait_for(state, 2.0)  # the next heartbeat's ACK shows seq 0: resend


def test_a_silent_host_gets_its_alerts_blanked(sim: SimulatedController, link: SerialLink) -> None:
    alert = p.LedState.of({12: p.Led((255, 0, 0), True), 13: p.Led((255, 0, 0), True)})
    link.show(alert)
    assert sim.wait_for(alert, 2.0)
    link.close()  # the host goes quiet
    silent_from = time.monotonic()
    assert sim.wait_for(lambda s: s.reason == "timeout", 2.0)
    assert sim.shown.t - silent_from >= FAST_SIM["host_timeout_s"] - 0.15  # not before the timeout
    assert set(sim.shown.state.as_dict()) == {29}  # only the blinking "host lost" status LED
    assert all(c == (0, 0, 0) for c in sim.rendered()[:29])


def test_heartbeat_keeps_an_idle_strip_lit(sim: SimulatedController, link: SerialLink) -> None:
    state = p.LedState.of({1: (1, 2, 3)})
    link.show(state)
    assert sim.wait_for(state, 2.0)
    blanked = sim.wait_for(lambda s: s.reason == "timeout", 1.5 * FAST_SIM["host_timeout_s"])
    assert not blanked and sim.shown.state == state


def test_garbage_from_the_controller_is_counted_not_raised(sim: SimulatedController, link: SerialLink) -> None:
    assert link.wait_synced(2.0)
    rng = random.Random(9)
    sim.inject(b"\x00\xff garbage\n1,ACK,zz*0000\n9,ACK,1,1*FFFF\n" + bytes(rng.randrange(256) for _ in range(3000)))
    state = p.LedState.of({2: (9, 9, 9)})
    link.show(state)
    assert sim.wait_for(state, 3.0)
    assert link.status()["bad_frames"] >= 3


def test_a_slow_controller_is_waited_for(sim: SimulatedController, link: SerialLink) -> None:
    sim.faults.delay_s = 0.07  # longer than the ack timeout: late ACKs of the same seq still count
    state = p.LedState.of({6: (0, 9, 0)})
    link.show(state)
    assert link.wait_synced(3.0)
    assert sim.shown.state == state


def test_a_hung_controller_reads_as_disconnected_until_it_answers(sim: SimulatedController, link: SerialLink) -> None:
    assert link.wait_synced(2.0)
    sim.faults.mute = True
    link.show(p.LedState.of({9: (5, 5, 5)}))
    assert _until(lambda: not link.status()["connected"])
    assert _until(lambda: link.status()["reconnects"] >= 1)  # it reopened the port
    sim.faults.mute = False
    assert link.wait_synced(3.0) and _until(lambda: link.status()["connected"])


def test_controller_refusal_is_not_retried_forever(sim: SimulatedController) -> None:
    with SerialLink(sim.port, **FAST_LINK) as link:
        assert link.wait_synced(2.0)
        sim.led_count = 10  # a shorter strip than the host believes (HELLO said 30)
        link.show(p.LedState.of({20: (1, 1, 1)}))
        assert _until(lambda: link.status()["naks"] >= 1)
        time.sleep(0.2)  # a link that retried a refused state would pile up retries meanwhile
        status = link.status()
        assert status["retries"] == 0 and not status["in_sync"] and "RANGE" in status["last_error"]


def test_close_is_prompt_even_with_the_cable_out(sim: SimulatedController) -> None:
    link = SerialLink(sim.port, **FAST_LINK)
    assert link.wait_synced(2.0)
    sim.unplug()
    link.show(p.LedState.of({1: (1, 1, 1)}))
    started = time.monotonic()
    link.close()
    assert time.monotonic() - started < 1.0
    assert not any(t.name.startswith("leds-link") for t in threading.enumerate())


def test_a_missing_port_never_blocks_the_caller() -> None:
    started = time.monotonic()
    link = SerialLink("/nonexistent/referee-leds", **FAST_LINK)
    link.show(p.LedState.of({1: (1, 1, 1)}))
    assert time.monotonic() - started < 1.0
    assert _until(lambda: link.status()["last_error"] is not None)
    assert not link.status()["connected"]
    link.close()


def test_callers_never_wait_for_a_stuck_port() -> None:
    stuck = threading.Event()

    def factory(*args: object, **kwargs: object) -> object:
        stuck.wait(5.0)  # a driver that hangs in open()
        raise OSError("gave up")

    link = SerialLink("/dev/stuck", serial_factory=factory, **FAST_LINK)  # type: ignore[arg-type]
    caller = threading.Thread(target=lambda: (link.show(p.LedState.of({1: (1, 1, 1)})), link.status()))
    caller.start()
    caller.join(2.0)
    assert not caller.is_alive(), "show()/status() waited for the port"
    assert not link.status()["connected"]
    stuck.set()
    link.close()
