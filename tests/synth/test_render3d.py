"""The physically based renderer (`referee render3d`, issue 19): designs, scenes whose labels say
what the picture shows, POV-Ray's camera agreeing with the labels' projection, datasets that
`referee vision eval` reads, reproducibility, contact sheets and one-line errors.

Frames are rendered small (POV-Ray from Debian, `make setup`)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from synth.dataset3d import plan, render_moment
from synth.designs import DESIGNS, design
from synth.scene import (
    DIE_BODIES,
    CheckerPiece,
    DiceLook,
    DiePiece,
    Moment,
    board_xz,
    label_of,
    make_rig,
    moment_from_counts,
    place_dice,
    point_centre_u,
    random_counts,
    random_dice_look,
    random_moment,
    vary_pips,
)
from vision.dataset import load_dataset
from vision.evaluate import SUMMARY_KEYS

MODEL_CARD_NAMES = {
    "tuning": {"acrylic-smoked", "felt-navy-lowcontrast", "leatherette-cream", "nardy-oak-painted",
               "nardy-walnut-inlaid", "tournament-cork", "tournament-felt-green", "travel-vinyl"},
    "held-out": {"tournament-leatherette-black", "tavla-mahogany-carved", "travel-magnetic", "marble-white"},
}


# --- designs --------------------------------------------------------------------------------------
def test_list_designs_prints_name_kind_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render3d", "--list-designs"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [line.split("\t") for line in lines]
    assert all(len(r) == 3 and r[2] for r in rows)
    kinds: dict[str, set[str]] = {"tuning": set(), "held-out": set()}
    for name, kind, _ in rows:
        kinds[kind].add(name)
    assert kinds == MODEL_CARD_NAMES  # a third held out; the names the model card refers to


def test_designs_span_the_sizes_the_issue_asks_for() -> None:
    checkers = [d.point_width * d.checkers.fill for d in DESIGNS]
    assert 24.5 <= min(checkers) and max(checkers) <= 40.5  # 25-40 mm checkers
    assert min(d.dice.size[0] for d in DESIGNS) <= 12.5 and max(d.dice.size[1] for d in DESIGNS) >= 18.5
    assert len({d.field for d in DESIGNS}) >= 7 and len({d.frame_height for d in DESIGNS}) >= 8
    for d in DESIGNS:  # a checker fits its point, and five of them a point's half of the board
        assert d.checkers.fill <= 1.0
        assert 5.05 * d.point_width * d.checkers.fill < d.width * d.aspect / 2


# --- scenes and labels (no rendering) -----------------------------------------------------------
def _point_of(design_name: str, u: float, v: float, bar: float) -> int:
    """The point (1..24) or bar (25) whose column holds board coordinates (u, v)."""
    if abs(u - 0.5) < bar / 2:
        return 25
    d = design(design_name)
    best = min(range(1, 25), key=lambda p: abs(point_centre_u(d, p) - u) + (0 if (p >= 13) == (v < 0.5) else 9))
    return best


@pytest.mark.parametrize("name", ["tournament-felt-green", "nardy-walnut-inlaid", "travel-magnetic"])
def test_every_checker_lies_where_its_label_counts_it(name: str) -> None:
    rig, _, start, moments = plan(name, 25, seed=7, size=(640, 360))
    corners = rig.corners()
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_board = cv2.getPerspectiveTransform(corners.astype(np.float32), unit)
    for moment in [start, *moments]:
        label = label_of(moment, rig.play_camera)
        seen = [[0, 0] for _ in range(25)]
        for c in moment.checkers:
            # where the checker's foot shows in the picture, read back through the clicked corners
            foot = rig.play_camera.project([[c.x, 0.0, c.z]])
            u, v = cv2.perspectiveTransform(foot.reshape(1, 1, 2).astype(np.float32), to_board)[0, 0]
            seen[_point_of(name, float(u), float(v), rig.design.bar) - 1][c.colour] += 1
        assert seen[:24] == label["points"]
        assert tuple(seen[24]) == (label["bar"]["light"], label["bar"]["dark"])
        light = sum(p[0] for p in label["points"]) + label["bar"]["light"]
        dark = sum(p[1] for p in label["points"]) + label["bar"]["dark"]
        assert light <= 15 and dark <= 15
        assert all(not (a and b) for a, b in label["points"])


def _half(rig_width: float, x: float) -> str:
    return "left" if x < rig_width / 2 else "right"


@pytest.mark.parametrize("kind", ["valid", "different_halves", "cocked", "on_checker", "off_board"])
def test_dice_lie_as_their_label_says(kind: str) -> None:
    rig = make_rig(design("tournament-cork"), 3)
    w, h = rig.design.width, rig.height
    rng = np.random.default_rng(11)
    placed = 0
    for _ in range(30):
        points, bar = random_counts(rng)
        moment = moment_from_counts(rig, points, bar, int(rng.integers(1000)))
        place_dice(rig, moment, kind, rng)
        if moment.roll == "none":
            continue
        placed += 1
        label = label_of(moment, rig.play_camera)
        assert label["roll"] == ("valid" if kind == "valid" else "void")
        assert label["void_reason"] == (None if kind == "valid" else kind)
        assert [d["value"] for d in label["dice"]] == [d.value for d in moment.dice]
        on_surface = [0 <= d.centre[0] <= w and 0 <= d.centre[2] <= h for d in moment.dice]
        flat = [d.tilt == 0 for d in moment.dice]
        resting_on_field = [abs(d.centre[1] - d.size / 2) < 1e-6 for d in moment.dice]
        halves = {_half(w, d.centre[0]) for d in moment.dice}
        if kind in ("valid", "different_halves"):
            assert all(on_surface) and all(flat) and all(resting_on_field)
            assert len(halves) == (1 if kind == "valid" else 2)
            for d in moment.dice:  # flat on the board, not on a checker
                assert all(math.hypot(c.x - d.centre[0], c.z - d.centre[2]) > rig.checker_d / 2 for c in moment.checkers)
        elif kind == "cocked":
            assert sum(not f for f in flat) == 1 and all(on_surface)
        elif kind == "on_checker":
            high = [d for d in moment.dice if d.centre[1] > d.size / 2 + 1]
            assert len(high) == 1
            under = min(moment.checkers, key=lambda c: math.hypot(c.x - high[0].centre[0], c.z - high[0].centre[2]))
            assert math.hypot(under.x - high[0].centre[0], under.z - high[0].centre[2]) < rig.checker_d / 2
        else:
            assert on_surface.count(False) == 1
    assert placed >= 20


def test_hands_are_labelled_occluded_and_over_the_surface() -> None:
    rig = make_rig(design("leatherette-cream"), 4)
    rng = np.random.default_rng(2)
    moments = [random_moment(rig, rng, occluded_rate=0.5) for _ in range(40)]
    with_hand = [m for m in moments if m.hand is not None]
    assert 8 <= len(with_hand) <= 32
    for m in moments:
        assert label_of(m, rig.play_camera)["occluded"] == (m.hand is not None)
    for m in with_hand:
        assert m.hand is not None
        x, _, z = m.hand.tip
        assert 0 < x < rig.design.width and 0 < z < rig.height


def test_play_differs_from_calibration_as_the_issue_asks() -> None:
    for seed in range(20):
        rig = make_rig(design("marble-white"), seed)
        a, b = rig.calibration_light.lamps[0], rig.play_light.lamps[0]
        moved = np.abs(np.subtract(a.position, b.position))
        assert moved[0] <= 500 and moved[2] <= 500 and moved[1] <= 250
        assert 2700 <= b.kelvin <= 6500 and 0.69 * a.intensity <= b.intensity <= 1.31 * a.intensity
        # the camera nudged a few pixels after calibration
        shift = np.abs(rig.camera.project([[250.0, 0.0, 200.0]]) - rig.play_camera.project([[250.0, 0.0, 200.0]]))
        assert 0.5 < float(shift.max()) < 6
        tilt = math.degrees(math.acos(-rig.camera.forward[1]))
        assert 0 <= tilt <= 35.5 and 55 <= rig.camera.hfov_deg <= 80
    same = make_rig(design("marble-white"), 3, same_light=True)
    assert same.play_light == same.calibration_light


# --- POV-Ray's picture agrees with the projection -------------------------------------------------
def _brighter_blob_centre(before: np.ndarray, after: np.ndarray) -> tuple[float, float]:
    rise = after.astype(np.int16) - before.astype(np.int16)
    mask = (rise.max(axis=2) > 50).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    assert n > 1, "nothing new appeared in the picture"
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return float(centroids[biggest][0]), float(centroids[biggest][1])


@pytest.mark.slow
def test_a_die_and_a_checker_appear_where_the_label_projects_them() -> None:
    rig = make_rig(design("tournament-felt-green"), 5, (640, 360))
    rig.die_body, rig.die_pips = (240, 238, 232), (20, 20, 22)
    rig.light_colour = (240, 236, 226)
    empty = Moment([(0, 0)] * 24, (0, 0), [], seed=1)
    before, settings = render_moment(rig, empty, rig.calibration_light, False, None, quality="standard")
    x, z = board_xz(rig.design, 0.7, 0.3)
    with_die = Moment([(0, 0)] * 24, (0, 0), [], [DiePiece(5, (x, rig.die_size / 2, z), 20.0, rig.die_size)],
                      roll="valid", seed=1)
    after, _ = render_moment(rig, with_die, rig.calibration_light, False, settings, quality="standard")
    centre = label_of(with_die, rig.play_camera)["dice"][0]["centre"]
    found = _brighter_blob_centre(before, after)
    assert math.dist(found, centre) < 2.0
    # a light checker on P19 (a dark point): the middle of its top face
    cx = point_centre_u(rig.design, 19) * rig.design.width
    cz = rig.height - rig.checker_d / 2 - 1
    checker = Moment([(0, 0)] * 24, (0, 0), [CheckerPiece(cx, 0.0, cz, 0, 19)], seed=1)
    after, _ = render_moment(rig, checker, rig.calibration_light, False, settings, quality="standard")
    top = rig.play_camera.project([[cx, rig.checker_t, cz]])[0]
    assert math.dist(_brighter_blob_centre(before, after), top) < 2.5


@pytest.mark.slow
def test_dice_variety_changes_only_how_the_dice_look() -> None:
    rig, _, _, plain = plan("travel-vinyl", 24, 2704)
    _, _, _, varied = plan("travel-vinyl", 24, 2704, dice_variety=True)
    # the same positions, dice, hands and labels: only the dice's colours differ
    assert [label_of(m, rig.play_camera) for m in plain] == [label_of(m, rig.play_camera) for m in varied]
    looks = [m.dice_look for m in varied]
    assert all(m.dice_look is None for m in plain) and all(look is not None for look in looks)
    bodies = np.array([look.body for look in looks if look], float)
    catalogue = np.array(DIE_BODIES, float)
    nearest = {int(np.argmin(np.linalg.norm(catalogue - b, axis=1))) for b in bodies}
    assert len(nearest) >= 8  # many kinds of dice among 24 frames, pale and dark
    luma = bodies @ [0.299, 0.587, 0.114]
    assert luma.min() < 60 and luma.max() > 200
    # red pips on a black body, as on the held-out black leatherette board, are among them
    many = [random_dice_look(np.random.default_rng([7, k])) for k in range(300)]
    assert any(max(look.body) < 60 and look.pips[0] > 150 and look.pips[1] < 80 for look in many)
    # and the picture shows them: a black die where the rig's white one was
    rig = make_rig(design("travel-magnetic"), 5, (640, 360))
    x, z = board_xz(rig.design, 0.7, 0.3)
    die = [DiePiece(4, (x, rig.die_size / 2, z), 20.0, rig.die_size)]
    white = Moment([(0, 0)] * 24, (0, 0), [], die, roll="valid", seed=1)
    black = Moment([(0, 0)] * 24, (0, 0), [], die, roll="valid", seed=1,
                   dice_look=DiceLook((28, 28, 30), (246, 244, 238), 0.1, True))
    seen = []
    for moment in (white, black):
        image, _ = render_moment(rig, moment, rig.calibration_light, False, None, quality="standard")
        cx, cy = label_of(moment, rig.play_camera)["dice"][0]["centre"]
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        seen.append(float(np.median(gray[int(cy) - 3:int(cy) + 4, int(cx) - 3:int(cx) + 4])))
    assert seen[1] < seen[0] - 80


def test_pip_variety_changes_only_the_pips_shape() -> None:
    rig, _, _, looks_only = plan("tournament-cork", 40, 2805, dice_variety=True)
    _, _, _, shaped = plan("tournament-cork", 40, 2805, dice_variety=True, pip_variety=True)
    # the same scenes and the same dice colours: only the pips' shape differs
    assert [label_of(m, rig.play_camera) for m in looks_only] == [label_of(m, rig.play_camera) for m in shaped]
    pairs = [(a.dice_look, b.dice_look) for a, b in zip(looks_only, shaped, strict=True)]
    assert all(a is not None and b is not None and replace(b, pip_scale=1.0, spread=1.0, one_scale=1.0, one_pip=None) == a
               for a, b in pairs)
    shapes = [b for _, b in pairs if b is not None]
    scales = [look.pip_scale for look in shapes]
    assert min(scales) < 0.9 and max(scales) > 1.15
    assert 8 <= sum(look.one_scale > 1.4 for look in shapes) <= 32  # about half the sets: a big one
    many = [vary_pips(DiceLook((240, 238, 232), (20, 20, 22), 0.1, True), np.random.default_rng([3, k]))
            for k in range(200)]
    assert any(look.one_pip is not None and look.one_pip[0] > 150 for look in many)  # a red one on a white die
    assert all(look.one_pip is None for look in many if look.one_scale == 1.0)
    with pytest.raises(ValueError, match="dice variety"):
        plan("tournament-cork", 4, 2805, pip_variety=True)


def _top_face(value: int, look: DiceLook) -> np.ndarray:
    """The middle of a die's top face (11x11 px, BGR) showing ``value``, rendered with ``look``."""
    rig = make_rig(design("travel-magnetic"), 5, (640, 360))
    x, z = board_xz(rig.design, 0.7, 0.3)
    die = [DiePiece(value, (x, rig.die_size / 2, z), 20.0, rig.die_size)]
    moment = Moment([(0, 0)] * 24, (0, 0), [], die, roll="valid", seed=1, dice_look=look)
    tx, ty = (int(round(v)) for v in rig.play_camera.project([[x, rig.die_size, z]])[0])
    image, _ = render_moment(rig, moment, rig.calibration_light, False, None, window=(tx - 20, ty - 20, tx + 21, ty + 21))
    return image[ty - 5:ty + 6, tx - 5:tx + 6]


