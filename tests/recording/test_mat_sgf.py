"""Readers and writers for gnubg's .mat and .sgf files, and what they do with hostile input."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from recording.export import header_of
from recording.mat import read_mat, write_mat
from recording.moves import IllegalRecord, RecordError
from recording.sgf import parse, read_sgf, write_sgf
from rules import match
from rules.errors import RulesError

DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg"
SAMPLES = ["sample_5pt", "sample_3pt_crawford", "money_session"]


def read(name: str) -> str:
    return (DATA / name).read_text()


@pytest.mark.parametrize("name", SAMPLES)
def test_gnubg_mat_read_and_rewritten_byte_for_byte(name: str) -> None:
    text = read(f"{name}.mat")
    imported = read_mat(io.StringIO(text))
    out = io.StringIO()
    write_mat(out, header_of(imported), imported.events)
    assert out.getvalue() == text


@pytest.mark.parametrize("name", SAMPLES)
def test_gnubg_sgf_read_and_rewritten_as_gnubg_writes(name: str) -> None:
    text = read(f"{name}.stripped.sgf")
    imported = read_sgf(io.StringIO(text))
    out = io.StringIO()
    write_sgf(out, header_of(imported), imported.events)
    assert out.getvalue() == text.replace("AP[GNU Backgammon:1.07.001]", "AP[referee:0.1.0]")


@pytest.mark.parametrize("name", SAMPLES)
def test_mat_and_sgf_of_one_match_give_the_same_events(name: str) -> None:
    from_mat = read_mat(io.StringIO(read(f"{name}.mat")))
    from_sgf = read_sgf(io.StringIO(read(f"{name}.stripped.sgf")))
    assert from_mat.events == from_sgf.events
    assert from_mat.players == from_sgf.players


def test_sample_5pt_final_score_and_results() -> None:
    imported = read_mat(io.StringIO(read("sample_5pt.mat")))
    state = imported.state
    assert state is not None and state.match_over and state.winner == 1
    assert state.score == (0, 5)
    assert [(r.winner, r.points, r.result) for r in state.results] == [(1, 2, "single"), (1, 1, "drop"), (1, 2, "single")]


def test_sample_3pt_crawford_game_then_post_crawford_double() -> None:
    imported = read_mat(io.StringIO(read("sample_3pt_crawford.mat")))
    state = match.new_match("backgammon", 3)
    crawford_games: list[int] = []
    doubled_in = -1
    for event in imported.events:
        if isinstance(event, match.Double):
            assert not state.crawford_game
            doubled_in = state.game
        before = state
        state = match.apply(state, event)
        if before.phase == match.GAME_OVER and state.game != before.game and state.crawford_game:
            crawford_games.append(state.game)
    assert crawford_games == [1]
    assert doubled_in == 2  # the post-Crawford game
    assert state.score == (1, 4) and state.results[1].result == "resign single"  # RE[W+1R]
    assert state.results[0].result.startswith("resign")  # gnubg's RE[B+2R]


def test_handmade_notations_read() -> None:
    """24/14, 13/7(2), 25/22 and 13/11* all read; the board matches gnubg's after import."""
    text = '; [Crawford "Off"]\n' + read("handmade.mat")
    imported = read_mat(io.StringIO(text))
    state = imported.state
    assert state is not None
    assert imported.site == "Wooden board referee test" and imported.date == "2024-06-01"
    assert state.score == (0, 2) and state.results[0].result == "drop"
    assert state.phase == match.CUBE and state.turn == 1  # Alice's double waits for Bob
    assert state.position_for(0).id == "bE7wATCMc8YBMA"  # what gnubg shows after `import mat`


def test_handmade_double_in_crawford_game_means_crawford_was_off() -> None:
    """handmade.mat's game 2 would be the Crawford game (0-2 to 3), yet Alice doubles in it: a .mat
    file does not say whether the rule was played, so the file shows it was not.  Read as gnubg
    reads it, and say so in the record.  (Only the trailer may: Bob, at match point, would double
    a dead cube, RULES.md §2.7.)"""
    imported = read_mat(io.StringIO(read("handmade.mat")))
    assert imported.state is not None
    assert imported.state.position_for(0).id == "bE7wATCMc8YBMA"  # what gnubg shows after `import mat`
    assert "line 20" in imported.extra["Crawford"] and imported.extra["Crawford"].startswith("Off")


def test_explicit_crawford_header_keeps_the_double_illegal() -> None:
    text = '; [Crawford "On"]\n' + read("handmade.mat")
    with pytest.raises(IllegalRecord, match=r"line 21: Alice doubles: no doubling in the Crawford game"):
        read_mat(io.StringIO(text))


def test_illegal_play_named_with_line() -> None:
    text = read("sample_5pt.mat").replace("  1) 31: 8/5 6/5", "  1) 31: 8/4 6/5")
    with pytest.raises(IllegalRecord, match=r"^line 7: Alice: illegal play 31: 8/4 6/5: "):
        read_mat(io.StringIO(text))


