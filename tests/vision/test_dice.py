"""vision.dice on rendered dice: values, boxes, cocked dice, roll validity (RULES.md §1.6)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import BoardGeometry
from vision.dice import (
    DiceConfig,
    DieReading,
    RollValidity,
    find_pips,
    read_dice,
    read_dice_timed,
    roll_validity,
)
from vision.dice_render import draw_die

W, H = 1280, 720
STYLES = ("ivory", "white", "red", "black")


def _board(rng: np.random.Generator, felt: tuple[int, int, int] = (60, 110, 50)) -> tuple[np.ndarray, BoardGeometry]:
    """A plain board at camera scale (a die ~30 px): surface, painted points, bar, slight tilt."""
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = (60, 70, 80)
    corners = np.array([[170, 60], [1110, 60], [1130, 680], [150, 680]], float) + rng.normal(0, 8, (4, 2))
    geo = BoardGeometry.from_corners(corners, (W, H))
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), felt)
    colours = [(40, 40, 160), (235, 235, 235)] if felt[0] < 100 else [(30, 30, 30), (40, 40, 150)]
    for p in range(24):
        u0 = (p % 12) / 12 * 0.9 + (0.09 if p % 12 >= 6 else 0.0)
        u1 = u0 + 0.9 / 12
        top = p < 12
        tri = geo.to_image([[u0, 0 if top else 1], [u1, 0 if top else 1], [(u0 + u1) / 2, 0.42 if top else 0.58]])
        cv2.fillConvexPoly(img, np.round(tri).astype(np.int32), colours[p % 2])
    cv2.fillConvexPoly(img, np.round(geo.bar_polygon()).astype(np.int32), (40, 60, 90))
    return img, geo


def _scene(seed: int, dice: list[tuple[float, float, int, bool]], style: str,
           felt: tuple[int, int, int] = (60, 110, 50)) -> tuple[np.ndarray, BoardGeometry]:
    rng = np.random.default_rng(seed)
    img, geo = _board(rng, felt)
    for u, v, value, cocked in dice:
        xy = geo.to_image([u, v])
        draw_die(img, (float(xy[0]), float(xy[1])), value, geo.die_size_px(xy), float(rng.uniform(0, 90)),
                 cocked=cocked, style=style, rng=rng)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    noise = rng.normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), geo


def _values(readings: list[DieReading]) -> list[int]:
    return sorted(r.value for r in readings)


@pytest.mark.parametrize("style", STYLES)
def test_reads_every_value_on_a_board(style: str) -> None:
    """Every value, in pairs, of every die style, at board scale (16 mm die ~ 30 px)."""
    pairs = [(1, 6), (2, 5), (3, 4), (6, 6), (5, 1), (4, 2)]
    wrong = []
    for k, (a, b) in enumerate(pairs):
        felt = ((60, 110, 50), (150, 200, 220), (50, 90, 140))[k % 3]
        img, geo = _scene(100 + k, [(0.66, 0.3 + 0.05 * k, a, False), (0.8, 0.7 - 0.05 * k, b, False)], style, felt)
        got = read_dice(img, None, geo)
        if _values(got) != sorted((a, b)) or any(r.cocked for r in got):
            wrong.append((a, b, [(r.value, r.cocked) for r in got]))
    assert len(wrong) <= 1, wrong


def test_readings_describe_the_die() -> None:
    img, geo = _scene(7, [(0.7, 0.4, 5, False), (0.85, 0.6, 3, False)], "ivory")
    got = read_dice(img, None, geo)
    assert _values(got) == [3, 5]
    for r in got:
        x, y, w, h = r.box
        assert x <= r.centre[0] <= x + w and y <= r.centre[1] <= y + h
        assert 0 < w < 40 and 0 < h < 40
        assert 0.0 <= r.confidence <= 1.0
        assert not r.cocked
    want = {5: geo.to_image([0.7, 0.4]), 3: geo.to_image([0.85, 0.6])}
    for r in got:
        assert np.hypot(*(np.array(r.centre) - want[r.value])) < 6


def test_empty_board_has_no_dice() -> None:
    for seed, felt in ((1, (60, 110, 50)), (2, (150, 200, 220))):
        img, geo = _scene(seed, [], "ivory", felt)
        assert read_dice(img, None, geo) == []
        assert roll_validity([], geo) == RollValidity("none", None, None)


def test_cocked_dice_are_flagged() -> None:
    found = 0
    for k in range(8):
        style = STYLES[k % 4]
        img, geo = _scene(300 + k, [(0.3, 0.3 + 0.05 * k, 1 + k % 6, True), (0.2, 0.75, 3, False)], style)
        got = read_dice(img, None, geo)
        verdict = roll_validity(got, geo)
        found += verdict == RollValidity("void", "cocked", None)
        flat = [r for r in got if np.hypot(*(np.array(r.centre) - geo.to_image([0.2, 0.75]))) < 8]
        assert flat and not flat[0].cocked
    assert found >= 5  # measured about 70-75% of cocked dice on rendered boards


def test_roll_validity_on_a_board() -> None:
    img, geo = _scene(11, [(0.7, 0.35, 2, False), (0.8, 0.6, 6, False)], "white")
    assert roll_validity(read_dice(img, None, geo), geo) == RollValidity("valid", None, "right")
    img, geo = _scene(12, [(0.2, 0.35, 2, False), (0.3, 0.6, 6, False)], "white")
    assert roll_validity(read_dice(img, None, geo), geo) == RollValidity("valid", None, "left")
    img, geo = _scene(13, [(0.2, 0.35, 4, False), (0.8, 0.6, 5, False)], "red")
    got = read_dice(img, None, geo)
    assert _values(got) == [4, 5]
    assert roll_validity(got, geo) == RollValidity("void", "different_halves", None)
    assert roll_validity(got, geo, opening=True).roll == "valid"
    # a die that came to rest on the frame, just off the playing surface
    img, geo = _scene(14, [(1.035, 0.5, 3, False), (0.8, 0.6, 1, False)], "ivory")
    got = read_dice(img, None, geo)
    assert _values(got) == [1, 3]
    assert roll_validity(got, geo) == RollValidity("void", "off_board", None)


def test_roll_validity_rules() -> None:
    geo = BoardGeometry.from_corners([[100, 100], [1100, 100], [1100, 620], [100, 620]], (W, H))

    def die(x: float, y: float, cocked: bool = False) -> DieReading:
        return DieReading(3, (int(x) - 8, int(y) - 8, 16, 16), (x, y), 0.9, cocked)

    right = [die(900, 300), die(950, 400)]
    assert roll_validity(right, geo) == ("valid", None, "right")
    roll, reason, half = roll_validity([die(300, 300), die(350, 400)], geo)  # unpacks like a tuple
    assert (roll, reason, half) == ("valid", None, "left")
    # one die on the surface: the other came to rest off it (except the opening roll's single die)
    assert roll_validity([die(300, 300)], geo) == ("void", "off_board", None)
    assert roll_validity([die(300, 300)], geo, opening=True) == ("valid", None, "left")
    assert roll_validity([die(900, 300), die(600, 400)], geo).void_reason == "off_board"  # on the bar
    assert roll_validity([die(900, 300), die(1150, 400)], geo).void_reason == "off_board"
    assert roll_validity([die(900, 300, True), die(950, 400)], geo).void_reason == "cocked"
    mask = np.zeros((H, W), np.uint8)
    cv2.circle(mask, (950, 400), 30, 255, -1)
    assert roll_validity(right, geo, mask).void_reason == "on_checker"
    cv2.circle(mask, (950, 400), 30, 0, -1)
    cv2.circle(mask, (990, 400), 30, 255, -1)  # a checker beside the die, touching it
    assert roll_validity(right, geo, mask).roll == "valid"


@pytest.mark.parametrize("style", STYLES)
def test_without_a_board(style: str) -> None:
    """Any photo: dice of every style on a wooden table, no calibration."""
    rng = np.random.default_rng(5)
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (120, 170, 205)
    grain = rng.normal(0, 6, (480, 1)).astype(np.float32)
    img = np.clip(img + cv2.resize(grain, (640, 480))[:, :, None], 0, 255).astype(np.uint8)
    placed = [(150, 150, 6), (350, 130, 2), (500, 300, 5), (200, 350, 3), (420, 400, 4), (560, 100, 1)]
    for x, y, v in placed:
        draw_die(img, (x, y), v, 44, float(rng.uniform(0, 90)), style=style, rng=rng)
    got = read_dice(cv2.GaussianBlur(img, (0, 0), 0.8))
    assert _values(got) == [1, 2, 3, 4, 5, 6]


def test_clutter_is_not_dice() -> None:
    """A label, a keyboard-like grid of keys with symbols, a cable: not die faces.  (A lone dark dot
    on a plain surface is a one as far as pips go; with a board the die size rules it out.)"""
    rng = np.random.default_rng(9)
    img = np.full((480, 640, 3), (150, 190, 215), np.uint8)
    cv2.rectangle(img, (30, 60), (250, 120), (235, 235, 235), -1)  # a white label with print
    cv2.putText(img, "C12.0 USB-C", (40, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    cv2.polylines(img, [np.array([[20, 470], [120, 300], [90, 200], [200, 150]], np.int32)], False, (25, 25, 25), 9)
    for x in range(330, 630, 28):  # keys
        for y in range(20, 460, 28):
            cv2.rectangle(img, (x, y), (x + 22, y + 22), (40, 40, 40), -1)
            cv2.putText(img, chr(65 + int(rng.integers(26))), (x + 5, y + 17), cv2.FONT_HERSHEY_PLAIN, 1.0,
                        (230, 230, 230), 1)
    got = read_dice(cv2.GaussianBlur(img, (0, 0), 0.7))
    assert len(got) <= 1, got


def test_timings_and_config() -> None:
    img, geo = _scene(21, [(0.7, 0.5, 4, False), (0.8, 0.3, 2, False)], "ivory")
    got, tm = read_dice_timed(img, DiceConfig(), geo)
    assert _values(got) == [2, 4]
    assert tm.total_ms > 0 and min(tm.prepare_ms, tm.pips_ms, tm.faces_ms, tm.dice_ms) >= 0
    # a stricter contrast threshold than any pip has finds nothing
    assert read_dice(img, DiceConfig(min_contrast=250.0, window_contrast=250.0), geo) == []


def test_light_and_dark_pips() -> None:
    img = np.full((200, 300, 3), (120, 120, 120), np.uint8)
    draw_die(img, (80, 100), 5, 50, 0, style="ivory")
    draw_die(img, (220, 100), 5, 50, 0, style="black")
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    pips = find_pips(gray)
    assert sum(p.dark for p in pips) >= 5 and sum(not p.dark for p in pips) >= 5
