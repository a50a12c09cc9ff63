"""Live cross-check of the backgammon rules against GNU Backgammon (issue 2, RULES.md §2 "Oracle").

gnubg (Debian package, ``/usr/games/gnubg``) plays seeded games against itself and analyses them
at 0-ply; every turn is a (position, roll) case with gnubg's full set of legal resulting
positions.  ``legal_results`` must give exactly that set, both called directly and through
``referee plays --batch`` (the way outside checks drive the project).  See
:mod:`tests.rules.gnubg_oracle` for how gnubg is driven.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rules import match
from rules.errors import IllegalEvent, IllegalPlay
from rules.plays import judge
from rules.position import Position, starting_position
from tests.rules.gnubg_oracle import (
    OPENING_ID,
    Case,
    available,
    cached_selfplay_cases,
    coverage,
    cube_answers,
    describe_mismatch,
    gnubg_nn_results,
    hint_results,
    our_results,
    random_queries,
    resign_answers,
)

pytestmark = [
    pytest.mark.gnubg,
    pytest.mark.skipif(not available(), reason="GNU Backgammon is not installed (/usr/games/gnubg; "
                       "`make test` installs the Debian package gnubg)"),
]

ROOT = Path(__file__).resolve().parents[2]
OPENING = {
    roll: int(count)
    for roll, count in (item.split(":") for item in (
        "11:42 21:15 22:75 31:16 32:17 33:73 41:14 42:18 43:17 44:52 51:8 52:8 53:9 54:9 55:4 "
        "61:10 62:14 63:14 64:14 65:7 66:11").split())
}
BATCH_SLICE = 1  # every self-play case also goes through `referee plays --batch` (raise to thin out)


@pytest.fixture(scope="module")
def corpus() -> tuple[Case, ...]:
    return cached_selfplay_cases()


def _mismatches(cases: list[Case] | tuple[Case, ...]) -> list[str]:
    found = []
    for case in cases:
        ours = our_results(case.position, case.dice)
        if ours != case.results:
            found.append(describe_mismatch(case, ours))
    return found


def _report(kind: str, mismatches: list[str], total: int) -> str:
    return f"{len(mismatches)} of {total} {kind} cases differ from gnubg:\n" + "\n".join(mismatches[:25])


def test_selfplay_corpus_has_2000_cases_covering_every_rule(corpus: tuple[Case, ...]) -> None:
    counts = coverage(corpus)
    assert counts["cases"] >= 2000, counts
    for rule, least in {"bar_entry": 200, "hit": 200, "bear_off": 200, "no_move": 50,
                        "doubles": 200, "partial": 20}.items():
        assert counts[rule] >= least, (rule, counts)


def test_legal_results_equal_gnubg_on_selfplay_cases(corpus: tuple[Case, ...]) -> None:
    mismatches = _mismatches(corpus)
    assert not mismatches, _report("self-play", mismatches, len(corpus))


def test_judge_accepts_every_play_gnubg_made_and_the_pass_when_it_could_not(corpus: tuple[Case, ...]) -> None:
    refused = []
    for case in corpus:
        before = Position.from_id(case.position)
        after = Position.from_id(case.played) if case.played else before
        try:
            play = judge(before, after, case.dice)
        except IllegalPlay as error:
            refused.append(f"{case.source}: {case.position} {case.roll} -> {after.id}: {error}")
            continue
        assert bool(play.steps) == bool(case.played), (case.source, play)
    assert not refused, f"{len(refused)} of gnubg's own plays judged illegal:\n" + "\n".join(refused[:25])


def test_referee_plays_batch_equals_gnubg(corpus: tuple[Case, ...]) -> None:
    cases = corpus[::BATCH_SLICE]
    queries = "".join(
        json.dumps({"variant": "backgammon", "position": c.position, "dice": list(c.dice),
                    "first_turn": False, "options": {}}) + "\n"
        for c in cases
    )
    script = Path(sys.executable).with_name("referee")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "controller.cli"]
    done = subprocess.run([*command, "plays", "--batch", "-"], input=queries, capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(cases)
    mismatches = []
    for case, line in zip(cases, lines, strict=True):
        answer = json.loads(line)
        assert "plays" in answer, (case.position, case.roll, answer)
        ours = frozenset(play["result"] for play in answer["plays"])
        if ours != case.results or len(answer["plays"]) != len(ours):
            mismatches.append(describe_mismatch(case, ours) + f" ({len(answer['plays'])} lines)")
    assert not mismatches, _report("`referee plays --batch`", mismatches, len(cases))


def test_opening_table_matches_gnubg_live_and_our_engine() -> None:
    assert starting_position().id == OPENING_ID
    cases = hint_results([(OPENING_ID, int(roll[0]), int(roll[1])) for roll in OPENING])
    assert {case.roll: len(case.results) for case in cases} == OPENING  # gnubg itself, live
    assert sum(OPENING.values()) == 447
    mismatches = _mismatches(cases)
    assert not mismatches, _report("opening", mismatches, len(cases))


def test_legal_results_equal_gnubg_on_rare_situations() -> None:
    """Seeded random positions (bear-offs, checkers on the bar, anything) through gnubg's hint."""
    cases = hint_results(random_queries(seed=2, count=240), processes=3)
    counts = coverage(cases)
    assert counts["bear_off"] >= 40 and counts["bar_entry"] >= 60 and counts["no_move"] >= 5, counts
    mismatches = _mismatches(cases)
    assert not mismatches, _report("random-position", mismatches, len(cases))


