"""The learned checker counter (vision/models/checker_count.onnx through cv2.dnn): it loads, it
counts the checkers of frames it was not trained on, and it needs no photo of the empty board."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.nets as nets
from vision.calibration import ColourModel, calibrate
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.learned import (
    AMBIGUOUS_DISTANCE,
    BAR_MODEL_PATH,
    BY_COLOUR_SURE,
    EMPTY_DISTANCE,
    HUE_APART,
    HUE_TURNED,
    MIRROR_BELOW,
    MODEL_PATH,
    REFIT_ODDS,
    SHADED_EMPTY,
    TOTALS_SURE,
    UNSTEADY,
    CheckerCounter,
    StartColours,
    beside_empty,
    count_points,
    differ_in_hue,
    empty_board,
    match_colour,
    other_side_by_hue,
    refit_odds,
    share_within,
    stack_hues,
    standardise,
    start_colours,
    within_checkers,
)
from vision.observation import QUESTION_CONFIDENCE, CheckerTotals
from vision.pipeline import Reader, _unsteady_doubt
from vision.strips import BAR_STRIPS, STRIP_SIZE, board_strips, point_strips

CARD = MODEL_PATH.with_suffix(".md")


def test_the_model_is_small_and_has_a_card() -> None:
    assert MODEL_PATH.is_file() and MODEL_PATH.stat().st_size < 2_000_000
    card = CARD.read_text()
    assert "seed" in card and "make train" in card


def test_probabilities_of_every_count_for_each_strip() -> None:
    rng = np.random.default_rng(5)
    strips = rng.integers(0, 255, (3, STRIP_SIZE[1], STRIP_SIZE[0], 3), dtype=np.uint8)
    for references in (None, rng.integers(0, 255, strips.shape, dtype=np.uint8)):
        counts, colours = CheckerCounter().probabilities(strips, references)
        assert counts.shape == (3, 16) and colours.shape == (3, 2)
        assert np.allclose(counts.sum(axis=1), 1.0) and np.allclose(colours.sum(axis=1), 1.0)


def _counter_says(empty: float, one: float) -> np.ndarray:
    p = np.full(16, (1.0 - empty - one) / 14)
    p[0], p[1] = empty, one
    return p


def test_strips_that_look_like_the_empty_board_read_empty_and_sure_enough() -> None:
    """A strip that looks as the empty board did is empty, sure enough for the referee to judge
    (above its question threshold) even when the counter alone hesitates; a strip a moved lamp
    shaded, still close to the empty board and with the counter itself unsure, is empty too; a
    single checker the counter is sure of, or anything far from the empty board, stays counted."""
    counter = np.stack([_counter_says(0.2, 0.7),   # near the empty board: empty
                        _counter_says(0.3, 0.6),   # shaded: empty
                        _counter_says(0.01, 0.95),  # one checker, close to the empty look
                        _counter_says(0.3, 0.6)])  # far from the empty board: counted
    distance = np.array([0.9 * EMPTY_DISTANCE, (EMPTY_DISTANCE + AMBIGUOUS_DISTANCE) / 2,
                         (EMPTY_DISTANCE + AMBIGUOUS_DISTANCE) / 2, 2 * AMBIGUOUS_DISTANCE])
    judged = beside_empty(counter, distance)
    assert list(judged.argmax(axis=1)) == [0, 0, 1, 1]
    assert judged[0, 0] >= QUESTION_CONFIDENCE
    # the shaded strip as sure as such readings were right on the tuning sets, not the counter's
    # own split (which chose the other reading and would put every such board in doubt)
    assert judged[1, 0] == SHADED_EMPTY >= QUESTION_CONFIDENCE
    # what neither is sure of is left to the counts the counter saw there, as it shared them (a
    # lone checker judged away can be read again to fit the game's totals)
    for row in (0, 1):
        assert judged[row].sum() == pytest.approx(1.0)
        assert np.allclose(judged[row, 1:] / judged[row, 1:].sum(), counter[row, 1:] / counter[row, 1:].sum())
    assert np.array_equal(judged[2:], counter[2:])


def test_a_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="missing"):
        CheckerCounter(tmp_path / "none.onnx")


def test_strips_put_every_point_base_at_the_bottom(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    geometry = calibration_for(dataset).geometry
    strips = point_strips(dataset.image(dataset.frames[0]), geometry)
    assert strips.shape == (24, STRIP_SIZE[1], STRIP_SIZE[0], 3)


def _clear_frames(root: Path, limit: int) -> list[str]:
    meta = json.loads((root / "dataset.json").read_text())
    names = [n for n in meta["frames"] if not json.loads((root / n).with_suffix(".json").read_text())["occluded"]]
    return names[:limit]


@pytest.mark.parametrize("fixture", ["small_dataset", "wooden_dataset"])
def test_learned_counts_read_frames_it_never_saw(fixture: str, request: pytest.FixtureRequest) -> None:
    root: Path = request.getfixturevalue(fixture)
    dataset = load_dataset(root)
    calib = calibration_for(dataset)
    names = _clear_frames(root, 10)
    right = total = 0
    for name in names:
        label = dataset.label(name)
        read = count_points(dataset.image(name), calib.geometry)
        truth = [tuple(p) for p in label["points"]]
        right += sum(tuple(a) == b for a, b in zip(read.pairs, truth, strict=True))
        total += 24
    assert right / total >= 0.97


def test_the_learned_reader_needs_no_empty_board(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    name = _clear_frames(small_dataset, 1)[0]
    image, label = dataset.image(name), dataset.label(name)
    calib = calibrate(dataset.corners, (image.shape[1], image.shape[0]), play=image)
    obs = Reader(calib, VisionConfig(checker_reader="learned")).read(image, hand=False)
    assert obs.points is not None
    occupied = [i for i, p in enumerate(label["points"]) if sum(p)]
    found = [i for i in occupied if sum(obs.points[i]) == sum(label["points"][i])]
    assert len(found) >= 0.8 * len(occupied)


def test_the_empty_board_photo_reads_as_empty_and_keeps_the_stacks(small_dataset: Path) -> None:
    """With the calibration's empty board, the empty photo itself reads empty with near certainty,
    and the stacks of frames in play are still counted."""
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    empty_photo, _ = dataset.reference("empty")
    assert empty_photo is not None
    empty = empty_board(empty_photo, calib.geometry)
    read = count_points(empty_photo, calib.geometry, empty=empty)
    assert read.counts == [0] * 24 and read.bar == (0, 0)
    assert min(read.probabilities) > 0.9
    right = total = 0
    for name in _clear_frames(small_dataset, 6):
        label = dataset.label(name)
        got = count_points(dataset.image(name), calib.geometry, empty=empty)
        right += sum(tuple(a) == tuple(b) for a, b in zip(got.pairs, label["points"], strict=True) if sum(b))
        total += sum(1 for b in label["points"] if sum(b))
    assert right / total >= 0.95


#: a warmer lamp than at calibration: blue down by a third, green by a seventh (no channel clips)
WARM_LAMP = np.array([0.66, 0.86, 1.0], np.float32)  # OpenCV's order: blue, green, red


def _under(image: np.ndarray, lamp: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(image.astype(np.float32) * lamp), 0, 255).astype(np.uint8)


def test_strips_are_brought_to_the_empty_boards_colours() -> None:
    """A frame under a lamp of another colour, a third of it covered by checkers, is brought back
    to the empty board's colours: its bare board matches the empty board's within a level or two."""
    rng = np.random.default_rng(11)
    board = rng.integers(40, 200, (26, STRIP_SIZE[1], 1, 3)).astype(np.float32) * np.ones((1, 1, STRIP_SIZE[0], 1))
    board += rng.normal(0, 6, board.shape)
    empty = np.clip(board, 0, 255).astype(np.uint8)
    frame = empty.copy()
    frame[:, :36] = rng.integers(0, 255, 3)  # checkers of one colour on a third of every strip
    tinted = np.clip(np.rint(frame.astype(np.float32) * np.array([0.7, 0.9, 1.2], np.float32)), 0, 255).astype(np.uint8)
    matched = match_colour(tinted, empty)
    assert matched.dtype == np.float32
    assert np.abs(matched[:, 36:] - empty[:, 36:].astype(np.float32)).mean() < 2.0
    assert np.abs(tinted[:, 36:].astype(np.float32) - empty[:, 36:]).mean() > 10.0


def test_a_lamp_of_another_colour_reads_as_under_the_calibration_light(small_dataset: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With the empty-board photo, a frame under a warmer lamp than at calibration reads as it
    does under the calibration's light: the same counts, and every point's probability and the
    bar's within 0.01 of it, read by the float counter: the 8-bit copy's rounding moves them by up
    to 0.016 (on 12 frames), near the 0.02 they move without the colours brought to the empty
    board's, which it would hide (the float counter: 0.003 with, 0.02 without).  By the copy, the
    same counts."""
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    assert calib.reference_frame is not None
    # the float counter, then the 8-bit copy the reader runs (the probabilities within its rounding)
    for quantised, within in ((False, 0.01), (True, 0.03)):
        monkeypatch.setattr(nets, "QUANTISED", quantised)
        empty = empty_board(calib.reference_frame, calib.geometry)
        for name in _clear_frames(small_dataset, 4):
            image = dataset.image(name)
            plain, warm = (count_points(frame, calib.geometry, empty=empty)
                           for frame in (image, _under(image, WARM_LAMP)))
            assert warm.counts == plain.counts and warm.bar_halves == plain.bar_halves
            assert np.allclose(warm.probabilities, plain.probabilities, atol=within)
            if not quantised:
                assert abs(warm.bar_probability - plain.bar_probability) < 0.01


