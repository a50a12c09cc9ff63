"""Match state as a fold over events: scoring, cube, Crawford, Jacoby, beavers, nardy results
(RULES.md §2.3-2.6, §3.1, §3.6-3.8).  Each test is named after the rule it checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import match
from rules.errors import IllegalEvent, InvalidNotation
from rules.ids import MatchId
from rules.match import (
    Beaver,
    Double,
    Drop,
    GameEnd,
    IllegalPlayAccepted,
    IllegalPlayCorrected,
    IllegalPlayDetected,
    ManualCorrection,
    OpeningRoll,
    Play,
    Resign,
    ResignAccepted,
    ResignDeclined,
    Roll,
    Take,
    VoidRoll,
    apply,
    new_match,
    replay,
)
from rules.plays import legal_results
from rules.position import Position


def side(variant: str = "backgammon", **points: int) -> tuple[int, ...]:
    """A 25-tuple from keyword counts: p1=2, p24=3, bar=1."""
    counts = [0] * 25
    for name, count in points.items():
        counts[24 if name == "bar" else int(name[1:]) - 1] = count
    return tuple(counts)


def near_end(state: match.MatchState, loser: tuple[int, ...], winner_checkers: int = 1) -> match.MatchState:
    """Player 0 (on roll with 3-1 after the opening) has ``winner_checkers`` on point 1."""
    state = apply(state, OpeningRoll(3, 1))
    board = Position(side(p1=winner_checkers), loser, state.variant)
    return apply(state, ManualCorrection(0, board, "test set-up"))


def bear_off_last(state: match.MatchState) -> match.MatchState:
    before = state.position_for(0)
    result = Position(side(), before.opponent, before.variant)
    return apply(state, Play(0, result))


def first_legal(state: match.MatchState) -> match.MatchState:
    assert state.turn is not None and state.dice is not None
    results = legal_results(state.position, state.dice, first_turn=state.first_turn, options=state.config.rule_options())
    result = sorted(results, key=lambda p: p.id)[0]
    return apply(state, Play(state.turn, result, results[result].steps))


BG_OPTIONS = {"crawford": True}
LOSER_SINGLE = side(p6=5, p5=5)  # 10 on board: has borne off five
LOSER_GAMMON = side(p12=15)
LOSER_BACKGAMMON_BAR = side(p6=14, bar=1)
LOSER_BACKGAMMON_HOME = side(p6=14, p20=1)  # the loser's 20 is in the winner's home


# --- backgammon results (§2.3) -------------------------------------------------------------


def test_single_game_scores_one_times_cube() -> None:
    state = bear_off_last(near_end(new_match("backgammon", 5), LOSER_SINGLE))
    assert state.score == (1, 0)
    assert state.last_result is not None and state.last_result.result == "single"


def test_gammon_when_loser_has_borne_off_none() -> None:
    state = bear_off_last(near_end(new_match("backgammon", 5), LOSER_GAMMON))
    assert state.score == (2, 0)


@pytest.mark.parametrize("loser", [LOSER_BACKGAMMON_BAR, LOSER_BACKGAMMON_HOME])
def test_backgammon_when_loser_on_bar_or_in_winners_home(loser: tuple[int, ...]) -> None:
    state = bear_off_last(near_end(new_match("backgammon", 5), loser))
    assert state.score == (3, 0)
    assert state.last_result is not None and state.last_result.result == "backgammon"


def test_result_multiplied_by_cube() -> None:
    state = apply(new_match("backgammon", 9), OpeningRoll(3, 1))
    state = first_legal(state)
    state = apply(state, Double(1))
    state = apply(state, Take(0))
    assert (state.cube, state.cube_owner, state.turn) == (2, 0, 1)
    board = Position(side(p1=1), LOSER_GAMMON, "backgammon")
    state = apply(state, ManualCorrection(0, board))
    state = apply(state, Roll(1, (6, 5)))
    state = first_legal(state)
    state = apply(state, Roll(0, (2, 1)))
    state = bear_off_last(state)
    assert state.score == (4, 0)  # gammon x cube 2


# --- cube (§2.4) ----------------------------------------------------------------------------


def cube_ready(length: int = 0, **options: object) -> match.MatchState:
    state = apply(new_match("backgammon", length, options), OpeningRoll(3, 1))
    return first_legal(state)  # player 1 to roll, may double


def test_centred_cube_available_to_both_players() -> None:
    state = cube_ready()
    assert state.may_double(1) == ""
    state = apply(state, Roll(1, (5, 2)))
    state = first_legal(state)
    assert state.may_double(0) == ""


def test_take_doubles_cube_and_taker_owns_it() -> None:
    state = apply(apply(cube_ready(), Double(1)), Take(0))
    assert state.cube == 2 and state.cube_owner == 0
    assert state.phase == match.ROLL and state.turn == 1


def test_drop_loses_current_cube_value() -> None:
    state = apply(apply(cube_ready(7), Double(1)), Take(0))
    state = apply(state, Roll(1, (5, 2)))
    state = first_legal(state)
    state = apply(state, Double(0))
    state = apply(state, Drop(1))
    assert state.score == (2, 0)
    assert state.phase == match.GAME_OVER
    assert state.last_result is not None and state.last_result.result == "drop"


def test_only_cube_owner_may_redouble() -> None:
    state = apply(apply(cube_ready(), Double(1)), Take(0))
    state = apply(state, Roll(1, (5, 2)))
    state = first_legal(state)
    state = apply(state, Roll(0, (4, 1)))
    state = first_legal(state)
    with pytest.raises(IllegalEvent, match="does not own the cube"):
        apply(state, Double(1))


def test_double_only_on_own_turn_before_rolling() -> None:
    state = cube_ready()
    with pytest.raises(IllegalEvent):
        apply(state, Double(0))
    state = apply(state, Roll(1, (5, 2)))
    with pytest.raises(IllegalEvent, match="before rolling"):
        apply(state, Double(1))


def test_play_while_double_pending_is_illegal() -> None:
    state = apply(cube_ready(), Double(1))
    with pytest.raises(IllegalEvent, match="double is pending"):
        apply(state, Roll(1, (5, 2)))
    with pytest.raises(IllegalEvent, match="double is pending"):
        apply(state, Play(1, state.position_for(1)))


def test_take_by_the_doubler_is_illegal() -> None:
    state = apply(cube_ready(), Double(1))
    with pytest.raises(IllegalEvent):
        apply(state, Take(1))


# --- match play: Crawford (§2.5) -------------------------------------------------------------


def win_game(state: match.MatchState, loser: tuple[int, ...] = LOSER_SINGLE, winner: int = 0) -> match.MatchState:
    """Player ``winner`` wins the next game (single by default) via a set-up position."""
    state = apply(state, OpeningRoll(3, 1) if winner == 0 else OpeningRoll(1, 3))
    board = Position(side(p1=1), loser, "backgammon")
    state = apply(state, ManualCorrection(winner, board))
    result = Position(side(), loser, "backgammon")
    return apply(state, Play(winner, result))


def test_crawford_game_forbids_doubling() -> None:
    state = new_match("backgammon", 3, {"crawford": True})
    state = win_game(state, LOSER_GAMMON)  # 2-0: player 0 reaches N-1
    assert state.crawford_game
    state = apply(state, OpeningRoll(1, 3))
    state = first_legal(state)
    with pytest.raises(IllegalEvent, match="Crawford"):
        apply(state, Double(0))


def test_post_crawford_double_is_legal() -> None:
    state = new_match("backgammon", 3)
    state = win_game(state, LOSER_GAMMON)  # 2-0, next game Crawford
    state = win_game(state, winner=1)  # Crawford game: 2-1
    assert not state.crawford_game and state.crawford_done
    state = apply(state, OpeningRoll(3, 1))
    state = first_legal(state)
    assert state.may_double(1) == ""
    state = apply(state, Double(1))
    assert state.phase == match.CUBE


def test_dead_cube_in_a_one_point_match() -> None:
    """RULES.md §2.7: no cube in a 1-point match (gnubg: "The cube is dead")."""
    state = cube_ready(1)
    assert state.may_double(1) == "the cube is dead in a 1-point match"
    with pytest.raises(IllegalEvent, match="the cube is dead in a 1-point match"):
        apply(state, Double(1))


def test_dead_cube_post_crawford_leader_may_not_double_or_redouble() -> None:
    """RULES.md §2.7: at 4-2 of 5 after the Crawford game the leader already wins the match with a
    single game: he may not double, nor redouble a 2-cube he owns; the trailer may double."""
    state = new_match("backgammon", 5)
    state = win_game(state, LOSER_GAMMON, winner=1)  # 0-2
    state = win_game(state, LOSER_GAMMON)  # 2-2
    state = win_game(state, LOSER_GAMMON)  # 4-2: the next game is the Crawford game
    state = win_game(state, winner=1)  # Crawford game: 4-3
    assert state.score == (4, 3) and state.crawford_done and not state.crawford_game
    state = apply(state, OpeningRoll(1, 3))  # player 1 plays 31; player 0, the leader, is to roll
    state = first_legal(state)
    assert state.may_double(0) == ("the cube is dead: player 0 already wins the match with a single game "
                                   "(4 of 5 points)")
    with pytest.raises(IllegalEvent, match="the cube is dead"):
        apply(state, Double(0))
    state = apply(state, Roll(0, (5, 2)))
    state = first_legal(state)
    state = apply(apply(state, Double(1)), Take(0))  # the trailer may double; the leader owns 2
    state = apply(state, Roll(1, (6, 4)))
    state = first_legal(state)
    assert state.cube == 2 and state.cube_owner == 0 and state.turn == 0
    with pytest.raises(IllegalEvent, match="the cube is dead: player 0 already wins the match with a "
                       "single game at the 2-cube"):
        apply(state, Double(0))


def test_dead_cube_when_the_cube_cannot_raise_the_doublers_gain() -> None:
    """3-0 of 5 owning a 2-cube: winning this game at 2 already wins the match."""
    state = apply(apply(cube_ready(5), Double(1)), Take(0))  # player 0 owns 2
    state = replace(state, score=(3.0, 0.0))
    state = apply(state, Roll(1, (5, 2)))
    state = first_legal(state)
    assert state.may_double(0).startswith("the cube is dead")
    state = replace(state, score=(2.0, 0.0))
    assert state.may_double(0) == ""


def test_crawford_option_off_allows_double_at_match_point() -> None:
    state = new_match("backgammon", 3, {"crawford": False})
    state = win_game(state, LOSER_GAMMON)
    state = apply(state, OpeningRoll(3, 1))
    state = first_legal(state)
    assert state.may_double(1) == ""


def test_crawford_rule_applies_once() -> None:
    state = new_match("backgammon", 5)
    state = win_game(state, LOSER_GAMMON)
    state = win_game(state, LOSER_GAMMON)  # 4-0, Crawford next
    assert state.crawford_game
    state = win_game(state, winner=1)  # Crawford game
    state = win_game(state, winner=1)
    assert state.score == (4, 2) and not state.crawford_game


def test_no_crawford_in_money_play() -> None:
    state = new_match("backgammon", 0)
    state = win_game(state, LOSER_GAMMON)
    assert not state.crawford_game


def test_win_worth_more_than_needed_ends_match() -> None:
    state = new_match("backgammon", 3)
    state = win_game(state, winner=1)  # 0-1
    state = win_game(state, LOSER_BACKGAMMON_BAR)  # 3 points for player 0
    assert state.match_over and state.winner == 0 and state.score == (3, 1)
    with pytest.raises(IllegalEvent, match="match is over"):
        apply(state, OpeningRoll(3, 1))


# --- money play: Jacoby, beavers ------------------------------------------------------------


def test_jacoby_gammon_counts_single_while_cube_centred() -> None:
    state = new_match("backgammon", 0, {"jacoby": True})
    state = win_game(state, LOSER_GAMMON)
    assert state.score == (1, 0)


def test_jacoby_gammon_counts_once_cube_turned() -> None:
    state = apply(apply(cube_ready(0, jacoby=True), Double(1)), Take(0))
    board = Position(side(p1=1), LOSER_GAMMON, "backgammon")
    state = apply(state, ManualCorrection(0, board))
    state = apply(state, Roll(1, (6, 5)))
    state = first_legal(state)
    state = apply(state, Roll(0, (2, 1)))
    state = bear_off_last(state)
    assert state.score == (4, 0)


def test_jacoby_ignored_in_match_play() -> None:
    state = new_match("backgammon", 5, {"jacoby": True})
    state = win_game(state, LOSER_GAMMON)
    assert state.score == (2, 0)


def test_beaver_redoubles_and_beaverer_keeps_cube() -> None:
    state = apply(apply(cube_ready(0, beavers=True), Double(1)), Beaver(0))
    assert state.cube == 4 and state.cube_owner == 0 and state.turn == 1


def test_beaver_refused_without_option_or_in_match_play() -> None:
    with pytest.raises(IllegalEvent, match="beaver"):
        apply(apply(cube_ready(0), Double(1)), Beaver(0))
    with pytest.raises(IllegalEvent, match="beaver"):
        apply(apply(cube_ready(5, beavers=True), Double(1)), Beaver(0))


# --- resignation (§2.6) ----------------------------------------------------------------------


def test_resignation_accepted_scores_value_times_cube() -> None:
    state = apply(apply(cube_ready(9), Double(1)), Take(0))
    state = apply(state, Resign(1, 2))
    assert state.phase == match.RESIGN and state.turn == 0
    state = apply(state, ResignAccepted(0))
    assert state.score == (4, 0)
    state = apply(state, GameEnd(0, 4, "resign gammon"))
    assert state.result_confirmed


def test_resigned_gammon_scores_face_value_with_jacoby_and_cube_centred() -> None:
    """RULES.md §2.6 (as gnubg): Jacoby reduces a gammon won over the board, not a resigned one."""
    state = cube_ready(0, jacoby=True)
    assert state.cube_owner is None
    state = apply(apply(state, Resign(1, 2)), ResignAccepted(0))
    assert state.score == (2, 0)
    assert state.last_result is not None and state.last_result.result == "resign gammon"


def test_resignation_declined_continues_game() -> None:
    state = cube_ready()
    state = apply(state, Resign(1, 1))
    with pytest.raises(IllegalEvent):
        apply(state, ResignAccepted(1))
    state = apply(state, ResignDeclined(0))
    assert state.phase == match.ROLL and state.turn == 1


def test_resignation_value_limited_to_backgammon() -> None:
    with pytest.raises(IllegalEvent, match="1..3"):
        apply(cube_ready(), Resign(1, 4))


def test_game_end_must_agree_with_fold() -> None:
    state = win_game(new_match("backgammon", 5))
    with pytest.raises(IllegalEvent, match="winning 1"):
        apply(state, GameEnd(1, 1))
    state = apply(state, GameEnd(0, 1, "single"))
    with pytest.raises(IllegalEvent):
        apply(state, GameEnd(0, 1, "single"))


# --- turn order, opening, void rolls, illegal plays ------------------------------------------


def test_opening_roll_tie_rolls_again() -> None:
    state = apply(new_match(), OpeningRoll(4, 4))
    assert state.phase == match.OPENING
    state = apply(state, OpeningRoll(2, 5))
    assert state.turn == 1 and state.dice == (5, 2) and state.phase == match.PLAY


def test_backgammon_new_game_needs_opening_roll() -> None:
    state = win_game(new_match("backgammon", 5))
    with pytest.raises(IllegalEvent, match="opening roll"):
        apply(state, Roll(0, (3, 1)))


def test_roll_out_of_turn_is_illegal() -> None:
    state = cube_ready()
    with pytest.raises(IllegalEvent, match="player 1's turn"):
        apply(state, Roll(0, (3, 1)))


def test_void_roll_recorded_without_turn() -> None:
    state = cube_ready()
    after = apply(state, VoidRoll(1, "cocked"))
    assert after.phase == state.phase and after.turn == state.turn and after.events == state.events + 1
    with pytest.raises(IllegalEvent):
        apply(apply(state, Roll(1, (3, 1))), VoidRoll(1, "cocked"))


def test_illegal_play_rejected_by_fold() -> None:
    state = apply(new_match(), OpeningRoll(3, 1))
    before = state.position
    wrong = Position(side(p24=2, p13=4, p8=4, p6=5), before.opponent)  # 6/2 with 3-1
    with pytest.raises(IllegalEvent, match="illegal play"):
        apply(state, Play(0, wrong))


def test_illegal_play_detected_then_corrected() -> None:
    state = apply(new_match(), OpeningRoll(3, 1))
    wrong = Position(side(p24=2, p13=4, p8=4, p6=5), state.position.opponent)
    state = apply(state, IllegalPlayDetected(0, wrong, "checkers changed that this roll cannot move", (13, 8)))
    with pytest.raises(IllegalEvent, match="pending"):
        first_legal(state)
    state = apply(state, IllegalPlayCorrected(0))
    state = first_legal(state)
    assert state.turn == 1


def test_illegal_play_accepted_moves_board_and_passes_turn() -> None:
    state = apply(new_match(), OpeningRoll(3, 1))
    wrong = Position(side(p24=2, p13=4, p8=4, p6=5), state.position.opponent)
    state = apply(state, IllegalPlayAccepted(0, wrong, "opponent accepted"))
    assert state.turn == 1 and state.position_for(0).mover == wrong.mover


def test_fold_equals_replay() -> None:
    events: list[match.Event] = [OpeningRoll(3, 1)]
    state = apply(new_match(), events[0])
    results = legal_results(state.position, state.dice or (3, 1))
    result = sorted(results, key=lambda p: p.id)[0]
    events.append(Play(0, result, results[result].steps))
    assert replay(new_match(), events) == apply(state, events[1])


# --- nardy (§3.1, §3.6-3.8) -----------------------------------------------------------------


def nardy_end(options: dict[str, object], loser: tuple[int, ...], *, length: int = 0) -> match.MatchState:
    state = new_match("nardy", length, options)
    if state.phase == match.OPENING:
        state = apply(state, OpeningRoll(5, 3))
    state = apply(state, Roll(0, (3, 1)))
    board = Position(side(p1=1), loser, "nardy")
    state = apply(state, ManualCorrection(0, board))
    return apply(state, Play(0, Position(side(), loser, "nardy")))


def test_nardy_opening_winner_rolls_afresh() -> None:
    state = apply(new_match("nardy", 3), OpeningRoll(2, 6))
    assert state.phase == match.ROLL and state.turn == 1 and state.dice is None


def test_nardy_oin_scores_one() -> None:
    assert nardy_end({}, side(p3=14)).score == (1, 0)


def test_nardy_mars_scores_two() -> None:
    state = nardy_end({}, side(p3=15))
    assert state.score == (2, 0) and state.last_result is not None and state.last_result.result == "mars"


def test_nardy_koks_scores_three_when_none_home() -> None:
    assert nardy_end({"koks": True}, side(p14=15)).score == (3, 0)
    assert nardy_end({}, side(p14=15)).score == (2, 0)


def test_nardy_home_mars_scores_four_when_all_home_none_off() -> None:
    assert nardy_end({"home_mars": True}, side(p3=15)).score == (4, 0)
    assert nardy_end({}, side(p3=15)).score == (2, 0)


@pytest.mark.parametrize("variant", ["nardy", "gulbara"])
def test_nardy_resignation_above_what_the_options_allow_is_refused(variant: str) -> None:
    """With koks and home mars off the most a game is worth is mars (2): resigning 3 or 4 is refused."""
    def ready(options: dict[str, object]) -> match.MatchState:
        return apply(new_match(variant, 0, options), OpeningRoll(5, 3))

    for value, name in ((3, "koks"), (4, "home mars")):
        with pytest.raises(IllegalEvent, match=rf"worth {value} \({name}\) is not possible: .* is off in this "
                           r"game \(the most a game can be worth here is mars \(2\)\)"):
            apply(ready({}), Resign(0, value))
    assert apply(ready({}), Resign(0, 2)).phase == match.RESIGN
    state = apply(apply(ready({"koks": True}), Resign(0, 3)), ResignAccepted(1))
    assert state.score == (0, 3)
    with pytest.raises(IllegalEvent, match="home_mars is off"):
        apply(ready({"koks": True}), Resign(0, 4))
    state = apply(apply(ready({"home_mars": True}), Resign(0, 4)), ResignAccepted(1))
    assert state.score == (0, 4)


@pytest.mark.parametrize("rule", ["general", "strict"])
def test_nardy_first_turn_3_3_in_the_match_for_both_players(rule: str) -> None:
    """RULES.md §3.3 through the fold: each player's first 3-3 may be 24/18(2) only under
    ``first_turn_exception = general``; 24/21 24/15 is legal under both."""
    from tests.rules.test_nardy import moved

    state = apply(new_match("nardy", 0, {"first_turn_exception": rule}), OpeningRoll(5, 3))
    for player in (0, 1):
        state = apply(state, Roll(player, (3, 3)))
        before = state.position_for(player)
        twice = moved(before, (24, 18), (24, 18))
        if rule == "strict":
            with pytest.raises(IllegalEvent, match="first turn, strict rule"):
                apply(state, Play(player, twice))
            state = apply(state, Play(player, moved(before, (24, 21), (24, 15))))
        else:
            state = apply(state, Play(player, twice))
    assert state.turns_played == (1, 1)


def test_nardy_has_no_doubling_cube() -> None:
    state = apply(new_match("nardy", 3), OpeningRoll(5, 3))
    with pytest.raises(IllegalEvent, match="no doubling cube"):
        apply(state, Double(0))


def test_nardy_previous_winner_starts_next_game() -> None:
    state = nardy_end({}, side(p3=14), length=5)
    assert state.phase == match.GAME_OVER
    with pytest.raises(IllegalEvent, match="winner begins"):
        apply(state, OpeningRoll(1, 6))
    with pytest.raises(IllegalEvent):
        apply(state, Roll(1, (3, 1)))
    state = apply(state, Roll(0, (3, 1)))
    assert state.game == 1 and state.starter == 0 and state.first_turn


def test_nardy_white_always_starts() -> None:
    state = new_match("nardy", 3, {"white_always_starts": True})
    assert state.phase == match.ROLL and state.turn == 0
    with pytest.raises(IllegalEvent):
        apply(state, OpeningRoll(1, 6))


def last_roll_setup(second_player: tuple[int, ...]) -> match.MatchState:
    state = new_match("nardy", 0, {"last_roll_draw": True, "draw_points": "half"})
    assert state.turn == 0  # implies white_always_starts
    state = apply(state, Roll(0, (3, 1)))
    state = apply(state, ManualCorrection(0, Position(side(p1=1), second_player, "nardy")))
    state = apply(state, Play(0, Position(side(), second_player, "nardy")))
    return state


def test_nardy_last_roll_draw_second_player_gets_one_more_turn() -> None:
    state = last_roll_setup(side(p2=1, p1=1))
    assert state.phase == match.ROLL and state.turn == 1 and state.score == (0, 0)
    state = apply(state, Roll(1, (3, 2)))
    state = apply(state, Play(1, Position(side(), side(), "nardy")))
    assert state.last_result is not None and state.last_result.winner is None
    assert state.score == (0.5, 0.5)


def test_nardy_last_roll_draw_first_mover_wins_when_second_cannot_finish() -> None:
    state = last_roll_setup(side(p6=2, p5=1))
    state = apply(state, Roll(1, (6, 5)))
    state = apply(state, Play(1, Position(side(p6=1), side(), "nardy")))
    assert state.score == (1, 0) and state.last_result is not None and state.last_result.result == "oin"


def test_nardy_draw_points_one() -> None:
    state = new_match("nardy", 0, {"last_roll_draw": True, "draw_points": "one"})
    state = apply(state, Roll(0, (3, 1)))
    state = apply(state, ManualCorrection(0, Position(side(p1=1), side(p1=2), "nardy")))
    state = apply(state, Play(0, Position(side(), side(p1=2), "nardy")))
    state = apply(state, Roll(1, (2, 1)))
    state = apply(state, Play(1, Position(side(), side(), "nardy")))
    assert state.score == (1, 1)


def test_nardy_match_to_n_points_ends() -> None:
    state = nardy_end({}, side(p3=15), length=1)
    assert state.match_over and state.winner == 0


# --- Match ID ---------------------------------------------------------------------------------


def test_match_id_test_vector() -> None:
    decoded = MatchId.decode("QYkqASAAIAAA")
    assert decoded.length == 9 and decoded.score == (2, 4)
    assert decoded.cube == 2 and decoded.cube_owner == 0
    assert decoded.dice_owner == 1 and decoded.turn == 1 and decoded.dice == (5, 2)
    assert decoded.encode() == "QYkqASAAIAAA"


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"length": 25, "score": (24, 13), "cube": 64, "cube_owner": 1, "crawford": True},
        {"length": 0, "doubled": True, "turn": 1, "resigned": 3, "dice": (6, 6)},
    ],
)
def test_match_id_round_trips(fields: dict[str, object]) -> None:
    original = MatchId(**fields)  # type: ignore[arg-type]
    assert MatchId.decode(original.encode()) == original


@pytest.mark.parametrize("text", ["", "QYkqASAAIAA", "QYkqASAAIAA!", "////////////"])
def test_match_id_rejects_malformed(text: str) -> None:
    with pytest.raises(InvalidNotation):
        MatchId.decode(text)


def test_match_id_of_state_gives_test_vector() -> None:
    from dataclasses import replace

    from rules.ids import match_id_of

    state = replace(
        new_match("backgammon", 9), score=(2.0, 4.0), cube=2, cube_owner=0, phase=match.PLAY, turn=1, dice=(5, 2)
    )
    assert match_id_of(state).encode() == "QYkqASAAIAAA"


def test_match_id_while_double_pending_names_doubler_on_roll() -> None:
    from rules.ids import match_id_of

    state = apply(cube_ready(7), Double(1))
    decoded = match_id_of(state)
    assert decoded.doubled and decoded.dice_owner == 1 and decoded.turn == 0


# --- gul bara's cascade (§4.2) and six-one's race (§5) in the match ------------------------------


def gulbara_after(rolls: int, options: dict[str, object] | None = None) -> match.MatchState:
    """A gul bara game after the opening roll (player 0 starts) and ``rolls`` plain rolls, played."""
    state = apply(new_match("gulbara", 0, options or {}), OpeningRoll(3, 1))
    for number in range(rolls):
        assert state.turn is not None
        state = apply(state, Roll(state.turn, (number % 5 + 2, 1)))
        state = first_legal(state)
    return state


def gb(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    from tests.rules.test_nardy import board

    return board(mover, opponent, "gulbara")


def hop(position: Position, *hops: tuple[int, int]) -> Position:
    from tests.rules.test_nardy import moved

    return moved(position, *hops)


STUCK_ROLLER = gb({5: 2, 4: 2}, {24: 15})  # 5-5 bears off two, then a 5 cannot bear off from 4


def cascade_handed_on(options: dict[str, object] | None = None) -> match.MatchState:
    """Player 1 rolls 5-5 as the game's 4th roll from STUCK_ROLLER and plays 5/off(2)."""
    state = apply(gulbara_after(3, options), ManualCorrection(1, STUCK_ROLLER, "test set-up"))
    state = apply(state, Roll(1, (5, 5)))
    assert state.roll_number == 4
    return apply(state, Play(1, hop(STUCK_ROLLER, (5, 0), (5, 0))))