@pytest.mark.slow
def test_a_big_one_pip_is_seen_big_and_red_when_red() -> None:
    """A die showing one: its pip covers about one_scale squared as much of the top face, and is
    red when the one's pip is; the other faces' pips are as they were."""
    def dark(value: int, one_scale: float) -> int:
        look = DiceLook((240, 238, 232), (20, 20, 22), 0.1, False, 1.0, 1.0, one_scale, None)
        return int((cv2.cvtColor(_top_face(value, look), cv2.COLOR_BGR2GRAY) < 100).sum())

    common, big = dark(1, 1.0), dark(1, 2.2)
    assert common > 0 and big > 2 * common
    assert dark(5, 2.2) == dark(5, 1.0)  # a big one leaves the five's pips alone
    red = _top_face(1, DiceLook((240, 238, 232), (20, 20, 22), 0.1, False, 1.0, 1.0, 2.2, (200, 28, 34)))
    b, g, r = (float(v) for v in red[4:7, 4:7].reshape(-1, 3).mean(axis=0))
    assert r > 2 * g and r > 2 * b  # the pip in the middle is red, not the black of the others


@pytest.mark.slow
def test_a_window_traces_what_the_whole_frame_shows_there_and_nothing_else() -> None:
    """The dice reader's extra training crops (synth.dice_windows) are traced in a window around
    the dice: inside it the picture is the whole frame's, outside it black; held-out designs are
    refused."""
    from synth.dice_windows import window_crops
    from synth.povray import render_linear, scene_text

    rig, _, _, moments = plan("travel-vinyl", 4, 2801, (320, 180), occluded_rate=0.0)
    moment = next(m for m in moments if m.dice)
    text = scene_text(rig, moment, rig.play_light, rig.play_camera)
    whole = render_linear(text, (320, 180))
    part = render_linear(text, (320, 180), window=(100, 40, 180, 120))
    assert np.abs(part[40:120, 100:180] - whole[40:120, 100:180]).max() < 1e-3
    outside = np.ones(part.shape[:2], bool)
    outside[40:120, 100:180] = False
    assert part[outside].max() == 0 and whole[40:120, 100:180].max() > 0.05
    with pytest.raises(ValueError, match="outside"):
        render_linear(text, (320, 180), window=(400, 200, 500, 300))
    with pytest.raises(ValueError, match="held-out"):
        window_crops("marble-white", 1, 2801)