@pytest.mark.slow
def test_the_empty_board_photo_stops_a_marble_board_being_read_as_stacks(marble_dataset: Path) -> None:
    """A held-out ray-traced design (white marble with dark veins and black points, never in
    training) at a seed of its own, lamp moved after calibration: without the empty-board photo
    the counter takes most empty points for stacks; with it, few."""
    root = marble_dataset
    dataset = load_dataset(root)
    calib = calibration_for(dataset)
    assert calib.background_source == "empty" and calib.reference_frame is not None
    empty = empty_board(calib.reference_frame, calib.geometry)
    misread = {"without": 0, "with": 0}
    empties = 0
    for name in _clear_frames(root, 5):
        label = dataset.label(name)
        image = dataset.image(name)
        without, with_empty = count_points(image, calib.geometry), count_points(image, calib.geometry, empty=empty)
        for i, pair in enumerate(label["points"]):
            if sum(pair) == 0:
                empties += 1
                misread["without"] += without.counts[i] > 0
                misread["with"] += with_empty.counts[i] > 0
    assert empties >= 40
    assert misread["with"] <= 0.2 * empties
    assert misread["with"] <= 0.5 * misread["without"]


def test_the_learned_reader_gives_the_dice_stage_a_mask_of_its_own_checkers(small_dataset: Path) -> None:
    """With the learned counter the classical checker stages are not run; the dice stage's checker
    mask is drawn from the learned counts: on every stack's base, nowhere on an empty point."""
    from vision.checkers import checker_mask

    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    name = _clear_frames(small_dataset, 1)[0]
    image, label = dataset.image(name), dataset.label(name)
    obs = Reader(calib, VisionConfig(checker_reader="learned")).read(image, hand=False)
    assert "checkers" not in obs.timings and "occupancy" not in obs.timings
    counts = count_points(image, calib.geometry)
    size = calib.geometry.canonical_size(calib.canonical_width)
    mask = checker_mask(calib, counts.reading(size, calib.geometry.checker_u), (size[1], size[0]), image.shape[:2])
    geo = calib.geometry
    for p, pair in enumerate(label["points"], start=1):
        if sum(pair) != counts.counts[p - 1]:
            continue  # a point read wrong says nothing about the mask
        u = sum(geo.point_u(p)) / 2
        half = 0.5 * geo.checker_u / geo.aspect  # half a checker, in board heights
        v = half if geo.point_is_top(p) else 1 - half
        x, y = (int(round(c)) for c in geo.to_image([[u, v]])[0])
        assert bool(mask[y, x]) == (sum(pair) > 0), f"P{p}"


def test_a_strip_the_counter_is_unsure_of_is_read_mirrored_too(small_dataset: Path) -> None:
    """Without an empty-board photo (where most strips are unsure), a strip read below
    `MIRROR_BELOW` is read mirrored too and the two readings averaged; a strip read surely keeps
    its reading."""
    dataset = load_dataset(small_dataset)
    geometry = calibration_for(dataset).geometry
    counter = CheckerCounter()
    unsure_seen = sure_seen = 0
    for name in _clear_frames(small_dataset, 3):
        image = dataset.image(name)
        strips = standardise(board_strips(image, geometry))
        zeros = np.zeros_like(strips)
        upright, upright_colour, _ = counter.read_standardised(strips, zeros)
        mirrored, mirrored_colour, _ = counter.read_standardised(np.ascontiguousarray(strips[..., ::-1]), zeros)
        read = count_points(image, geometry)
        for i in range(24):
            said, colour = upright[i], upright_colour[i]
            if said.max() < MIRROR_BELOW:
                unsure_seen += 1
                said, colour = (said + mirrored[i]) / 2, (colour + mirrored_colour[i]) / 2
            else:
                sure_seen += 1
            count = int(said.argmax())
            assert read.counts[i] == count, (name, i)
            assert read.probabilities[i] == pytest.approx(said[count] * (colour.max() if count else 1.0), abs=1e-4)
    assert unsure_seen and sure_seen


