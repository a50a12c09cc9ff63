"""Long nardy, RULES.md §1 and §3: one named test per rule, through ``legal_results``/``judge``."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from rules.errors import IllegalPlay, InvalidOption, UnknownVariant
from rules.plays import judge, legal_results
from rules.position import Position, opponent_point, starting_position
from rules.variants import find_variant

START = starting_position("nardy")


def board(mover: Mapping[int, int], opponent: Mapping[int, int], variant: str = "nardy") -> Position:
    """A position from {point: checkers} for each side, each in its own numbering."""
    me = [0] * 25
    them = [0] * 25
    for point, count in mover.items():
        me[point - 1] = count
    for point, count in opponent.items():
        them[point - 1] = count
    position = Position(tuple(me), tuple(them), variant)
    assert position.is_valid(), position.problem()
    return position


def theirs(point: int) -> int:
    """The opponent's number for the mover's ``point``."""
    return opponent_point("nardy", point)


def plays(position: Position, dice: str, **kwargs: object) -> set[str]:
    """The notations of every legal play."""
    return {play.notation() for play in legal_results(position, dice, **kwargs).values()}  # type: ignore[arg-type]


def moved(position: Position, *hops: tuple[int, int]) -> Position:
    """``position`` with one mover checker moved for each (from, to) hop (to 0 = off)."""
    me = list(position.mover)
    for start, end in hops:
        me[start - 1] -= 1
        if end:
            me[end - 1] += 1
    return Position(tuple(me), position.opponent, position.variant)


def six_in_a_row(position: Position) -> bool:
    """The mover holds six consecutive points along the opponent's path (their 24 → 1)."""
    held = [position.mover[theirs(q) - 1] > 0 for q in range(24, 0, -1)]
    return any(all(held[i : i + 6]) for i in range(19))


# --- §3 geometry and start ----------------------------------------------------------------------


def test_nardy_start_all_fifteen_on_the_head() -> None:
    assert START.mover[23] == 15 and START.opponent[23] == 15
    assert sum(START.mover) == sum(START.opponent) == 15
    assert repr(START).startswith("nardy:")
    assert Position.from_id(repr(START)) == START


def test_nardy_both_sides_move_the_same_way_round() -> None:
    # My 24 (my head) is the opponent's 12, my 13 their 1, my 12 their 24 (their head).
    assert theirs(24) == 12 and theirs(13) == 1 and theirs(12) == 24 and theirs(1) == 13
    assert all(theirs(theirs(p)) == p for p in range(1, 25))


def test_nardy_registry_aliases_and_options() -> None:
    for name in ("nardy", "long nardy", "long-nardy", "tavla", "table lung", "Long Nardy"):
        assert find_variant(name).name == "nardy"
    with pytest.raises(UnknownVariant):
        find_variant("short nardy with extras")
    variant = find_variant("nardy")
    defaults = variant.validate_options({})
    assert defaults["prime_check"] == "end_of_turn"
    assert defaults["prime_condition"] == "opponent_ahead"
    with pytest.raises(InvalidOption, match="end_of_turn or every_step"):
        variant.validate_options({"prime_check": "sometimes"})
    with pytest.raises(InvalidOption, match="prime_check"):
        variant.validate_options({"prime_chek": "every_step"})


# --- §3.3 head rule and the first turn ----------------------------------------------------------

FIRST_TURN_PLAYS = {
    "11": {"24/20"}, "22": {"24/16"}, "33": {"24/18(2)", "24/21 24/15"}, "44": {"24/16(2)"},
    "55": {"24/4"}, "66": {"24/18(2)"},
    "21": {"24/21"}, "31": {"24/20"}, "41": {"24/19"}, "51": {"24/18"}, "61": {"24/17"},
    "32": {"24/19"}, "42": {"24/18"}, "52": {"24/17"}, "62": {"24/16"},
    "43": {"24/17"}, "53": {"24/16"}, "63": {"24/15"},
    "54": {"24/15"}, "64": {"24/14"}, "65": {"24/13"},
}


@pytest.mark.parametrize("dice", sorted(FIRST_TURN_PLAYS))
def test_nardy_first_turn_from_the_start(dice: str) -> None:
    """Every opening roll has exactly one play, except 3-3 (two)."""
    assert plays(START, dice, first_turn=True) == FIRST_TURN_PLAYS[dice]


def test_nardy_first_turn_3_3_two_plays() -> None:
    assert plays(START, "33", first_turn=True) == {"24/18(2)", "24/21 24/15"}


