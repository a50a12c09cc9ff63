"""The read's shortcuts (work done once, or only where it is looked at) give what the full work
gives: the gate's hand verdict reused, the band averages computed per column, the checker and
change masks warped only near the dice, the blob boxes and medians computed in bulk.  (Each was
also checked, by dumping every observation of 800 rendered frames before and after it, to leave
the readings unchanged.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import dice as dice_mod
from vision.checkers import (
    _columns,
    _context,
    _median1,
    checker_mask,
    normalise_illumination,
    occupancy_map,
    read_checkers,
)
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.pipeline import Reader


def _without_timings(obs: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(obs).items() if k != "timings"}


def test_the_gates_hand_verdict_reads_as_the_readers_own(small_dataset: Path) -> None:
    dataset = load_dataset(small_dataset)
    calib = calibration_for(dataset, VisionConfig())
    own, told = Reader(calib), Reader(calib)
    refused = 0
    for name in dataset.frames:
        image = dataset.image(name)
        state = told.gate.update(image)
        mine, theirs = own.read(image), told.read(image, hand=state.hand)
        assert _without_timings(theirs) == _without_timings(mine), name
        assert "occlusion" in mine.timings and "occlusion" not in theirs.timings
        refused += theirs.refused
    assert refused > 0  # the set has hands over the board, and they were refused
    hand = told.read(dataset.image(dataset.frames[0]), hand=True)
    assert hand.refused and hand.occluded and hand.points is None


@pytest.fixture(scope="module")
def scene(small_dataset: Path) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, Any]:
    dataset = load_dataset(small_dataset)
    config = VisionConfig()
    calib = calibration_for(dataset, config)
    labels = [dataset.label(n) for n in dataset.frames]
    name = next(n for n, lab in zip(dataset.frames, labels, strict=True) if lab["roll"] != "none" and not lab.get("occluded"))
    image = dataset.image(name)
    assert calib.background is not None
    canon = normalise_illumination(calib.geometry.warp(image, calib.canonical_width), calib.background)
    lab = cv2.cvtColor(canon, cv2.COLOR_BGR2LAB).astype(np.float32)
    occ = occupancy_map(canon, calib.background, config, lab=lab, colours=calib.colours.centres,
                        checker_px=calib.geometry.checker_u * canon.shape[1])
    return calib, image, canon, lab, occ


def test_band_columns_are_the_box_filter_of_the_whole_map(scene: tuple[Any, ...]) -> None:
    calib, _image, canon, lab, occ = scene
    config = VisionConfig()
    rng = np.random.default_rng(7)
    unknown = np.zeros(occ.shape, bool)
    unknown[rng.integers(0, occ.shape[0], 40), rng.integers(0, occ.shape[1], 40)] = True
    ctx = _context(calib, canon, config, unknown, lab, occ)
    w = occ.shape[1]
    cols = [0, 1, 5, w // 3, w // 2, w - 2, w - 1]
    k = 2 * max(2, int(round(0.18 * ctx.d))) + 1
    step = np.abs(np.diff(ctx.lum, axis=0, prepend=ctx.lum[:1])).astype(np.float32)
    whole = {
        "occ": cv2.blur(occ.astype(np.float32), (k, 1), borderType=cv2.BORDER_REPLICATE),
        "edge": cv2.blur(step, (k, 1), borderType=cv2.BORDER_REPLICATE),
        "occ3": cv2.blur(occ.astype(np.float32), (3, 1), borderType=cv2.BORDER_REPLICATE),
        "unknown": cv2.dilate(unknown.astype(np.uint8), np.ones((1, k), np.uint8)).astype(bool),
    }
    for kind, ref in whole.items():
        got = np.stack(_columns(ctx, kind, cols), axis=1)
        if kind == "unknown":
            assert np.array_equal(got, ref[:, cols])
        else:
            np.testing.assert_allclose(got, ref[:, cols], rtol=1e-6, atol=1e-6)
    # a new occupancy map (the bar's) is filtered afresh; the lightness columns are kept
    ctx.occ = occ.copy() * 0.5
    halved = np.stack(_columns(ctx, "occ", cols), axis=1)
    np.testing.assert_allclose(halved, 0.5 * whole["occ"][:, cols], rtol=1e-6, atol=1e-6)


def test_masks_near_the_dice_match_the_whole_image_there(scene: tuple[Any, ...]) -> None:
    calib, image, canon, lab, occ = scene
    config = VisionConfig()
    reading = read_checkers(calib, canon, config, lab=lab, occ=occ)
    geo = calib.geometry
    points = [tuple(geo.to_image([0.3, 0.25])), tuple(geo.to_image([0.62, 0.8]))]
    reach = 3.0 * geo.die_size_px(points[0])
    whole_mask = checker_mask(calib, reading, canon.shape[:2], image.shape[:2])
    near_mask = checker_mask(calib, reading, canon.shape[:2], image.shape[:2], near=points, reach=reach)
    assert calib.background is not None
    whole_change = dice_mod.changed_from_empty(lab, calib.background, geo, image.shape[:2])
    near_change = dice_mod.changed_from_empty(lab, calib.background, geo, image.shape[:2], near=points,
                                              reach=reach)
    assert whole_mask.any()
    for whole, near in ((whole_mask, near_mask), (whole_change, near_change)):
        assert near.shape == whole.shape
        for x, y in points:
            r = int(reach) - 1
            ys, xs = slice(int(y) - r, int(y) + r), slice(int(x) - r, int(x) + r)
            # the same map there, but for a rare pixel whose nearest source pixel rounds the other
            # way (the window's coordinates are computed from its own origin)
            assert np.mean(near[ys, xs] != whole[ys, xs]) <= 1e-3
        assert not near[:, : int(min(x for x, _ in points) - reach) - 1].any()  # nothing far from them
    assert not checker_mask(calib, reading, canon.shape[:2], image.shape[:2], near=[], reach=reach).any()


def test_blob_boxes_in_bulk_are_each_contours_bounding_rect() -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        noise = cv2.GaussianBlur(rng.random((90, 120)).astype(np.float32), (0, 0), rng.uniform(0.8, 3.0))
        binary = (noise > rng.uniform(0.45, 0.55)).astype(np.uint8)
        contours, hier = cv2.findContours(binary, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            continue
        expected = [cv2.boundingRect(c) for c, h in zip(contours, hier[0], strict=True) if h[3] < 0]
        assert dice_mod._outer_boxes(contours, hier).tolist() == [list(r) for r in expected]


def test_short_medians_are_numpys() -> None:
    rng = np.random.default_rng(5)
    for n in range(1, 30):
        values = rng.random(n).astype(np.float32) * 3
        assert _median1(values) == float(np.median(values))


def test_scales_asked_again_are_the_same_and_a_new_board_forgets_them(small_dataset: Path) -> None:
    calib = calibration_for(load_dataset(small_dataset), VisionConfig())
    geo = calib.geometry
    at = tuple(geo.to_image([0.4, 0.3]))
    first = geo.px_per_unit(at)
    assert geo.px_per_unit(np.array(at)) == first
    moved = type(geo)(geo.corners * 0.5, geo.image_size)  # the same board seen half as large
    sx, sy = moved.px_per_unit(at)
    assert sx < 0.7 * first[0] and sy < 0.7 * first[1]
