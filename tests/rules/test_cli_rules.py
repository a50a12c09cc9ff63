"""The command-line contract of `referee plays`, `referee judge` and `referee plays --batch`.

INTERFACES.md §2: one legal play per line (notation, then the resulting position ID seen from the
mover's side, not swapped), `--json` as `{"plays": [{"notation", "result"}]}`, an empty list when
the dice cannot be played; judge exits 0 (legal), 1 (illegal: the reason and the points that
differ), 2 (bad input); bad input gets a one-line message and never a traceback; `--batch` answers
every input line, in order, with `{"plays": [...]}` or `{"error": "..."}`.

Most tests call ``controller.cli.main`` in-process (fast); a few run the installed ``referee``
console script the way users and outside checks do.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from rules.plays import legal_results
from rules.position import Position, starting_position
from tests.rules.gnubg_oracle import encode

ROOT = Path(__file__).resolve().parents[2]
OPENING = "4HPwATDgc/ABMA"
#: The opening position except that the side on roll has one checker on each of 22 and 23.
SPLIT_BACK = "4HPwATDgc/ABFA"


def side(points: dict[int, int]) -> list[int]:
    """A 25-count side from {point: count} in that side's own numbering (25 = bar)."""
    counts = [0] * 25
    for point, count in points.items():
        counts[point - 1] = count
    return counts