def test_nardy_first_turn_6_6_plays_only_two_sixes() -> None:
    # 18/12 would land on the opponent's head; a third checker may not leave the head.
    results = legal_results(START, "66", first_turn=True)
    assert [play.dice_used for play in results.values()] == [2]
    assert plays(START, "66", first_turn=True) == {"24/18(2)"}


def test_nardy_first_turn_second_head_checker() -> None:
    """4-4 from the start: one checker could play only two fours (16/12 is the opponent's head),
    two checkers play all four, so two leave the head."""
    assert plays(START, "44", first_turn=True) == {"24/16(2)"}
    assert judge(START, moved(START, (24, 16), (24, 16)), "44", first_turn=True).dice_used == 4


def test_nardy_first_turn_exception_only_on_the_first_turn() -> None:
    assert plays(START, "66", first_turn=False) == {"24/18"}
    assert plays(START, "44", first_turn=False) == {"24/16"}
    assert plays(START, "33", first_turn=False) == {"24/15"}
    with pytest.raises(IllegalPlay) as error:
        judge(START, moved(START, (24, 18), (24, 18)), "66")
    assert error.value.reason == "only one checker may leave the head"


def test_nardy_second_player_first_turn_after_24_13() -> None:
    first = moved(START, (24, 13)).swapped()
    assert plays(first, "66", first_turn=True) == {"24/18(2)"}
    assert plays(first, "44", first_turn=True) == {"24/16(2)"}
    assert plays(first, "33", first_turn=True) == {"24/18(2)", "24/21 24/15"}


def test_nardy_second_player_5_5_after_24_21_two_leave_the_head() -> None:
    # The first player's checker on their 21 is on our 9: 24/19/14/9 is blocked, so one checker
    # could play only two fives; two checkers play all four.
    second = moved(START, (24, 21)).swapped()
    assert second.opponent[theirs(9) - 1] == 1
    assert plays(second, "55", first_turn=True) == {"24/14(2)"}
    assert plays(second, "55", first_turn=False) == {"24/14"}


def test_nardy_first_turn_exception_with_a_non_double() -> None:
    """After the first player's 5-5 (24/4, our 16), 5-3 cannot be played by one checker (24/19/16 and
    24/21/16 land on it), but two checkers play both dice: two may leave the head."""
    second = moved(START, (24, 4)).swapped()
    assert plays(second, "53", first_turn=True) == {"24/21 24/19"}
    assert plays(second, "53", first_turn=False) == {"24/19"}  # later: one checker, larger die


def test_nardy_first_turn_exception_not_when_one_checker_suffices() -> None:
    # 2-2 and 5-5 from the start: one checker plays all four steps, so only one may leave.
    assert plays(START, "22", first_turn=True) == {"24/16"}
    with pytest.raises(IllegalPlay) as error:
        judge(START, moved(START, (24, 20), (24, 20)), "22", first_turn=True)
    assert error.value.reason == "only one checker may leave the head"


STRICT = {"first_turn_exception": "strict"}


def test_nardy_first_turn_exception_option_general_or_strict() -> None:
    variant = find_variant("nardy")
    assert variant.validate_options({})["first_turn_exception"] == "general"
    assert variant.validate_options(STRICT)["first_turn_exception"] == "strict"
    with pytest.raises(InvalidOption, match="first_turn_exception takes general or strict"):
        variant.validate_options({"first_turn_exception": "loose"})


@pytest.mark.parametrize("player", ["first", "second"])
def test_nardy_first_turn_strict_3_3_goes_to_21_and_15(player: str) -> None:
    """RULES.md §3.3 strict: the first checker goes as far as the roll allows (24/15; 15/12 is the
    opponent's head), the second takes only the rest (24/21); general also allows 24/18(2).
    The second player is seen after the first player's 24/13."""
    position = START if player == "first" else moved(START, (24, 13)).swapped()
    assert plays(position, "33", first_turn=True) == {"24/18(2)", "24/21 24/15"}
    assert plays(position, "33", first_turn=True, options=STRICT) == {"24/21 24/15"}
    twice = moved(position, (24, 18), (24, 18))
    with pytest.raises(IllegalPlay) as error:
        judge(position, twice, "33", first_turn=True, options=STRICT)
    assert error.value.reason == ("first turn, strict rule: the first checker must go as far as the roll "
                                  "allows (to point 15); the second takes only the rest")
    assert judge(position, moved(position, (24, 21), (24, 15)), "33", first_turn=True, options=STRICT).dice_used == 4
    # 6-6 and 4-4 are the same under both rules: the first checker cannot go farther than 18 / 16.
    assert plays(position, "66", first_turn=True, options=STRICT) == {"24/18(2)"}
    assert plays(position, "44", first_turn=True, options=STRICT) == {"24/16(2)"}
    # Later turns: one checker off the head, under either rule.
    assert plays(position, "33", first_turn=False, options=STRICT) == {"24/15"}


