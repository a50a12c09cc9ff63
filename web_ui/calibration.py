"""Calibration: the camera frame with the detected board drawn over it, four clicked corners,
capturing the empty board and the starting position, and what the camera reads now."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from web_ui import board_svg
from web_ui.common import csrf_token, is_unlocked, state, t
from web_ui.options import VARIANTS

bp = Blueprint("calibration", __name__)


def _reading_html() -> str:
    st = state()
    reading = st.view.camera_reading()
    if reading is None:
        return render_template("_reading.html", reading=None, board="")
    layout = board_svg.layout_from_reading(reading, st.view.snapshot().variant)
    return render_template("_reading.html", reading=reading, board=board_svg.render(layout, t, element_id="reading-board"))


@bp.get("/calibration")
def page() -> str:
    return render_template(
        "calibration.html",
        reading=_reading_html(),
        unlocked=is_unlocked(),
        csrf=csrf_token(),
        pin_set=state().pins.is_set(),
        variants=VARIANTS,
        snap=state().view.snapshot(),
    )


@bp.get("/calibration/frame.jpg")
def frame() -> Response:
    data = state().view.camera_jpeg()
    if data is None:
        return Response(t("cal.no_frame"), status=404, mimetype="text/plain")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/calibration/reading")
def reading() -> Response:
    return jsonify({"html": _reading_html()})