def test_move_from_empty_point_named() -> None:
    text = read("sample_5pt.mat").replace("  1) 31: 8/5 6/5", "  1) 31: 7/4 6/5")
    with pytest.raises(IllegalRecord, match=r"line 7: .*no checker on 7"):
        read_mat(io.StringIO(text))


def test_wrong_score_line_named() -> None:
    text = read("sample_5pt.mat").replace(" Alice : 0                      Bob : 2", " Alice : 1                      Bob : 2")
    with pytest.raises(IllegalRecord, match=r"score 1-2 does not follow"):
        read_mat(io.StringIO(text))


def test_truncated_sgf_is_an_error() -> None:
    text = read("sample_5pt.stripped.sgf")
    with pytest.raises(RecordError, match="truncated"):
        read_sgf(io.StringIO(text[: len(text) // 2]))
    with pytest.raises(RecordError, match="truncated"):
        read_sgf(io.StringIO(text[:1000] + "W[3"))


def test_sgf_rejects_other_games_and_setup() -> None:
    with pytest.raises(RecordError, match="GM"):
        read_sgf(io.StringIO("(;FF[4]GM[1]SZ[19];B[pd])"))
    with pytest.raises(RecordError, match="set-up"):
        read_sgf(io.StringIO("(;FF[4]GM[6]MI[length:3];AE[a:y]AW[a])"))


def test_deeply_nested_sgf_does_not_crash() -> None:
    with pytest.raises(RecordError):
        read_sgf(io.StringIO("(" * 200_000))


def test_sgf_variations_follow_the_main_line() -> None:
    text = read("sample_5pt.stripped.sgf")
    first, _, rest = text.partition("\n;B[63addj]")
    varied = first + "\n(;B[63addj]" + rest.split(")\n(", 1)[0] + ")(;B[21])" + ")\n(" + rest.split(")\n(", 1)[1]
    games = parse(varied)
    assert len(games) == 3 and len(games[0]) == len(parse(text)[0])


def test_binary_garbage_is_one_line_error() -> None:
    garbage = bytes(random.Random(3).randrange(256) for _ in range(5000)).decode("latin-1")
    for reader in (read_mat, read_sgf):
        with pytest.raises(RecordError) as error:
            reader(io.StringIO(garbage))
        assert "\n" not in str(error.value)


def test_oversized_input_refused_while_streaming() -> None:
    with pytest.raises(RecordError, match="too large"):
        read_mat(io.StringIO(" 5 point match\n" + "; a comment line\n" * 10_000), max_bytes=100_000)
    with pytest.raises(RecordError, match="longer than"):
        read_mat(io.StringIO("x" * 100_000))
    with pytest.raises(RecordError, match="too large"):
        read_sgf(io.StringIO("(" + ";" * 200_000 + ")"), max_bytes=100_000)


def test_fuzzed_files_fail_only_with_record_errors() -> None:
    """Random byte edits of real files: every outcome is a clean read or one readable error."""
    rng = random.Random(42)
    sources = [(read("sample_3pt_crawford.mat"), read_mat), (read("sample_3pt_crawford.stripped.sgf"), read_sgf)]
    alphabet = "0123456789/*:()[];abcxyz \n=>"
    for _ in range(60):
        text, reader = rng.choice(sources)
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            where = rng.randrange(len(chars))
            action = rng.random()
            if action < 0.4:
                chars[where] = rng.choice(alphabet)
            elif action < 0.7:
                del chars[where]
            else:
                chars.insert(where, rng.choice(alphabet))
        try:
            reader(io.StringIO("".join(chars)))
        except RulesError as error:
            assert str(error) and "\n" not in str(error)


def test_money_game_with_beaver_and_resignation_round_trips() -> None:
    from rules.plays import legal_results

    state = match.new_match("backgammon", 0, {"beavers": True})
    events: list[match.Event] = []

    def add(event: match.Event) -> None:
        nonlocal state
        state = match.apply(state, event)
        events.append(event)

    def play() -> None:
        assert state.turn is not None and state.dice is not None
        results = legal_results(state.position, state.dice)
        result = sorted(results, key=lambda p: p.id)[0]
        add(match.Play(state.turn, result, results[result].steps))

    add(match.OpeningRoll(3, 1))
    play()
    add(match.Double(1))
    add(match.Beaver(0))
    add(match.Roll(1, (6, 4)))
    play()
    add(match.Resign(0, 1))
    add(match.ResignAccepted(1))
    add(match.GameEnd(1, 4, "resign single"))
    assert state.score == (0, 4)

    imported = read_mat(io.StringIO(_write(write_mat, events)))
    assert " Beavers => 4" in _write(write_mat, events)
    assert imported.events == events
    assert read_sgf(io.StringIO(_write(write_sgf, events))).events == events


def _write(writer: object, events: list[match.Event]) -> str:
    from recording.journal import Header

    header = Header(match_length=0, options={"beavers": True}).normalised()
    out = io.StringIO()
    writer(out, header, events)  # type: ignore[operator]
    return out.getvalue()


def test_mat_with_windows_line_ends_and_byte_order_mark() -> None:
    text = "\ufeff" + read("sample_5pt.mat").replace("\n", "\r\n")
    state = read_mat(io.StringIO(text)).state
    assert state is not None and state.score == (0, 5)
