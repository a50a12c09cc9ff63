"""Backgammon moves (RULES.md §1–§2): generation, the maximum-use rules, and judge's reasons."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import IllegalPlay
from rules.plays import apply_play, judge, legal_results
from rules.position import Position, starting_position
from rules.steps import Dice
from tests.rules.selfplay import random_positions

OPENING = dict(
    item.split(":")
    for item in "11:42 21:15 22:75 31:16 32:17 33:73 41:14 42:18 43:17 44:52 51:8 52:8 53:9 "
    "54:9 55:4 61:10 62:14 63:14 64:14 65:7 66:11".split()
)


def board(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """A backgammon position from {point: count} per side, each in its own numbering (25 = bar)."""
    def side(points: dict[int, int]) -> tuple[int, ...]:
        counts = [0] * 25
        for point, count in points.items():
            counts[point - 1] = count
        return tuple(counts)
    return Position(side(mover), side(opponent))


def results(position: Position, dice: str) -> dict[str, str]:
    return {play.notation(): result.id for result, play in legal_results(position, dice).items()}


@pytest.mark.parametrize("roll", sorted(OPENING))
def test_opening_table_matches_gnubg(roll: str) -> None:
    assert len(legal_results(starting_position(), roll)) == int(OPENING[roll])


def test_bar_checker_must_enter_before_anything_else() -> None:
    position = board({25: 1, 13: 14}, {6: 5, 8: 10})  # my 19 and 17 are closed
    plays = results(position, "64")
    assert set(plays) == {"bar/21 13/7", "bar/21/15"}.intersection(plays) | set(plays)
    assert all(p.startswith("bar/") for p in plays)
    with pytest.raises(IllegalPlay, match="bar must enter first"):
        judge(position, board({25: 1, 13: 12, 9: 1, 7: 1}, {6: 5, 8: 10}), "64")


def test_if_only_some_bar_checkers_can_enter_the_rest_of_the_roll_is_lost() -> None:
    # Two on the bar, 6-5: my 19 (their 6) is closed, my 20 (their 5) is open: one enters.
    position = board({25: 2, 13: 13}, {6: 5, 8: 10})
    plays = results(position, "65")
    assert list(plays) == ["bar/20"]


def test_hitting_a_blot_sends_it_to_the_bar() -> None:
    position = board({13: 15}, {15: 1, 6: 14})  # their blot on their 15 = my 10
    played = {play.notation(): result for result, play in legal_results(position, "31").items()}
    result = played["13/10*"] if "13/10*" in played else played["13/10*/9"]
    assert result.opponent[24] == 1


def test_a_point_with_two_opponent_checkers_is_closed() -> None:
    before = starting_position()
    wrong = before.mover[:18] + (1,) + before.mover[19:23] + (1,) + before.mover[24:]
    after = Position(wrong, before.opponent)  # 24/19: onto their 6-point
    with pytest.raises(IllegalPlay) as error:
        judge(before, after, "52")
    assert error.value.reason in ("point 19 is closed", "both dice could be played")


def test_closed_point_reason_names_the_point() -> None:
    before = starting_position()
    mover = list(before.mover)
    mover[23] -= 1
    mover[18] += 1  # 24/19 with a 5
    mover[12] -= 1
    mover[10] += 1  # 13/11 with the 2
    with pytest.raises(IllegalPlay, match="point 19 is closed"):
        judge(before, Position(tuple(mover), before.opponent), "52")


def test_both_dice_must_be_played_when_possible() -> None:
    before = starting_position()
    mover = list(before.mover)
    mover[7] -= 1
    mover[4] += 1  # 8/5 only, with 3-1
    with pytest.raises(IllegalPlay, match="both dice could be played") as error:
        judge(before, Position(tuple(mover), before.opponent), "31")
    assert error.value.points  # the LEDs get something to show


def test_the_larger_die_must_be_played_when_only_one_can() -> None:
    # One checker left on my 12 (14 borne off); my 1 is closed: 12/6/1 and 12/7/1 are blocked,
    # so either die alone can be played but not both, and the 6 must be.
    before = board({12: 1}, {24: 2, 13: 13})
    assert set(results(before, "65")) == {"12/6"}
    with pytest.raises(IllegalPlay, match="larger die must be played"):
        judge(before, board({7: 1}, {24: 2, 13: 13}), "65")


def test_bearing_off_needs_every_checker_home() -> None:
    before = board({7: 1, 6: 4, 5: 10}, {24: 15})
    after = board({7: 1, 6: 3, 5: 10}, {24: 15})  # 6/off with the 6 while one is on 7
    with pytest.raises(IllegalPlay, match="bearing off before all checkers are home"):
        judge(before, after, "61")


def test_a_larger_die_bears_off_only_from_the_highest_point() -> None:
    assert set(results(board({4: 2, 2: 3}, {24: 15}), "66")) == {"4/off(2) 2/off(2)"}
    position = board({5: 1, 2: 1}, {24: 15})
    outcomes = {result.mover[:6] for result in legal_results(position, "63")}
    assert outcomes == {(0, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0)}
    with pytest.raises(IllegalPlay, match="only from the highest occupied point"):
        judge(position, board({5: 1}, {24: 15}), "63")  # 2/off with the 3 while 5 is occupied


def test_a_roll_that_cannot_be_played_leaves_the_position() -> None:
    position = board({25: 1, 1: 14}, {i: 2 for i in range(1, 7)} | {13: 3})  # their home closed
    found = legal_results(position, "53")
    assert list(found) == [position]
    assert not next(iter(found.values())).steps
    assert judge(position, position, "53").steps == ()


def test_moving_when_the_roll_can_be_played_is_required() -> None:
    with pytest.raises(IllegalPlay, match="no checker has moved"):
        judge(starting_position(), starting_position(), "31")


def test_checkers_the_roll_cannot_move_are_named() -> None:
    before = starting_position()
    mover = list(before.mover)
    mover[12] -= 2
    mover[2] += 2  # 13/3(2) with 3-1: impossible
    with pytest.raises(IllegalPlay, match="cannot move") as error:
        judge(before, Position(tuple(mover), before.opponent), "31")
    assert 3 in error.value.points or 13 in error.value.points


CASES = list(random_positions(seed=20261201, count=120))


@pytest.mark.parametrize("index", range(0, 120, 3))
def test_every_result_is_judged_legal_with_its_play(index: int) -> None:
    position, dice, first = CASES[index]
    for result, play in legal_results(position, dice).items():
        assert result.is_valid(), result
        assert result.borne_off() + sum(result.mover) == 15
        assert result.borne_off(False) + sum(result.opponent) == 15
        assert judge(position, result, dice) == play
        assert apply_play(position, play) == result


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 119), st.integers(0, 10_000))
def test_a_position_not_in_the_results_is_judged_illegal(index: int, seed: int) -> None:
    position, dice, _ = CASES[index]
    results_now = legal_results(position, dice)
    rng = random.Random(seed)
    mover = list(position.mover)
    occupied = [i for i in range(24) if mover[i]]
    source = rng.choice(occupied)
    target = rng.randrange(24)
    mover[source] -= 1
    mover[target] += 1
    altered = Position(tuple(mover), position.opponent)
    if altered in results_now:
        return
    with pytest.raises(IllegalPlay) as error:
        judge(position, altered, dice)
    assert error.value.reason


def test_dice_are_checked() -> None:
    with pytest.raises(ValueError, match="1..6"):
        legal_results(starting_position(), "71")
    assert Dice.parse("3-1") == Dice(3, 1)
