"""Board geometry, persistence, markers and colour learning."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import BoardGeometry, Calibration, calibrate, detect_marker_corners, recheck
from vision.dataset import calibration_for, load_dataset
from vision.render import Scene, camera_corners, random_setup, render

CORNERS = [[100, 50], [1100, 60], [1120, 700], [90, 690]]


def geometry() -> BoardGeometry:
    return BoardGeometry.from_corners(CORNERS, (1280, 720))


def test_point_layout_follows_the_board_frame() -> None:
    geo = geometry()
    assert geo.region(geo.to_image([0.97, 0.9])) == 1
    assert geo.region(geo.to_image([0.03, 0.9])) == 12
    assert geo.region(geo.to_image([0.03, 0.1])) == 13
    assert geo.region(geo.to_image([0.97, 0.1])) == 24
    assert geo.region(geo.to_image([0.5, 0.3])) == "bar"
    assert geo.region([5, 5]) is None
    assert geo.half(geo.to_image([0.2, 0.5])) == "left"
    assert geo.half(geo.to_image([0.8, 0.5])) == "right"
    assert geo.side(geo.to_image([0.8, 0.2])) == "top"
    p6 = geo.point_u(6)
    p7 = geo.point_u(7)
    assert p6[0] >= geo.bar_u[1] and p7[1] <= geo.bar_u[0]


def test_transforms_round_trip() -> None:
    geo = geometry()
    uv = np.array([[0.1, 0.2], [0.9, 0.7]])
    assert np.allclose(geo.to_board(geo.to_image(uv)), uv, atol=1e-6)
    assert np.allclose(geo.to_image([0, 0]), CORNERS[0])
    assert geo.on_surface(geo.to_image([0.5, 0.5])) and not geo.on_surface([1200, 10])
    assert 30 < geo.checker_diameter_px(geo.to_image([0.5, 0.5])) < 100


def test_bad_corners_are_rejected() -> None:
    with pytest.raises(ValueError):
        BoardGeometry.from_corners([[0, 0], [1, 0]], (10, 10))
    with pytest.raises(ValueError):
        BoardGeometry.from_corners([[0, 0], [0, 0], [0, 0], [0, 0]], (10, 10))


def test_save_and_load(tmp_path: Path, small_dataset: Path) -> None:
    calib = calibration_for(load_dataset(small_dataset))
    path = tmp_path / "calibration.json"
    calib.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.geometry.corners, calib.geometry.corners, atol=0.01)
    assert again.geometry.bar_u == pytest.approx(calib.geometry.bar_u)
    assert again.colours.light == pytest.approx(calib.colours.light)
    assert again.background is not None and again.background.shape == calib.background.shape
    # the photo of the start position, which the learned counter learns the sides' colours from
    assert calib.start_frame is not None and again.start_frame is not None
    assert again.start_frame.shape == calib.start_frame.shape and again.start_variant == calib.start_variant
    assert np.abs(again.start_frame.astype(int) - calib.start_frame).mean() < 3  # a JPEG, as the reference frame
    # a calibration file from before the start photo was kept still loads, without one
    data = json.loads(path.read_text())
    del data["start_jpg"], data["start_variant"]
    path.write_text(json.dumps(data))
    older = Calibration.load(path)
    assert older.start_frame is None and older.colours.light == pytest.approx(calib.colours.light)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError):
        Calibration.load(tmp_path / "bad.json")


def test_a_start_photo_that_is_the_reference_photo_is_kept_once(tmp_path: Path, small_dataset: Path) -> None:
    """Calibrated from the start position alone, its photo is both the reference the gate compares
    with and the start photo the learned counter learns from: the file holds it once, and loads
    both; calibrated with an empty-board photo too, the two photos stay two."""
    dataset = load_dataset(small_dataset)
    start, _ = dataset.reference("start")
    empty, _ = dataset.reference("empty")
    size = (start.shape[1], start.shape[0])
    alone, both = tmp_path / "alone.json", tmp_path / "both.json"
    calibrate(dataset.corners, size, start=start).save(alone)
    calibrate(dataset.corners, size, empty=empty, start=start).save(both)
    data = json.loads(alone.read_text())
    assert data["start_jpg"] is None and data["start_is_reference"] and data["reference_jpg"]
    again = Calibration.load(alone)
    assert again.background_source == "start" and again.start_frame is not None and again.reference_frame is not None
    assert np.array_equal(again.start_frame, again.reference_frame)
    assert np.abs(again.start_frame.astype(int) - start).mean() < 3
    two = Calibration.load(both)
    assert two.start_frame is not None and two.reference_frame is not None
    assert np.abs(two.start_frame.astype(int) - start).mean() < 3 and np.abs(two.reference_frame.astype(int) - empty).mean() < 3


def test_colours_learnt_from_start_position(small_dataset: Path) -> None:
    calib = calibration_for(load_dataset(small_dataset))
    assert calib.colours.learnt
    assert calib.colours.light[0] > calib.colours.dark[0] + 30


def test_markers_give_the_corners() -> None:
    rng = np.random.default_rng(5)
    setup = next(s for s in (random_setup(rng, "wooden") for _ in range(50)) if s.markers)
    image, _ = render(setup, Scene(points=[(0, 0)] * 24, seed=1))
    corners = detect_marker_corners(image)
    assert corners is not None
    assert np.max(np.abs(corners - setup.corners)) < 9  # the stickers' quiet zone
    calib = calibrate(None, (1280, 720), empty=image)
    assert np.max(np.abs(calib.geometry.corners - setup.corners)) < 9


def test_recheck_notices_a_bumped_board() -> None:
    setup = random_setup(np.random.default_rng(9), "tournament")
    setup.markers = False
    image, _ = render(setup, Scene(points=[(0, 0)] * 24, seed=1))
    calib = calibrate(setup.corners, (1280, 720), empty=image)
    same = recheck(calib, image)
    assert same is not None and same < 2
    moved = np.roll(image, 12, axis=1)
    shift = recheck(calib, moved)
    assert shift is not None and shift > 6


@pytest.mark.parametrize("tilt", [0.0, 20.0, 35.0, 50.0])
def test_an_oblique_view_keeps_the_boards_proportions(tilt: float) -> None:
    # The sides' ratio in the picture shrinks with the tilt (0.66 at 35 degrees for 0.79); the
    # geometry's aspect stays near the board's own: closely with the camera it assumes (62
    # degrees wide), and still far closer than the sides' ratio with a wider or narrower one.
    for hfov in (54.0, 62.0, 72.0):
        corners = camera_corners(0.79, 500.0, (0.0, 0.0), tilt_deg=tilt, roll_deg=0.0, hfov_deg=hfov)
        geo = BoardGeometry.from_corners(corners, (1280, 720))
        c = corners
        sides = (np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / (
            np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3]))
        if hfov == 62.0 or tilt == 0.0:
            assert abs(geo.aspect - 0.79) < 0.02, (tilt, hfov, geo.aspect)
        else:
            assert abs(geo.aspect - 0.79) < 0.6 * abs(sides - 0.79), (tilt, hfov, geo.aspect, sides)


def test_up_on_the_board_points_away_from_the_camera_in_the_picture() -> None:
    # Where a die's top face lies from its base in the picture (its side faces show on the other
    # side): from straight above, radially away from the picture's centre; from beyond the near
    # edge, toward the far edge, leaning outward at the sides.
    above = BoardGeometry.from_corners(camera_corners(0.79, 500.0, (0.0, 0.0), tilt_deg=0.0, roll_deg=0.0,
                                                      hfov_deg=62.0), (1280, 720))
    for dx, dy in ((200.0, 100.0), (-150.0, 120.0), (0.0, -180.0)):
        ux, uy = above.up_direction((640 + dx, 360 + dy))
        assert np.hypot(ux, uy) == pytest.approx(1.0)
        assert ux * dx + uy * dy > 0.99 * np.hypot(dx, dy), (dx, dy, ux, uy)
    oblique = BoardGeometry.from_corners(camera_corners(0.79, 500.0, (0.0, 0.0), tilt_deg=35.0, roll_deg=0.0,
                                                        hfov_deg=62.0), (1280, 720))
    middle = oblique.to_image([0.5, 0.5]).reshape(2)
    left = oblique.to_image([0.05, 0.5]).reshape(2)
    right = oblique.to_image([0.95, 0.5]).reshape(2)
    ux, uy = oblique.up_direction(middle)
    assert uy < -0.95 and abs(ux) < 0.1
    assert oblique.up_direction(left)[0] < -0.1 and oblique.up_direction(right)[0] > 0.1
