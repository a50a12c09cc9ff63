"""Checker counting in the cases that fooled earlier versions, each on a seeded rendered scene:
a checker the colour of the point under it, a point in shadow, a die on a checker, a die on a
bare point at the board edge, and checkers on the bar in a darker light than the points."""

from __future__ import annotations

import numpy as np
import pytest

from rules.position import starting_position
from tests.vision.recordings import replay
from vision.calibration import Calibration, calibrate
from vision.pipeline import Reader
from vision.render import (
    CHECKER_FRACTION,
    IMAGE_SIZE,
    BoardSetup,
    DieSpec,
    Scene,
    checker_centres,
    physical_counts,
    random_scene,
    random_setup,
    render,
)


def _setup(style: str, seed: int) -> BoardSetup:
    return random_setup(np.random.default_rng(seed), style)


def _calibrated(setup: BoardSetup) -> Calibration:
    empty, _ = render(setup, Scene(points=[(0, 0)] * 24, seed=1))
    pts, bar = physical_counts(starting_position("backgammon"))
    start, _ = render(setup, Scene(points=pts, bar=bar, seed=2))
    return calibrate(setup.corners, IMAGE_SIZE, empty=empty, start=start, variant="backgammon")


def _read(setup: BoardSetup, calib: Calibration, scene: Scene) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    image, label = render(setup, scene)
    observation = Reader(calib).read(image)
    assert observation.points is not None, observation.reason
    return observation.points, observation.bar


@pytest.fixture(scope="module")
def wooden() -> tuple[BoardSetup, Calibration]:
    setup = _setup("wooden", 7)
    return setup, _calibrated(setup)


@pytest.fixture(scope="module")
def tournament() -> tuple[BoardSetup, Calibration]:
    setup = _setup("tournament", 11)
    return setup, _calibrated(setup)


def test_dark_checkers_on_dark_points_are_counted(wooden: tuple[BoardSetup, Calibration]) -> None:
    # Wooden points alternate light and dark: single dark checkers and short dark stacks on
    # every point of one half, so half of them stand on a point of nearly their own colour.
    setup, calib = wooden
    points = [(0, 0)] * 24
    for p, n in zip(range(1, 13), (1, 1, 2, 1, 3, 1, 1, 2, 1, 4, 1, 1), strict=True):
        points[p - 1] = (0, n)
    for seed in (31, 32, 33):
        read, _ = _read(setup, calib, Scene(points=points, seed=seed))
        assert read == points, seed


def test_shadow_over_the_points_adds_no_checkers(tournament: tuple[BoardSetup, Calibration]) -> None:
    setup, calib = tournament
    points = [(0, 0)] * 24
    points[5] = (0, 3)
    points[18] = (2, 0)
    # Shadows as strong and as large as a lamp's behind a player (deeper ones look like an arm).
    for seed, shadow in ((41, (0.2, 0.15, 0.3, 0.2, 0.25)), (42, (0.8, 0.85, 0.3, 0.2, 0.25)),
                         (43, (0.3, 0.85, 0.25, 0.15, 0.22))):
        read, _ = _read(setup, calib, Scene(points=points, shadow=shadow, seed=seed))
        assert read == points, seed


def _die_on(scene: Scene, aspect: float, point: int, index: int, value: int) -> DieSpec:
    """A die lying on the ``index``-th checker of ``point`` (counted from the board edge)."""
    colour_order = []
    for p in range(1, 25):
        n = sum(scene.points[p - 1])
        colour_order += [p] * n
    centres = checker_centres(scene, aspect)
    mine = [c for c, p in zip(centres, colour_order, strict=False) if p == point]
    u, v, _ = mine[index]
    return DieSpec(value=value, uv=(u, v), angle=20.0, on_checker=True)


@pytest.mark.parametrize("style,seed", [("wooden", 7), ("tournament", 11)])
def test_a_checker_under_a_die_still_counts(style: str, seed: int, wooden: tuple[BoardSetup, Calibration],
                                            tournament: tuple[BoardSetup, Calibration]) -> None:
    setup, calib = wooden if style == "wooden" else tournament
    points = [(0, 0)] * 24
    points[3] = (2, 0)  # P4: two light checkers, the die on the top one
    points[9] = (0, 1)  # P10: one dark checker under the die
    scene = Scene(points=points, seed=51, roll="void", void_reason="on_checker")
    aspect = setup.board.aspect
    scene.dice = [_die_on(scene, aspect, 4, 1, 3), _die_on(scene, aspect, 10, 0, 5)]
    read, _ = _read(setup, calib, scene)
    assert read[3] == (2, 0) and read[9] == (0, 1)


def test_a_die_on_a_bare_point_is_no_checker(tournament: tuple[BoardSetup, Calibration]) -> None:
    setup, calib = tournament
    aspect = setup.board.aspect
    d_v = CHECKER_FRACTION / aspect
    points = [(0, 0)] * 24
    points[0] = (2, 0)
    points[12] = (0, 2)
    for seed, (u, v) in ((61, (0.30, 1 - 0.9 * d_v)), (62, (0.62, 0.8 * d_v)), (63, (0.15, 1.6 * d_v))):
        scene = Scene(points=points, seed=seed, roll="valid",
                      dice=[DieSpec(4, (u, v), 15.0), DieSpec(2, (u + 0.05, v), 40.0)])
        read, _ = _read(setup, calib, scene)
        assert read == points, seed


