"""vision.dice with a board: a cocked die's side face shows whole pips just outside its top face
(`_side_pips`), even when they do not pair into a face and the top face's own tilt is too slight to
tell; a flat die's sliver of side face does not."""

from __future__ import annotations

from dataclasses import replace

from tests.vision.test_dice import _scene
from vision.dice import DiceConfig, read_dice

_NO_SIDE_PIPS = replace(DiceConfig(), side_pip_count=99)

# (style, seed, value of the cocked die): seeds in the tuning range whose cocked die is flat enough
# on top (22-35 degree tilt, noisy pips) that only its side face's pips tell it
_COCKED = [("black", 9001, 3), ("black", 9021, 3), ("black", 9026, 3), ("red", 9011, 3),
           ("red", 9026, 3), ("red", 9035, 2), ("red", 9039, 6)]


def _read(style: str, seed: int, value: int, cocked: bool, config: DiceConfig | None = None) -> list:
    img, geo = _scene(seed, [(0.3, 0.3, value, cocked), (0.7, 0.7, 3, False)], style)
    return sorted(read_dice(img, config, geo), key=lambda d: d.centre[0])


def test_side_face_pips_tell_a_cocked_die() -> None:
    caught = without = 0
    for style, seed, value in _COCKED:
        dice = _read(style, seed, value, True)
        assert [d.value for d in dice] == [value, 3]
        assert not dice[1].cocked  # the flat die beside it
        caught += dice[0].cocked
        without += _read(style, seed, value, True, _NO_SIDE_PIPS)[0].cocked
    assert caught == len(_COCKED)
    assert without <= 1


def test_flat_dice_show_no_side_face_pips() -> None:
    """Side-face pips never make a flat die cocked (its top face's tilt alone may, rarely)."""
    for style in ("black", "red", "ivory"):
        for seed in range(9040, 9046):
            dice = _read(style, seed, 2 + seed % 5, False)
            assert len(dice) == 2
            base = _read(style, seed, 2 + seed % 5, False, _NO_SIDE_PIPS)
            assert [d.cocked for d in dice] == [d.cocked for d in base], (style, seed)
