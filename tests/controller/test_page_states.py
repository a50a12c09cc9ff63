"""What the page says about the camera and the board once a game is over (issue 24 item 8)."""

from __future__ import annotations

from controller.web import STALE_FRAME_S, camera_health


def test_a_stale_frame_is_never_ok() -> None:
    fresh = camera_health({"camera_ok": True, "fps": 12.5, "last_frame_age_s": 0.1})
    assert fresh.level == "ok" and fresh.detail == "12.5 fps"
    stale = camera_health({"camera_ok": True, "fps": 0.0, "last_frame_age_s": 7330.0})
    assert stale.level == "error" and "7330 s" in stale.detail
    assert camera_health({"camera_ok": True, "fps": 1.0, "last_frame_age_s": STALE_FRAME_S + 0.5}).level == "error"
    assert camera_health({"camera_ok": True, "fps": 0.0, "last_frame_age_s": None}).level == "warn"
    assert camera_health({"camera_ok": False, "fps": 0.0, "last_frame_age_s": 0.2}).level == "error"
