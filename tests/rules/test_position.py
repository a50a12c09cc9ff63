"""Position IDs (gnubg's Position ID and our prefixed nardy form), JSON boards, validity."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import InvalidNotation, InvalidPosition
from rules.position import Position, starting_position


def test_opening_position_id_is_gnubgs() -> None:
    assert starting_position().id == "4HPwATDgc/ABMA"
    assert repr(starting_position()) == "4HPwATDgc/ABMA"


def test_side_not_on_roll_is_encoded_first() -> None:
    # INTERFACES.md §1: the side on roll has one checker on each of 22 and 23.
    position = Position.from_id("4HPwATDgc/ABFA")
    assert position.mover[21] == 1 and position.mover[22] == 1 and position.mover[23] == 0
    assert position.opponent[23] == 2


def test_nardy_id_is_prefixed_and_round_trips() -> None:
    start = starting_position("nardy")
    assert start.id.startswith("nardy:")
    assert Position.from_id(start.id) == start
    assert Position.from_id(start.id.split(":")[1], "long nardy") == start


@pytest.mark.parametrize(
    "text",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABM!", "zz:4HPwATDgc/ABMA", "////////////////"],
)
def test_malformed_ids_are_refused_with_a_clear_error(text: str) -> None:
    with pytest.raises((InvalidNotation, InvalidPosition)) as error:
        Position.from_id(text)
    assert "position ID" in str(error.value)


def test_sixteen_checkers_is_refused() -> None:
    side = [0] * 25
    side[5], side[7] = 8, 8
    other = list(starting_position().opponent)
    other[5] -= 2  # the 80-bit key holds 30 checkers in all
    with pytest.raises(InvalidPosition, match="16 checkers"):
        Position.from_id(Position(tuple(side), tuple(other)).id)


def test_both_sides_on_one_point_is_refused_unless_lenient() -> None:
    mover = list(starting_position().mover)
    mover[18] = 1  # my 19 is the opponent's 6-point
    mover[5] -= 1
    text = Position(tuple(mover), starting_position().opponent).id
    with pytest.raises(InvalidPosition, match="point 19"):
        Position.from_id(text)
    assert Position.from_id(text, strict=False).mover[18] == 1


def test_json_board_round_trips() -> None:
    start = starting_position()
    assert Position.from_json(start.to_json()) == start
    text = json.dumps({"variant": "backgammon", "mover": list(start.mover), "opponent": list(start.opponent)})
    assert Position.parse(text) == start


def sides() -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(0, 3), min_size=25, max_size=25).filter(lambda s: sum(s) <= 15).map(tuple)


@settings(max_examples=150, deadline=None)
@given(sides(), sides())
def test_any_board_round_trips_through_its_id(mover: tuple[int, ...], opponent: tuple[int, ...]) -> None:
    position = Position(mover, opponent)
    assert Position.from_id(position.id, strict=False) == position
    assert len(position.id) == 14


def test_pip_count_of_the_opening_is_167() -> None:
    assert starting_position().pips() == 167
    assert starting_position().pips(mover=False) == 167