def test_gnubg_binary_and_gnubg_nn_agree(corpus: tuple[Case, ...]) -> None:
    """The oracle checks itself: gnubg's analysis and the gnubg-nn move generator give one answer."""
    if gnubg_nn_results(OPENING_ID, (3, 1)) is None:
        pytest.skip("gnubg_nn is not installed (x86 test extra)")
    differ = [describe_mismatch(c, nn) for c in corpus
              if (nn := gnubg_nn_results(c.position, c.dice)) is not None and nn != c.results]
    assert not differ, _report("gnubg-nn", differ, len(corpus))


# --- match play: the cube and resignations (issue 21, RULES.md §2.6-2.7) ------------------------

def _situation(length: int, score: tuple[int, int], cube: int, owner: int | None, player: int,
               crawford: bool = False) -> match.MatchState:
    """Our match state for a gnubg situation: ``player`` to roll, no dice yet."""
    state = match.new_match("backgammon", length)
    leader_at_match_point = length > 0 and max(score) == length - 1
    return replace(state, phase=match.ROLL, turn=player, starter=0, score=(float(score[0]), float(score[1])),
                   cube=cube, cube_owner=owner, crawford_game=crawford,
                   crawford_done=leader_at_match_point and not crawford)


def _our_double(case: dict[str, Any]) -> str:
    """Empty when our fold lets the player on roll double, else its reason."""
    state = _situation(case["length"], tuple(case["score"]), case["cube"], case["owner"], case["player"],
                       case["crawford"])
    try:
        after = match.apply(state, match.Double(case["player"]))
    except IllegalEvent as error:
        return str(error)
    assert after.phase == match.CUBE
    return ""


def _cube_grid() -> list[dict[str, Any]]:
    """Every score of 1-, 2-, 3-, 5- and 7-point matches and money play, cubes 1, 2 and 4 centred
    or owned by either player, either player on roll; the Crawford game where a score allows it."""
    cases = []
    for length in (0, 1, 2, 3, 5, 7):
        scores = [(0, 0)] if length == 0 else [(a, b) for a in range(length) for b in range(length)]
        for score in scores:
            crawfords = [False, True] if length > 1 and max(score) == length - 1 else [False]
            for crawford in crawfords:
                for cube in (1, 2, 4):
                    if crawford and cube > 1:
                        continue  # no cube action in the Crawford game: the cube stays centred at 1
                    for owner in ((None,) if cube == 1 else (0, 1)):
                        for player in (0, 1):
                            cases.append({"length": length, "score": list(score), "cube": cube,
                                          "owner": owner, "crawford": crawford, "player": player})
    return cases


def test_no_cube_in_a_one_point_match_as_gnubg() -> None:
    """RULES.md §2.7: gnubg says "The cube is dead" in a 1-point match; so does the referee."""
    situations = [{"length": 1, "score": [0, 0], "cube": 1, "owner": None, "crawford": False, "player": p}
                  for p in (0, 1)]
    for answer in cube_answers(situations):
        assert not answer["allowed"] and "cube is dead" in answer["words"], answer
        assert _our_double(answer) == "the cube is dead in a 1-point match"
    # Through a real game: the opening play, then player 1 tries to double before rolling.
    state = match.apply(match.new_match("backgammon", 1), match.OpeningRoll(3, 1))
    state = match.apply(state, match.Play(0, _after_31()))
    with pytest.raises(IllegalEvent, match="the cube is dead in a 1-point match"):
        match.apply(state, match.Double(1))


