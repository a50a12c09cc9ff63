"""Cross-check the firmware's C protocol core against the Python side (firmware_bridge).

Usage: python crosscheck.py BUILD/proto_pipe [--cases N] [--seed S]

Frames made by Python must be accepted by C and vice versa, damaged ones rejected by both with
the same reason, and the C controller must answer and display exactly as the simulated
controller does for the same byte stream (same replies, same state, same rendered pixels).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.sim import Faults, SimulatedController  # noqa: E402

LED_COUNT = 30
VERSION = "referee-leds-1.0"
MAX_BRIGHTNESS = 96
Check = Callable[[str], str | None]


class Batch:
    """Commands for proto_pipe and, for each, a check of its one-line answer."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.checks: list[tuple[str, Check]] = []

    def add(self, command: str, label: str, check: Check) -> None:
        self.commands.append(command)
        self.checks.append((label, check))

    def expect(self, command: str, label: str, want: str) -> None:
        self.add(command, label, lambda got: None if got == want else f"want {want!r}")


def state_text(state: p.LedState) -> str:
    return " ".join(p.set_frame(0, state).args)


def decode_text(line: bytes) -> str:
    try:
        frame = p.decode(line)
    except p.FrameError as exc:
        return f"ERR {exc.reason}"
    return " ".join(["OK", str(frame.seq), frame.cmd, *frame.args]).rstrip()


def set_text(line: bytes) -> str:
    try:
        state = p.parse_set(p.decode(line))
    except p.FrameError as exc:
        return f"ERR {exc.reason}"
    if state.lit and state.lit[-1][0] >= LED_COUNT:
        return "ERR RANGE"
    return f"SET {state_text(state)}"


def random_state(rng: random.Random, count: int = LED_COUNT) -> p.LedState:
    leds = {rng.randrange(count): p.Led((rng.choice([0, rng.randrange(256)]), rng.randrange(256), rng.randrange(256)),
                                        rng.random() < 0.3) for _ in range(rng.randint(0, 12))}
    return p.LedState.of(leds, rng.randrange(256))


def mutate(rng: random.Random, line: bytes) -> bytes:
    """Damage a frame the ways a serial line does (no newline inside)."""
    data = bytearray(line.rstrip(b"\n"))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.randrange(4)
        i = rng.randrange(len(data))
        if kind == 0:
            data[i] ^= rng.randrange(1, 256)
        elif kind == 1 and len(data) > 1:
            del data[i]
        elif kind == 2:
            data.insert(i, rng.randrange(256))
        else:
            data[i] = rng.randrange(0x20, 0x7F)
    return bytes(b for b in data if b != 0x0A) or b"x"


def signed(body: bytes) -> bytes:
    return body + b"*%04X" % p.crc16(body)


