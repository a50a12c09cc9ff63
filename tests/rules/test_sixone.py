"""Six-one (șase-unu), RULES.md §5, as read in ``rules/variants/sixone.py``: a named test per rule."""

from __future__ import annotations

import pytest

from rules.errors import IllegalPlay, InvalidOption
from rules.plays import judge, legal_results
from rules.position import Position, starting_position
from rules.variants import find_variant
from tests.rules.test_nardy import board, moved

START = starting_position("sixone")
DIE = {"shortcut_home": "die"}


def six(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    return board(mover, opponent, "sixone")


def plays(position: Position, dice: str, **options: str) -> set[str]:
    return {play.notation() for play in legal_results(position, dice, options=options).values()}


def test_sixone_registry_and_options() -> None:
    for name in ("sixone", "six-one", "șase-unu", "sase unu"):
        assert find_variant(name).name == "sixone"
    values = find_variant("sixone").validate_options({})
    assert values["shortcut_home"] == "any" and values["shortcuts"] == "each_die"
    with pytest.raises(InvalidOption, match="any or die"):
        find_variant("sixone").validate_options({"shortcut_home": "six"})
    assert repr(START).startswith("sixone:") and START.mover[23] == 15


def test_sixone_head_shortcut_on_a_6() -> None:
    """A 6 takes a checker from the head straight into home; the 5 moves normally."""
    results = plays(START, "65")
    for home in range(1, 7):
        assert f"24/19 24/{home}" in results
    assert "24/13" in results  # or both dice as ordinary numbers
    assert judge(START, moved(START, (24, 3), (24, 19)), "65").dice_used == 2


def test_sixone_head_shortcut_on_a_1() -> None:
    results = plays(START, "41")
    assert "24/20 24/4" in results and "24/20 24/1" in results
    assert "24/19" in results  # the 1 as an ordinary number


def test_sixone_shortcut_home_die_option() -> None:
    """With ``shortcut_home = die`` the 6 lands on the 6-point and the 1 on the 1-point."""
    # 24/2 is the shortcut to the 6-point, then 6/2 with the 4.
    assert plays(START, "64", **DIE) == {"24/20 24/6", "24/2", "24/14", "24/20 24/18"}
    assert plays(START, "31", **DIE) == {"24/21 24/1", "24/20", "24/23 24/21"}


def test_sixone_shortcuts_each_die_or_one_per_roll() -> None:
    assert "24/6 24/1" in plays(START, "61", **DIE)
    assert "24/6 24/1" not in plays(START, "61", shortcuts="one_per_roll", **DIE)
    assert "24/6(4)" in plays(START, "66", **DIE)
    assert plays(START, "66", shortcuts="one_per_roll", **DIE) == {"24/18(3) 24/6", "24/18(4)"}


def test_sixone_6_and_1_are_ordinary_numbers_off_the_head() -> None:
    """A checker that has left the head moves 6 or 1 points like any other number."""
    position = six({24: 14, 15: 1}, {24: 15})
    results = legal_results(position, "66", options=DIE)
    # The checker on 15 goes 15/9/3 with sixes, never straight home from 15.
    assert six({24: 12, 6: 2, 3: 1}, {24: 15}) in results
    with pytest.raises(IllegalPlay):
        judge(position, moved(position, (15, 6), (24, 18), (24, 18), (24, 18)), "66", options=DIE)


def test_sixone_only_a_6_or_a_1_takes_a_checker_home() -> None:
    assert plays(START, "53") == {"24/16", "24/21 24/19"}
    with pytest.raises(IllegalPlay) as error:
        judge(START, moved(START, (24, 5), (24, 21)), "53")
    assert error.value.reason == "only a 6 or a 1 takes a checker from the head into home"


def test_sixone_no_hitting() -> None:
    """A point holding any opponent checker is closed, for a shortcut too."""
    position = six({24: 15}, {24: 14, 16: 1})  # their 16 is our 4
    assert "24/4" not in {p.split()[-1] for p in plays(position, "61")}
    assert not any(result.mover[3] for result in legal_results(position, "61"))
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 4), (24, 23)), "61")
    assert error.value.reason == "point 4 is held by the opponent"


def test_sixone_no_head_rule_and_no_prime_rule() -> None:
    assert "24/18(4)" in plays(START, "66")  # four checkers leave the head
    position = six({24: 9, 20: 1, 19: 1, 18: 1, 17: 1, 16: 2}, {24: 15})
    block = moved(position, (16, 15), (24, 19))  # 20..15 closed, every opponent checker behind
    assert judge(position, block, "51").dice_used == 2


def test_sixone_no_bearing_off() -> None:
    """The race ends with all fifteen home: no checker moves past point 1."""
    position = six({3: 14, 24: 1}, {24: 15})
    assert plays(position, "55") == {"24/4"}
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (3, 0), (24, 19)), "55")
    assert error.value.reason == "there is no bearing off in six-one"


def test_sixone_maximum_use_and_larger_die() -> None:
    # Only the head checker can move.  24/18/13 and 24/19/13 are held (their 1), so both dice are
    # played only by the shortcut to the 6-point and then 6/1.
    position = six({24: 1, 2: 14}, {24: 14, 1: 1})
    assert plays(position, "65", shortcut_home="die") == {"24/1"}
    # With the 1-point held as well, one die only: the 6 (24/18 or 24/6), not the 5.
    closed = six({24: 1, 2: 14}, {24: 13, 1: 1, 13: 1})  # their 13 is our 1
    assert plays(closed, "65", shortcut_home="die") == {"24/18", "24/6"}
    with pytest.raises(IllegalPlay):
        judge(closed, moved(closed, (24, 19)), "65", options={"shortcut_home": "die"})


def test_sixone_unplayable_roll_passes() -> None:
    position = six({2: 15}, {24: 15})
    results = legal_results(position, "65")
    assert list(results) == [position] and results[position].dice_used == 0