def test_nardy_first_turn_strict_5_5_second_player_blocked() -> None:
    """After the first player's 24/21 (our 9) one checker reaches 14 with 5-5; strict and general
    agree: 24/14(2)."""
    second = moved(START, (24, 21)).swapped()
    assert plays(second, "55", first_turn=True, options=STRICT) == {"24/14(2)"}


def test_nardy_head_rule_one_checker_per_turn() -> None:
    position = board({24: 10, 10: 5}, {24: 15})
    results = legal_results(position, "31")
    assert all(result.mover[23] >= 9 for result in results)
    assert "24/21 10/9" in plays(position, "31")
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 21), (24, 23)), "31")
    assert error.value.reason == "only one checker may leave the head"


def test_nardy_head_rule_checker_moving_on_counts_once() -> None:
    position = board({24: 14, 10: 1}, {24: 15})
    assert "24/20" in plays(position, "31")  # 24/21/20: one checker leaving, moving on
    assert plays(position, "44") == {"24/16 10/2"}  # 16/12 is the opponent's head


def test_nardy_head_rule_leaves_dice_unplayed() -> None:
    # Only the head is occupied: one checker leaves, and the double is played as far as it can go.
    position = board({24: 15}, {24: 14, 1: 1})  # their 1 is our 13
    assert plays(position, "66") == {"24/18"}  # 18/12 is their head; no second checker
    assert plays(position, "55") == {"24/4"}


# --- §3.2 no hitting ----------------------------------------------------------------------------


def test_nardy_no_hitting_a_single_opponent_checker_holds_the_point() -> None:
    # The opponent's lone checker on their 2 stands on our 14.
    position = board({24: 14, 17: 1}, {24: 14, theirs(14): 1})
    assert "17/13" in plays(position, "31")  # 17/16/13 passes round it
    assert not any(result.mover[13] for result in legal_results(position, "31"))
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (17, 14), (24, 23)), "31")
    assert error.value.reason == "point 14 is held by the opponent"
    assert 14 in error.value.points


def test_nardy_own_checkers_share_a_point() -> None:
    position = board({24: 13, 20: 2}, {24: 15})
    assert "24/20" in plays(position, "31")
    assert any(result.mover[19] == 3 for result in legal_results(position, "31"))


def test_nardy_one_checker_passes_only_over_open_points() -> None:
    # 6-5 with the 5 landing on a held point: the same checker must go 6 first.
    position = board({24: 14, 20: 1}, {24: 14, theirs(19): 1})
    assert "24/13" in plays(position, "65")  # 24/18/13 (24/19 is held)
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 19), (20, 14)), "65")
    assert error.value.reason == "point 19 is held by the opponent"


# --- §3.4 the prime rule ------------------------------------------------------------------------


def test_nardy_prime_six_point_block_with_nobody_ahead_refused() -> None:
    # We hold 20..16 and bring a checker to 15: six in a row on the opponent's 8..3, with every
    # opponent checker behind it (on their head, our 12).
    position = board({24: 9, 20: 1, 19: 1, 18: 1, 17: 1, 16: 2}, {24: 15})
    results = legal_results(position, "51")
    assert results and not any(six_in_a_row(r) for r in results)
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 19), (16, 15)), "51")
    assert error.value.reason == "this closes a six-point block with no opponent checker ahead of it"


def test_nardy_prime_block_legal_with_an_opponent_checker_ahead() -> None:
    # Same block, but one opponent checker is past it (their 2, our 14).
    position = board({24: 9, 20: 1, 19: 1, 18: 1, 17: 1, 16: 2}, {24: 14, theirs(14): 1})
    play = judge(position, moved(position, (24, 19), (16, 15)), "51")
    assert play.dice_used == 2