def _after_31() -> Position:
    from rules.plays import legal_results

    start = starting_position()
    return next(result for result, play in legal_results(start, (3, 1)).items() if play.notation() == "8/5 6/5")


def test_dead_cube_leader_and_redouble_at_4_2_of_5_as_gnubg() -> None:
    """The issue's cases: post-Crawford at 4-2 of 5 the leader may not double, nor redouble a
    2-cube he owns; the trailer may double."""
    situations = [
        {"length": 5, "score": [4, 2], "cube": 1, "owner": None, "crawford": False, "player": 0},
        {"length": 5, "score": [4, 2], "cube": 2, "owner": 0, "crawford": False, "player": 0},
        {"length": 5, "score": [4, 2], "cube": 1, "owner": None, "crawford": False, "player": 1},
    ]
    leader, owner, trailer = cube_answers(situations)
    assert not leader["allowed"] and "cube is dead" in leader["words"]
    assert not owner["allowed"] and "cube is dead" in owner["words"]
    assert trailer["allowed"]
    assert _our_double(leader) == ("the cube is dead: player 0 already wins the match with a single game "
                                   "(4 of 5 points)")
    assert _our_double(owner).startswith("the cube is dead: player 0 already wins the match with a single "
                                         "game at the 2-cube")
    assert _our_double(trailer) == ""


def test_who_may_double_equals_gnubg_at_every_score() -> None:
    """Every score of short matches and money play, cube 1/2/4, either owner, the Crawford game:
    the referee allows a double exactly when gnubg does (dead cube included: a cube that can no
    longer raise the doubler's gain, e.g. 3-0 of 5 owning a 2-cube)."""
    grid = _cube_grid()
    answers = cube_answers(grid)
    assert len(answers) == len(grid) >= 900
    dead = [a for a in answers if "cube is dead" in a["words"]]
    assert len(dead) >= 200, len(dead)
    differ = []
    for answer in answers:
        ours = _our_double(answer)
        if (ours == "") != answer["allowed"]:
            differ.append(f"{answer}: ours {ours or 'allowed'}")
        elif "cube is dead" in answer["words"] and not ours.startswith("the cube is dead"):
            differ.append(f"{answer}: ours refuses for another reason: {ours}")
    assert not differ, f"{len(differ)} of {len(answers)} cube situations differ from gnubg:\n" + "\n".join(differ[:25])


def test_resignations_score_face_value_as_gnubg_even_with_jacoby() -> None:
    """RULES.md §2.6: an accepted resignation scores its face value times the cube, as gnubg scores
    it; the Jacoby rule (money play, cube centred) does not reduce a resigned gammon."""
    situations = []
    for length, jacoby in ((0, True), (0, False), (5, False)):
        for cube, owner in ((1, None), (2, 0), (2, 1)):
            for value in (1, 2, 3):
                for player in (0, 1):
                    situations.append({"length": length, "score": [0, 0], "cube": cube, "owner": owner,
                                       "crawford": False, "jacoby": jacoby, "value": value, "player": player})
    answers = resign_answers(situations)
    jacoby_gammon = [a for a in answers if a["jacoby"] and a["owner"] is None and a["value"] == 2]
    assert jacoby_gammon and all(a["points"] == 2 for a in jacoby_gammon), jacoby_gammon
    differ = []
    for answer in answers:
        options = {"jacoby": True} if answer["jacoby"] else {}
        state = _situation(answer["length"], (0, 0), answer["cube"], answer["owner"], answer["player"])
        state = replace(state, config=replace(state.config, options=tuple(options.items())))
        state = match.apply(state, match.Resign(answer["player"], answer["value"]))
        state = match.apply(state, match.ResignAccepted(1 - answer["player"]))
        result = state.last_result
        assert result is not None and answer["resigned"]
        if (result.winner, result.points) != (answer["winner"], answer["points"]):
            differ.append(f"{answer}: ours {result.winner} wins {result.points:g}")
    assert not differ, "\n".join(differ)
