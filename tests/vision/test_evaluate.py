"""End to end on small rendered datasets: the summary contract and accuracy floors.

The floors are deliberately below what the full 600-frame evaluation shows (README); they catch
regressions, not decimals.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.evaluate import SUMMARY_KEYS, evaluate
from vision.pipeline import Reader
from vision.render import Scene, random_setup, render

CHECKERS_ONLY = VisionConfig(use_dice=False)


def test_dataset_follows_the_format(small_dataset: Path) -> None:
    meta = json.loads((small_dataset / "dataset.json").read_text())
    assert meta["format"] == "referee-frames/1"
    assert len(meta["board"]["corners"]) == 4
    assert (small_dataset / meta["reference"]["empty"]).is_file()
    assert (small_dataset / meta["reference"]["start"]["image"]).is_file()
    assert meta["reference"]["start"]["variant"] == "backgammon"
    rolls = set()
    for name in meta["frames"]:
        label = json.loads((small_dataset / name).with_suffix(".json").read_text())
        assert len(label["points"]) == 24 and all(len(p) == 2 for p in label["points"])
        assert set(label["bar"]) == {"light", "dark"}
        assert label["roll"] in ("valid", "void", "none")
        assert (label["void_reason"] is None) == (label["roll"] != "void")
        assert all(sum(p[0] for p in label["points"]) <= 15 for _ in [0])
        rolls.add(label["roll"])
    assert len(rolls) >= 2


def test_rendering_is_deterministic() -> None:
    setup_a = random_setup(np.random.default_rng(3))
    setup_b = random_setup(np.random.default_rng(3))
    scene = Scene(points=[(2, 0)] + [(0, 0)] * 22 + [(0, 3)], seed=11)
    a, label_a = render(setup_a, scene)
    b, label_b = render(setup_b, scene)
    assert np.array_equal(a, b) and label_a == label_b


def test_summary_has_exactly_the_contract_keys(small_dataset: Path, tmp_path: Path) -> None:
    summary, results = evaluate(small_dataset, CHECKERS_ONLY, csv_path=tmp_path / "frames.csv", limit=6)
    assert tuple(summary) == SUMMARY_KEYS
    assert summary["frames"] == 6 == len(results)
    with (tmp_path / "frames.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6 and "wrong_points" in rows[0]


def test_accuracy_floors_tournament(small_dataset: Path) -> None:
    summary, _ = evaluate(small_dataset, CHECKERS_ONLY)
    assert summary["point_accuracy"] >= 0.97
    assert summary["occlusion_refused"] == 1.0
    assert summary["false_occlusion"] <= 0.1


def test_accuracy_floors_wooden(wooden_dataset: Path) -> None:
    summary, _ = evaluate(wooden_dataset, CHECKERS_ONLY)
    assert summary["point_accuracy"] >= 0.97
    assert summary["occlusion_refused"] >= 0.9
    assert summary["false_occlusion"] <= 0.15


def test_start_position_reads_exactly(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset)
    start, _ = dataset.reference("start")
    assert start is not None
    observation = Reader(calib, CHECKERS_ONLY).read(start)
    from rules.position import starting_position

    assert observation.to_position("backgammon") == starting_position("backgammon")
    assert set(observation.timings) >= {"occlusion", "warp", "illumination", "occupancy", "checkers", "total"}


def test_wrong_frame_size_is_bad_input(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    reader = Reader(calibration_for(dataset), CHECKERS_ONLY)
    small = cv2.resize(dataset.image(dataset.frames[0]), (640, 360))
    try:
        reader.read(small)
    except ValueError as error:
        assert "calibration expects" in str(error)
    else:  # pragma: no cover
        raise AssertionError("a frame of the wrong size must be refused")


def _without_references(dataset: Path, tmp_path: Path, keep: str | None) -> Path:
    meta = json.loads((dataset / "dataset.json").read_text())
    reference = meta.pop("reference")
    if keep is not None:
        meta["reference"] = {keep: reference[keep]}
    out = tmp_path / f"no-refs-{keep}"
    out.mkdir()
    (out / "frames").symlink_to(dataset / "frames")
    (out / "dataset.json").write_text(json.dumps(meta))
    return out


def test_a_dataset_without_an_empty_board_is_still_read(small_dataset: Path, tmp_path: Path) -> None:
    # INTERFACES.md §3: both reference frames are optional.  Without the empty board the reader
    # calibrates from the median of the frames (checkers move between frames) and, when given,
    # learns the checker colours from the start position.
    with_refs, _ = evaluate(small_dataset, CHECKERS_ONLY)
    for keep in (None, "start"):
        summary, _ = evaluate(_without_references(small_dataset, tmp_path, keep), CHECKERS_ONLY)
        assert summary["point_accuracy"] >= 0.97, keep
        assert summary["point_accuracy"] >= with_refs["point_accuracy"] - 0.01, keep


def test_dice_doubt_is_the_least_sure_die_against_the_question_threshold() -> None:
    """A roll read wrong with an unsure die counts as doubted, one read right with sure dice does
    not; rolls called void or frames refused are left out (no roll was taken from them)."""
    from vision.evaluate import score_frame, summarise
    from vision.observation import DICE_QUESTION_CONFIDENCE, Observation

    label = {"points": [[0, 0]] * 24, "roll": "valid", "dice": [{"value": 3}, {"value": 5}], "occluded": False}

    def read(values: tuple[int, int], confidences: tuple[float, float], roll: str = "valid") -> Observation:
        dice = [{"value": v, "confidence": c} for v, c in zip(values, confidences, strict=True)]
        return Observation(points=[(0, 0)] * 24, dice=dice, roll=roll, confidence=0.9)

    unsure = DICE_QUESTION_CONFIDENCE - 0.1
    assert read((3, 5), (0.99, unsure)).dice_confidence == unsure
    assert Observation(points=[(0, 0)] * 24).dice_confidence == 1.0
    results = [score_frame(f"f{i}", label, obs, 1.0, 0.1) for i, obs in enumerate([
        read((3, 6), (0.99, unsure)),       # wrong, doubted
        read((3, 4), (0.99, 0.98)),          # wrong, sure
        read((3, 5), (0.97, 0.99)),          # right, sure
        read((3, 5), (unsure, 0.99)),        # right, doubted
        read((3, 5), (0.97, 0.99)),          # right, sure
        read((3, 6), (unsure, unsure), "void"),  # called void: no roll taken
    ])]
    summary = summarise(results)
    assert summary["dice_wrong_doubted"] == 0.5
    assert summary["dice_right_doubted"] == 1 / 3
    assert summary["dice_phantom"] is None  # no frame without dice


def test_a_die_read_where_none_lies_is_a_phantom() -> None:
    from vision.evaluate import score_frame, summarise
    from vision.observation import Observation

    label = {"points": [[0, 0]] * 24, "roll": "none", "dice": [], "occluded": False}
    board = [(0, 0)] * 24
    results = [score_frame(f"f{i}", label, obs, 1.0, 0.1) for i, obs in enumerate([
        Observation(points=board, dice=[{"value": 3, "confidence": 0.4}], roll="void", void_reason="off_board"),
        Observation(points=board),
        Observation(points=board),
        Observation(points=None, refused=True),  # not read: neither phantom nor clean
    ])]
    assert summarise(results)["dice_phantom"] == 1 / 3


def test_the_learned_reader_keeps_to_the_games_totals(small_dataset: Path) -> None:
    """Read as the referee reads during a game (`evaluate`'s ``totals``), each board's totals fall
    within the game's; and told a side has a checker more than it has, the reading finds it (at a
    probability that puts the board in doubt) rather than keep the reading that contradicts it."""
    from vision.evaluate import game_totals
    from vision.observation import CheckerTotals

    dataset = load_dataset(small_dataset)
    config = VisionConfig.with_readers("learned")
    reader = Reader(calibration_for(dataset, config), config)
    read = 0
    for i, name in enumerate(dataset.frames):
        label = dataset.label(name)
        if label["occluded"]:
            continue
        image = dataset.image(name)
        totals = game_totals(label, light_moves=i % 2 == 0)
        obs = reader.read(image, hand=False, totals=totals)
        assert obs.points is not None
        light, dark = (sum(p[side] for p in obs.points) + obs.bar[side] for side in (0, 1))
        assert totals.allows(light, dark)
        one_more = CheckerTotals(totals.light, (totals.dark[1] + 1, totals.dark[1] + 1))
        if one_more.dark[0] <= 15:
            obs = reader.read(image, hand=False, totals=one_more)
            assert obs.points is not None
            assert sum(p[1] for p in obs.points) + obs.bar[1] == one_more.dark[0]
            assert not obs.is_sure()
            assert any(d.startswith("read again to fit the game's") for d in obs.doubts)
            read += 1
    assert read >= 3


def test_eval_with_the_game_totals_reads_each_frame_with_its_labels_counts(small_dataset: Path,
                                                                          tmp_path: Path) -> None:
    """A label that claims one dark checker more (on the bar) than the board holds: read alone the
    board is read as it lies (wrong against that label, and mostly sure of it); read with the
    game's totals taken from the label, every such reading where dark has exactly the label's
    count (light on roll, or dark on roll with four or more checkers out of its home board, the
    claimed one on the bar among them) is refitted to them and doubted, and where dark may have
    borne one off (on roll, nearly home) read as alone."""
    import random
    import shutil

    from vision.evaluate import TOTALS_SEED, game_totals

    root = tmp_path / "more"
    shutil.copytree(small_dataset, root)
    dataset = load_dataset(root)
    claimed = []
    for name in dataset.frames:
        path = (root / name).with_suffix(".json")
        label = json.loads(path.read_text())
        dark = sum(p[1] for p in label["points"]) + (label.get("bar") or {}).get("dark", 0)
        if label["occluded"] or dark >= 15:
            continue
        label["bar"] = {"light": (label.get("bar") or {}).get("light", 0),
                        "dark": (label.get("bar") or {}).get("dark", 0) + 1}
        path.write_text(json.dumps(label))
        claimed.append(name)
    assert len(claimed) >= 3
    config = VisionConfig.with_readers("learned")
    _, alone = evaluate(root, config)
    _, in_game = evaluate(root, config, totals=True)
    alone_of = {r.name: r for r in alone if r.name in claimed}
    in_game_of = {r.name: r for r in in_game if r.name in claimed}
    on_roll = random.Random(TOTALS_SEED)
    light_moves = {name: on_roll.random() < 0.5 for name in dataset.frames}
    assert not any(r.board_exact for r in alone_of.values())
    assert sum(r.sure for r in alone_of.values()) > len(claimed) / 2
    exact = {name: game_totals(dataset.label(name), light_moves[name]).dark[0] ==
             game_totals(dataset.label(name), light_moves[name]).dark[1] for name in claimed}
    refitted = [name for name in claimed if exact[name]]
    assert refitted and not any(in_game_of[name].sure for name in refitted)
    assert any(light_moves[name] for name in refitted) and any(not light_moves[name] for name in refitted)
    for name in claimed:
        if not exact[name]:
            assert in_game_of[name].wrong_points == alone_of[name].wrong_points
            assert in_game_of[name].sure == alone_of[name].sure


def test_the_games_totals_let_the_side_on_roll_have_borne_off_only_from_home() -> None:
    """As the referee knows them: the side on roll may have borne off (up to four fewer) only when
    fewer than four of its checkers lie outside its home board (the quarter holding most of them)
    or on the bar; the other side always has exactly its checkers."""
    from vision.evaluate import game_totals
    from vision.observation import CheckerTotals

    def label(light: dict[int, int], dark: dict[int, int], bar: tuple[int, int] = (0, 0)) -> dict[str, object]:
        return {"points": [[light.get(p, 0), dark.get(p, 0)] for p in range(1, 25)],
                "bar": {"light": bar[0], "dark": bar[1]}}

    home = {19: 5, 20: 4, 24: 2}  # light's eleven checkers in one quarter
    assert game_totals(label(home, {6: 15}), light_moves=True) == CheckerTotals((7, 11), (15, 15))
    three_out = {**home, 12: 3}
    assert game_totals(label(three_out, {6: 15}), light_moves=True) == CheckerTotals((10, 14), (15, 15))
    four_out = label(three_out, {6: 15}, bar=(1, 0))  # the fourth on the bar
    assert game_totals(four_out, light_moves=True) == CheckerTotals((15, 15), (15, 15))
    assert game_totals(four_out, light_moves=False) == CheckerTotals((15, 15), (11, 15))
    # the labels do not say which quarter is home: the one holding most of the side's checkers
    elsewhere = label({7: 5, 9: 4, 12: 2, 20: 3}, {6: 15})
    assert game_totals(elsewhere, light_moves=True) == CheckerTotals((10, 14), (15, 15))
    assert game_totals(label({7: 5, 9: 4, 20: 4}, {6: 15}), light_moves=True) == CheckerTotals((13, 13), (15, 15))
