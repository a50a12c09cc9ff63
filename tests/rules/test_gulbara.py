"""Gul bara, RULES.md §4: one named test per rule."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rules.errors import IllegalPlay, InvalidOption
from rules.plays import apply_play, generate, iter_results
from rules.plays import judge as nardy_judge
from rules.plays import legal_results as plain_results
from rules.position import Position, starting_position
from rules.steps import Play
from rules.variants import find_variant, gulbara
from tests.rules.test_nardy import board, moved

START = starting_position("gulbara")
ROOT = Path(__file__).resolve().parents[2]


def gb(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    return board(mover, opponent, "gulbara")


def notations(results: dict[Position, Play]) -> set[str]:
    return {play.notation() for play in results.values()}


def test_gulbara_registry_and_options() -> None:
    for name in ("gulbara", "gul bara", "Gul-Bara", "crazy narde", "table nebun"):
        assert find_variant(name).name == "gulbara"
    variant = find_variant("gulbara")
    assert variant.validate_options({})["cascade_unplayed"] == "opponent"
    assert variant.validate_options({"cascade_unplayed": "lost"})["cascade_unplayed"] == "lost"
    with pytest.raises(InvalidOption, match="opponent or lost"):
        variant.validate_options({"cascade_unplayed": "roller"})
    assert repr(START).startswith("gulbara:") and Position.from_id(repr(START)) == START


def test_gulbara_home_moves_option() -> None:
    variant = find_variant("gulbara")
    assert variant.validate_options({})["home_moves"] == "forbidden"
    assert variant.validate_options({"home_moves": "allowed"})["home_moves"] == "allowed"
    with pytest.raises(InvalidOption, match="home_moves takes forbidden or allowed"):
        variant.validate_options({"home_moves": "sometimes"})


def test_gulbara_no_moves_inside_the_home() -> None:
    """§4.3: a checker in its home only bears off; 6/5 6/4 is refused (``home_moves = allowed``
    gives it back)."""
    position = gb({20: 13, 6: 2}, {24: 15})
    inside = moved(position, (6, 5), (6, 4))
    assert not any("6/" in n for n in notations(gulbara.legal_results(position, "21", roll_number=1)))
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, inside, "21", roll_number=1)
    assert error.value.reason == "a checker in its home may only bear off (no moves inside the home)"
    allowed = {"home_moves": "allowed"}
    assert gulbara.judge(position, inside, "21", roll_number=1, options=allowed).dice_used == 2
    assert "6/5 6/4" in notations(gulbara.legal_results(position, "21", roll_number=1, options=allowed))


def test_gulbara_all_home_only_bears_off_with_the_exact_number() -> None:
    """With every checker home the only plays are exact bear-offs: 2-1 takes off from 2 and 1."""
    position = gb({6: 2, 2: 1, 1: 1}, {24: 15})
    assert notations(plain_results(position, "21")) == {"2/off 1/off"}
    assert "6/4 2/1" in notations(plain_results(position, "21", options={"home_moves": "allowed"}))
    stuck = gb({6: 2, 5: 1}, {24: 15})  # 2-1: nothing bears off exactly, nothing may move inside
    assert notations(plain_results(stuck, "21")) == {"no play"}


def test_gulbara_no_moves_inside_the_home_in_a_cascade() -> None:
    """The cascade judge (5-5 late in the game: four 5s, then four 6s) refuses a home move too."""
    position = gb({20: 14, 6: 1}, {24: 15})
    after = moved(position, (6, 1), (20, 15), (20, 15), (20, 15))
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, after, "55", roll_number=10)
    assert error.value.reason == "a checker in its home may only bear off (no moves inside the home)"
    results = gulbara.legal_results(position, "55", roll_number=10)
    assert results and not any(result.mover[5] == 0 for result in results)  # the 6 never moves


def test_gulbara_no_head_rule() -> None:
    """Any number of checkers may leave the head (§4.1)."""
    assert notations(gulbara.legal_results(START, "65", roll_number=1)) == {"24/13", "24/19 24/18"}
    two_off = moved(START, (24, 19), (24, 18))
    assert gulbara.judge(START, two_off, "65", roll_number=1).dice_used == 2
    assert "24/23(4)" in notations(gulbara.legal_results(START, "11", roll_number=2))


def test_gulbara_no_prime_rule() -> None:
    """A six-point block with no opponent checker ahead of it is allowed (§4.1)."""
    position = gb({24: 9, 20: 1, 19: 1, 18: 1, 17: 1, 16: 2}, {24: 15})
    blocked = moved(position, (24, 19), (16, 15))
    assert gulbara.judge(position, blocked, "51").dice_used == 2
    nardy = board({24: 9, 20: 1, 19: 1, 18: 1, 17: 1, 16: 2}, {24: 15})
    with pytest.raises(IllegalPlay):
        nardy_judge(nardy, moved(nardy, (24, 19), (16, 15)), "51")


def test_gulbara_no_hitting() -> None:
    """As long nardy §3.2: one opponent checker holds a point."""
    position = gb({24: 14, 17: 1}, {24: 14, 2: 1})  # their 2 is our 14
    assert not any(result.mover[13] for result in gulbara.legal_results(position, "31"))
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, moved(position, (17, 14), (24, 23)), "31")
    assert error.value.reason == "point 14 is held by the opponent"


def test_gulbara_cascade_steps() -> None:
    assert gulbara.roll_steps("44", 4) == (4,) * 4 + (5,) * 4 + (6,) * 4
    assert gulbara.roll_steps("11", None) == tuple(v for v in range(1, 7) for _ in range(4))
    assert gulbara.roll_steps("66", 9) == (6, 6, 6, 6)  # nothing above six
    assert gulbara.roll_steps("53", 9) == (5, 3)


def test_gulbara_first_three_rolls_do_not_cascade() -> None:
    for number in (1, 2, 3):
        assert not gulbara.cascades("44", number)
        assert gulbara.roll_steps("44", number) == (4, 4, 4, 4)
        results = gulbara.legal_results(START, "44", roll_number=number)
        assert {play.dice_used for play in results.values()} == {4}
        assert results == plain_results(START, "44")
    assert gulbara.cascades("44", 4) and gulbara.cascades("44", None)
    assert not gulbara.cascades("43", 10)


def test_gulbara_cascade_from_4_4() -> None:
    """After the first three rolls, 4-4 is four 4s, four 5s and four 6s."""
    results = gulbara.legal_results(START, "44", roll_number=4)
    assert {play.dice_used for play in results.values()} == {12}
    # Four checkers 24/20, the same four 20/15, then 15/9.
    four_times = gb({24: 11, 9: 4}, {24: 15})
    assert four_times in results
    play = gulbara.judge(START, four_times, "44", roll_number=4)
    assert [step.die for step in play.steps] == [4] * 4 + [5] * 4 + [6] * 4
    assert play.notation() == "24/9(4)"
    # One checker all the way is impossible: 24/20/16/12 meets the opponent's head on our 12.
    assert gulbara.handed_on("44", play, roll_number=4) == ()


def test_gulbara_cascade_must_be_played_as_far_as_possible() -> None:
    only_fours = moved(START, (24, 20), (24, 20), (24, 20), (24, 20))
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(START, only_fours, "44", roll_number=4)
    assert error.value.reason == "more of the roll could be played"
    assert only_fours in gulbara.legal_results(START, "44", roll_number=3)  # no cascade yet


def test_gulbara_cascade_in_order() -> None:
    """The 5s come after the 4s: a checker may not use a 5 before the fours are done."""
    position = gb({10: 1, 3: 14}, {24: 15})
    # 4s: 10/6, then 6/2, then 3/off is not exact... the order decides what is possible.
    results = gulbara.legal_results(position, "44", roll_number=8)
    for play in results.values():
        dice = [step.die for step in play.steps]
        assert dice == sorted(dice)
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, moved(position, (10, 5), (5, 1)), "44", roll_number=8)
    assert "in that order" in error.value.reason


def test_gulbara_cascade_blocked_midway_handed_to_the_opponent() -> None:
    """The roller bears off two checkers with 5s and is stuck (a 5 cannot bear off from 4); the
    opponent plays the remaining two 5s and four 6s from their own position."""
    roller = gb({5: 2, 4: 2}, {24: 15})
    results = gulbara.legal_results(roller, "55", roll_number=20)
    assert notations(results) == {"5/off(2)"}
    (after_roller, play), = results.items()
    handed = gulbara.handed_on("55", play, roll_number=20)
    assert handed == (5, 5, 6, 6, 6, 6)
    opponent = after_roller.swapped()
    rest = gulbara.remainder_results(opponent, handed)
    assert {p.dice_used for p in rest.values()} == {6}
    chosen = moved(opponent, (24, 19), (24, 19), (24, 18), (24, 18), (24, 18), (24, 18))
    assert chosen in rest
    done = gulbara.judge_remainder(opponent, chosen, handed)
    assert [step.die for step in done.steps] == [5, 5, 6, 6, 6, 6]
    # The opponent must start with the 5s: four 6s first is not the remainder.
    sixes_first = moved(opponent, (24, 18), (24, 18), (24, 18), (24, 18), (24, 13))
    with pytest.raises(IllegalPlay):
        gulbara.judge_remainder(opponent, sixes_first, handed)


def test_gulbara_cascade_unplayed_lost() -> None:
    roller = gb({5: 2, 4: 2}, {24: 15})
    (_, play), = gulbara.legal_results(roller, "55", roll_number=20).items()
    assert gulbara.handed_on("55", play, roll_number=20, options={"cascade_unplayed": "lost"}) == ()
    assert gulbara.handed_on("55", play, roll_number=2) == ()  # a plain double hands nothing on


def test_gulbara_remainder_the_opponent_cannot_finish_is_lost() -> None:
    position = gb({5: 1, 2: 1}, {24: 15})  # the opponent of a stuck roller, seen from them
    rest = gulbara.remainder_results(position, (5, 5, 6, 6, 6, 6))
    assert notations(rest) == {"5/off"}
    assert {p.dice_used for p in rest.values()} == {1}


def test_gulbara_roller_who_cannot_move_hands_on_the_whole_cascade() -> None:
    roller = gb({4: 2}, {24: 15})
    results = gulbara.legal_results(roller, "55", roll_number=7)
    assert list(results) == [roller] and results[roller].dice_used == 0
    assert gulbara.handed_on("55", results[roller], roll_number=7) == (5, 5, 5, 5, 6, 6, 6, 6)
    assert gulbara.judge(roller, roller, "55", roll_number=7).dice_used == 0


def test_gulbara_bear_off_only_with_the_exact_number() -> None:
    """§4.3: no bearing off from a lower point with a larger die (long nardy allows it)."""
    position = gb({4: 2, 2: 1}, {24: 15})
    results = gulbara.legal_results(position, "65")
    assert list(results) == [position] and results[position].dice_used == 0
    nardy = board({4: 2, 2: 1}, {24: 15})
    assert {p.notation() for p in plain_results(nardy, "65").values()} == {"4/off(2)"}
    mixed = gb({4: 1, 3: 1}, {24: 15})
    assert notations(gulbara.legal_results(mixed, "63")) == {"3/off"}  # 4/1 would move inside the home
    assert notations(gulbara.legal_results(mixed, "63", options={"home_moves": "allowed"})) == {"3/off", "4/1"}
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(mixed, moved(mixed, (4, 0), (3, 0)), "63")
    assert error.value.reason == "bearing off needs the exact number"


def test_gulbara_exact_bear_off_in_a_cascade() -> None:
    position = gb({6: 2, 5: 2}, {24: 15})
    # 5-5 cascade: 5/off(2); 6/1 would move inside the home (§4.3), so the roller stops after two.
    results = gulbara.legal_results(position, "55", roll_number=12)
    assert notations(results) == {"5/off(2)"}
    (_, play), = results.items()
    assert gulbara.handed_on("55", play, roll_number=12) == (5, 5, 6, 6, 6, 6)
    # With home moves allowed: then 6/1(2) with the 5s, then the 6s: 1 is not 6: stuck after four.
    allowed = {"home_moves": "allowed"}
    results = gulbara.legal_results(position, "55", roll_number=12, options=allowed)
    assert notations(results) == {"6/1(2) 5/off(2)"}
    (_, play), = results.items()
    assert gulbara.handed_on("55", play, roll_number=12, options=allowed) == (6, 6, 6, 6)


def test_gulbara_judge_checks_the_opponent_is_untouched() -> None:
    after = Position(START.mover, moved(START.swapped(), (24, 23)).mover, "gulbara")
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(START, after, "44", roll_number=5)
    assert error.value.reason == "checkers changed that this roll cannot move"


def test_gulbara_cascade_judge_reasons() -> None:
    position = gb({24: 14, 17: 1}, {24: 14, 2: 1})  # their 2 is our 14
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, moved(position, (24, 20), (24, 20), (20, 14)), "33", roll_number=9)
    assert error.value.reason == "point 14 is held by the opponent"
    with pytest.raises(IllegalPlay) as error:
        gulbara.judge(position, moved(position, (24, 23)), "33", roll_number=9)
    assert error.value.reason == (
        "the moves do not match the roll (four 3s, four 4s, four 5s, four 6s, in that order)"
    )


# --- a cascade listed in bounded memory (a 1-1 cascade has about three million results) -----------

def _positions_in_play(seed: int, count: int) -> list[Position]:
    """Positions of a seeded game of plain rolls (each seen from the side to move)."""
    rng = random.Random(seed)
    position, found = START, [START]
    while len(found) < count:
        dice = f"{rng.randint(1, 6)}{rng.randint(1, 6)}"
        results = sorted(plain_results(position, dice), key=lambda p: p.id)
        position = rng.choice(results).swapped() if results else position.swapped()
        if sum(position.mover[:24]) < 15 or sum(position.opponent[:24]) < 15:
            break  # bearing off has begun: enough
        found.append(position)
    return found


@pytest.mark.parametrize("dice", ["33", "44", "55"])
def test_cascade_listing_finds_what_the_full_search_finds_each_once(dice: str) -> None:
    rng = random.Random(23014)
    positions = [START] if dice == "33" else _positions_in_play(seed=int(dice), count=9)[::4]  # 3-3: 42 271
    for position in positions:
        listed = list(iter_results(position, dice, roll_number=4))
        results = [result for result, _ in listed]
        assert len(results) == len(set(results)), "a result listed twice"
        assert set(results) == set(generate(position, gulbara.roll_steps(dice, 4), ordered=True))
        for result, play in rng.sample(listed, min(25, len(listed))):
            assert apply_play(position, play) == result  # the play shown leads to the result shown
            assert gulbara.judge(position, result, dice, roll_number=4).dice_used == len(play.steps)


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the peak memory")
def test_referee_plays_lists_a_1_1_cascade_as_it_goes_in_bounded_memory() -> None:
    """`referee plays` on the 1-1 cascade from the start (3.4 million results): lines come out
    while the search goes on, and the process never holds more than 500 MB (a Pi has 2-8 GB)."""
    command = [sys.executable, "-m", "controller.cli", "plays", "--variant", "gulbara", "--position", START.id,
               "--dice", "11", "--roll-number", "4"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(
        process.stdout.readline().decode() for _ in range(2000)), daemon=True)  # type: ignore[union-attr]
    reader.start()
    peak = 0
    try:
        for _ in range(1200):  # at most two minutes: a search that holds everything first never answers
            peak = max(peak, _peak_kb(process.pid))
            assert peak < 500_000, f"{peak // 1000} MB before the first 2000 plays came out"
            reader.join(timeout=0.1)
            if not reader.is_alive():
                break
        assert not reader.is_alive(), "no 2000 plays within two minutes"
        peak = max(peak, _peak_kb(process.pid))
        assert process.poll() is None, "the listing had ended: not the 1-1 cascade"
    finally:
        process.kill()
        process.wait()
    assert peak < 500_000
    assert len(lines) == 2000
    results = [Position.from_id(line.rstrip("\n").partition("\t")[2]) for line in lines]
    assert len(set(results)) == len(results), "a result listed twice"
    for after in random.Random(11).sample(results, 30):  # the judge agrees the whole cascade was played
        assert gulbara.judge(START, after, "11", roll_number=4).dice_used == 24
