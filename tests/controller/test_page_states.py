"""What the page says about the camera and the board once a game is over (issue 24 item 8)."""

from __future__ import annotations

import re
from pathlib import Path

from controller.referee import Referee, RefereeSettings
from controller.signals import BoardSignals
from controller.web import STALE_FRAME_S, RefereeHub, camera_health
from recording.journal import Header, Journal
from rules.position import starting_position
from tests.controller.test_referee import obs, play, start_game
from web_ui import board_svg


def test_a_stale_frame_is_never_ok() -> None:
    fresh = camera_health({"camera_ok": True, "fps": 12.5, "last_frame_age_s": 0.1})
    assert fresh.level == "ok" and fresh.detail == "12.5 fps"
    stale = camera_health({"camera_ok": True, "fps": 0.0, "last_frame_age_s": 7330.0})
    assert stale.level == "error" and "7330 s" in stale.detail
    assert camera_health({"camera_ok": True, "fps": 1.0, "last_frame_age_s": STALE_FRAME_S + 0.5}).level == "error"
    assert camera_health({"camera_ok": True, "fps": 0.0, "last_frame_age_s": None}).level == "warn"
    assert camera_health({"camera_ok": False, "fps": 0.0, "last_frame_age_s": 0.2}).level == "error"


def test_a_question_draws_the_reading_with_the_recorded_position_as_ghosts(tmp_path: Path) -> None:
    """Issue 24 item 2: an uncertain reading asks; the board drawn is the reading (8/5 6/5 played),
    with the recorded position (before the play) as dashed ghosts on the points that differ."""
    journal = Journal.create(tmp_path / "m.jsonl", Header(variant="backgammon", match_length=5, players=("Ana", "Ion")))
    hub = RefereeHub(tmp_path)
    signals = BoardSignals(None)
    signals.add_listener(hub.publish)
    referee = Referee(journal, signals, RefereeSettings(confirm_reads=2, question_after_reads=3))
    hub.attach_referee(referee)
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after, dice=(3, 1)))
    for _ in range(3):
        referee.observe(obs(after, confidence=0.1))
    snap = hub.snapshot()
    assert snap.phase == "question" and snap.question is not None and snap.question.read == after
    svg = board_svg.render_snapshot(snap)
    points = {int(m.group(1)): m.group(2) for m in re.finditer(r'<g class="point[^"]*" data-point="(\d+)"[^>]*>(.*?)</g>', svg)}
    assert points[5].count('class="ck ck-light"') == 2 and "ck-ghost" not in points[5]  # reading: two on 5
    assert points[8].count('class="ck ck-light"') == 2 and points[8].count("ck-ghost ghost-light") == 3
    assert points[6].count("ck-ghost ghost-light") == 5 and "ck-ghost" not in points[13]


def test_state_json_tells_scripts_about_the_alert_and_a_void_roll(tmp_path: Path) -> None:
    from tests.web_ui.conftest import app_config
    from web_ui import create_app

    journal = Journal.create(tmp_path / "m.jsonl", Header(variant="backgammon", match_length=5, players=("Ana", "Ion")))
    hub = RefereeHub(tmp_path)
    signals = BoardSignals(None)
    signals.add_listener(hub.publish)
    referee = Referee(journal, signals, RefereeSettings(confirm_reads=2, question_after_reads=3))
    hub.attach_referee(referee)
    client = create_app(hub, hub, app_config(tmp_path)).test_client()  # type: ignore[arg-type]
    start_game(referee, 3, 1)
    after = play(starting_position(), "31", "8/5 6/5")
    referee.observe(obs(after, dice=(3, 1)))
    referee.observe(obs(after))
    before = referee.state.position_for(1)
    referee.observe(obs(before, False))
    referee.observe(obs(before, False, dice=(4, 4), roll="void", void_reason="on_checker", half="left"))
    state = client.get("/state.json", headers={"Host": "localhost"}).json
    assert state["void_roll"] == "on_checker" and state["alert"] is None
    referee.observe(obs(before, False))
    referee.observe(obs(before, False, dice=(3, 1), half="left"))
    wrong = play(before, "42", "13/9 13/11")  # not possible with 3-1
    referee.observe(obs(wrong, False))
    referee.observe(obs(wrong, False))
    state = client.get("/state.json", headers={"Host": "localhost"}).json
    assert state["void_roll"] == "" and state["phase"] == "illegal"
    assert state["alert"]["can_accept"] is False and state["alert"]["read"] == wrong.id