def codec_cases(batch: Batch, rng: random.Random, cases: int) -> None:
    batch.expect("C " + b"123456789".hex(), "crc check value", "CRC 29B1")
    for i in range(cases // 10):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
        batch.expect("C " + data.hex(), f"crc random {i}", f"CRC {p.crc16(data):04X}")
    nonsense = [b"70000,HB", b"01,HB", b"1,hb", b"1", b"1,SET,,3", b"1,HB,a b", b"1,HB,\xff", b"1,SET,256",
                b"1,SET,9,3:FF00", b"1,SET,9,03:FF0000", b"1,SET,9,3:ff0000", b"1,SET,9,30:FF0000",
                b"1,SET,9,29:FF0000~", b"1,SET,9,99:000000", b"1,SET,9,1:FF0000~~", b"," * 80,
                b"1,SET," + b",".join(b"%d:010101" % i for i in range(71))]
    for body in nonsense:
        batch.expect("S " + signed(body).hex(), f"set {body[:30]!r}", set_text(signed(body)))
    for i in range(cases):
        state = random_state(rng, LED_COUNT + (3 if rng.random() < 0.1 else 0))
        line = p.encode(p.set_frame(rng.randrange(65536), state)).rstrip(b"\n")
        batch.expect("S " + line.hex(), f"python SET {i} accepted by C", set_text(line))
        bad = mutate(rng, line)
        batch.expect("D " + bad.hex(), f"damaged SET {i} {bad[:40]!r}", decode_text(bad))
        batch.expect("D " + (b"\xfe" * rng.randrange(1, 20) + bad).hex(), f"garbage-led {i}", decode_text(b"\xfe" + bad))
    batch.expect("D " + (b"1,HB*" + b"0" * 600).hex(), "overlong", "ERR LONG")
    # C encodes, Python decodes: byte-identical to Python's own encoding.
    for _ in range(cases // 2):
        cmd = rng.choice(["SET", "HB", "ACK", "NAK", "HELLO", "XYZZY"])
        args = tuple("".join(chr(rng.randrange(0x21, 0x7F)) for _ in range(rng.randint(1, 8))).replace(",", "_")
                     .replace("*", "#") for _ in range(rng.randrange(6)))
        frame = p.Frame(rng.randrange(65536), cmd, args)
        want = "F " + p.encode(frame).hex().upper()
        batch.add(f"E {frame.seq} {cmd} {' '.join(args)}".rstrip(), f"C encodes {frame}",
                  lambda got, want=want, frame=frame: None if got == want and
                  p.decode(bytes.fromhex(got[2:])) == frame else f"want {want}")
    batch.expect("E 1 bad-cmd", "C refuses a bad command", "ERR")


def device_cases(batch: Batch, rng: random.Random, cases: int) -> None:
    """Drive the C controller and the simulated one with the same bytes and clock."""
    now = [0]
    sim = SimulatedController(LED_COUNT, version=VERSION, host_timeout_s=3000, blink_half_s=500,
                              max_brightness=MAX_BRIGHTNESS, faults=Faults(), clock=lambda: now[0])
    sent = bytearray()
    sim._write_raw = sent.extend  # type: ignore[method-assign]
    try:
        sim._boot("reset")
        batch.expect("B", "boot HELLO", "R " + bytes(sent).hex().upper())
        seq = 0
        for i in range(cases):
            seq = p.next_seq(seq)
            roll = rng.random()
            if roll < 0.35:
                data = p.encode(p.set_frame(seq, random_state(rng, LED_COUNT + (2 if rng.random() < 0.1 else 0))))
            elif roll < 0.45:
                data = p.encode(p.Frame(seq, rng.choice([p.HB, p.HELLO, "XYZ"])))
            elif roll < 0.65:
                data = mutate(rng, p.encode(p.set_frame(seq, random_state(rng)))) + b"\n"
            elif roll < 0.7:
                data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            elif roll < 0.72:
                data = b"7" * 700 + b"\n"
            elif roll < 0.75:
                data = signed(b"%d,SET,300" % seq) + b"\n"
            else:
                now[0] += rng.choice([0, 1, 499, 500, 777, 1500, 2999, 3000, 3001, 4000])
                batch.expect(f"T {now[0]}", "clock", "T")
                sim._tick()
                want = f"Q {sim._shown_seq} {int(sim._host_lost)} {state_text(sim._state)}"
                batch.expect("K", f"state after tick at {now[0]} ms (step {i})", want)
                pixels = " ".join(f"{r},{g},{b}" for r, g, b in sim.rendered(now[0]))
                batch.expect("P", f"pixels at {now[0]} ms (step {i})", f"P {pixels}")
                continue
            sent.clear()
            sim._receive(data)
            batch.expect("F " + data.hex(), f"replies to {data[:50]!r} (step {i})",
                         "R " + (bytes(sent).hex().upper() or "-"))
            batch.expect("Q", f"state after {data[:50]!r} (step {i})",
                         f"Q {sim._shown_seq} {int(sim._host_lost)} {state_text(sim._state)}")
    finally:
        sim.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipe", help="the compiled proto_pipe test driver")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    batch = Batch()
    codec_cases(batch, rng, args.cases)
    device_cases(batch, rng, args.cases)
    run = subprocess.run([args.pipe], input="\n".join(batch.commands) + "\n", capture_output=True, text=True,
                         timeout=60, check=False)
    answers = run.stdout.splitlines()
    if run.returncode != 0 or len(answers) != len(batch.commands):
        print(f"proto_pipe failed (exit {run.returncode}, {len(answers)}/{len(batch.commands)} answers): "
              f"{run.stderr.strip()}", file=sys.stderr)
        return 1
    failures = 0
    for command, (label, check), got in zip(batch.commands, batch.checks, answers, strict=True):
        problem = check(got)
        if problem is not None:
            failures += 1
            if failures <= 10:
                print(f"MISMATCH {label}\n  sent {command[:120]}\n  got  {got[:200]}\n  {problem[:200]}",
                      file=sys.stderr)
    print(f"crosscheck: {len(batch.commands)} C/Python checks, {failures} mismatches (seed {args.seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