def test_nardy_prime_corner_wrapping_block_refused() -> None:
    """Our 3, 2, 1, 24, 23, 22 are six consecutive points on the opponent's path (their 15..10),
    continuous across our 1 → 24 corner; every opponent checker is behind it."""
    assert [theirs(p) for p in (3, 2, 1, 24, 23, 22)] == [15, 14, 13, 12, 11, 10]
    # The opponent is on their 24 and 17 (our 12 and 5), behind the block.
    position = board({24: 9, 23: 1, 3: 1, 2: 1, 1: 1, 8: 1, 6: 1}, {24: 10, 17: 5})
    results = legal_results(position, "52")
    assert results and not any(six_in_a_row(r) for r in results)
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 22), (8, 3)), "52")
    assert error.value.reason == "this closes a six-point block with no opponent checker ahead of it"


def test_nardy_prime_corner_block_legal_with_an_opponent_checker_ahead() -> None:
    position = board({24: 9, 23: 1, 3: 1, 2: 1, 1: 1, 8: 1, 6: 1}, {24: 10, 17: 4, 5: 1})
    assert judge(position, moved(position, (24, 22), (8, 3)), "52").dice_used == 2


def test_nardy_prime_no_block_across_the_opponents_end() -> None:
    """Our 13 is their 1 and our 12 their 24: the end and the start of their path, not consecutive.
    Holding our 16..11 is therefore no block, with every opponent checker on their 6 (our 18)."""
    assert theirs(13) == 1 and theirs(12) == 24
    position = board({16: 1, 15: 1, 14: 1, 13: 1, 12: 1, 11: 1, 5: 9}, {6: 15})
    assert not six_in_a_row(position)
    assert judge(position, moved(position, (5, 4), (5, 3)), "21").dice_used == 2


def test_nardy_prime_transient_block_end_of_turn() -> None:
    """7→1 closes home points 6..1, then the 5 bears off the lone checker on 5: allowed when the
    block is judged at the end of the turn (the default)."""
    position = board({7: 1, 6: 3, 5: 1, 4: 3, 3: 3, 2: 3}, {24: 8, 22: 7})
    result = moved(position, (7, 1), (5, 0))
    assert judge(position, result, "65").dice_used == 2
    assert judge(position, result, "65", options={"prime_check": "end_of_turn"}).dice_used == 2


def test_nardy_prime_transient_block_every_step() -> None:
    position = board({7: 1, 6: 3, 5: 1, 4: 3, 3: 3, 2: 3}, {24: 8, 22: 7})
    result = moved(position, (7, 1), (5, 0))
    options = {"prime_check": "every_step"}
    assert result not in legal_results(position, "65", options=options)
    with pytest.raises(IllegalPlay) as error:
        judge(position, result, "65", options=options)
    assert error.value.reason == "this closes a six-point block with no opponent checker ahead of it"
    # 7/2 with the five, then 6/off with the six, never closes the block.
    assert judge(position, moved(position, (7, 2), (6, 0)), "65", options=options).dice_used == 2


def test_nardy_prime_condition_opponent_home() -> None:
    """With opponent_home a block is legal only once an opponent checker has reached their home,
    even with opponent checkers ahead of it."""
    home = {"prime_condition": "opponent_home"}
    # Block on our 24..20 and 1 (their 12..8 and 13), closed by 2/1.
    mover = {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 2: 2}
    # One opponent checker on their 7 (our 19): ahead of the block but not yet home.
    ahead = board(mover, {24: 14, 7: 1})
    result = moved(ahead, (2, 1), (24, 21))
    assert six_in_a_row(result)
    assert judge(ahead, result, "31").dice_used == 2
    with pytest.raises(IllegalPlay) as error:
        judge(ahead, result, "31", options=home)
    assert error.value.reason == "this closes a six-point block with no opponent checker ahead of it"
    # One opponent checker home (their 2, our 14): legal under both conditions.
    arrived = board(mover, {24: 14, 2: 1})
    result = moved(arrived, (2, 1), (24, 21))
    assert judge(arrived, result, "31").dice_used == 2
    assert judge(arrived, result, "31", options=home).dice_used == 2
    # Every opponent checker behind the block: illegal under both.
    behind = board(mover, {24: 14, 20: 1})
    result = moved(behind, (2, 1), (24, 21))
    for options in ({}, home):
        with pytest.raises(IllegalPlay):
            judge(behind, result, "31", options=options)


