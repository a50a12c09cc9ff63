"""Misread dice corrected by a person (issue 24 item 1): journaled as its own event, the board judged
again with the real roll, and the game's record the same as if the dice had been read right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.referee import ILLEGAL, NORMAL, QUESTION, Referee, RefereeSettings
from recording.export import render
from recording.journal import Header, Journal
from rules import match
from rules.errors import IllegalEvent
from rules.position import Position
from tests.controller.test_referee import Recorder, obs, play, start_game

#: (player, real dice, play); Ana (0, light) opens with 3-1.
TURNS: tuple[tuple[int, tuple[int, int], str], ...] = (
    (1, (6, 2), "24/18 13/11"),
    (0, (5, 2), "13/8 13/11"),
    (1, (4, 3), "13/9 13/10"),
)
#: Ion's 6-2 read as 1-6: "24/18 13/11" is then illegal (two checkers from any 6-1 play).
MISREAD = {0: (1, 6)}


def new_referee(path: Path, evidence: str | None = None) -> tuple[Referee, Recorder]:
    journal = Journal.create(path, Header(variant="backgammon", match_length=5, players=("Ana", "Ion")))
    recorder = Recorder()
    recorder.journal = journal
    referee = Referee(journal, recorder, RefereeSettings(confirm_reads=2, question_after_reads=3),
                      evidence=(lambda: evidence) if evidence else None)
    return referee, recorder


def opening(referee: Referee) -> None:
    from rules.position import starting_position

    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after, dice=(3, 1)))
    referee.observe(obs(after))


def roll_and_play(referee: Referee, turn: int, misread: dict[int, tuple[int, int]],
                  die_confidence: float | None = None, settled_reads: int = 2) -> None:
    """One turn at the table: the board before the roll, the dice as read (each die with
    ``die_confidence``, when given), the play with the dice still down, then the dice lifted (read
    ``settled_reads`` times, as a settled board is)."""
    player, dice, notation = TURNS[turn]
    light = player == 0
    before = referee.state.position_for(player)
    after = play(before, f"{dice[0]}{dice[1]}", notation)
    seen = misread.get(turn, dice)
    half = "right" if light else "left"  # each player rolls into their own right-hand half
    referee.observe(obs(before, light))
    referee.observe(obs(before, light, dice=seen, half=half, die_confidence=die_confidence))
    referee.observe(obs(after, light, dice=seen, half=half, die_confidence=die_confidence))
    for _ in range(settled_reads):
        referee.observe(obs(after, light))


def test_misread_dice_corrected_give_the_record_of_the_game_read_right(tmp_path: Path) -> None:
    right, _ = new_referee(tmp_path / "right.jsonl")
    opening(right)
    for turn in range(len(TURNS)):
        roll_and_play(right, turn, {})
    wrong, signals = new_referee(tmp_path / "wrong.jsonl", evidence="evidence/frame-00009.jpg")
    opening(wrong)
    roll_and_play(wrong, 0, MISREAD)
    assert wrong.mode == ILLEGAL  # the right play is illegal for the misread roll: the game stalls
    assert not wrong.correct_dice((1, 6)) and "already recorded" in wrong.message
    assert wrong.correct_dice((6, 2))
    assert wrong.mode == NORMAL and wrong.state.turn == 0
    kinds = [r.event.kind for r in wrong.journal.records]
    assert kinds[-3:] == ["IllegalPlayDetected", "DiceCorrected", "Play"]
    record = wrong.journal.records[-2]
    assert record.event == match.DiceCorrected(player=1, read=(1, 6), dice=(6, 2), who="director")
    assert record.evidence == "evidence/frame-00009.jpg"
    assert [k for k, _ in signals.seen][-4:-1] == ["dice_corrected", "corrected", "play"]
    for turn in range(1, len(TURNS)):
        roll_and_play(wrong, turn, {})
    assert wrong.state.position == right.state.position
    assert render(wrong.journal, "mat") == render(right.journal, "mat")
    assert render(wrong.journal, "sgf").split("DT[")[0] == render(right.journal, "sgf").split("DT[")[0]
    txt = render(wrong.journal, "txt")
    assert "61: illegal play" in txt and "(dice corrected: read 61, really 62, by director)" in txt
    assert "62: 24/18 13/11" in txt
    events = json.loads(render(wrong.journal, "json"))["events"]
    corrected = [e for e in events if e["type"] == "DiceCorrected"]
    assert corrected == [{**corrected[0], "player": 1, "read": [1, 6], "dice": [6, 2], "who": "director",
                          "evidence": "evidence/frame-00009.jpg"}]


def test_dice_corrected_before_the_play_and_refused_when_no_roll_is_played(tmp_path: Path) -> None:
    referee, _ = new_referee(tmp_path / "m.jsonl")
    assert not referee.correct_dice((6, 2))  # before the opening roll
    assert "only while the roll is being played" in referee.message
    opening(referee)
    player, dice, notation = TURNS[0]
    before = referee.state.position_for(player)
    referee.observe(obs(before, False))
    referee.observe(obs(before, False, dice=(1, 6), half="left"))
    assert referee.state.dice == (1, 6)
    assert not referee.correct_dice((0, 7)) and "1 to 6" in referee.message
    assert referee.correct_dice((6, 2)) and referee.state.dice == (6, 2)
    after = play(before, "62", notation)
    referee.observe(obs(after, False, dice=(1, 6), half="left"))
    referee.observe(obs(after, False))
    assert isinstance(referee.journal.records[-1].event, match.Play) and referee.state.turn == 0
    # the journal replays: the correction is part of the match's history
    referee.journal.close()
    reopened = Journal.open(tmp_path / "m.jsonl")
    assert reopened.state.position == referee.state.position


def test_the_fold_checks_a_dice_correction() -> None:
    state = match.new_match("backgammon", 5)
    with pytest.raises(IllegalEvent, match="only while the roll is being played"):
        match.apply(state, match.DiceCorrected(player=0, read=(3, 1), dice=(6, 2)))
    state = match.apply(state, match.OpeningRoll(3, 1))
    with pytest.raises(IllegalEvent, match="opening roll cannot be a double"):
        match.apply(state, match.DiceCorrected(player=0, read=(3, 1), dice=(4, 4)))
    with pytest.raises(IllegalEvent, match="recorded roll is 3-1"):
        match.apply(state, match.DiceCorrected(player=0, read=(5, 1), dice=(4, 2)))
    fixed = match.apply(state, match.DiceCorrected(player=0, read=(3, 1), dice=(4, 2)))
    assert fixed.dice == (4, 2) and fixed.turn == 0


def test_the_page_waits_while_the_camera_thread_is_judging(tmp_path: Path) -> None:
    """A correction from the page never runs in the middle of a reading being judged."""
    import threading

    referee, recorder = new_referee(tmp_path / "m.jsonl")
    opening(referee)
    before = referee.state.position_for(1)
    inside, release = threading.Event(), threading.Event()
    plain = recorder.emit

    def slow_emit(kind: str, data: dict[str, object]) -> None:
        plain(kind, data)
        if kind == "rolled":  # the camera thread is in the middle of taking the roll
            inside.set()
            release.wait(5)

    recorder.emit = slow_emit  # type: ignore[method-assign]
    camera = threading.Thread(target=referee.observe, args=(obs(before, False, dice=(1, 6), half="left"),))
    referee.observe(obs(before, False))
    camera.start()
    assert inside.wait(5)
    done: list[bool] = []
    page = threading.Thread(target=lambda: done.append(referee.correct_dice((6, 2))))
    page.start()
    page.join(0.3)
    assert page.is_alive() and done == []  # waits for the camera thread's action to finish
    release.set()
    camera.join(5)
    page.join(5)
    assert done == [True] and referee.state.dice == (6, 2)


# --- a whole game ---------------------------------------------------------------------------------

Turn = tuple[int, tuple[int, int], Position, Position]  # player, dice, board before, board after


def whole_game(seed: int) -> list[Turn]:
    """A whole backgammon game after Ana's opening 3-1 (8/5 6/5): seeded dice, each play the legal
    result that leaves the mover the fewest pips (a quick race), until somebody has borne off all 15."""
    import random

    from rules.plays import legal_results
    from rules.position import starting_position

    rng = random.Random(seed)
    position = play(starting_position(), "31", "8/5 6/5").swapped()  # seen from Ion, to roll
    player = 1
    turns: list[Turn] = []
    while True:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        after = min(legal_results(position, dice), key=lambda p: (p.pips(True), p.id))
        turns.append((player, dice, position, after))
        if after.borne_off(True) == 15:
            return turns
        position, player = after.swapped(), 1 - player


def take_turn(referee: Referee, turn: Turn, seen: tuple[int, int] | None = None) -> None:
    """One turn at the table as the camera sees it (``seen``: the dice as read)."""
    player, dice, before, after = turn
    light = player == 0
    half = "right" if light else "left"
    shown = seen or dice
    referee.observe(obs(before, light))
    referee.observe(obs(before, light, dice=shown, half=half))
    if after == before:  # no play possible: recorded as soon as the roll is taken
        referee.observe(obs(before, light))
        return
    referee.observe(obs(after, light, dice=shown, half=half))
    referee.observe(obs(after, light))
    referee.observe(obs(after, light))


def misreading(turns: list[Turn], start: int) -> tuple[int, tuple[int, int]]:
    """The first turn from ``start`` on with a misreading of its dice that makes its right play
    illegal and at least two checkers from any legal play of the misread roll (so the referee calls
    it illegal instead of asking): (turn index, dice as read)."""
    from controller.referee import _checker_distance
    from rules.plays import legal_results, nearest

    for index in range(start, len(turns)):
        _, dice, before, after = turns[index]
        if after == before:
            continue
        for read in ((a, b) for a in range(1, 7) for b in range(1, 7)):
            if sorted(read) == sorted(dice) or read[0] == read[1] or dice[0] == dice[1]:
                continue
            legal = legal_results(before, read)
            close = nearest(after, legal)
            if after not in legal and close is not None and _checker_distance(after, close) >= 2:
                return index, read
    raise AssertionError("no misreading found")


def test_a_whole_game_with_misread_dice_corrected_has_the_record_of_the_game_read_right(tmp_path: Path) -> None:
    turns = whole_game(2410)
    right, _ = new_referee(tmp_path / "right.jsonl")
    opening(right)
    for turn in turns:
        take_turn(right, turn)
    assert right.state.phase in (match.GAME_OVER, match.MATCH_OVER), [r.event.kind for r in right.journal.records][-5:]
    index, read = misreading(turns, 10)
    wrong, _ = new_referee(tmp_path / "wrong.jsonl")
    opening(wrong)
    for number, turn in enumerate(turns):
        take_turn(wrong, turn, read if number == index else None)
        if number == index:
            assert wrong.mode == ILLEGAL
            assert wrong.correct_dice(turn[1])
    assert render(wrong.journal, "mat") == render(right.journal, "mat")
    assert wrong.state.score == right.state.score and wrong.state.score != (0, 0)


#: a die read less surely than the referee's dice threshold (vision.observation.DICE_QUESTION_CONFIDENCE)
UNSURE = 0.45


def test_a_play_that_looks_illegal_for_an_unsure_roll_is_asked_about_not_called_illegal(tmp_path: Path) -> None:
    """Ion's 6-2 read as 1-6 with a die the reader was unsure of: his right play is not called
    illegal; the referee asks about the roll, and the dice corrected record the play."""
    referee, signals = new_referee(tmp_path / "unsure.jsonl")
    opening(referee)
    roll_and_play(referee, 0, MISREAD, die_confidence=UNSURE, settled_reads=4)
    assert referee.mode == QUESTION
    kinds = [r.event.kind for r in referee.journal.records]
    assert "IllegalPlayDetected" not in kinds and not any(k == "illegal" for k, _ in signals.seen)
    question = [data for kind, data in signals.seen if kind == "question"][-1]
    assert "dice" in question["reason"] and "1-6" in question["reason"]
    assert referee.correct_dice((6, 2))
    assert referee.mode == NORMAL and referee.state.turn == 0
    assert [r.event.kind for r in referee.journal.records][-2:] == ["DiceCorrected", "Play"]


def test_an_unsure_roll_confirmed_as_read_makes_the_play_illegal(tmp_path: Path) -> None:
    """Asked about the unsure 1-6, a person confirms the reading: the play is illegal for it, with
    the evidence frame and the points to put right, and the roll is no longer in doubt (the play
    taken back and another illegal one tried is called illegal at once)."""
    referee, signals = new_referee(tmp_path / "confirmed.jsonl", evidence="evidence/frame-00011.jpg")
    opening(referee)
    roll_and_play(referee, 0, MISREAD, die_confidence=UNSURE, settled_reads=4)
    assert referee.mode == QUESTION and referee.confirm_reading()
    assert referee.mode == ILLEGAL
    record = referee.journal.records[-1]
    assert record.event.kind == "IllegalPlayDetected" and record.evidence == "evidence/frame-00011.jpg"
    illegal = [data for kind, data in signals.seen if kind == "illegal"][-1]
    assert illegal["points"]
    before = referee.state.position_for(1)
    referee.observe(obs(before, False))  # taken back
    assert referee.mode == NORMAL
    questions = sum(kind == "question" for kind, _ in signals.seen)
    other = play(before, "62", "13/7 13/11")  # legal for the real 6-2, illegal for 1-6
    for _ in range(4):
        referee.observe(obs(other, False))
    assert referee.mode == ILLEGAL
    last = referee.journal.records[-1].event
    assert isinstance(last, match.IllegalPlayDetected) and last.result == other
    assert sum(kind == "question" for kind, _ in signals.seen) == questions


def test_the_next_roll_read_surely_is_judged_on_its_own(tmp_path: Path) -> None:
    """An unsure roll played legally leaves no doubt behind: the next roll, misread but read
    surely, makes its right play illegal at once."""
    referee, _ = new_referee(tmp_path / "next.jsonl")
    opening(referee)
    roll_and_play(referee, 0, {}, die_confidence=UNSURE)
    assert referee.state.turn == 0
    roll_and_play(referee, 1, {1: (1, 1)}, die_confidence=0.95, settled_reads=4)
    assert referee.mode == ILLEGAL


def test_an_unsure_roll_with_a_legal_play_is_recorded_without_a_question(tmp_path: Path) -> None:
    """Read right but unsurely: a play legal for the roll as read is recorded at once."""
    referee, signals = new_referee(tmp_path / "legal.jsonl")
    opening(referee)
    roll_and_play(referee, 0, {}, die_confidence=UNSURE)
    assert referee.mode == NORMAL and referee.state.turn == 0
    assert referee.journal.records[-1].event.kind == "Play"
    assert not any(kind == "question" for kind, _ in signals.seen)


def test_a_sure_misread_roll_still_makes_the_play_illegal(tmp_path: Path) -> None:
    """The dice threshold only holds back a verdict when a die was unsure: read as surely as the
    reader can, the misread roll makes the right play illegal (a person then corrects the dice)."""
    referee, _ = new_referee(tmp_path / "sure.jsonl")
    opening(referee)
    roll_and_play(referee, 0, MISREAD, die_confidence=0.95, settled_reads=4)
    assert referee.mode == ILLEGAL