#: On the bar against a closed board: no roll can be played.
DANCING = encode(side({25: 1, 13: 14}), side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}))
#: The side on roll has 16 checkers (8 + 8); the other side 14, so the 80 bits still suffice.
SIXTEEN = encode(side({6: 8, 8: 8}), side({6: 5, 8: 3, 13: 4, 24: 2}))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def referee(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The installed console script (or ``python -m controller.cli`` when it is not on disk)."""
    script = Path(sys.executable).with_name("referee")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "controller.cli"]
    return subprocess.run([*command, *argv], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=False)


def assert_one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word.lower() in err.lower(), err


# --- referee plays ----------------------------------------------------------------------------

def test_plays_prints_one_line_per_play_notation_then_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plays", "--variant", "backgammon", "--position", OPENING, "--dice", "31")
    assert code == 0 and err == ""
    lines = [line.split("\t") for line in out.splitlines()]
    assert len(lines) == 16  # gnubg: 16 distinct plays of 3-1 from the opening
    assert all(len(parts) == 2 for parts in lines)
    plays = dict(lines)
    assert Position.from_id(plays["8/5 6/5"]).mover[4] == 2  # the 5-point made, mover's view
    assert {result for _, result in lines} == {r.id for r in legal_results(starting_position(), "31")}


def test_plays_json_lists_notation_and_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plays", "--position", OPENING, "--dice", "31", "--json")
    assert code == 0
    answer = json.loads(out)
    assert list(answer) == ["plays"]
    assert all(set(play) == {"notation", "result"} for play in answer["plays"])
    _, text, _ = run(capsys, "plays", "--position", OPENING, "--dice", "31")
    as_lines = [line.split("\t") for line in text.splitlines()]
    assert [[p["notation"], p["result"]] for p in answer["plays"]] == as_lines


def test_plays_results_are_seen_from_the_mover_not_swapped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plays", "--position", SPLIT_BACK, "--dice", "21", "--json")
    assert code == 0
    plays = {p["notation"]: Position.from_id(p["result"]) for p in json.loads(out)["plays"]}
    assert "23/21 22/21" in plays  # gnubg's hint for this position
    after = plays["23/21 22/21"]
    assert after.mover[20] == 2 and after.mover[21] == after.mover[22] == 0
    assert after.opponent == Position.from_id(SPLIT_BACK).opponent


def test_plays_roll_that_cannot_be_played_gives_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plays", "--position", DANCING, "--dice", "66", "--json")
    assert (code, json.loads(out)) == (0, {"plays": []})
    code, out, _ = run(capsys, "plays", "--position", DANCING, "--dice", "66")
    assert (code, out) == (0, "")


def test_plays_accepts_the_usual_dice_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = {d: run(capsys, "plays", "--position", OPENING, "--dice", d)[1] for d in ("31", "13", "3-1")}
    assert len(set(outputs.values())) == 1 and outputs["31"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--position", "4HPwATDgc/ABM", "--dice", "31"], ["position", "14 characters"]),
        (["--position", "!!!!!!!!!!!!!!", "--dice", "31"], ["position"]),
        (["--position", "4HPwATDgc/ABMAAA", "--dice", "31"], ["position"]),
        (["--position", OPENING, "--dice", "7"], ["dice"]),
        (["--position", OPENING, "--dice", "71"], ["dice"]),
        (["--position", OPENING, "--dice", "0 3"], ["dice"]),
        (["--position", OPENING, "--dice", "abc"], ["dice"]),
        (["--position", OPENING, "--dice", "313"], ["dice"]),
        (["--position", SIXTEEN, "--dice", "31"], ["16"]),
        (["--position", encode(side({6: 2}), side({19: 1})), "--dice", "31"], ["point 6"]),
        (["--position", OPENING], ["--dice"]),
        (["--variant", "chess", "--position", OPENING, "--dice", "31"], ["chess"]),
        (["--position", OPENING, "--dice", "31", "--set", "crawford"], ["KEY=VALUE"]),
        (["--position", OPENING, "--dice", "31", "--set", "no_such_option=1"], ["no_such_option"]),
        (["--position", "nardy:AACA/z8AAID/Pw", "--dice", "31"], ["backgammon"]),
    ],
)
def test_plays_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                words: list[str]) -> None:
    assert_one_line_error(*run(capsys, "plays", *argv), *words)


# --- referee judge ----------------------------------------------------------------------------

def _result(notation: str, position: str = OPENING, dice: str = "31") -> str:
    found = {play.notation(): r.id for r, play in legal_results(Position.from_id(position), dice).items()}
    return found[notation]


def test_judge_legal_play_exits_0_and_names_the_play(capsys: pytest.CaptureFixture[str]) -> None:
    after = _result("8/5 6/5")
    code, out, err = run(capsys, "judge", "--variant", "backgammon", "--before", OPENING, "--after", after,
                         "--dice", "31")
    assert (code, err) == (0, "")
    assert "8/5 6/5" in out
    code, out, _ = run(capsys, "judge", "--before", OPENING, "--after", after, "--dice", "13", "--json")
    assert code == 0
    assert json.loads(out) == {"legal": True, "play": "8/5 6/5", "result": after}


def test_judge_illegal_play_exits_1_with_reason_and_points(capsys: pytest.CaptureFixture[str]) -> None:
    # 3-1 played as 8/4 8/7: one checker too many moved off the 8-point (not a legal result).
    start = starting_position()
    mover = list(start.mover)
    mover[7] -= 2
    mover[3] += 1
    mover[6] += 1
    after = Position(tuple(mover), start.opponent).id
    code, out, err = run(capsys, "judge", "--before", OPENING, "--after", after, "--dice", "31")
    assert code == 1 and "Traceback" not in err
    assert out.startswith("illegal")
    assert "points that differ" in out
    code, out, _ = run(capsys, "judge", "--before", OPENING, "--after", after, "--dice", "31", "--json")
    answer = json.loads(out)
    assert code == 1 and answer["legal"] is False
    assert answer["reason"] and answer["points"]
    assert all(isinstance(p, int) and 0 <= p <= 25 for p in answer["points"])


def test_judge_unchanged_board_when_the_roll_could_be_played_is_illegal(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "judge", "--before", OPENING, "--after", OPENING, "--dice", "31")
    assert code == 1 and out.startswith("illegal")


def test_judge_unchanged_board_when_no_roll_can_be_played_is_legal(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "judge", "--before", DANCING, "--after", DANCING, "--dice", "66")
    assert (code, err) == (0, "")


def test_judge_bar_checker_must_enter_first(capsys: pytest.CaptureFixture[str]) -> None:
    before = encode(side({25: 1, 13: 14}), side({6: 5, 8: 10}))
    after = encode(side({25: 1, 13: 12, 9: 1, 7: 1}), side({6: 5, 8: 10}))
    code, out, _ = run(capsys, "judge", "--before", before, "--after", after, "--dice", "64", "--json")
    assert code == 1
    assert "bar" in json.loads(out)["reason"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--before", "4HPwATDgc/AB", "--after", OPENING, "--dice", "31"],
        ["--before", OPENING, "--after", "not an id!!!!", "--dice", "31"],
        ["--before", OPENING, "--after", OPENING, "--dice", "7"],
        ["--before", SIXTEEN, "--after", OPENING, "--dice", "31"],
        ["--before", OPENING, "--after", SIXTEEN, "--dice", "31"],
    ],
)
def test_judge_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert_one_line_error(*run(capsys, "judge", *argv))


def test_judge_missing_argument_exits_2_without_traceback() -> None:
    done = referee("judge", "--before", OPENING, "--dice", "31")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "--after" in done.stderr


# --- referee plays --batch --------------------------------------------------------------------

def _batch(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str,
           *extra: str) -> tuple[int, list[dict[str, Any]]]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, err = run(capsys, "plays", "--batch", "-", *extra)
    assert err == ""
    return code, [json.loads(line) for line in out.splitlines()]


def test_batch_answers_every_line_in_order(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    queries: list[dict[str, Any]] = [
        {"variant": "backgammon", "position": OPENING, "dice": [3, 1], "first_turn": False, "options": {}},
        {"variant": "backgammon", "position": DANCING, "dice": [6, 6], "first_turn": False, "options": {}},
        {"variant": "backgammon", "position": SPLIT_BACK, "dice": [2, 1]},
        {"variant": "nardy", "position": starting_position("nardy").id, "dice": [6, 6], "first_turn": True},
    ]
    code, answers = _batch(capsys, monkeypatch, "".join(json.dumps(q) + "\n" for q in queries))
    assert code == 0 and len(answers) == len(queries)
    for query, answer in zip(queries, answers, strict=True):
        argv = ["--variant", query["variant"], "--position", query["position"],
                "--dice", "".join(map(str, query["dice"])), "--json"]
        _, out, _ = run(capsys, "plays", *argv, *(["--first-turn"] if query.get("first_turn") else []))
        assert answer == json.loads(out)
    assert answers[1] == {"plays": []}
    assert len(answers[0]["plays"]) == 16


def test_batch_reads_a_file(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"variant": "backgammon", "position": OPENING, "dice": [6, 6]}) + "\n")
    done = referee("plays", "--batch", str(queries))
    assert done.returncode == 0 and done.stderr == ""
    assert len(json.loads(done.stdout)["plays"]) == 11


def test_batch_bad_lines_get_an_error_line_each_and_the_rest_still_answered(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    good = json.dumps({"variant": "backgammon", "position": OPENING, "dice": [3, 1]})
    bad = [
        "{not json",
        "[1, 2]",
        '"just a string"',
        json.dumps({"variant": "backgammon", "dice": [3, 1]}),
        json.dumps({"variant": "backgammon", "position": OPENING}),
        json.dumps({"variant": "backgammon", "position": OPENING, "dice": [7, 1]}),
        json.dumps({"variant": "backgammon", "position": OPENING, "dice": "7"}),
        json.dumps({"variant": "backgammon", "position": OPENING, "dice": [3, 1, 2]}),
        json.dumps({"variant": "backgammon", "position": "4HPwATDgc/AB", "dice": [3, 1]}),
        json.dumps({"variant": "backgammon", "position": SIXTEEN, "dice": [3, 1]}),
        json.dumps({"variant": "chess", "position": OPENING, "dice": [3, 1]}),
        json.dumps({"variant": "backgammon", "position": OPENING, "dice": [3, 1], "options": {"nope": 1}}),
        json.dumps({"variant": "backgammon", "position": OPENING, "dice": [3, 1], "first_turn": "yes"}),
    ]
    lines = [good, *bad, good]
    code, answers = _batch(capsys, monkeypatch, "\n".join(lines) + "\n")
    assert code == 0
    assert len(answers) == len(lines)
    assert "plays" in answers[0] and answers[-1] == answers[0]
    for line, answer in zip(bad, answers[1:-1], strict=True):
        assert list(answer) == ["error"], (line, answer)
        message = answer["error"]
        assert isinstance(message, str) and message and "\n" not in message and "Traceback" not in message


def test_batch_through_the_console_script_with_stdin() -> None:
    text = json.dumps({"variant": "backgammon", "position": OPENING, "dice": [2, 1]}) + "\n{oops\n"
    done = referee("plays", "--batch", "-", stdin=text)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert len(first["plays"]) == 15 and list(second) == ["error"]


def test_batch_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = referee("plays", "--batch", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# --- issue 21: the new options through --set -------------------------------------------------

NARDY_START = starting_position("nardy")


def _moved(position: Position, *hops: tuple[int, int]) -> Position:
    me = list(position.mover)
    for start, end in hops:
        me[start - 1] -= 1
        if end:
            me[end - 1] += 1
    return Position(tuple(me), position.opponent, position.variant)


def test_judge_first_turn_exception_strict_through_set(capsys: pytest.CaptureFixture[str]) -> None:
    twice = _moved(NARDY_START, (24, 18), (24, 18)).id
    base = ["judge", "--variant", "nardy", "--before", NARDY_START.id, "--after", twice, "--dice", "33",
            "--first-turn"]
    code, out, _ = run(capsys, *base)
    assert code == 0 and "24/18(2)" in out
    code, out, _ = run(capsys, *base, "--set", "first_turn_exception=strict")
    assert code == 1
    assert "first turn, strict rule: the first checker must go as far as the roll allows (to point 15)" in out
    code, out, _ = run(capsys, "plays", "--variant", "nardy", "--position", NARDY_START.id, "--dice", "33",
                       "--first-turn", "--set", "first_turn_exception=strict")
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["24/21 24/15"]


def test_judge_gulbara_home_moves_through_set(capsys: pytest.CaptureFixture[str]) -> None:
    me = [0] * 25
    me[19], me[5] = 13, 2
    them = [0] * 25
    them[23] = 15
    before = Position(tuple(me), tuple(them), "gulbara")
    inside = _moved(before, (6, 5), (6, 4)).id
    base = ["judge", "--variant", "gulbara", "--before", before.id, "--after", inside, "--dice", "21"]
    code, out, _ = run(capsys, *base)
    assert code == 1 and "a checker in its home may only bear off (no moves inside the home)" in out
    code, out, _ = run(capsys, *base, "--set", "home_moves=allowed")
    assert code == 0 and "6/5 6/4" in out


@pytest.mark.parametrize("variant, pair, allowed", [
    ("nardy", "first_turn_exception=loose", "general or strict"),
    ("gulbara", "home_moves=sometimes", "forbidden or allowed"),
    ("nardy", "home_moves=allowed", "home_moves"),
])
def test_new_options_refused_with_the_allowed_values(capsys: pytest.CaptureFixture[str], variant: str,
                                                     pair: str, allowed: str) -> None:
    start = starting_position(variant).id
    assert_one_line_error(*run(capsys, "plays", "--variant", variant, "--position", start, "--dice", "31",
                               "--set", pair), allowed)
    assert_one_line_error(*run(capsys, "judge", "--variant", variant, "--before", start, "--after", start,
                               "--dice", "31", "--set", pair), allowed)
