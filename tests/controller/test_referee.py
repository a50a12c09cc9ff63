"""The referee's state machine, fed observations made from positions (no camera, no rendering)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.referee import ILLEGAL, NORMAL, QUESTION, Referee, RefereeSettings, recognise_start
from recording.export import render
from recording.journal import Header, Journal
from rules import match
from rules.plays import legal_results
from rules.position import Position, starting_position
from rules.steps import parse_notation
from vision.observation import ORIENTATIONS, Observation, position_to_physical


class Recorder:
    """Signals sink that also checks the journal already holds what is announced."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.journal: Journal | None = None
        self.journal_sizes: list[int] = []

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.seen.append((kind, data))
        self.journal_sizes.append(len(self.journal.records) if self.journal else 0)

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.seen]


def obs(position: Position, light_on_roll: bool = True, orientation: str = "bottom-right", *,
        dice: tuple[int, ...] = (), roll: str | None = None, void_reason: str | None = None,
        confidence: float = 0.95, half: str | None = "right", sides: tuple[str, ...] = (),
        die_confidence: float | None = None) -> Observation:
    points, bar = position_to_physical(position, light_on_roll, orientation)
    listed = []
    for i, value in enumerate(dice):
        die: dict[str, Any] = {"value": value, "centre": [700 + 40 * i, 400]}
        if die_confidence is not None:
            die["confidence"] = die_confidence
        if sides:
            die["side"] = sides[i]
        listed.append(die)
    return Observation(points=list(points), bar=bar, dice=listed,
                       roll=roll or ("valid" if dice else "none"), void_reason=void_reason,
                       dice_half=half if dice else None, confidence=confidence)


def play(position: Position, dice: str, notation: str) -> Position:
    """The legal result of ``notation`` (checked against the engine)."""
    wanted = sorted(parse_notation(notation))
    for result, found in legal_results(position, dice).items():
        hops = sorted((s.start, s.end) for s in found.steps)
        if hops == wanted or found.notation() == notation:
            return result
    raise AssertionError(f"{notation} is not legal for {dice} in {position.id}")


@pytest.fixture
def table(tmp_path: Path) -> tuple[Referee, Recorder]:
    journal = Journal.create(tmp_path / "match.jsonl", Header(variant="backgammon", match_length=5,
                                                                players=("Ana", "Ion")))
    recorder = Recorder()
    recorder.journal = journal
    referee = Referee(journal, recorder, RefereeSettings(confirm_reads=2, question_after_reads=3))
    return referee, recorder


def start_game(referee: Referee, light_die: int = 3, dark_die: int = 1) -> None:
    start = starting_position()
    referee.observe(obs(start))
    referee.observe(obs(start, dice=(light_die, dark_die), roll="void", void_reason="different_halves",
                        sides=("bottom", "top")))


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_seating_is_learnt_from_the_starting_position(orientation: str) -> None:
    found = recognise_start(obs(starting_position(), orientation=orientation), "backgammon")
    assert found is not None and found.orientation == orientation


def test_opening_roll_then_a_legal_play_is_journaled_before_it_is_announced(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    state = referee.state
    assert state.phase == match.PLAY and state.turn == 0 and state.dice == (3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after, dice=(3, 1)))  # mid-play, dice still down: nothing judged
    assert referee.state.phase == match.PLAY
    referee.observe(obs(after))  # dice lifted: the turn ends
    assert referee.state.phase == match.ROLL and referee.state.turn == 1
    index = signals.kinds().index("play")
    assert isinstance(signals.journal.records[signals.journal_sizes[index] - 1].event, match.Play)


def _thirteen_to_nine_and_eleven() -> Position:
    """The opening position after 13/9 13/11 (a 4-2 play; with 3-1 it cannot be reached)."""
    start = starting_position()
    mover = list(start.mover)
    mover[12] -= 2
    mover[8] += 1
    mover[10] += 1
    return Position(tuple(mover), start.opponent)