@pytest.mark.slow
def test_windows_of_one_kind_lay_every_scene_s_dice_so() -> None:
    """``--kind cocked`` windows teach "not flat" on every scene: each scene gives one leaning die
    (its crops marked not flat) and one flat die; an unknown kind is refused."""
    from synth.dice_windows import window_crops

    data = window_crops("travel-vinyl", 2, 2803, jitter=0, kind="cocked")
    frames = sorted(set(data["crop_frame"].tolist()))
    assert len(frames) == 2
    for frame in frames:
        assert sorted(data["crop_tilted"][data["crop_frame"] == frame].tolist()) == [0, 1]
    assert data["crops"].shape[1:] == (32, 32, 3) and set(data["values"].tolist()) <= set(range(1, 7))
    with pytest.raises(ValueError, match="--kind"):
        window_crops("travel-vinyl", 1, 2803, kind="leaning")


# --- datasets through the command line ----------------------------------------------------------------
@pytest.mark.slow
def test_dataset_is_read_by_vision_eval_and_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for k in range(2):
        out = tmp_path / f"d{k}"
        assert main(["render3d", "--dataset", str(out), "--design", "travel-magnetic", "--frames", "3", "--seed", "19",
                     "--size", "320x180", "--quiet"]) == 0
        runs.append(out)
    capsys.readouterr()
    dataset = load_dataset(runs[0])
    meta = dataset.meta
    assert meta["reference"]["empty"] == "frames/empty.png" and meta["reference"]["start"]["variant"] == "backgammon"
    assert meta["generator"]["design"] == "travel-magnetic" and meta["generator"]["kind"] == "held-out"
    assert dataset.corners is not None and dataset.image("frames/empty.png").shape == (180, 320, 3)
    assert len(dataset.frames) == 3
    for name in ["dataset.json", "frames/empty.png", "frames/start.png"] + [
            f for n in dataset.frames for f in (n, n.replace(".png", ".json"))]:
        assert (runs[0] / name).read_bytes() == (runs[1] / name).read_bytes(), name
    # the corners are the playing surface's: the start position's checkers lie inside them
    rig, _, start, _ = plan("travel-magnetic", 3, 19, (320, 180))
    assert np.allclose(dataset.corners, rig.corners(), atol=0.01)
    assert main(["vision", "eval", str(runs[0]), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(SUMMARY_KEYS) <= set(summary) and summary["frames"] == 3
    sheet = tmp_path / "sheet.png"
    assert main(["render3d", "--contact-sheet", str(runs[0]), "-o", str(sheet)]) == 0
    image = cv2.imread(str(sheet))
    assert image is not None and image.shape[1] == 4 * 640


@pytest.mark.parametrize(
    "argv",
    [
        ["render3d", "--dataset", "d", "--design", "no-such-board", "--frames", "1"],
        ["render3d", "--dataset", "d", "--design", "marble-white", "--frames", "0"],
        ["render3d", "--dataset", "d", "--design", "marble-white", "--size", "big"],
        ["render3d", "--dataset", "d"],
        ["render3d", "--contact-sheet", "nowhere"],
        ["render3d", "--contact-sheet", "nowhere", "-o", "s.png"],
    ],
)
def test_bad_input_is_one_line_exit_2(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee render3d: ") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_one_seed_gives_every_design_its_own_camera_and_positions() -> None:
    plans = [plan(d.name, 3, 1901) for d in DESIGNS]
    cameras = {round(rig.camera.hfov_deg, 3) for rig, _, _, _ in plans}
    positions = {tuple(map(tuple, moments[0].points)) for _, _, _, moments in plans}
    assert len(cameras) == len(DESIGNS) and len(positions) == len(DESIGNS)
    again = plan("marble-white", 3, 1901)
    assert again[0].camera == plans[-1][0].camera and again[3][2].points == plans[-1][3][2].points


def test_the_bar_rate_decides_how_often_each_side_is_on_the_bar() -> None:
    """`--bar-rate`: at 1 both sides have one to three checkers on the bar in every position, at 0
    neither ever has; each side keeps at most fifteen checkers."""
    for rate, sides_on_bar in ((0.0, 0), (1.0, 2)):
        rng = np.random.default_rng(4)
        for _ in range(25):
            points, bar = random_counts(rng, bar_rate=rate)
            assert sum(1 for n in bar if n) == sides_on_bar
            assert all(1 <= n <= 3 for n in bar if n)
            for side in (0, 1):
                assert sum(p[side] for p in points) + bar[side] <= 15


def test_a_bar_rate_out_of_range_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main

    assert main(["render3d", "--dataset", str(tmp_path / "set"), "--design", "tournament-cork", "--bar-rate", "1.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--bar-rate" in err
    assert not (tmp_path / "set").exists()


def _luma(rgb: tuple[int, int, int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def test_recolour_paints_the_board_and_checkers_anew_and_draws_the_rest_as_without() -> None:
    """`--recolour`: each seed its own field, points, frame and checkers, the
    lighter side lighter, the shapes and materials the design's; camera, light and positions as
    without, so a recoloured set is the same scenes in other colours."""
    fields, pairs = set(), set()
    for name in ("tournament-cork", "nardy-walnut-inlaid", "travel-vinyl"):
        for seed in (4501, 4502, 4503):
            rig, empty, start, moments = plan(name, 3, seed, recolour=True)
            plain = plan(name, 3, seed)
            assert rig.camera == plain[0].camera and rig.play_light == plain[0].play_light
            assert [m.points for m in moments] == [m.points for m in plain[3]]
            assert rig.design.checkers.material == design(name).checkers.material
            assert rig.design.width == design(name).width and rig.design.field == design(name).field
            assert _luma(rig.light_colour) >= _luma(rig.dark_colour) + 50
            assert (rig.light_colour, rig.dark_colour) != (plain[0].light_colour, plain[0].dark_colour)
            fields.add(rig.design.field_colour)
            pairs.add((rig.light_colour, rig.dark_colour))
    assert len(fields) == 9 and len(pairs) == 9


def test_a_recoloured_set_shows_its_colours_and_records_them(tmp_path: Path) -> None:
    """The frame is the same scene in other colours: its label the same, its pixels not; the
    colours drawn are written to dataset.json."""
    for flag in ([], ["--recolour"]):
        assert main(["render3d", "--dataset", str(tmp_path / f"set{len(flag)}"), "--design", "tournament-felt-green",
                     "--frames", "1", "--seed", "4501", "--size", "256x144", "--threads", "1", "--quiet", *flag]) == 0
    plain, recoloured = (json.loads((tmp_path / f"set{i}" / "dataset.json").read_text()) for i in (0, 1))
    assert "recolour" not in plain["generator"]
    colours = recoloured["generator"]["recolour"]
    assert set(colours) >= {"field", "points", "frame", "bar", "checkers"}
    assert ((tmp_path / "set0" / "frames" / "0001.json").read_text()
            == (tmp_path / "set1" / "frames" / "0001.json").read_text())
    a, b = (cv2.imread(str(tmp_path / f"set{i}" / "frames" / "empty.png")).astype(np.float32) for i in (0, 1))
    assert float(np.abs(a - b).mean()) > 10


def test_a_recoloured_held_out_design_is_still_held_out(tmp_path: Path) -> None:
    """A held-out design painted anew is for measuring readers on colours never seen: its set names
    the design as held out, and the data cutters refuse to train on it."""
    from synth.cut import not_for_training

    rig, _, _, moments = plan("marble-white", 2, 31105, recolour=True)
    plain = plan("marble-white", 2, 31105)
    assert (rig.light_colour, rig.dark_colour) != (plain[0].light_colour, plain[0].dark_colour)
    assert [m.points for m in moments] == [m.points for m in plain[3]]
    out = tmp_path / "set"
    assert main(["render3d", "--dataset", str(out), "--design", "travel-magnetic", "--recolour", "--frames", "1",
                 "--seed", "19", "--size", "256x144", "--threads", "1", "--quiet"]) == 0
    generator = json.loads((out / "dataset.json").read_text())["generator"]
    assert generator["kind"] == "held-out" and "recolour" in generator
    refusal = not_for_training(out)
    assert refusal is not None and "held-out" in refusal
