"""Physical counts <-> rules positions, in every orientation and geometry."""

from __future__ import annotations

import pytest

from rules.position import Position, starting_position
from vision.observation import ORIENTATIONS, Observation, physical_point, position_to_physical


def test_light_home_bottom_right_is_identity() -> None:
    assert [physical_point(n) for n in (1, 6, 12, 13, 24)] == [1, 6, 12, 13, 24]


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_physical_point_is_a_permutation(orientation: str) -> None:
    assert sorted(physical_point(n, orientation) for n in range(1, 25)) == list(range(1, 25))


def test_backgammon_start_lies_where_players_expect() -> None:
    points, bar = position_to_physical(starting_position("backgammon"))
    assert points[5] == (5, 0) and points[7] == (3, 0) and points[12] == (5, 0) and points[23] == (2, 0)
    assert points[0] == (0, 2) and points[11] == (0, 5) and points[16] == (0, 3) and points[18] == (0, 5)
    assert bar == (0, 0)


def test_nardy_heads_are_diagonally_opposite() -> None:
    points, _ = position_to_physical(starting_position("nardy"))
    assert points[23] == (15, 0)  # light's head: its own point 24
    assert points[11] == (0, 15)  # dark's head: light's point 12


@pytest.mark.parametrize("variant", ["backgammon", "nardy"])
@pytest.mark.parametrize("orientation", ORIENTATIONS)
@pytest.mark.parametrize("light_on_roll", [True, False])
def test_round_trip(variant: str, orientation: str, light_on_roll: bool) -> None:
    mover = [0] * 25
    opponent = [0] * 25
    mover[23], mover[20], mover[2] = 4, 3, 1
    opponent[10], opponent[5] = 6, 2
    if variant == "backgammon":
        mover[24] = 1
    position = Position(tuple(mover), tuple(opponent), variant)
    points, bar = position_to_physical(position, light_on_roll, orientation)
    observation = Observation(points=points, bar=bar)
    assert observation.to_position(variant, light_on_roll, orientation) == position


def test_refused_frame_has_no_position() -> None:
    with pytest.raises(ValueError, match="hand"):
        Observation(points=None, occluded=True, refused=True, reason="hand over the board").to_position()


def test_totals_are_reported_not_forced() -> None:
    points = [(0, 0)] * 24
    points[5] = (14, 0)
    observation = Observation(points=points, bar=(0, 16))
    assert observation.totals == (14, 16)
    assert any("16 dark" in p for p in observation.problems())


def test_the_games_totals_while_a_side_moves() -> None:
    """The side whose turn it is may bear off up to four checkers (a double's); the other keeps
    every checker it has on the board and bar; more than 15, or fewer than none, is a clear error."""
    from vision.observation import MOVED_AT_MOST, CheckerTotals

    totals = CheckerTotals.in_turn(15, 3, light_moves=False)
    assert totals == CheckerTotals((15, 15), (0, 3))
    assert totals.allows(15, 0) and not totals.allows(14, 3) and not totals.allows(15, 4)
    assert CheckerTotals.in_turn(9, 12, light_moves=True) == CheckerTotals((9 - MOVED_AT_MOST, 9), (12, 12))
    assert CheckerTotals.in_turn(9, 12, light_moves=True, bears_off=0) == CheckerTotals((9, 9), (12, 12))
    with pytest.raises(ValueError, match="0 to 15"):
        CheckerTotals.in_turn(16, 3, light_moves=True)
