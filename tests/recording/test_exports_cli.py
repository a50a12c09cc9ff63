"""`referee import` / `referee export`, the .txt and .json records, atomic writes."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from recording.export import DamagedJournal, export_journal, render, write_atomic
from recording.journal import Header, Journal, replay
from rules import match
from rules.plays import legal_results
from rules.position import Position

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "gnubg"


def nardy_journal(path: Path, seed: int = 5) -> Journal:
    """A long-nardy game played at random (seeded), with a void roll and an accepted illegal play."""
    rng = random.Random(seed)
    journal = Journal.create(
        path,
        Header(variant="long nardy", match_length=3, players=("Aigerim", "Timur"), options={"koks": True},
               device="referee-02", site="Almaty"),
    )
    journal.append(match.OpeningRoll(5, 3))
    plays = 0
    while journal.state.phase not in (match.GAME_OVER, match.MATCH_OVER):
        state = journal.state
        assert state.turn is not None
        if len(journal) == 3:
            journal.append(match.VoidRoll(state.turn, "cocked"))
        journal.append(match.Roll(state.turn, (rng.randint(1, 6), rng.randint(1, 6))))
        state = journal.state
        assert state.turn is not None and state.dice is not None
        results = legal_results(state.position, state.dice, first_turn=state.first_turn, options=state.config.rule_options())
        result = rng.choice(sorted(results, key=lambda p: p.id))
        plays += 1
        if plays == 5:
            wrong = Position(state.position.mover, state.position.opponent, "nardy")
            if wrong not in results:  # "played nothing" although the dice could be played
                journal.append(match.IllegalPlayDetected(state.turn, wrong, "both dice could be played"))
                journal.append(match.IllegalPlayAccepted(state.turn, wrong, "both dice could be played"))
                continue
        journal.append(match.Play(state.turn, result, results[result].steps), evidence=f"f{len(journal)}.jpg")
    last = journal.state.last_result
    assert last is not None
    assert any(isinstance(e, match.IllegalPlayAccepted) for e in journal.events)
    journal.append(match.GameEnd(last.winner, last.points, last.result))
    return journal


def test_txt_of_nardy_game_has_variation_header_and_marks(tmp_path: Path) -> None:
    with nardy_journal(tmp_path / "n.jsonl") as journal:
        text = render(journal, "txt")
    assert text.startswith('; [Variation "LongNardy"]\n')
    assert "; [Site \"Almaty\"]" in text and " 3 point match" in text
    assert " Aigerim : 0                    Timur : 0" in text
    assert "(void roll: cocked)" in text
    assert "illegal, accepted: both dice could be played" in text
    assert "24/" in text and "Wins " in text


def test_json_export_holds_every_event(tmp_path: Path) -> None:
    with nardy_journal(tmp_path / "n.jsonl") as journal:
        data = json.loads(render(journal, "json"))
        assert len(data["events"]) == len(journal)
        assert data["header"]["variant"] == "nardy" and data["header"]["options"]["koks"] is True
        kinds = {event["type"] for event in data["events"]}
        assert {"OpeningRoll", "Roll", "VoidRoll", "Play", "IllegalPlayAccepted", "GameEnd"} <= kinds
        assert all("t" in event for event in data["events"])
        assert data["games"][0]["winner"] == journal.state.last_result.winner  # type: ignore[union-attr]
        assert data["final"]["score"] == list(journal.state.score)
        assert any(event.get("evidence") for event in data["events"])


def test_backgammon_txt_export_for_an_imported_match(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "sample_5pt.mat"), "-o", str(journal)]) == 0
    assert main(["export", str(journal), "--format", "txt", "-o", str(tmp_path / "m.txt")]) == 0
    text = (tmp_path / "m.txt").read_text()
    assert " 5 point match" in text and "Wins 2 points (single)" in text and "Doubles => 2" in text


def test_import_then_export_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "sample_3pt_crawford.mat"), "-o", str(journal)]) == 0
    assert "3 games, score 1-4" in capsys.readouterr().out
    for fmt in ("mat", "sgf", "json", "txt"):
        assert main(["export", str(journal), "--format", fmt]) == 0
        assert (tmp_path / f"m.{fmt}").exists()
    assert (tmp_path / "m.mat").read_text() == (DATA / "sample_3pt_crawford.mat").read_text()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_import_illegal_play_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_text((DATA / "sample_5pt.mat").read_text().replace("  1) 31: 8/5 6/5", "  1) 31: 8/4 6/5"))
    assert main(["import", str(bad), "-o", str(tmp_path / "j.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 7" in err and "8/4 6/5" in err
    assert not (tmp_path / "j.jsonl").exists()


#: A 5-point match: 2-0, 2-2, 4-2 (resignations), the Crawford game 4-3, then the leader doubles.
DEAD_CUBE_MAT = """ 5 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5
      Wins 2 points

 Game 2
 Alice : 2                      Bob : 0
  1)                             42: 8/4 6/4
                                  Wins 2 points

 Game 3
 Alice : 2                      Bob : 2
  1) 31: 8/5 6/5
      Wins 2 points

 Game 4
 Alice : 4                      Bob : 2
  1)                             42: 8/4 6/4
                                  Wins 1 point

 Game 5
 Alice : 4                      Bob : 3
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2
"""

ONE_POINT_MAT = """ 1 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                  Doubles => 2
"""


@pytest.mark.parametrize("text, words", [
    (ONE_POINT_MAT, "line 5: Bob doubles: the cube is dead in a 1-point match"),
    (DEAD_CUBE_MAT, "line 26: Alice doubles: the cube is dead: player 0 already wins the match with a "
                    "single game (4 of 5 points)"),
])
def test_import_refuses_a_dead_cube_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                              words: str) -> None:
    """RULES.md §2.7 (as gnubg): no double in a 1-point match, nor by a player who already wins the
    match with a single game."""
    record = tmp_path / "dead.mat"
    record.write_text(text)
    assert main(["import", str(record), "-o", str(tmp_path / "j.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "j.jsonl").exists()
    # The same match without the double imports: only the double is refused.
    record.write_text(text.replace("  2)  Doubles => 2\n", "").replace("Doubles => 2", ""))
    assert main(["import", str(record), "-o", str(tmp_path / "ok.jsonl")]) == 0


def test_import_refuses_to_overwrite_a_journal(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_text("precious")
    assert main(["import", str(DATA / "sample_5pt.mat"), "-o", str(journal)]) == 2
    assert journal.read_text() == "precious"


def test_export_of_nardy_to_mat_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nardy_journal(tmp_path / "n.jsonl").close()
    assert main(["export", str(tmp_path / "n.jsonl"), "--format", "mat"]) == 2
    assert "backgammon only" in capsys.readouterr().err


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )


@pytest.mark.parametrize("kind", ["garbage", "huge", "truncated_sgf", "empty"])
def test_hostile_import_one_line_error_no_traceback(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ("in.sgf" if kind == "truncated_sgf" else "in.mat")
    if kind == "garbage":
        path.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(20000)))
    elif kind == "huge":
        with open(path, "wb") as stream:  # 100 MB of match-looking text (sparse where possible)
            stream.write(b" 5 point match\n")
            stream.truncate(100 << 20)
    elif kind == "truncated_sgf":
        text = (DATA / "sample_5pt.stripped.sgf").read_text()
        path.write_text(text[: len(text) * 2 // 3])
    else:
        path.write_text("")
    done = run_cli("import", str(path), "-o", str(tmp_path / "j.jsonl"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "j.jsonl").exists()


def test_export_reads_damaged_journal_without_repairing_it(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "sample_5pt.mat"), "-o", str(journal)]) == 0
    with open(journal, "ab") as stream:
        stream.write(b'{"seq": 999')
    size = journal.stat().st_size
    with pytest.raises(DamagedJournal, match="torn"):
        export_journal(journal, "mat", tmp_path / "x.mat")
    assert not (tmp_path / "x.mat").exists()
    out = export_journal(journal, "mat", tmp_path / "x.mat", salvage=True)
    assert Path(out).read_text() == (DATA / "sample_5pt.mat").read_text()
    assert journal.stat().st_size == size


def test_write_atomic_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "record.mat"
    target.write_text("old")
    write_atomic(target, "new contents\n")
    assert target.read_text() == "new contents\n"
    assert sorted(os.listdir(tmp_path)) == ["record.mat"]


def test_imported_journal_replays_to_same_state(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "sample_5pt.stripped.sgf"), "-o", str(journal)]) == 0
    state = replay(journal).state
    assert state.match_over and state.score == (0, 5)


def gulbara_journal(path: Path) -> Journal:
    """A gul bara game whose 4th roll (5-5) cascades and hands 5 5 6 6 6 6 to the opponent."""
    from rules.variants import gulbara
    from tests.rules.test_nardy import board, moved

    journal = Journal.create(path, Header(variant="gulbara", players=("Ana", "Ion")))
    journal.append(match.OpeningRoll(3, 1))
    for number in range(3):
        state = journal.state
        assert state.turn is not None
        journal.append(match.Roll(state.turn, (number + 2, 1)))
        state = journal.state
        assert state.dice is not None
        results = legal_results(state.position, state.dice)
        result = sorted(results, key=lambda p: p.id)[0]
        journal.append(match.Play(state.turn or 0, result, results[result].steps))
    roller = board({5: 2, 4: 2}, {24: 15}, "gulbara")
    journal.append(match.ManualCorrection(1, roller, "test set-up"))
    journal.append(match.Roll(1, (5, 5)))
    (after, play), = gulbara.legal_results(roller, "55", roll_number=4).items()
    journal.append(match.Play(1, after, play.steps))
    state = journal.state
    assert state.phase == match.REMAINDER
    opponent = state.position
    chosen = moved(opponent, (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    rest = gulbara.judge_remainder(opponent, chosen, state.pending_steps)
    journal.append(match.CascadePlay(0, chosen, rest.steps), evidence="cascade.jpg")
    journal.append(match.Roll(0, (2, 1)))
    return journal


def test_cascade_play_event_round_trips_through_json() -> None:
    from recording.codec import event_from_json, event_to_json
    from rules.steps import Step

    result = Position.from_id("gulbara:AACA/z8AAID/Pw")
    event = match.CascadePlay(0, result, (Step(24, 19, 5), Step(24, 18, 6)))
    data = event_to_json(event)
    assert data == {"type": "CascadePlay", "player": 0, "result": result.id, "steps": [[24, 19, 5], [24, 18, 6]]}
    assert event_from_json(json.loads(json.dumps(data)), "gulbara") == event
    assert event_from_json({"type": "CascadePlay", "player": 1, "result": result.id}) == match.CascadePlay(1, result)


def test_gulbara_cascade_journal_replays(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with gulbara_journal(path) as journal:
        live = journal.state
    for check_plays in (True, False):
        again = replay(path, check_plays=check_plays)
        assert again.state.sides == live.sides and again.state.phase == match.PLAY
        assert again.state.roll_number == 5 and again.damage == []
        assert any(isinstance(e, match.CascadePlay) for e in again.events)


def test_gulbara_txt_shows_the_opponents_cascade_part(tmp_path: Path) -> None:
    with gulbara_journal(tmp_path / "g.jsonl") as journal:
        text = render(journal, "txt")
    assert text.startswith('; [Variation "GulBara"]\n')
    assert "55: 5/off(2)" in text
    assert "cascade 556666: 24/19(2) 24/18(4)" in text


def test_gulbara_json_export_names_the_handed_on_steps(tmp_path: Path) -> None:
    with gulbara_journal(tmp_path / "g.jsonl") as journal:
        data = json.loads(render(journal, "json"))
    events = data["events"]
    cascade_roll = next(e for e in events if e["type"] == "Roll" and e["dice"] == [5, 5])
    assert cascade_roll["roll_number"] == 4
    roller_play = events[events.index(cascade_roll) + 1]
    assert roller_play["type"] == "Play" and roller_play["handed_on"] == [5, 5, 6, 6, 6, 6]
    cascade = events[events.index(roller_play) + 1]
    assert cascade["type"] == "CascadePlay" and cascade["player"] == 0 and cascade["evidence"] == "cascade.jpg"
    assert len(cascade["steps"]) == 6 and data["final"]["pending_steps"] == []


def test_sixone_txt_has_variation_header(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "s.jsonl", Header(variant="sixone", players=("Ana", "Ion")))
    with journal:
        journal.append(match.OpeningRoll(4, 2))
        journal.append(match.Roll(0, (6, 3)))
        start = journal.state.position
        results = legal_results(start, (6, 3))
        shortcut = next(r for r, p in results.items() if any(s.start == 24 and s.end <= 6 for s in p.steps))
        journal.append(match.Play(0, shortcut, results[shortcut].steps))
        text = render(journal, "txt")
    assert text.startswith('; [Variation "SixOne"]\n') and "63: 24/" in text