def test_nardy_prime_refused_block_does_not_count_as_playable() -> None:
    """§1.3: steps forbidden by the prime rule do not count, so only one die is played here.

    12/6/1 (or 12/7/1) would close our 6..1 with every opponent checker behind it (their 20, 21,
    23 = our 8, 9, 11, which also stop the checkers on 14); so only one die can be played, and of
    12/6 and 12/7 the larger die must be used."""
    position = board({2: 3, 3: 3, 4: 3, 5: 2, 6: 1, 12: 1, 14: 2}, {20: 4, 21: 5, 23: 6})
    for options in ({}, {"prime_check": "every_step"}):
        assert plays(position, "65", options=options) == {"12/6"}
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (12, 6), (6, 1)), "65")
    assert error.value.reason == "this closes a six-point block with no opponent checker ahead of it"


# --- §1.3 maximum use ---------------------------------------------------------------------------


def test_nardy_larger_die_rule_6_5() -> None:
    """6-5 where either die alone can be played but not both: the 6 must be played."""
    # One checker on 24 (the head is the only source besides nothing); 24/18 and 24/19 are open,
    # but 24/18/13 and 24/19/13 land on the opponent's checker on our 13 (their 1) and the head rule
    # stops a second checker leaving.
    position = board({24: 15}, {24: 14, 1: 1})
    assert plays(position, "65") == {"24/18"}
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (24, 19)), "65")
    assert error.value.reason == "the larger die must be played"


def test_nardy_smaller_die_when_the_larger_cannot_be_played() -> None:
    position = board({24: 15}, {24: 13, theirs(18): 1, 1: 1})
    assert plays(position, "65") == {"24/19"}


def test_nardy_both_dice_must_be_played() -> None:
    position = board({24: 14, 10: 1}, {24: 15})
    with pytest.raises(IllegalPlay) as error:
        judge(position, moved(position, (10, 5)), "52")
    assert error.value.reason == "both dice could be played"


def test_nardy_double_played_as_far_as_possible() -> None:
    position = board({24: 14, 10: 1}, {24: 14, theirs(2): 1})
    # 10/6 and 6/2 is held; 24/20/16/12 stops at their head: at most 24/16 + 10/6 = 3 fours.
    results = legal_results(position, "44")
    assert {play.dice_used for play in results.values()} == {3}


def test_nardy_no_play_turn_passes() -> None:
    position = board({24: 15}, {24: 13, theirs(23): 1, theirs(22): 1})
    results = legal_results(position, "11")
    assert [play.dice_used for play in results.values()] == [0]
    assert list(results) == [position]


# --- §3.5 / §1.5 bearing off --------------------------------------------------------------------


def test_nardy_bear_off_with_the_exact_number() -> None:
    position = board({6: 2, 4: 2, 1: 1}, {24: 15})
    assert "6/off 4/off" in plays(position, "64")


def test_nardy_bear_off_with_higher_die_only_from_the_highest_point() -> None:
    position = board({4: 2, 2: 1}, {24: 15})
    # A 6 and a 5: nothing on 6 or 5, so both bear off from the highest occupied point, 4.
    assert plays(position, "65") == {"4/off(2)"}
    # A checker on 5: the 6 bears off from 5, the other die may not bear off from 4 with a 5?
    # 5 is exact for it; after that 4 is the highest.
    higher = board({5: 1, 4: 1, 2: 1}, {24: 15})
    assert "5/off 4/off" in plays(higher, "65")
    with pytest.raises(IllegalPlay) as error:
        judge(higher, moved(higher, (4, 0), (2, 0)), "65")
    assert error.value.reason == "a larger die bears off only from the highest occupied point"


def test_nardy_bear_off_before_all_checkers_are_home() -> None:
    position = board({7: 1, 5: 2, 3: 2}, {24: 15})
    assert not any(sum(r.mover) < 5 for r in legal_results(position, "53") if r.mover[6])
    # 7/4 first brings the last checker home, then 5/off is allowed.
    assert judge(position, moved(position, (7, 4), (5, 0)), "53").dice_used == 2
    with pytest.raises(IllegalPlay) as error2:
        judge(position, moved(position, (5, 0), (3, 0)), "53")
    assert error2.value.reason == "bearing off before all checkers are home"


def test_nardy_may_move_inside_home_instead_of_bearing_off() -> None:
    position = board({6: 1, 5: 1}, {24: 15})
    results = plays(position, "21")
    assert "6/3" in results or "6/4 5/4" in results
    assert judge(position, moved(position, (6, 4), (5, 4)), "21").dice_used == 2


def test_nardy_bear_off_counts_borne_off_checkers_as_home() -> None:
    # Ten already off: the five on the board are all home.
    position = board({3: 5}, {24: 15})
    assert plays(position, "33") == {"3/off(4)"}
