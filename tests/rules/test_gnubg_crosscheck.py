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
from pathlib import Path

import pytest

from rules.errors import IllegalPlay
from rules.plays import judge
from rules.position import Position, starting_position
from tests.rules.gnubg_oracle import (
    OPENING_ID,
    Case,
    available,
    cached_selfplay_cases,
    coverage,
    describe_mismatch,
    gnubg_nn_results,
    hint_results,
    our_results,
    random_queries,
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