def _strips(readings: list[tuple[int, int, float, float]], size: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Counter outputs for strips given as (count, colour, probability of that count, of that
    colour), the rest of each strip's probability spread over the other counts."""
    count_p = np.zeros((len(readings), size))
    colour_p = np.zeros((len(readings), 2))
    for i, (n, c, pn, pc) in enumerate(readings):
        count_p[i] = (1 - pn) / (size - 1)
        count_p[i, n] = pn
        colour_p[i, c], colour_p[i, 1 - c] = pc, 1 - pc
    return count_p, colour_p


def test_a_reading_within_15_a_side_is_each_strips_likeliest() -> None:
    count_p, colour_p = _strips([(5, 0, 0.9, 0.99), (5, 1, 0.6, 0.7), (0, 0, 0.8, 0.5), (10, 0, 0.5, 0.9)])
    counts, colours = within_checkers(count_p, colour_p)
    assert list(counts) == [5, 5, 0, 10] and list(colours[[0, 1, 3]]) == [0, 1, 0]


def test_a_stack_read_in_the_wrong_colour_is_read_again_within_15() -> None:
    """Dark stacks of 11, 4 and 5 (20 dark seen): the stack whose colour was least sure changes
    side, not a count."""
    count_p, colour_p = _strips([(11, 1, 0.95, 0.99), (4, 1, 0.95, 0.97), (5, 1, 0.95, 0.6), (2, 0, 0.9, 0.99)])
    counts, colours = within_checkers(count_p, colour_p)
    assert list(counts) == [11, 4, 5, 2] and list(colours) == [1, 1, 0, 0]


def test_an_overcounted_stack_is_read_again_within_15() -> None:
    """Light 9 + 5 + 3 = 17: the stack whose count was least sure loses two, to its next likeliest."""
    count_p, colour_p = _strips([(9, 0, 0.95, 0.99), (5, 0, 0.5, 0.99), (3, 0, 0.95, 0.99)])
    count_p[1, 3] = 0.4
    count_p[1] /= count_p[1].sum()
    counts, colours = within_checkers(count_p, colour_p)
    assert list(counts) == [9, 3, 3] and list(colours) == [0, 0, 0]


def test_the_reading_within_the_limit_is_the_likeliest_of_all() -> None:
    """Against every reading of four strips of counts 0-3 with at most 3 a side: the chosen one is
    the likeliest that keeps both sides within it, a colour weighed against the likelier colour
    (random counter outputs, seeded)."""
    import itertools

    rng = np.random.default_rng(7)
    changed = 0
    for _ in range(200):
        count_p = rng.dirichlet(np.full(4, 0.5), size=4)
        count_p[:, 2:] *= 3
        count_p /= count_p.sum(axis=1, keepdims=True)
        colour_p = rng.dirichlet((1.0, 1.0), size=4)
        counts, colours = within_checkers(count_p, colour_p, most=3)
        readings = [(n, c) for n in range(4) for c in ((0,) if n == 0 else (0, 1))]

        allowed = [choice for choice in itertools.product(readings, repeat=4)
                   if all(sum(n for n, c in choice if c == side and n) <= 3 for side in (0, 1))]
        def probability(choice: tuple[tuple[int, int], ...], count_p: np.ndarray = count_p,
                        colour_p: np.ndarray = colour_p) -> float:
            return float(np.prod([count_p[i, n] * (colour_p[i, c] / colour_p[i].max() if n else 1.0)
                                  for i, (n, c) in enumerate(choice)]))

        best = max(allowed, key=probability)
        got = tuple((int(n), int(c) if n else 0) for n, c in zip(counts, colours, strict=True))
        assert got in allowed
        assert probability(got) == pytest.approx(probability(best))
        changed += got != tuple((int(n), int(c) if n else 0) for n, c in
                                zip(count_p.argmax(axis=1), colour_p.argmax(axis=1), strict=True))
    assert changed > 20  # the limit mattered in many of the cases


def test_a_lone_checker_read_empty_is_read_again_to_the_games_totals() -> None:
    """Light 15 on P1, dark 5 on P2 and a lone dark checker on P3 that the reading took for an
    empty point (0.9 empty, as a shaded one reads): told the game's totals (dark has 6 on the
    board), the board reads the checker; told only that dark may have borne off, it reads as
    before."""
    count_p, colour_p = _strips([(15, 0, 0.95, 0.99), (5, 1, 0.95, 0.99), (0, 1, 0.9, 0.9)])
    count_p[2] = 0.0
    count_p[2, 0], count_p[2, 1] = 0.9, 0.1
    counts, colours = within_checkers(count_p, colour_p)
    assert list(counts) == [15, 5, 0]
    counts, colours = within_checkers(count_p, colour_p, totals=CheckerTotals((15, 15), (6, 6)))
    assert list(counts) == [15, 5, 1] and list(colours) == [0, 1, 1]
    counts, _ = within_checkers(count_p, colour_p, totals=CheckerTotals.in_turn(15, 6, light_moves=False))
    assert list(counts) == [15, 5, 0]


def test_a_stack_read_in_the_wrong_colour_is_read_again_to_the_games_totals() -> None:
    """Light 7 and 3, dark 10, the light 3 read dark: 7 light and 13 dark is within 15 a side, but
    not what the game has (light, on roll, 6 to 10; dark 10): the least sure colour changes side."""
    count_p, colour_p = _strips([(7, 0, 0.95, 0.99), (3, 1, 0.95, 0.6), (10, 1, 0.95, 0.99)])
    assert list(within_checkers(count_p, colour_p)[1]) == [0, 1, 1]
    counts, colours = within_checkers(count_p, colour_p, totals=CheckerTotals.in_turn(10, 10, light_moves=True))
    assert list(counts) == [7, 3, 10] and list(colours) == [0, 0, 1]


def test_totals_no_reading_can_meet_are_a_clear_error() -> None:
    count_p, colour_p = _strips([(2, 0, 0.9, 0.9)])
    with pytest.raises(ValueError, match="totals"):
        within_checkers(count_p, colour_p, most=3, totals=CheckerTotals((5, 6), (0, 0)))
    # a range below none starts at none (not counted from the end)
    counts, _ = within_checkers(count_p, colour_p, most=3, totals=CheckerTotals((-3, 3), (0, 0)))
    assert list(counts) == [2]


def test_the_reading_within_the_games_totals_is_the_likeliest_of_all() -> None:
    """Against every reading of four strips of counts 0-3 (at most 3 a side): given random
    totals for each side, the chosen reading is the likeliest whose totals fall within them
    (random counter outputs and totals, seeded)."""
    import itertools

    rng = np.random.default_rng(11)
    readings = [(n, c) for n in range(4) for c in ((0,) if n == 0 else (0, 1))]
    changed = 0
    for _ in range(150):
        count_p = rng.dirichlet(np.full(4, 0.5), size=4)
        colour_p = rng.dirichlet((1.0, 1.0), size=4)
        light, dark = (sorted(int(v) for v in rng.integers(0, 4, 2)) for _ in range(2))
        totals = CheckerTotals((light[0], light[1]), (dark[0], dark[1]))
        counts, colours = within_checkers(count_p, colour_p, most=3, totals=totals)

        def sides(choice: tuple[tuple[int, int], ...]) -> tuple[int, int]:
            return sum(n for n, c in choice if c == 0), sum(n for n, c in choice if c == 1)

        allowed = [choice for choice in itertools.product(readings, repeat=4) if totals.allows(*sides(choice))]

        def probability(choice: tuple[tuple[int, int], ...], count_p: np.ndarray = count_p,
                        colour_p: np.ndarray = colour_p) -> float:
            return float(np.prod([count_p[i, n] * (colour_p[i, c] / colour_p[i].max() if n else 1.0)
                                  for i, (n, c) in enumerate(choice)]))

        got = tuple((int(n), int(c) if n else 0) for n, c in zip(counts, colours, strict=True))
        assert got in allowed
        assert probability(got) == pytest.approx(probability(max(allowed, key=probability)))
        changed += got != tuple((int(n), int(c) if n else 0) for n, c in
                                zip(count_p.argmax(axis=1), colour_p.argmax(axis=1), strict=True))
    assert changed > 50  # the totals mattered in many of the cases


def test_a_readings_share_within_the_games_totals_is_its_probability_among_all_they_allow() -> None:
    """Against every reading of four strips of counts 0-3 (at most 3 a side): `share_within` is the
    reading's probability (each count's times, when occupied, its colour's) over the sum of those
    of all readings whose totals the random totals allow (random counter outputs, seeded); a
    reading the counter and the totals agree on is sure, one of two equal ones half sure."""
    import itertools

    rng = np.random.default_rng(12)
    readings = [(n, c) for n in range(4) for c in ((0,) if n == 0 else (0, 1))]
    for _ in range(60):
        count_p = rng.dirichlet(np.full(4, 0.5), size=4)
        colour_p = rng.dirichlet((1.0, 1.0), size=4)
        light, dark = (sorted(int(v) for v in rng.integers(0, 4, 2)) for _ in range(2))
        totals = CheckerTotals((light[0], light[1]), (dark[0], dark[1]))

        def probability(choice: tuple[tuple[int, int], ...], count_p: np.ndarray = count_p,
                        colour_p: np.ndarray = colour_p) -> float:
            return float(np.prod([count_p[i, n] * (colour_p[i, c] if n else 1.0) for i, (n, c) in enumerate(choice)]))

        allowed = [choice for choice in itertools.product(readings, repeat=4)
                   if totals.allows(sum(n for n, c in choice if c == 0), sum(n for n, c in choice if c == 1))]
        counts, colours = within_checkers(count_p, colour_p, most=3, totals=totals)
        chosen = tuple((int(n), int(c) if n else 0) for n, c in zip(counts, colours, strict=True))
        share = share_within(count_p, colour_p, counts, colours, totals, most=3)
        assert share == pytest.approx(probability(chosen) / sum(map(probability, allowed)))
    # sure strips: the one reading they allow
    count_p, colour_p = _strips([(15, 0, 0.999, 0.999), (6, 1, 0.999, 0.999)])
    counts, colours = within_checkers(count_p, colour_p)
    assert share_within(count_p, colour_p, counts, colours, CheckerTotals((15, 15), (6, 6))) > 0.99
    # a dark checker missed, as likely on either of two empty points: half sure
    count_p, colour_p = _strips([(15, 0, 0.999, 0.999), (5, 1, 0.999, 0.999), (0, 1, 0.8, 0.999),
                                 (0, 1, 0.8, 0.999)])
    for i in (2, 3):
        count_p[i] = 0.0
        count_p[i, 0], count_p[i, 1] = 0.8, 0.2
    totals = CheckerTotals((15, 15), (6, 6))
    counts, colours = within_checkers(count_p, colour_p, totals=totals)
    assert share_within(count_p, colour_p, counts, colours, totals) == pytest.approx(0.5, abs=0.01)


def test_a_refits_odds_are_its_probability_against_the_reading_alone() -> None:
    """`refit_odds`: the refitted reading's probability (counts' times colours') over the reading
    without the totals; a lone checker the counter gave 0.4 against empty 0.6 refits at 2/3 odds,
    one it gave 0.02 at 1/49."""
    count_p, colour_p = _strips([(15, 0, 0.95, 0.99), (5, 1, 0.95, 0.99), (0, 1, 0.6, 0.9)])
    count_p[2] = 0.0
    count_p[2, 0], count_p[2, 1] = 0.6, 0.4
    alone = within_checkers(count_p, colour_p)
    refit = within_checkers(count_p, colour_p, totals=CheckerTotals((15, 15), (6, 6)))
    assert list(refit[0]) == [15, 5, 1]
    assert refit_odds(count_p, colour_p, refit, alone) == pytest.approx(0.4 * 0.9 / 0.6)
    count_p[2, 0], count_p[2, 1] = 0.98, 0.02
    assert refit_odds(count_p, colour_p, refit, within_checkers(count_p, colour_p)) == pytest.approx(0.02 * 0.9 / 0.98)
    assert refit_odds(count_p, colour_p, alone, alone) == pytest.approx(1.0)


def test_the_games_totals_make_a_reading_they_leave_no_doubt_about_that_sure(small_dataset: Path) -> None:
    """Read with each frame's true totals (the side on roll alternating): a reading the totals
    leave no doubt about (`PointCounts.totals_trusted`) is at least its share sure at every place
    and the bar; some frames are so.  Told the side not on roll (either) has a checker more than the
    board holds (of the frames read right alone), no reading is trusted: mostly the totals leave several
    places the checker could be, and where they leave one (a share of `TOTALS_SURE` or more) the
    counter finds it there unlikely (`REFIT_ODDS`)."""
    from vision.evaluate import game_totals

    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    empty_photo, _ = dataset.reference("empty")
    assert empty_photo is not None
    empty = empty_board(empty_photo, calib.geometry)
    trusted = odds_needed = told_more = 0
    for i, name in enumerate(_clear_frames(small_dataset, 24)):
        label = dataset.label(name)
        light_moves = i % 2 == 0
        totals = game_totals(label, light_moves)
        image = dataset.image(name)
        alone = count_points(image, calib.geometry, empty=empty)
        got = count_points(image, calib.geometry, empty=empty, totals=totals)
        assert 0.0 <= got.totals_share <= 1.0 and alone.totals_share == 0.0 and not alone.totals_trusted
        if got.totals_trusted:
            trusted += 1
            assert min(got.probabilities + [got.bar_probability]) >= got.totals_share >= TOTALS_SURE
        else:
            assert got.probabilities == alone.probabilities or got.refitted
        bar = label.get("bar") or {}
        if alone.pairs != [tuple(p) for p in label["points"]] or alone.bar != (bar.get("light", 0), bar.get("dark", 0)):
            continue
        for light_moves in (True, False):  # the other side told a checker more
            in_turn = game_totals(label, light_moves)
            light, dark = in_turn.light[1], in_turn.dark[1]
            told = (CheckerTotals(in_turn.light, (dark + 1,) * 2) if light_moves
                    else CheckerTotals((light + 1,) * 2, in_turn.dark))
            if max(told.light[1], told.dark[1]) > 15:
                continue
            more = count_points(image, calib.geometry, empty=empty, totals=told)
            assert more.refitted and not more.totals_trusted
            told_more += 1
            odds_needed += more.totals_share >= TOTALS_SURE
    assert trusted >= 10 and told_more >= 5
    assert odds_needed >= 1  # the share alone would have trusted these


def test_a_reading_is_trusted_to_the_totals_only_when_they_and_the_counter_agree() -> None:
    """`PointCounts.totals_trusted`: a share of `TOTALS_SURE` or more, and a refit at least
    `REFIT_ODDS` as likely as the counter's own reading; the reader's doubt of a refit they leave in
    doubt names both figures and each place, and there is none for a trusted one."""
    from vision.learned import PointCounts
    from vision.pipeline import _refitted_doubt

    def read(share: float, odds: float, refitted: bool = True) -> PointCounts:
        counts = [15, 0, 0, 0, 0, 0, 1] + [0] * 16 + [14]
        colours: list[int | None] = [0, None, None, None, None, None, 1] + [None] * 16 + [1]
        return PointCounts(counts=counts, probabilities=[0.9] * 24, colours=colours,
                           refitted=[(6, (0, 0))] if refitted else [], totals_share=share, refit_odds=odds)

    totals = CheckerTotals((15, 15), (11, 15))
    points = read(0.0, 1.0).pairs
    assert read(0.95, 0.5).totals_trusted and read(TOTALS_SURE, REFIT_ODDS).totals_trusted
    assert not read(0.95, 0.05).totals_trusted and not read(0.85, 1.0).totals_trusted
    assert _refitted_doubt(points, (0, 0), read(0.95, 0.5), totals) is None
    assert _refitted_doubt(points, (0, 0), read(0.3, 1.0, refitted=False), totals) is None
    doubt = _refitted_doubt(points, (0, 0), read(0.95, 0.0004), totals)
    assert doubt == ("read again to fit the game's 15 light and 11 to 15 dark checkers (0.95 of the readings they "
                     "allow, 0.0004 as likely as the reading alone): P7 1 dark (alone empty)")


def test_a_share_is_nothing_for_a_reading_the_totals_do_not_allow() -> None:
    count_p, colour_p = _strips([(2, 0, 0.9, 0.9), (1, 1, 0.9, 0.9)])
    assert share_within(count_p, colour_p, [2, 1], [0, 1], CheckerTotals((0, 1), (1, 1))) == 0.0
    assert share_within(count_p, colour_p, [2, 1], [0, 1], CheckerTotals((2, 2), (1, 1))) > 0.5
    count_p[0, 0] = np.nan
    assert share_within(count_p, colour_p, [2, 1], [0, 1], CheckerTotals((2, 2), (1, 1))) == 0.0


def test_the_bar_reader_is_small_and_has_a_card() -> None:
    assert BAR_MODEL_PATH is not None and BAR_MODEL_PATH.is_file() and BAR_MODEL_PATH.stat().st_size < 2_000_000
    card = BAR_MODEL_PATH.with_suffix(".md").read_text()
    assert "seed" in card and "make train-bar" in card


def test_the_bar_reader_reads_the_bar_and_leaves_the_points_to_the_counter(small_dataset: Path) -> None:
    """With the bar reader the points read exactly as with the counter alone (counts, colours and
    how sure), with or without the empty board; only the bar's halves are its own."""
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    photo, _ = dataset.reference("empty")
    assert photo is not None
    image = dataset.image(_clear_frames(small_dataset, 1)[0])
    for with_empty in (False, True):
        alone, with_bar = (
            count_points(image, calib.geometry, bar_model=bar,
                         empty=empty_board(photo, calib.geometry, bar_model=bar) if with_empty else None)
            for bar in (None, BAR_MODEL_PATH))
        assert with_bar.counts == alone.counts and with_bar.colours == alone.colours
        assert np.allclose(with_bar.probabilities, alone.probabilities)
    strips = board_strips(image, calib.geometry)
    bar_p, _ = CheckerCounter(BAR_MODEL_PATH).probabilities(strips[BAR_STRIPS:])
    counter_p, _ = CheckerCounter().probabilities(strips[BAR_STRIPS:])
    assert not np.allclose(bar_p, counter_p)  # the bar's halves are read by a network of their own
    # an empty board read by one bar reader is never compared with another's features
    with pytest.raises(ValueError, match="bar reader"):
        count_points(image, calib.geometry, empty=empty_board(photo, calib.geometry, bar_model=None))


@pytest.mark.slow
@pytest.mark.parametrize("design", ["tavla-mahogany-carved", "travel-magnetic"])
def test_the_bar_reader_reads_the_bar_of_held_out_boards(design: str, tmp_path: Path) -> None:
    """Two held-out designs (never trained on) at a seed of their own, the lamp moved since
    calibration, both sides on the bar in every frame: the tavla's raised mahogany bar under
    checkers of nearly its own colour, the magnetic board's printed navy bar under dark checkers.
    The bar reader, beside the empty board, reads nearly every half right."""
    from controller.cli import main
    from synth.povray import povray_available

    if not povray_available():
        pytest.skip("POV-Ray is not installed (make setup installs it)")
    root = tmp_path / design
    assert main(["render3d", "--dataset", str(root), "--design", design, "--frames", "6", "--seed", "31301",
                 "--size", "640x360", "--bar-rate", "1", "--occluded-rate", "0", "--quiet"]) == 0
    dataset = load_dataset(root)
    geometry = calibration_for(dataset).geometry
    photo, _ = dataset.reference("empty")
    assert photo is not None
    empty = empty_board(photo, geometry)
    right = total = 0
    for name in dataset.frames:
        bar = dataset.label(name)["bar"]
        read = count_points(dataset.image(name), geometry, empty=empty)
        halves = [count for count, _ in read.bar_halves]
        right += (halves[0] == bar["light"]) + (halves[1] == bar["dark"])
        total += 2
    assert total == 12 and right >= total - 1


# BGR: a pale field, the points' colour above the stacks, and three checker pairs
FIELD, POINT = (200, 205, 210), (40, 90, 200)
YELLOW, BLUE = (120, 230, 244), (150, 60, 40)
WHITE, BLACK = (236, 240, 240), (40, 34, 30)


def _board_of_stacks(stacks: list[tuple[int, tuple[int, int, int]]], rows: float = 20.0) -> np.ndarray:
    """Strips (N, 112, 32, 3) of a field with a point drawn to the top, each with a stack of
    (count, colour) from its base: at most five checkers drawn, as on a board."""
    width, height = STRIP_SIZE
    strips = np.empty((len(stacks), height, width, 3), np.uint8)
    strips[:] = FIELD
    strips[:, :, 8:24] = POINT
    for strip, (count, colour) in zip(strips, stacks, strict=True):
        if count:
            strip[int(height - min(count, 5) * rows):, 4:28] = colour
    return strips


def test_a_stacks_hue_is_read_from_its_checkers_not_the_point_above_them() -> None:
    strips = _board_of_stacks([(2, YELLOW), (0, YELLOW), (7, BLUE)])
    hues = stack_hues(strips, np.array([2, 0, 7]), 20.0)
    assert set(hues) == {0, 2}  # an empty strip has no stack's hue
    yellow_ab = cv2.cvtColor(np.full((1, 1, 3), YELLOW, np.uint8), cv2.COLOR_BGR2Lab)[0, 0, 1:].astype(float) - 128
    assert np.linalg.norm(hues[0] - yellow_ab) < 3 and hues[2][1] < -20  # yellow; blue (b* well below 0)


def test_a_stack_of_the_other_sides_hue_is_the_other_sides() -> None:
    """Yellow against blue: the one yellow stack read as dark is turned, and only it; so is a blue
    one read as light.  On a white-and-black board (sides apart in lightness only) nothing is, and
    nor when one side has no stack on the board."""
    stacks = [(2, YELLOW), (5, YELLOW), (3, YELLOW), (4, BLUE), (5, BLUE), (1, YELLOW), (2, BLUE)]
    counts = np.array([n for n, _ in stacks])
    read = np.array([0, 0, 0, 1, 1, 1, 0])  # strip 5 (yellow) read dark, strip 6 (blue) read light
    hues = stack_hues(_board_of_stacks(stacks), counts, 20.0)
    assert sorted(other_side_by_hue(hues, read)) == [5, 6]
    assert other_side_by_hue(hues, np.array([0, 0, 0, 1, 1, 0, 1])) == []  # all read right
    white_black = [(n, WHITE if c == YELLOW else BLACK) for n, c in stacks]
    assert other_side_by_hue(stack_hues(_board_of_stacks(white_black), counts, 20.0), read) == []
    one_side = stack_hues(_board_of_stacks([(n, YELLOW) for n, _ in stacks]), counts, 20.0)
    assert other_side_by_hue(one_side, np.zeros(len(stacks), int)) == []


def test_the_sides_hues_as_calibrated_turn_stacks_the_frame_alone_cannot() -> None:
    """Most yellow stacks read as dark: the frame's own dark median is then yellow and nothing is
    turned; the sides' hues as calibrated from the start position turn every yellow stack light."""
    stacks = [(2, YELLOW), (5, YELLOW), (3, YELLOW), (4, YELLOW), (5, BLUE)]
    counts = np.array([n for n, _ in stacks])
    read = np.array([0, 1, 1, 1, 1])
    hues = stack_hues(_board_of_stacks(stacks), counts, 20.0)
    assert other_side_by_hue(hues, read) == []

    def ab(bgr: tuple[int, int, int]) -> np.ndarray:
        return cv2.cvtColor(np.full((1, 1, 3), bgr, np.uint8), cv2.COLOR_BGR2Lab)[0, 0, 1:].astype(float) - 128

    assert sorted(other_side_by_hue(hues, read, (ab(YELLOW), ab(BLUE)))) == [1, 2, 3]
    assert other_side_by_hue(hues, read, (ab(WHITE), ab(BLACK))) == []  # calibrated sides of one hue


def test_the_sides_hues_are_learnt_from_the_start_position(small_dataset: Path) -> None:
    assert ColourModel().hues is None  # the defaults are no board's
    model = ColourModel((200.0, 128.0 - 20.0, 128.0 + 60.0), (50.0, 128.0 + 15.0, 128.0 - 40.0), True)
    light, dark = model.hues or (None, None)
    assert np.allclose(light, (-20, 60)) and np.allclose(dark, (15, -40))  # CIELAB a*, b* of OpenCV's 8-bit Lab
    learnt = calibration_for(load_dataset(small_dataset)).colours
    assert learnt.learnt and learnt.hues is not None


def test_count_points_reads_each_stack_in_the_colour_of_its_sides_hue(wooden_dataset: Path) -> None:
    """The 2-D renderer's wooden set: its sides differ in hue (as calibrated from the start
    position).  Given the two sides' hues the wrong way round, every stack is turned to the other
    side, each at most `HUE_TURNED` sure; given them as calibrated, nothing is turned (the reading
    is the counter's own)."""
    dataset = load_dataset(wooden_dataset)
    calibration = calibration_for(dataset)
    sides = calibration.colours.hues
    assert sides is not None and np.linalg.norm(sides[0] - sides[1]) >= HUE_APART
    photo, _ = dataset.reference("empty")
    empty = empty_board(photo, calibration.geometry)
    image = dataset.image(_clear_frames(wooden_dataset, 1)[0])
    read = count_points(image, calibration.geometry, empty=empty, sides=sides)
    by_counter = count_points(image, calibration.geometry, empty=empty, sides=sides, hue_apart=float("inf"))
    swapped = count_points(image, calibration.geometry, empty=empty, sides=(sides[1], sides[0]))
    assert read.colours == by_counter.colours and read.counts == swapped.counts
    stacks = [i for i, colour in enumerate(read.colours) if colour is not None]
    assert len(stacks) >= 4
    for i in stacks:
        assert swapped.colours[i] == 1 - read.colours[i]
        assert swapped.probabilities[i] <= HUE_TURNED + 1e-9


@pytest.mark.slow
def test_a_board_whose_sides_differ_in_hue_reads_each_stack_in_its_sides_colour(tmp_path: Path) -> None:
    """A tuning design painted anew (`render3d --recolour`: checkers of two hues the counter never
    saw together), the lamp moved since calibration: read beside the empty board as the pipeline
    reads it (the sides' hues from the start position), with and without the hue rule.  Stacks are turned to the other side by their hue, every one of them to the side
    its label gives, and each as sure as `HUE_TURNED` at most."""
    from controller.cli import main
    from synth.povray import povray_available

    if not povray_available():
        pytest.skip("POV-Ray is not installed (make setup installs it)")
    root = tmp_path / "recoloured"
    assert main(["render3d", "--dataset", str(root), "--design", "tournament-cork", "--recolour", "--frames", "6",
                 "--seed", "4601", "--size", "640x360", "--occluded-rate", "0", "--quiet"]) == 0
    dataset = load_dataset(root)
    calibration = calibration_for(dataset)
    geometry, sides = calibration.geometry, calibration.colours.hues
    photo, _ = dataset.reference("empty")
    assert photo is not None and sides is not None
    empty = empty_board(photo, geometry)
    turned = 0
    for name, label in dataset.clear_frames():
        image = dataset.image(name)
        read = count_points(image, geometry, empty=empty, sides=sides)
        by_counter = count_points(image, geometry, empty=empty, sides=sides, hue_apart=float("inf"))
        for point, (colour, before) in enumerate(zip(read.colours, by_counter.colours, strict=True)):
            if colour is not None and before is not None and colour != before:
                turned += 1
                assert label["points"][point][colour] > 0 and label["points"][point][before] == 0
                assert read.probabilities[point] <= HUE_TURNED + 1e-9
    assert turned >= 1


def _lab(bgr: tuple[int, int, int]) -> np.ndarray:
    """CIELAB (L*, a*, b*) of a BGR colour, as `vision.learned.stack_colours` measures a stack."""
    return cv2.cvtColor(np.full((1, 1, 3), bgr, np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0, 0].astype(np.float64)


def test_a_stack_is_the_side_whose_colour_as_the_start_position_shows_it_is_nearer() -> None:
    """Two sides of one hue, one lighter (cream and tan): a stack of either's colour is that side's,
    `BY_COLOUR_SURE` sure; one halfway between is a toss-up.  Where the start's stacks of each side
    differed much in lightness among themselves (a lamp's fall across the board) and little in
    hue, hue decides: a stack as light as the dark side but of the light side's hue is light."""
    cream, tan = _lab((180, 220, 240)), _lab((90, 140, 190))
    even = StartColours(cream, tan, 16.0 * np.eye(3), counter_trusted=False)
    assert even.colour_p(cream) == pytest.approx([BY_COLOUR_SURE, 1 - BY_COLOUR_SURE])
    assert even.colour_p(tan) == pytest.approx([1 - BY_COLOUR_SURE, BY_COLOUR_SURE])
    assert even.colour_p((cream + tan) / 2) == pytest.approx([0.5, 0.5])
    yellow, blue = _lab((120, 230, 244)), _lab((150, 60, 40))
    lamp_varied = StartColours(yellow, blue, np.diag([900.0, 16.0, 16.0]), counter_trusted=False)
    dim_yellow = np.array([blue[0], yellow[1], yellow[2]])
    assert lamp_varied.colour_p(dim_yellow)[0] == pytest.approx(BY_COLOUR_SURE)
    assert even.colour_p(np.array([tan[0], cream[1], cream[2]]))[1] > 0.5  # lightness alone: tan


def test_the_start_position_shows_each_sides_colour_and_whether_the_counter_tells_them_apart(
        small_dataset: Path) -> None:
    """On the 2-D renderer's set the counter reads the start position's stacks in their sides'
    colours: it is trusted, and the light side is the lighter.  The photo of the empty board shows
    no start position: nothing is learnt from it."""
    dataset = load_dataset(small_dataset)
    calibration = calibration_for(dataset)
    photo, _ = dataset.reference("empty")
    assert photo is not None and calibration.start_frame is not None
    empty = empty_board(photo, calibration.geometry)
    start = start_colours(calibration.start_frame, calibration.geometry, calibration.start_variant, empty)
    assert start is not None and start.counter_trusted
    assert start.light[0] > start.dark[0] + 20  # white and black: far apart
    for variant in ("backgammon", "nardy"):  # a nardy start has two stacks only: none may be missing
        assert start_colours(photo, calibration.geometry, variant, empty) is None
    assert start_colours(calibration.start_frame, calibration.geometry, "nardy", empty) is None
    # a variant no game the rules know (a hand-edited dataset): nothing learnt, no error on the read
    assert start_colours(calibration.start_frame, calibration.geometry, "tavla-of-my-uncle", empty) is None
    calibration.start_variant = "tavla-of-my-uncle"
    assert Reader(calibration, VisionConfig(checker_reader="learned"))._start_colours is None


def test_the_reader_learns_from_the_start_photo_only_beside_the_empty_board(small_dataset: Path) -> None:
    """The pipeline's reader builds the start position's colours from the calibration's photo of
    it, beside the empty board; not from one photo (`--no-references`), nor without a start photo
    (a calibration file from before it was kept)."""
    calibration = calibration_for(load_dataset(small_dataset))
    config = VisionConfig(checker_reader="learned")
    assert Reader(calibration, config)._start_colours is not None
    alone = VisionConfig(checker_reader="learned", learned_uses_empty_board=False)
    assert Reader(calibration, alone)._start_colours is None
    calibration.start_frame = None
    assert Reader(calibration, config)._start_colours is None


def test_the_reader_says_when_the_start_photo_shows_no_start_position(small_dataset: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    dataset = load_dataset(small_dataset)
    calibration = calibration_for(dataset)
    config = VisionConfig(checker_reader="learned")
    with caplog.at_level("INFO", logger="vision.pipeline"):
        assert Reader(calibration, config)._start_colours is not None
    assert "start" not in caplog.text  # read, and the counter trusted: nothing to say
    calibration.start_frame, _ = dataset.reference("empty")
    with caplog.at_level("INFO", logger="vision.pipeline"):
        assert Reader(calibration, config)._start_colours is None
    assert "does not show the backgammon start position" in caplog.text


def test_where_the_counter_is_not_trusted_each_stack_reads_by_its_colour(small_dataset: Path) -> None:
    """Given the sides' colours as the start position shows them and the counter not trusted, a
    frame reads as the counter reads it (its colours are right here); given the sides' colours the
    wrong way round, every stack is the other side's, at most `BY_COLOUR_SURE` sure, its count
    unchanged; trusted, the counter's colours stand."""
    dataset = load_dataset(small_dataset)
    calibration = calibration_for(dataset)
    photo, _ = dataset.reference("empty")
    assert photo is not None and calibration.start_frame is not None
    geometry = calibration.geometry
    empty = empty_board(photo, geometry)
    start = start_colours(calibration.start_frame, geometry, calibration.start_variant, empty)
    assert start is not None
    by_colour = StartColours(start.light, start.dark, start.spread, counter_trusted=False)
    swapped = StartColours(start.dark, start.light, start.spread, counter_trusted=False)
    trusted_swapped = StartColours(start.dark, start.light, start.spread, counter_trusted=True)
    image = dataset.image(_clear_frames(small_dataset, 1)[0])
    read = count_points(image, geometry, empty=empty)
    assert count_points(image, geometry, empty=empty, start=by_colour).pairs == read.pairs
    assert count_points(image, geometry, empty=empty, start=trusted_swapped).pairs == read.pairs
    turned = count_points(image, geometry, empty=empty, start=swapped)
    stacks = [i for i, colour in enumerate(read.colours) if colour is not None]
    assert len(stacks) >= 4 and turned.counts == read.counts
    for i in stacks:
        assert turned.colours[i] == 1 - read.colours[i]
        assert turned.probabilities[i] <= BY_COLOUR_SURE + 1e-9


@pytest.mark.slow
def test_a_board_whose_colours_the_counter_confuses_reads_by_the_start_positions_colours(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A tuning design painted anew (`render3d --recolour`, seed 4502: a pair of colours the
    counter reads as one side on its start position), the lamp moved since calibration: the counter
    is not trusted there, and the points read by the start position's colours are wrong at most
    half as often as the counter's, which misread several."""
    from controller.cli import main
    from synth.povray import povray_available

    if not povray_available():
        pytest.skip("POV-Ray is not installed (make setup installs it)")
    root = tmp_path / "recoloured"
    assert main(["render3d", "--dataset", str(root), "--design", "tournament-felt-green", "--recolour", "--frames",
                 "6", "--seed", "4502", "--size", "640x360", "--occluded-rate", "0", "--quiet"]) == 0
    dataset = load_dataset(root)
    calibration = calibration_for(dataset)
    geometry, sides = calibration.geometry, calibration.colours.hues
    photo, _ = dataset.reference("empty")
    assert photo is not None and calibration.start_frame is not None
    empty = empty_board(photo, geometry)
    start = start_colours(calibration.start_frame, geometry, calibration.start_variant, empty)
    assert start is not None and not start.counter_trusted
    with caplog.at_level("INFO", logger="vision.pipeline"):
        by_reader = Reader(calibration, VisionConfig(checker_reader="learned"))._start_colours
    assert by_reader is not None and not by_reader.counter_trusted and np.allclose(by_reader.light, start.light)
    assert "the counter misread the start position's colours" in caplog.text
    wrong = {"counter": 0, "by colour": 0}
    for name, label in dataset.clear_frames():
        image, truth = dataset.image(name), [tuple(p) for p in label["points"]]
        for way, given in (("counter", None), ("by colour", start)):
            read = count_points(image, geometry, empty=empty, sides=sides, start=given)
            wrong[way] += sum(pair != true for pair, true in zip(read.pairs, truth, strict=True))
    assert wrong["counter"] >= 6 and wrong["by colour"] <= wrong["counter"] / 2


def test_the_hue_rule_takes_the_sides_hues_from_the_start_photo_when_read(wooden_dataset: Path) -> None:
    """The 2-D wooden set, whose sides differ in hue: with the start photo's colours the wrong way
    round (the counter trusted), every stack is turned by its hue, whatever hues the classical
    calibration gives; the right way round, nothing is."""
    dataset = load_dataset(wooden_dataset)
    calibration = calibration_for(dataset)
    photo, _ = dataset.reference("empty")
    assert photo is not None and calibration.start_frame is not None
    geometry, sides = calibration.geometry, calibration.colours.hues
    empty = empty_board(photo, geometry)
    start = start_colours(calibration.start_frame, geometry, calibration.start_variant, empty)
    assert start is not None and start.counter_trusted and differ_in_hue(start.hues)
    swapped = StartColours(start.dark, start.light, start.spread, counter_trusted=True)
    image = dataset.image(_clear_frames(wooden_dataset, 1)[0])
    read = count_points(image, geometry, empty=empty, sides=sides)
    assert count_points(image, geometry, empty=empty, sides=sides, start=start).pairs == read.pairs
    turned = count_points(image, geometry, empty=empty, sides=sides, start=swapped)
    stacks = [i for i, colour in enumerate(read.colours) if colour is not None]
    assert len(stacks) >= 4 and all(turned.colours[i] == 1 - read.colours[i] for i in stacks)


def test_a_place_another_look_reads_otherwise_is_unsteady(small_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board cut again where it was cut changes nothing; cut half a point off, the places read
    otherwise are listed with what that look read there, and are at most `UNSTEADY` sure; the
    reading itself stays the first look's.  Only the `LOOK_AT` least sure places read below
    `LOOK_BELOW` are looked at again; with every place looked at, many are unsteady."""
    import vision.learned

    dataset = load_dataset(small_dataset)
    geometry = calibration_for(dataset).geometry
    empty = empty_board(dataset.reference("empty")[0], geometry)
    half_point = float(np.linalg.norm(geometry.corners[1] - geometry.corners[0])) / 26
    shifted = replace(geometry, corners=geometry.corners + np.array([half_point, 0.0]))

    def unsteady_places(frames: list[str]) -> int:
        seen = 0
        for name in frames:
            image = dataset.image(name)
            once = count_points(image, geometry, empty=empty)
            again = count_points(image, geometry, empty=empty, looks=[geometry, geometry])
            assert again.unsteady == [] and again.probabilities == once.probabilities
            off = count_points(image, geometry, empty=empty, looks=[geometry, shifted])
            assert (off.pairs, off.bar) == (once.pairs, once.bar)
            places, sure = [*once.pairs, once.bar], [*once.probabilities, once.bar_probability]
            assert len(off.unsteady) <= vision.learned.LOOK_AT
            for place, other in off.unsteady:
                assert other != places[place]
                assert [*off.probabilities, off.bar_probability][place] <= UNSTEADY
                assert sure[place] < vision.learned.LOOK_BELOW
            looked = {place for place, _ in off.unsteady}
            assert all(off.probabilities[i] == once.probabilities[i] for i in range(24) if i not in looked)
            assert 24 in looked or off.bar_probability == once.bar_probability
            seen += len(off.unsteady)
        return seen

    frames = _clear_frames(small_dataset, 3)
    unsteady_places(frames)
    monkeypatch.setattr(vision.learned, "LOOK_BELOW", 1.01)
    monkeypatch.setattr(vision.learned, "LOOK_AT", 26)
    assert unsteady_places(frames) >= 3


def test_a_reading_another_look_changes_is_doubted(small_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's other looks cut far enough off to change the reading (the problem's wording
    is the reader's, however far): the observation names the places as it read them and is not
    sure (the referee asks); with one look, the same frame is sure."""
    import vision.learned

    dataset = load_dataset(small_dataset)
    calibration = calibration_for(dataset)
    name = _clear_frames(small_dataset, 1)[0]
    image = dataset.image(name)
    monkeypatch.setattr(vision.learned, "LOOK_NUDGE", 0.03)
    monkeypatch.setattr(vision.learned, "LOOK_BELOW", 1.01)
    monkeypatch.setattr(vision.learned, "LOOK_AT", 26)
    obs = Reader(calibration, VisionConfig(checker_reader="learned")).read(image, hand=False)
    doubts = [p for p in obs.problems() if p.startswith("read otherwise with the board cut a click off: ")]
    assert len(doubts) == 1 and not obs.is_sure()
    assert obs.points is not None
    # each place named as the reading has it (a point's checkers, or the bar's)
    for place, first in re.findall(r"(P\d+|the bar) (.+?) or ", doubts[0]):
        light, dark = obs.bar if place == "the bar" else obs.points[int(place[1:]) - 1]
        assert first == (" and ".join([f"{light} light"] * bool(light) + [f"{dark} dark"] * bool(dark)) or "empty")
    one_look = Reader(calibration, VisionConfig(checker_reader="learned", more_looks=False)).read(image, hand=False)
    assert one_look.points == obs.points and one_look.is_sure()


def test_the_unsteady_doubt_names_each_place_as_read_and_as_seen_again() -> None:
    points = [(0, 0)] * 24
    points[6] = (3, 0)
    text = _unsteady_doubt(points, (0, 1), [(6, (4, 0)), (24, (0, 0))])
    assert text == "read otherwise with the board cut a click off: P7 3 light or 4 light, the bar 1 dark or empty"


def test_a_side_short_of_its_totals_with_a_point_judged_away_is_doubted() -> None:
    """A reading with fewer checkers of a side than the game's totals allow it at most, while a
    point was judged empty beside the empty board against the counter, is doubted: the lone checker
    missing may lie there.  A side at its most, or no point so judged, leaves no such doubt."""
    from vision.learned import PointCounts
    from vision.pipeline import _short_doubt

    counts = [15, 0, 0, 0, 0, 0, 0] + [0] * 16 + [3]
    colours: list[int | None] = [0] + [None] * 22 + [1]
    read = PointCounts(counts=counts, probabilities=[0.9] * 24, colours=colours, judged_away=[6])
    points = read.pairs
    assert _short_doubt(points, (0, 0), read, CheckerTotals((15, 15), (1, 4))) == (
        "fewer checkers than the game allows (dark 3 of up to 4) while P7 read empty, though the counter saw "
        "checkers there")
    assert _short_doubt(points, (0, 1), read, CheckerTotals((15, 15), (1, 4))) is None  # the fourth on the bar
    assert _short_doubt(points, (0, 0), read, CheckerTotals((15, 15), (3, 3))) is None
    assert _short_doubt(points, (0, 0), replace(read, judged_away=[]), CheckerTotals((15, 15), (1, 4))) is None


def test_a_lone_checker_judged_away_against_the_counter_makes_a_short_reading_a_question(
        small_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole read: a point holding one checker that the empty-board judgement empties against
    the counter (`JUDGED_AWAY`) is `PointCounts.judged_away`; told the game lets that side be a
    checker short (it may be bearing off), the reading fits, but the reader doubts it: the referee
    asks rather than accepting a checker gone."""
    import vision.learned as learned

    dataset = load_dataset(small_dataset)
    config = VisionConfig(checker_reader="learned", dice_reader="learned", hand_test="learned")
    calib = calibration_for(dataset, config)
    name, label = next((n, lab) for n, lab in dataset.clear_frames() if any(sum(p) == 1 for p in lab["points"]))
    lone = next(i for i, p in enumerate(label["points"]) if sum(p) == 1)
    side = 0 if label["points"][lone][0] else 1
    judge = learned.beside_empty

    def judged_away_there(count_p: np.ndarray, distance: np.ndarray) -> np.ndarray:
        judged = judge(count_p, distance)
        if len(judged) >= BAR_STRIPS:
            judged[lone] = np.eye(judged.shape[1])[0] * 0.9 + judged[lone] * 0.1
        return judged

    monkeypatch.setattr(learned, "beside_empty", judged_away_there)
    light = sum(p[0] for p in label["points"]) + label["bar"]["light"]
    dark = sum(p[1] for p in label["points"]) + label["bar"]["dark"]
    totals = CheckerTotals.in_turn(light, dark, light_moves=side == 0)
    reader = Reader(calib, config)
    obs = reader.read(dataset.image(name), hand=False, totals=totals)
    assert obs.points is not None and obs.points[lone] == (0, 0)
    assert any("read empty, though the counter saw checkers there" in d and f"P{lone + 1}" in d for d in obs.doubts)
    assert not obs.is_sure()
    # told the side has all its checkers, the reading is refitted instead: the checker is read back,
    # and its point is no longer one judged away
    exact = CheckerTotals((light, light), (dark, dark))
    again = reader.read(dataset.image(name), hand=False, totals=exact)
    assert again.points is not None and again.points[lone] == tuple(label["points"][lone])
    empty = empty_board(calib.reference_frame, calib.geometry)
    short, told = (count_points(dataset.image(name), calib.geometry, empty=empty, totals=t) for t in (totals, exact))
    assert lone in short.judged_away and lone not in told.judged_away