def test_an_illegal_play_is_flagged_with_its_points_then_corrected(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    start = starting_position()
    wrong = _thirteen_to_nine_and_eleven()  # not possible with 3-1
    referee.observe(obs(wrong))
    assert "illegal" not in signals.kinds()  # one reading is not enough to cry foul
    referee.observe(obs(wrong))
    assert referee.mode == ILLEGAL
    kind, data = next(s for s in signals.seen if s[0] == "illegal")
    assert data["points"] and set(data["points"].values()) <= {"extra", "missing"}
    assert isinstance(signals.journal.records[-1].event, match.IllegalPlayDetected)
    right = play(start, "31", "8/5 6/5")
    referee.observe(obs(right))
    assert referee.mode == NORMAL
    assert [type(r.event).__name__ for r in signals.journal.records[-2:]] == ["IllegalPlayCorrected", "Play"]
    assert referee.state.turn == 1


def test_a_void_roll_is_recorded_and_not_taken_as_a_roll(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after))
    dark_view = after.swapped()
    referee.observe(obs(dark_view, light_on_roll=False, dice=(5, 2), roll="void", void_reason="cocked"))
    assert isinstance(signals.journal.records[-1].event, match.VoidRoll)
    assert referee.state.phase == match.ROLL
    referee.observe(obs(dark_view, light_on_roll=False))  # dice picked up
    referee.observe(obs(dark_view, light_on_roll=False, dice=(5, 2), half="left"))
    assert referee.state.phase == match.PLAY and referee.state.dice == (5, 2)


def test_dice_in_the_wrong_half_make_a_void_roll_in_backgammon(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after))
    # Dark sits at the top: its right-hand half is the physical left.
    referee.observe(obs(after.swapped(), light_on_roll=False, dice=(5, 2), half="right"))
    assert referee.state.phase == match.ROLL
    assert "not_right_half" in str(signals.seen[-1][1])


