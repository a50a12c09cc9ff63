"""The page plugged into a live referee: snapshots, the event stream and actions with the PIN."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.demo import demo_setup
from controller.referee import Referee, RefereeSettings
from controller.signals import BoardSignals
from controller.table import Table
from controller.web import RefereeHub, mover_point
from recording.journal import Header, Journal
from rules.position import Position, starting_position
from tests.controller.test_referee import obs, play, start_game
from vision import render as rnd
from vision.calibration import calibrate
from vision.pipeline import Reader
from web_ui import create_app

PIN = "4321"


@pytest.fixture(scope="module")
def calibration():  # type: ignore[no-untyped-def]
    setup, _ = demo_setup("backgammon", 3)
    empty, _ = rnd.render(setup, rnd.Scene(points=[(0, 0)] * 24, seed=1))
    return calibrate(setup.corners, rnd.IMAGE_SIZE, empty=empty)


@pytest.fixture
def live(tmp_path: Path, calibration):  # type: ignore[no-untyped-def]
    journal = Journal.create(tmp_path / "m.jsonl", Header(variant="backgammon", match_length=5,
                                                           players=("Ana", "Ion")))
    hub = RefereeHub(tmp_path)
    signals = BoardSignals(None)
    signals.add_listener(hub.publish)
    referee = Referee(journal, signals, RefereeSettings())
    hub.attach(Table(Reader(calibration), referee))
    app = create_app(hub, hub, {"TESTING": True, "DATA_DIR": str(tmp_path), "PIN": PIN,
                                "TRUSTED_HOSTS": ["localhost"], "PIN_COST": 2**4})
    return hub, referee, app.test_client()


def test_snapshot_follows_the_game(live) -> None:  # type: ignore[no-untyped-def]
    hub, referee, _ = live
    start_game(referee, 3, 1)
    snap = hub.snapshot()
    assert snap.phase == "await_play" and snap.dice == (3, 1) and snap.players == ("Ana", "Ion")
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after))
    snap = hub.snapshot()
    assert snap.on_roll == 1 and snap.moves[-1].notation == "8/5 6/5"
    kinds = [kind for _, kind, _ in hub.events_since(0, 0)]
    assert "roll" in kinds and "play" in kinds


def test_illegal_play_alert_names_the_points_in_the_movers_numbering(live) -> None:  # type: ignore[no-untyped-def]
    hub, referee, client = live
    start_game(referee, 3, 1)
    start = starting_position()
    mover = list(start.mover)
    mover[12] -= 2
    mover[8] += 1
    mover[10] += 1
    wrong = Position(tuple(mover), start.opponent)
    referee.observe(obs(wrong))
    referee.observe(obs(wrong))
    snap = hub.snapshot()
    assert snap.phase == "illegal" and snap.alert is not None
    marked = {m.point for m in snap.alert.points}
    assert {9, 11} & marked
    page = client.get("/", headers={"Host": "localhost"})
    assert page.status_code == 200


def test_page_actions_reach_the_referee_only_with_the_pin(live) -> None:  # type: ignore[no-untyped-def]
    hub, referee, client = live
    start_game(referee, 3, 1)
    referee.observe(obs(play(starting_position(), "31", "8/5 6/5")))
    headers = {"Host": "localhost", "Accept": "application/json"}
    refused = client.post("/api/double", data={"pin": "0000"}, headers=headers)
    assert refused.status_code in (401, 403)
    assert referee.state.cube == 1
    done = client.post("/api/double", data={"pin": PIN}, headers=headers)
    assert done.status_code == 200, done.get_data(as_text=True)
    assert referee.state.phase == "cube"


def test_mover_point_inverts_the_seating() -> None:
    from controller.referee import Seating

    seating = Seating("bottom-right", 0, "backgammon")
    assert mover_point(6, seating, "backgammon", 0) == 6
    assert mover_point(6, seating, "backgammon", 1) == 19
    assert mover_point(25, seating, "backgammon", 1) == 25


def test_the_calibration_page_says_how_big_the_dice_are(live) -> None:  # type: ignore[no-untyped-def]
    """The calibration page gives the size of a die where the board is seen smallest, and warns
    when that is below what the dice reader needs (vision.calibration.DIE_PX_ADVISED)."""
    from vision.calibration import DIE_PX_ADVISED

    hub, _, client = live
    table = hub.table
    setup, _ = demo_setup("backgammon", 3)
    frame, _ = rnd.render(setup, rnd.Scene(points=[(0, 0)] * 24, seed=2))
    for second in range(6):  # settled frames until one is read
        table.feed(frame, now=float(second))
    geometry = table.reader.calibration.geometry
    size = geometry.smallest_die_px()
    corners = [geometry.die_size_px(geometry.to_image(np.array(uv, np.float64))) for uv in ((0, 0), (1, 0), (0, 1), (1, 1))]
    assert 0 < size <= min(corners) + 1e-6
    reading = hub.camera_reading()
    assert reading is not None and reading.die_px == round(size, 1) and reading.die_px_advised == DIE_PX_ADVISED
    html = client.get("/calibration/reading").get_json()["html"]
    assert f"{round(size)} px" in html
    assert ('id="dice-small"' in html) == (size < DIE_PX_ADVISED)
    # the same board seen by a camera at half the resolution: the dice are too small
    half = (rnd.IMAGE_SIZE[0] // 2, rnd.IMAGE_SIZE[1] // 2)
    small_frame = cv2.resize(frame, half, interpolation=cv2.INTER_AREA)
    small = Table(Reader(calibrate(np.asarray(setup.corners) * 0.5, half, empty=small_frame)), hub.referee)
    for second in range(6):
        small.feed(small_frame, now=float(second))
    hub.attach(small)
    html = client.get("/calibration/reading").get_json()["html"]
    assert small.reader.calibration.geometry.smallest_die_px() < DIE_PX_ADVISED
    assert 'id="dice-small"' in html