def test_bar_checkers_in_a_darker_light(wooden: tuple[BoardSetup, Calibration]) -> None:
    setup, calib = wooden
    points = [(0, 0)] * 24
    points[0] = (0, 2)
    for seed, bar in ((71, (3, 0)), (72, (1, 2)), (73, (0, 1))):
        _, read_bar = _read(setup, calib, Scene(points=points, bar=bar, gain=0.85, seed=seed))
        assert read_bar == bar, seed



def test_bar_stacks_end_where_their_checkers_end() -> None:
    # Bar checkers on a black tournament bar in random scenes (lighting, glare, dice, checkers on
    # the points): the occupancy profile overshoots a stack's ends (glare beside the bar, the
    # stack's shadow), so a run on the bar is cut back to the rows that do not look like the empty
    # bar before its checkers are counted and coloured (the overshoot read as a dark checker).
    setup = random_setup(np.random.default_rng(9704), "tournament")
    calib = _calibrated(setup)
    reader = Reader(calib)
    misread = []
    for seed in range(100, 130):
        scene = random_scene(setup, np.random.default_rng(seed), occluded_rate=0.0)
        if scene.bar == (0, 0):
            scene.bar = (3, 0)
        image, _ = render(setup, scene)
        observation = reader.read(image)
        if not observation.refused and observation.bar != scene.bar:
            misread.append((seed, scene.bar, observation.bar))
    assert len(misread) <= 1, misread  # one scene has strong glare on the bar itself



@pytest.mark.parametrize("recording", [9895, 9883])
def test_dark_checkers_showing_only_their_rim_are_counted(recording: int) -> None:
    # The seeded recordings 9895 and 9883 (`referee render --seed N`, wooden boards): dark
    # brown checkers on the dark point by the right-hand rail, told from it only by their round
    # rims and highlights, so the occupancy shows a narrow or short stretch on the axis that
    # starts half a checker from the edge; the first checker's rim on the edge shows it is there
    # (`base_rim`), and each next checker's rim one diameter on that the stack goes on
    # (`next_rim`).  Replays the recording's scenes and reads every clear frame with dark
    # checkers on P24 (before: 6 of 27 and 25 of 38 of them read as none or too few).
    setup, calibration, scenes = replay(recording)
    reader = Reader(calibration)
    dark_on_24 = [s for s in scenes if s.hand is None and s.points[23][0] == 0 and s.points[23][1] > 0]
    assert len(dark_on_24) >= 20
    misses = []
    for scene in dark_on_24:
        image, _ = render(setup, scene)
        read = reader.read(image).points
        assert read is not None
        if read[23] != scene.points[23]:
            misses.append((scene.seed, scene.points[23], read[23]))
    # (still missed: one overlapping stack of nine in 9883, whose first checker's rim is half
    # hidden by the second and half past the board edge)
    assert len(misses) <= (1 if recording == 9883 else 0), misses


def test_tight_stacks_are_counted_by_their_rim_spacing_not_its_double() -> None:
    # The seeded recording 9871 (felt board, black checkers): in a stack of 10-15 the rims lie
    # ~0.4 checker apart and every other one is the stronger, so the rim profile repeats best at
    # twice the spacing; a clear peak at half of it is the spacing (`comb_half_ratio`).  Earlier
    # three stacks of 11 read as 6.  Replays the recording's scenes with a stack of ten or more.
    setup, calibration, scenes = replay(9871)
    reader = Reader(calibration)
    tall = [s for s in scenes if s.hand is None and any(max(p) >= 10 for p in s.points)]
    assert len(tall) >= 30
    stacks = exact = 0
    far_off = []
    for scene in tall:
        image, _ = render(setup, scene)
        read = reader.read(image).points
        assert read is not None
        for p, (truth, got) in enumerate(zip(scene.points, read, strict=True), start=1):
            if max(truth) >= 10:
                stacks += 1
                exact += tuple(got) == tuple(truth)
                if abs(sum(got) - sum(truth)) > 1:
                    far_off.append((scene.seed, p, truth, got))
    assert not far_off, far_off
    assert exact >= 0.85 * stacks, (exact, stacks)


@pytest.mark.parametrize(("recording", "frame", "point"), [
    (9962, 8, 10), (9962, 1, 8), (9962, 27, 8), (9962, 54, 6), (9962, 92, 10), (9883, 90, 20), (9883, 107, 20),
])
def test_a_checker_resting_just_off_the_board_edge_is_found_by_its_rim(recording: int, frame: int, point: int) -> None:
    # Wooden boards with brown checkers: a single dark checker on a dark point sits a hair
    # (~0.05 diameter) off the board edge, so the circle looked at for its rim is moved that
    # little along the axis too (`base_rim_gaps`); resting exactly on the edge, its rim showed
    # along only 17-35% of the circle, off it along 41-53%.  Frame `frame` of the seeded
    # recording (`referee render --dataset DIR --frames 200 --seed N`); before, the point read 0.
    setup, calibration, scenes = replay(recording, frame)
    reader = Reader(calibration)
    scene = scenes[frame - 1]
    assert scene.hand is None and scene.points[point - 1][0] == 0 and scene.points[point - 1][1] >= 1
    read = reader.read(render(setup, scene)[0]).points
    assert read is not None
    assert tuple(read[point - 1]) == tuple(scene.points[point - 1])