def test_an_occluded_frame_is_never_read(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    hand = Observation(points=None, occluded=True, refused=True, reason="hand over the board")
    before = len(signals.journal.records)
    referee.observe(hand)
    assert len(signals.journal.records) == before


def test_an_uncertain_reading_becomes_a_question_not_an_alert(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    start = starting_position()
    right = play(start, "31", "8/5 6/5")
    mover = list(right.mover)
    mover[4] -= 1  # one checker of the made point misread
    blurry = Position(tuple(mover), right.opponent)
    for _ in range(3):
        referee.observe(obs(blurry))
    assert "illegal" not in signals.kinds()
    assert referee.mode == QUESTION
    assert referee.correct_reading(right)
    assert referee.state.turn == 1 and "play" in signals.kinds()


def test_low_confidence_is_never_judged_illegal(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    start = starting_position()
    mover = list(start.mover)
    mover[12] -= 2
    mover[2] += 2
    for _ in range(5):
        referee.observe(obs(Position(tuple(mover), start.opponent), confidence=0.2))
    assert "illegal" not in signals.kinds()


def test_double_and_take_through_the_referee(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after))
    assert referee.cube("double", 1)
    assert referee.cube("take", 0)
    assert referee.state.cube == 2 and referee.state.cube_owner == 0
    assert not referee.cube("double", 1)  # the cube is not dark's now
    assert "does not own" in referee.message or "double" in referee.message


def test_a_resumed_match_verifies_the_board_before_judging(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    journal = Journal.create(path, Header(variant="backgammon"))
    signals = Recorder()
    referee = Referee(journal, signals)
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after))
    referee.observe(obs(after))
    journal.close()
    again = Journal.open(path)
    resumed = Referee(again, Recorder())
    assert resumed.mode == NORMAL and resumed.seating is not None
    assert resumed.state.turn == 1 and not resumed.verified
    assert resumed.checker_totals() is None  # the record is not what the board must keep to yet
    resumed.observe(obs(after.swapped(), light_on_roll=False))
    assert resumed.verified
    assert resumed.checker_totals() is not None


def test_nardy_first_turn_lets_two_leave_the_head_on_6_6(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "n.jsonl", Header(variant="nardy", options={"white_always_starts": True}))
    signals = Recorder()
    referee = Referee(journal, signals)
    start = starting_position("nardy")
    referee.observe(obs(start, orientation="top-left"))
    assert referee.seating is not None and referee.seating.orientation == "top-left"
    referee.observe(obs(start, orientation="top-left", dice=(6, 6)))
    after = next(iter(legal_results(start, "66", first_turn=True)))
    assert after.mover[23] == 13
    referee.observe(obs(after, orientation="top-left"))
    assert "play" in signals.kinds() and referee.state.turn == 1


# --- gul bara's cascade and six-one's head shortcut through the referee -------------------------

GB_SEATING = "top-left"


def gul_bara_table(tmp_path: Path, roller: Position, options: dict[str, object] | None = None) -> tuple[Referee, Recorder]:
    """A gul bara journal after three plain rolls with ``roller`` (player 1, dark) to roll the 4th."""
    from controller.referee import Seating

    journal = Journal.create(tmp_path / "g.jsonl", Header(variant="gulbara", players=("Ana", "Ion"),
                                                          options=options or {}))
    journal.append(match.Comment(Seating(GB_SEATING, 0, "gulbara").to_text()))
    journal.append(match.OpeningRoll(3, 1))
    for dice in ((2, 1), (3, 1), (4, 1)):
        state = journal.state
        assert state.turn is not None
        journal.append(match.Roll(state.turn, dice))
        state = journal.state
        results = legal_results(state.position, dice)
        result = sorted(results, key=lambda p: p.id)[0]
        journal.append(match.Play(state.turn or 0, result, results[result].steps))
    journal.append(match.ManualCorrection(1, roller, "test set-up"))
    recorder = Recorder()
    recorder.journal = journal
    referee = Referee(journal, recorder, RefereeSettings(confirm_reads=2, question_after_reads=3))
    referee.observe(gb_obs(roller, player=1))  # the board checks out
    assert referee.verified and referee.state.turn == 1 and referee.state.roll_number == 3
    return referee, recorder


def gb_board(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    from tests.rules.test_nardy import board

    return board(mover, opponent, "gulbara")


def hop(position: Position, *hops: tuple[int, int]) -> Position:
    from tests.rules.test_nardy import moved

    return moved(position, *hops)


def gb_obs(position: Position, *, player: int, dice: tuple[int, ...] = ()) -> Observation:
    """A reading of a gul bara board seen from ``player`` (0 has the light checkers)."""
    return obs(position, light_on_roll=player == 0, orientation=GB_SEATING, dice=dice)


def journal_kinds(referee: Referee, last: int) -> list[str]:
    return [type(r.event).__name__ for r in referee.journal.records[-last:]]


def test_gulbara_cascade_handed_to_the_opponent_through_the_referee(tmp_path: Path) -> None:
    roller = gb_board({5: 2, 4: 2}, {24: 15})
    referee, signals = gul_bara_table(tmp_path, roller)
    referee.observe(gb_obs(roller, dice=(5, 5), player=1))  # the game's 4th roll: a cascade
    assert referee.state.phase == match.PLAY and referee.state.roll_number == 4
    after = hop(roller, (5, 0), (5, 0))
    referee.observe(gb_obs(after, dice=(5, 5), player=1))
    referee.observe(gb_obs(after, player=1))  # dice lifted: the roller's part is judged
    state = referee.state
    assert state.phase == match.REMAINDER and state.turn == 0 and state.pending_steps == (5, 5, 6, 6, 6, 6)
    assert ("cascade", {"player": 0, "steps": [5, 5, 6, 6, 6, 6]}) in signals.seen
    opponent = after.swapped()
    chosen = hop(opponent, (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    referee.observe(gb_obs(chosen, player=0))  # the opponent plays the rest, then rolls
    assert referee.state.phase == match.REMAINDER
    referee.observe(gb_obs(chosen, dice=(3, 1), player=0))
    assert journal_kinds(referee, 3) == ["Play", "CascadePlay", "Roll"]
    cascade = referee.journal.records[-2].event
    assert isinstance(cascade, match.CascadePlay) and cascade.result == chosen and len(cascade.steps) == 6
    state = referee.state
    assert state.phase == match.PLAY and state.turn == 0 and state.dice == (3, 1) and state.roll_number == 5


def test_gulbara_wrong_remainder_is_flagged_then_corrected(tmp_path: Path) -> None:
    roller = gb_board({5: 2, 4: 2}, {24: 15})
    referee, signals = gul_bara_table(tmp_path, roller)
    referee.observe(gb_obs(roller, dice=(5, 5), player=1))
    after = hop(roller, (5, 0), (5, 0))
    referee.observe(gb_obs(after, player=1))
    opponent = after.swapped()
    sixes_first = hop(opponent, (24, 18), (24, 18), (24, 18), (24, 18), (24, 13))
    referee.observe(gb_obs(sixes_first, player=0))
    referee.turn_button(0)
    referee.observe(gb_obs(sixes_first, player=0))
    referee.turn_button(0)
    assert referee.mode == ILLEGAL and journal_kinds(referee, 1) == ["IllegalPlayDetected"]
    kind, data = next(s for s in signals.seen if s[0] == "illegal")
    assert data["points"] and "order" in data["reason"]
    chosen = hop(opponent, (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    referee.observe(gb_obs(chosen, player=0))
    assert referee.mode == NORMAL and journal_kinds(referee, 2) == ["IllegalPlayCorrected", "CascadePlay"]
    assert referee.state.phase == match.ROLL and referee.state.turn == 0


def test_gulbara_unplayable_cascade_is_recorded_at_once(tmp_path: Path) -> None:
    roller = gb_board({4: 2}, {4: 2, 3: 1})  # neither side can play a 5 or a 6
    referee, _ = gul_bara_table(tmp_path, roller)
    referee.observe(gb_obs(roller, dice=(5, 5), player=1))
    assert journal_kinds(referee, 3) == ["Roll", "Play", "CascadePlay"]
    assert referee.state.phase == match.ROLL and referee.state.turn == 0


def test_sixone_head_shortcut_through_the_referee(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "s.jsonl", Header(variant="sixone", players=("Ana", "Ion")))
    signals = Recorder()
    signals.journal = journal
    referee = Referee(journal, signals, RefereeSettings(confirm_reads=2, question_after_reads=3))
    start = starting_position("sixone")
    referee.observe(obs(start, orientation="top-left"))
    assert referee.seating is not None
    journal.append(match.OpeningRoll(4, 2))  # light starts and rolls afresh
    referee.observe(obs(start, orientation="top-left", dice=(6, 3)))
    assert referee.state.phase == match.PLAY and referee.state.dice == (6, 3)
    after = hop(start, (24, 3), (24, 21))  # the 6 takes a checker from the head straight home
    referee.observe(obs(after, orientation="top-left"))
    event = journal.records[-1].event
    assert isinstance(event, match.Play) and event.result == after
    assert referee.state.turn == 1 and "play" in signals.kinds()


def test_gulbara_roller_dice_left_on_the_board_are_not_the_opponents_roll(tmp_path: Path) -> None:
    roller = gb_board({5: 2, 4: 2}, {24: 15})
    referee, _ = gul_bara_table(tmp_path, roller)
    referee.observe(gb_obs(roller, dice=(5, 5), player=1))
    after = hop(roller, (5, 0), (5, 0))
    referee.observe(gb_obs(after, dice=(5, 5), player=1))
    referee.turn_button(1)  # the roller ends the turn with the dice still down
    assert referee.state.phase == match.REMAINDER
    referee.observe(gb_obs(after.swapped(), dice=(5, 5), player=0))
    assert referee.state.phase == match.REMAINDER and journal_kinds(referee, 1) == ["Play"]
    chosen = hop(after.swapped(), (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    referee.observe(gb_obs(chosen, player=0))
    referee.observe(gb_obs(chosen, dice=(5, 5), player=0))  # the opponent rolls 5-5 in turn
    assert journal_kinds(referee, 2) == ["CascadePlay", "Roll"] and referee.state.dice == (5, 5)


def test_a_person_can_override_an_alert_caused_by_a_misreading(table: tuple[Referee, Recorder]) -> None:
    referee, signals = table
    start_game(referee, 3, 1)
    start = starting_position()
    misread = _thirteen_to_nine_and_eleven()  # what the camera (wrongly) read
    referee.observe(obs(misread))
    referee.observe(obs(misread))
    assert referee.mode == ILLEGAL
    assert not referee.correct_reading(misread)  # an illegal board is not a correction
    right = play(start, "31", "8/5 6/5")
    assert referee.correct_reading(right)
    kinds = [type(r.event).__name__ for r in signals.journal.records[-3:]]
    assert kinds == ["IllegalPlayDetected", "IllegalPlayCorrected", "Play"]
    assert referee.mode == NORMAL and referee.state.turn == 1


# --- RULES.md §1.8: the opponent's roll accepts the play (issue 21) ----------------------------


def illegal_table(tmp_path: Path, policy: str) -> tuple[Referee, Recorder, Position]:
    """Ana (light, player 0) plays 3-1 as 13/9 13/11, which the referee declares illegal."""
    journal = Journal.create(tmp_path / "match.jsonl", Header(variant="backgammon", match_length=5,
                                                                players=("Ana", "Ion"),
                                                                options={"illegal_play": policy}))
    recorder = Recorder()
    recorder.journal = journal
    referee = Referee(journal, recorder, RefereeSettings(confirm_reads=2, question_after_reads=3))
    start_game(referee, 3, 1)
    wrong = _thirteen_to_nine_and_eleven()
    referee.observe(obs(wrong))
    referee.observe(obs(wrong))  # dice already lifted: the turn ended; the second reading alerts
    assert referee.mode == ILLEGAL and isinstance(journal.records[-1].event, match.IllegalPlayDetected)
    return referee, recorder, wrong


def test_opponents_roll_accepts_the_illegal_play_under_opponent_may_accept(tmp_path: Path) -> None:
    referee, signals, wrong = illegal_table(tmp_path, "opponent_may_accept")
    # A cocked die is no roll: it accepts nothing.
    referee.observe(obs(wrong, dice=(5, 2), roll="void", void_reason="cocked", half="left"))
    assert referee.mode == ILLEGAL and referee.state.turn == 0
    assert referee.message == "this roll does not accept the illegal play: void"
    referee.observe(obs(wrong))  # picked up
    # Ion throws 5-2 into his right-hand half over the play as it stands: that accepts it.
    referee.observe(obs(wrong, dice=(5, 2), half="left"))
    events = [r.event for r in signals.journal.records[-3:]]
    assert [type(e).__name__ for e in events] == ["IllegalPlayDetected", "IllegalPlayAccepted", "Roll"]
    accepted, roll = events[1], events[2]
    assert isinstance(accepted, match.IllegalPlayAccepted) and accepted.how == "roll"
    assert accepted.player == 0 and accepted.result == wrong
    assert isinstance(roll, match.Roll) and (roll.player, roll.dice) == (1, (5, 2))
    assert referee.mode == NORMAL and referee.state.phase == match.PLAY and referee.state.turn == 1
    kinds = signals.kinds()
    at = kinds.index("accepted")
    assert signals.seen[at][1]["how"] == "roll"
    assert [data for kind, data in signals.seen[at:] if kind == "rolled"] == [{"player": 1, "dice": [5, 2]}]
    assert "(illegal, accepted by rolling: " in render(signals.journal, "txt")
    # Ion's play with that roll is judged as usual, from the accepted position.
    after = play(wrong.swapped(), "52", "13/8 13/11")
    referee.observe(obs(after, light_on_roll=False))
    assert isinstance(signals.journal.records[-1].event, match.Play)
    assert referee.state.turn == 0 and referee.state.position_for(1) == after


def test_opponents_roll_does_not_accept_a_play_that_no_longer_stands(tmp_path: Path) -> None:
    referee, signals, wrong = illegal_table(tmp_path, "opponent_may_accept")
    half_fixed = Position(tuple(c + (1 if i == 12 else -1 if i == 8 else 0) for i, c in enumerate(wrong.mover)),
                          wrong.opponent)
    referee.observe(obs(half_fixed))  # Ana is taking it back: 13/9 undone, 13/11 still there
    referee.observe(obs(half_fixed, dice=(5, 2), half="left"))
    assert referee.mode == ILLEGAL and referee.state.phase == match.PLAY and referee.state.turn == 0
    assert referee.message == "this roll does not accept the illegal play: the board has changed"
    assert not any(isinstance(r.event, match.IllegalPlayAccepted) for r in signals.journal.records)


def test_opponents_roll_is_not_judged_while_an_illegal_play_must_be_corrected(tmp_path: Path) -> None:
    referee, signals, wrong = illegal_table(tmp_path, "must_correct")
    records = len(signals.journal.records)
    referee.observe(obs(wrong, dice=(5, 2), half="left"))  # Ion rolls before Ana corrects
    assert referee.mode == ILLEGAL and referee.state.phase == match.PLAY and referee.state.turn == 0
    assert len(signals.journal.records) == records  # no roll, no acceptance
    kind, data = signals.seen[-1]
    assert kind == "guide" and "this roll does not count" in data["reason"] and data["points"]
    right = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(right, dice=(5, 2), half="left"))  # corrected under the dice: not judged yet
    assert referee.mode == ILLEGAL and len(signals.journal.records) == records
    referee.observe(obs(right))  # dice lifted: the correction is judged
    assert [type(r.event).__name__ for r in signals.journal.records[-2:]] == ["IllegalPlayCorrected", "Play"]
    assert referee.state.phase == match.ROLL and referee.state.turn == 1
    referee.observe(obs(right.swapped(), light_on_roll=False, dice=(5, 2), half="left"))  # Ion rolls again
    assert isinstance(signals.journal.records[-1].event, match.Roll) and referee.state.dice == (5, 2)


def test_the_referee_knows_each_sides_checkers_on_the_board(table: tuple[Referee, Recorder]) -> None:
    """What the reader is told to keep to: nothing while the board is set up; in a game, every
    checker each side has on the board and bar, exactly while neither can be bearing off (from
    the start, ten of each side's checkers lie outside its home board)."""
    from vision.observation import CheckerTotals

    referee, _ = table
    assert referee.checker_totals() is None  # the seating is not known yet
    start_game(referee, 3, 1)
    assert referee.state.turn == 0 and referee.seating is not None and referee.seating.light_player == 0
    assert referee.checker_totals() == CheckerTotals((15, 15), (15, 15))
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after, dice=(3, 1)))
    referee.observe(obs(after))
    assert referee.state.turn == 1
    assert referee.checker_totals() == CheckerTotals((15, 15), (15, 15))


@pytest.mark.parametrize(("roller", "fewest"), [({5: 3, 4: 6}, 5), ({5: 3, 4: 3, 9: 3}, 5), ({5: 3, 4: 2, 9: 4}, 9),
                                               ({6: 6, 7: 3}, 5), ({6: 5, 7: 4}, 9)])
def test_the_side_on_roll_may_be_bearing_off_only_with_fewer_than_four_checkers_out(
        tmp_path: Path, roller: dict[int, int], fewest: int) -> None:
    """A side bears off only with all its checkers home, and a turn moves at most four: with four
    or more outside its home board it bears none off this turn, and the reader is told its
    checkers exactly; with fewer, up to four fewer (the other side always exactly)."""
    from vision.observation import CheckerTotals

    referee, _ = gul_bara_table(tmp_path, gb_board(roller, {24: 15}))  # point 6 is home, 7 is not
    assert referee.checker_totals() == CheckerTotals((15, 15), (fewest, 9))


def test_in_a_gul_bara_cascade_the_roller_may_bear_off_every_checker(tmp_path: Path) -> None:
    from vision.observation import CheckerTotals

    roller = gb_board({5: 3, 4: 3}, {24: 15})
    referee, _ = gul_bara_table(tmp_path, roller)
    assert referee.checker_totals() == CheckerTotals((15, 15), (2, 6))  # dark to roll, 6 on the board
    referee.observe(gb_obs(roller, dice=(5, 5), player=1))  # the game's 4th roll: a cascade
    assert referee.state.phase == match.PLAY
    assert referee.checker_totals() == CheckerTotals((15, 15), (0, 6))
