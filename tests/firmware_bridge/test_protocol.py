"""The wire protocol: CRC, framing, LED state encoding, rejection of damaged frames."""

from __future__ import annotations

import random

import pytest

from firmware_bridge import protocol as p

from .conftest import random_state


def test_crc_is_ccitt_false() -> None:
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16(b"") == 0xFFFF


def test_frame_on_the_wire() -> None:
    state = p.LedState.of({12: p.Led((255, 0, 0), blink=True), 4: (0, 255, 0)}, brightness=64)
    line = p.encode(p.set_frame(7, state))
    body = b"7,SET,64,4:00FF00,12:FF0000~"
    assert line == body + b"*%04X\n" % p.crc16(body)
    assert p.parse_set(p.decode(line)) == state


def test_random_states_round_trip() -> None:
    rng = random.Random(6)
    for seq in range(1, 300):
        state = random_state(rng, count=64, most=20)
        frame = p.decode(p.encode(p.set_frame(seq, state)))
        assert frame.seq == seq and p.parse_set(frame) == state


def test_every_single_byte_corruption_is_rejected() -> None:
    rng = random.Random(7)
    line = p.encode(p.set_frame(4242, random_state(rng)))
    for i in range(len(line) - 1):  # the newline itself only ends the line early
        for _ in range(4):
            bad = bytearray(line)
            bad[i] ^= rng.randrange(1, 256)
            if b"\n" in bad[:-1]:
                continue
            with pytest.raises(p.FrameError):
                p.decode(bytes(bad))


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"1,HB*FFFF", "CRC"),
        (b"1,HB", "SYNTAX"),
        (b"1,HB*12g4", "SYNTAX"),
        (b"x" * 600, "LONG"),
    ],
)
def test_decode_names_the_problem(line: bytes, reason: str) -> None:
    with pytest.raises(p.FrameError) as err:
        p.decode(line)
    assert err.value.reason == reason


def _signed(body: bytes) -> bytes:
    return body + b"*%04X" % p.crc16(body)


@pytest.mark.parametrize("body", [b"70000,HB", b"01,HB", b"1,hb", b"1", b"1,SET,,3", b"1,HB,a b", b"1,HB,\xff"])
def test_well_checksummed_nonsense_is_a_syntax_error(body: bytes) -> None:
    with pytest.raises(p.FrameError) as err:
        p.decode(_signed(body))
    assert err.value.reason == "SYNTAX"


@pytest.mark.parametrize("args", [("300",), ("64", "3:FF00"), ("64", "3=FF0000"), ("64", "03:FF0000"), ("64", "1:ff0000")])
def test_bad_set_arguments(args: tuple[str, ...]) -> None:
    with pytest.raises(p.FrameError):
        p.parse_set(p.Frame(1, p.SET, args))


def test_replies() -> None:
    assert p.parse_reply(p.decode(p.encode(p.ack_frame(3, 9, 8)))) == p.Reply(p.ACK, 3, acked=9, shown=8)
    assert p.parse_reply(p.decode(p.encode(p.nak_frame(4, None, "CRC")))) == p.Reply(p.NAK, 4, reason="CRC")
    hello = p.parse_reply(p.decode(p.encode(p.hello_frame(1, "fw-1.2", 30, 5))))
    assert (hello.kind, hello.version, hello.led_count, hello.shown) == (p.HELLO, "fw-1.2", 30, 5)
    with pytest.raises(p.FrameError):
        p.parse_reply(p.Frame(1, "ACK", ("1",)))


def test_encode_refuses_what_cannot_be_framed() -> None:
    for frame in (p.Frame(70000, "HB"), p.Frame(1, "hb"), p.Frame(1, "HB", ("a,b",)), p.Frame(1, "HB", ("a*",))):
        with pytest.raises(ValueError):
            p.encode(frame)
    with pytest.raises(ValueError):
        p.LedState.of({0: (256, 0, 0)})


def test_line_reader_splits_and_drops_overlong_lines() -> None:
    reader = p.LineReader(max_line=16)
    assert reader.feed(b"abc\nde") == [b"abc"]
    assert reader.feed(b"f\n" + b"x" * 40 + b"\nok\n") == [b"def", b"ok"]
    assert reader.overflows == 1


def test_seq_wraps_past_zero() -> None:
    assert p.next_seq(0) == 1 and p.next_seq(65535) == 1 and p.next_seq(41) == 42


def test_state_helpers() -> None:
    state = p.LedState.of({0: (1, 2, 3), 5: p.Led((9, 9, 9), True), 7: (0, 0, 0)})
    assert state.as_dict() == {0: p.Led((1, 2, 3)), 5: p.Led((9, 9, 9), True)}
    assert state.dense(6)[5].blink and state.dense(6)[1] == p.OFF_LED
    assert state.truncated(5).as_dict() == {0: p.Led((1, 2, 3))}
    assert p.parse_colour("#FF8000") == (255, 128, 0)