def test_gulbara_cascade_remainder_is_played_by_the_opponent() -> None:
    state = cascade_handed_on()
    assert state.phase == match.REMAINDER and state.turn == 0
    assert state.pending_steps == (5, 5, 6, 6, 6, 6)
    opponent = state.position  # seen from player 0, who plays the rest
    assert opponent == hop(STUCK_ROLLER, (5, 0), (5, 0)).swapped()
    for wrong in (Roll(0, (3, 1)), Play(0, opponent), Roll(1, (3, 1))):
        with pytest.raises(IllegalEvent):
            apply(state, wrong)
    sixes_first = hop(opponent, (24, 18), (24, 18), (24, 18), (24, 18), (24, 13))
    with pytest.raises(IllegalEvent, match="cascade steps 5 5 6 6 6 6"):
        apply(state, match.CascadePlay(0, sixes_first))
    chosen = hop(opponent, (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    state = apply(state, match.CascadePlay(0, chosen))
    assert state.phase == match.ROLL and state.turn == 0 and state.pending_steps == () and state.dice is None
    assert state.position == chosen
    state = apply(state, Roll(0, (2, 1)))
    assert state.roll_number == 5


def test_gulbara_first_three_rolls_do_not_cascade_in_the_match() -> None:
    start = Position.from_id("gulbara:AACA/z8AAID/Pw")
    state = apply(new_match("gulbara"), OpeningRoll(2, 5))  # player 1 starts; not counted
    assert state.roll_number == 0
    state = apply(state, VoidRoll(1, "cocked"))  # a void roll is not counted either
    state = apply(state, Roll(1, (2, 1)))
    state = first_legal(state)
    state = apply(state, Roll(0, (3, 1)))
    state = first_legal(state)
    state = apply(apply(state, ManualCorrection(1, start)), Roll(1, (4, 4)))
    assert state.roll_number == 3
    four_fours = hop(start, (24, 20), (24, 20), (24, 20), (24, 20))
    cascade = hop(four_fours, (20, 15), (20, 15), (20, 15), (20, 15), (15, 9), (15, 9), (15, 9), (15, 9))
    with pytest.raises(IllegalEvent):
        apply(state, Play(1, cascade))
    state = apply(state, Play(1, four_fours))
    assert state.phase == match.ROLL and state.turn == 0  # four steps, nothing handed on
    state = apply(apply(state, ManualCorrection(0, start)), Roll(0, (4, 4)))
    assert state.roll_number == 4  # the fourth roll cascades: four 4s, four 5s, four 6s
    with pytest.raises(IllegalEvent, match="more of the roll"):
        apply(state, Play(0, four_fours))
    state = apply(state, Play(0, cascade))
    assert state.phase == match.ROLL and state.turn == 1


def test_gulbara_roller_who_bears_off_the_last_checker_ends_the_game_before_handing_on() -> None:
    state = apply(gulbara_after(3), ManualCorrection(1, gb({5: 1}, {24: 15})))
    state = apply(apply(state, Roll(1, (5, 5))), Play(1, gb({}, {24: 15})))
    assert state.phase == match.GAME_OVER and state.pending_steps == ()
    assert state.last_result is not None and state.last_result.winner == 1
    assert (state.last_result.points, state.last_result.result) == (2.0, "mars")


def test_gulbara_unplayable_remainder_is_an_empty_cascade_play() -> None:
    roller = gb({4: 2}, {4: 2, 3: 1})  # neither side can play a 5 or a 6
    state = apply(gulbara_after(3), ManualCorrection(1, roller))
    state = apply(apply(state, Roll(1, (5, 5))), Play(1, roller))
    assert state.phase == match.REMAINDER and state.pending_steps == (5, 5, 5, 5, 6, 6, 6, 6)
    with pytest.raises(IllegalEvent):
        apply(state, match.CascadePlay(0, hop(roller.swapped(), (4, 0))))
    state = apply(state, match.CascadePlay(0, roller.swapped()))
    assert state.phase == match.ROLL and state.turn == 0


def test_gulbara_opponent_who_bears_off_in_the_remainder_wins() -> None:
    state = apply(gulbara_after(3), ManualCorrection(1, gb({5: 2, 4: 2}, {5: 2, 6: 1})))
    state = apply(apply(state, Roll(1, (5, 5))), Play(1, gb({4: 2}, {5: 2, 6: 1})))
    assert state.phase == match.REMAINDER
    state = apply(state, match.CascadePlay(0, gb({}, {4: 2})))
    assert state.phase == match.GAME_OVER and state.score == (1.0, 0.0)
    assert state.last_result is not None and state.last_result.result == "oin"


def test_gulbara_cascade_unplayed_lost_in_the_match() -> None:
    state = cascade_handed_on({"cascade_unplayed": "lost"})
    assert state.phase == match.ROLL and state.turn == 0 and state.pending_steps == ()


def test_gulbara_remainder_illegal_play_may_be_accepted() -> None:
    state = cascade_handed_on({"illegal_play": "opponent_may_accept"})
    wrong = hop(state.position, (24, 13))
    state = apply(state, IllegalPlayDetected(0, wrong, "the moves do not match the roll"))
    assert state.illegal_pending and state.phase == match.REMAINDER
    state = apply(state, IllegalPlayAccepted(0, wrong))
    assert state.phase == match.ROLL and state.turn == 0 and state.position == wrong


def test_gulbara_roll_number_restarts_each_game() -> None:
    # 5/3/2 moves inside the home: allowed here, this test is about the roll count.
    state = apply(gulbara_after(3, {"home_moves": "allowed"}), ManualCorrection(1, gb({5: 1}, {24: 15})))
    state = apply(apply(state, Roll(1, (2, 1))), Play(1, gb({2: 1}, {24: 15})))
    state = apply(state, Roll(0, (2, 1)))
    state = apply(state, Play(0, hop(state.position, (24, 21))))
    state = apply(apply(state, Roll(1, (2, 1))), Play(1, gb({}, {21: 1, 24: 14})))
    assert state.phase == match.GAME_OVER and state.roll_number == 6
    state = apply(state, Roll(1, (4, 4)))  # the winner begins the next game: its first roll
    assert state.game == 1 and state.roll_number == 1


def test_gulbara_cascade_replays_without_checking_plays() -> None:
    """Exports fold journals with play checking off: the hand-on comes from the pips moved."""
    checked = cascade_handed_on()
    events: list[match.Event] = [OpeningRoll(3, 1)]
    state = apply(new_match("gulbara"), events[0])
    for number in range(3):
        assert state.turn is not None
        roll = Roll(state.turn, (number % 5 + 2, 1))
        state = apply(state, roll)
        before = state
        state = first_legal(state)
        assert before.turn is not None
        events += [roll, Play(before.turn, state.position_for(before.turn))]
    events += [ManualCorrection(1, STUCK_ROLLER), Roll(1, (5, 5)), Play(1, hop(STUCK_ROLLER, (5, 0), (5, 0)))]
    unchecked = replay(new_match("gulbara", check_plays=False), events)
    assert (unchecked.phase, unchecked.turn, unchecked.pending_steps) == (checked.phase, checked.turn, checked.pending_steps)


def sixone_near_home(mover: dict[int, int]) -> match.MatchState:
    from tests.rules.test_nardy import board

    state = apply(new_match("sixone"), OpeningRoll(4, 2))
    return apply(state, ManualCorrection(0, board(mover, {24: 15}, "sixone")))


def test_sixone_game_ends_when_all_fifteen_are_home() -> None:
    state = apply(sixone_near_home({8: 1, 1: 14}), Roll(0, (1, 1)))
    state = apply(state, Play(0, hop(state.position, (8, 4))))
    assert state.phase == match.GAME_OVER and state.score == (1.0, 0.0)
    assert state.last_result is not None and state.last_result.result == "race"
    state = apply(sixone_near_home({9: 1, 1: 14}), Roll(0, (2, 1)))
    state = apply(state, Play(0, hop(state.position, (9, 7), (7, 6))))
    assert state.phase == match.GAME_OVER  # 15 home: no bearing off in six-one


def test_sixone_not_all_home_plays_on() -> None:
    state = apply(sixone_near_home({10: 1, 1: 14}), Roll(0, (2, 1)))
    state = apply(state, Play(0, hop(state.position, (10, 8), (8, 7))))
    assert state.phase == match.ROLL and state.turn == 1


def test_sixone_head_shortcut_is_judged_in_the_match() -> None:
    state = apply(apply(new_match("sixone"), OpeningRoll(4, 2)), Roll(0, (6, 3)))
    start = state.position
    state_after = apply(state, Play(0, hop(start, (24, 2), (24, 21))))
    assert state_after.phase == match.ROLL and state_after.turn == 1
    with pytest.raises(IllegalEvent):
        apply(state, Play(0, hop(start, (24, 2), (24, 1))))  # a 3 does not take a checker home
    state = apply(apply(new_match("sixone"), OpeningRoll(4, 2)), Roll(0, (5, 3)))
    with pytest.raises(IllegalEvent):
        apply(state, Play(0, hop(start, (24, 2), (24, 19))))


def test_sixone_resignation_is_one_point() -> None:
    state = apply(new_match("sixone"), OpeningRoll(4, 2))
    with pytest.raises(IllegalEvent):
        apply(state, Resign(0, 2))
    state = apply(apply(state, Resign(0, 1)), ResignAccepted(1))
    assert state.score == (0.0, 1.0) and state.last_result is not None and state.last_result.result == "resign"
