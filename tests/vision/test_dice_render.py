"""vision.dice_render: drawing one realistic die."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_render import PIP_LAYOUT, STYLES, draw_die, side_values


def _canvas() -> np.ndarray:
    return np.full((120, 160, 3), (90, 140, 60), np.uint8)


def test_draws_in_place_near_the_centre_only() -> None:
    img = _canvas()
    before = img.copy()
    draw_die(img, (80, 60), 5, 34, 20)
    changed = np.any(img != before, axis=2)
    ys, xs = np.nonzero(changed)
    assert changed.sum() > 34 * 34 * 0.7
    assert xs.min() > 80 - 40 and xs.max() < 80 + 40
    assert ys.min() > 60 - 40 and ys.max() < 60 + 40
    assert (before[:5, :5] == img[:5, :5]).all()


def test_deterministic_without_rng_and_with_a_seed() -> None:
    a, b = _canvas(), _canvas()
    draw_die(a, (80, 60), 3, 30, 10)
    draw_die(b, (80, 60), 3, 30, 10)
    assert (a == b).all()
    c, d = _canvas(), _canvas()
    draw_die(c, (80, 60), 3, 30, 10, rng=np.random.default_rng(7))
    draw_die(d, (80, 60), 3, 30, 10, rng=np.random.default_rng(7))
    assert (c == d).all()


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_and_value(style: str) -> None:
    for value in range(1, 7):
        img = _canvas()
        draw_die(img, (80, 60), value, 36, 15 * value, style=style)
        draw_die(img, (30, 30), value, 30, 0, cocked=True, style=style)


def test_pips_contrast_with_the_body() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    draw_die(img, (50, 50), 1, 60, 0, style="ivory")
    centre = img[50, 50].astype(int)
    body = img[50, 50 + 18].astype(int)
    assert body.sum() - centre.sum() > 300  # black pip on an ivory face


def test_cocked_die_shows_more_than_a_flat_one() -> None:
    flat, cocked = np.zeros((120, 120, 3), np.uint8), np.zeros((120, 120, 3), np.uint8)
    draw_die(flat, (60, 60), 2, 34, 0, style="white")
    draw_die(cocked, (60, 60), 2, 34, 0, cocked=True, style="white")
    bright_flat = (flat.sum(axis=2) > 200).sum()
    bright_cocked = (cocked.sum(axis=2) > 100).sum()
    assert bright_cocked > bright_flat * 1.1


def test_clipped_at_the_image_border() -> None:
    img = _canvas()
    draw_die(img, (2, 2), 6, 40, 30)
    draw_die(img, (500, 500), 6, 40, 30)  # entirely outside: nothing happens


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        draw_die(_canvas(), (50, 50), 7, 30, 0)
    with pytest.raises(ValueError):
        draw_die(_canvas(), (50, 50), 3, 30, 0, style="green")
    with pytest.raises(ValueError):
        draw_die(np.zeros((50, 50), np.uint8), (25, 25), 3, 30, 0)


@pytest.mark.parametrize("top", range(1, 7))
def test_side_values_are_a_real_die(top: int) -> None:
    sides = side_values(top)
    assert sorted((top, 7 - top, *sides)) == [1, 2, 3, 4, 5, 6]
    assert sides[0] + sides[2] == 7 and sides[1] + sides[3] == 7


def test_layouts() -> None:
    assert {v: len(p) for v, p in PIP_LAYOUT.items()} == {v: v for v in range(1, 7)}
