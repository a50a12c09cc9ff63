"""Control behind the PIN: new game, accept an illegal play, confirm/correct a reading, correct the dice,
cube, resign, pause; the PIN itself (set at first start, unlock/lock a browser session)."""

from __future__ import annotations

import hmac
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from rules.errors import RulesError
from web_ui import board_svg
from web_ui.common import (
    authorise,
    check_origin,
    check_pin_or_fail,
    client_id,
    csrf_token,
    fail,
    is_unlocked,
    lang,
    live_parts,
    payload,
    state,
    t,
    unlock_session,
    wants_json,
)
from web_ui.options import VARIANTS, options_for, parse_options
from web_ui.security import check_pin_format
from web_ui.view import CommandRefused, Commands, OptionValue

bp = Blueprint("control", __name__)

NAME_MAX = 32


def clean_name(value: object, fallback: str) -> str:
    """A player's name: printable text, at most 32 characters (escaping is the template's job)."""
    if value is None:
        return fallback
    if not isinstance(value, str):
        fail(400, t("err.bad_name"))
    text = "".join(ch for ch in value if unicodedata.category(ch)[0] != "C").strip()
    text = re.sub(r"\s+", " ", text)
    if len(text) > NAME_MAX:
        fail(400, t("err.name_long", max=NAME_MAX))
    return text or fallback


def whole(value: object, low: int, high: int, what: str) -> int:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        fail(400, t("err.number", what=what, low=low, high=high))
    if not low <= number <= high:
        fail(400, t("err.number", what=what, low=low, high=high))
    return number


def variant_of(value: object) -> str:
    if value not in VARIANTS:
        fail(400, t("err.variant", names=", ".join(VARIANTS)))
    return str(value)


def counts(value: object, what: str) -> list[int]:
    if not isinstance(value, list) or len(value) != 25:
        fail(400, t("err.board_shape", what=what))
    return [whole(v, 0, 15, what) for v in value]


def _new_game(commands: Commands, data: dict[str, Any]) -> None:
    variant = variant_of(data.get("variant"))
    players = (clean_name(data.get("player0"), t("player.light")), clean_name(data.get("player1"), t("player.dark")))
    length = whole(data.get("match_length", 0), 0, 99, t("new.match_length"))
    try:
        options: dict[str, OptionValue] = parse_options(variant, data)
    except ValueError as error:
        fail(400, str(error))
    commands.new_game(variant, players, length, options)


def _correct(commands: Commands, data: dict[str, Any]) -> None:
    snap = state().view.snapshot()
    if "mover" in data or "position" in data:
        from rules.position import Position

        try:
            if "position" in data:
                position = Position.parse(str(data["position"])[:200], snap.variant)
            else:
                position = Position.from_json({"variant": snap.variant, "mover": data["mover"],
                                               "opponent": data.get("opponent")})
        except RulesError as error:
            fail(400, t("err.position", problem=str(error)))
    else:
        bottom = counts(data.get("bottom"), "bottom")
        top = counts(data.get("top"), "top")
        try:
            position = board_svg.position_from_layout(snap.variant, bottom, top, snap.on_roll)
        except RulesError as error:
            fail(400, t("err.position", problem=str(error)))
    commands.correct_reading(position)


def _corners(commands: Commands, data: dict[str, Any]) -> None:
    corners = data.get("corners")
    if not isinstance(corners, list) or len(corners) != 4:
        fail(400, t("err.corners"))
    points: list[tuple[float, float]] = []
    for corner in corners:
        if not isinstance(corner, list) or len(corner) != 2:
            fail(400, t("err.corners"))
        try:
            x, y = float(corner[0]), float(corner[1])
        except (TypeError, ValueError):
            fail(400, t("err.corners"))
        if not (0 <= x <= 20000 and 0 <= y <= 20000):
            fail(400, t("err.corners"))
        points.append((x, y))
    commands.set_corners(points)


def _tournament(commands: Commands, data: dict[str, Any]) -> None:
    value = str(data.get("on", "")).lower()
    if value not in ("1", "0", "true", "false", "on", "off"):
        fail(400, t("err.on_off"))
    setter = getattr(commands, "set_tournament", None)
    if setter is None:
        fail(409, t("err.unsupported"))
    setter(value in ("1", "true", "on"))


def _resume_damaged(commands: Commands, data: dict[str, Any]) -> None:
    """The director resumes a match whose journal lost events from before the damage."""
    resume = getattr(commands, "resume_damaged", None)
    if resume is None:
        fail(409, t("err.unsupported"))
    resume()


ACTIONS: dict[str, Callable[[Commands, dict[str, Any]], None]] = {
    "new_game": _new_game,
    "accept_illegal": lambda c, d: c.accept_illegal(),
    "confirm_reading": lambda c, d: c.confirm_reading(),
    "correct_reading": _correct,
    "correct_dice": lambda c, d: c.correct_dice((whole(d.get("die0"), 1, 6, t("ctl.dice")),
                                                  whole(d.get("die1"), 1, 6, t("ctl.dice")))),
    "double": lambda c, d: c.double(),
    "take": lambda c, d: c.take(),
    "drop": lambda c, d: c.drop(),
    "resign": lambda c, d: c.resign(whole(d.get("points", 1), 1, 3, t("act.resign"))),
    "pause": lambda c, d: c.pause(),
    "resume": lambda c, d: c.resume(),
    "set_corners": _corners,
    "capture_empty": lambda c, d: c.capture_empty(),
    "capture_start": lambda c, d: c.capture_start(variant_of(d.get("variant", "backgammon"))),
    "tournament": _tournament,
    "resume_damaged": _resume_damaged,
}


def _done(message: str, **extra: object) -> BaseResponse:
    if wants_json():
        return jsonify({"ok": True, "message": message, **extra})
    return redirect(url_for("control.page"), 303)


@bp.post("/api/<action>")
def act(action: str) -> BaseResponse:
    handler = ACTIONS.get(action)
    if handler is None:
        fail(404, t("err.no_action", action=action[:40]))
    data = payload()
    authorise(data)
    try:
        handler(state().commands, data)
    except RulesError as error:
        fail(409, str(error))
    except CommandRefused as error:  # the referee's refusal, in the reader's words when it has a key
        fail(409, t(error.key, str(error), **error.values) if error.key else str(error))
    except ValueError as error:  # the referee's own words
        fail(409, str(error))
    return _done(t(f"done.{action}", t("done.generic")))


@bp.post("/unlock")
def unlock() -> BaseResponse:
    check_origin()
    data = payload()
    if not state().pins.is_set():
        fail(403, t("err.no_pin_set"))
    check_pin_or_fail(data.get("pin"))
    token = unlock_session()
    return _done(t("done.unlock"), csrf=token)


@bp.post("/lock")
def lock() -> BaseResponse:
    check_origin()
    session.clear()
    return _done(t("done.lock"))


@bp.post("/setup-pin")
def setup_pin() -> BaseResponse:
    """Set the PIN at first start (only while none is set); changing it needs the old one."""
    check_origin()
    data = payload()
    st = state()
    if st.pins.is_set():
        authorise({"pin": data.get("old_pin")} if data.get("old_pin") else data)
    else:  # the first PIN needs the one-time code from the device's console
        wait = st.limiter.wait_time(client_id())
        if wait > 0:
            fail(429, t("err.rate", seconds=int(wait) + 1), wait)
        code = data.get("setup_code")
        if not st.setup_code or not isinstance(code, str) or not hmac.compare_digest(
                code.strip().encode(), st.setup_code.encode()):
            st.limiter.failed(client_id())
            fail(403, t("err.setup_code"))
    new, again = data.get("new_pin"), data.get("new_pin2", data.get("new_pin"))
    try:
        check_pin_format(new)  # type: ignore[arg-type]
    except ValueError:
        fail(400, t("err.pin_format"))
    if new != again:
        fail(400, t("err.pin_mismatch"))
    st.pins.set(str(new))
    st.setup_code = ""
    (Path(current_app.config["DATA_DIR"]) / "web" / "setup-code").unlink(missing_ok=True)
    token = unlock_session()
    return _done(t("done.pin_set"), csrf=token)


@bp.post("/api/preview")
def preview() -> Response:
    """The board for the correction editor (reads only, so no PIN)."""
    data = payload()
    snap = state().view.snapshot()
    bottom, top = counts(data.get("bottom"), "bottom"), counts(data.get("top"), "top")
    layout = board_svg.BoardLayout(snap.variant, tuple(bottom), tuple(top), snap.on_roll,
                                   bottom_off=max(0, 15 - sum(bottom)), top_off=max(0, 15 - sum(top)))
    problem = ""
    try:
        board_svg.position_from_layout(snap.variant, bottom, top, snap.on_roll)
    except RulesError as error:
        problem = str(error)
    return jsonify({"svg": board_svg.render_editor(layout, t), "problem": problem})


@bp.get("/control")
def page() -> str:
    st = state()
    snap = st.view.snapshot()
    layout = board_svg.layout_from_snapshot(snap)
    if snap.question is not None and snap.question.read is not None:
        # start the correction from what the camera read, its doubtful points ringed
        layout = board_svg.layout_from_position(snap.question.read, snap.on_roll, dice=snap.dice,
                                                show_pips=not snap.tournament)
    marks = snap.question.points if snap.question is not None else ()
    editor = board_svg.render_editor(layout, t, marks)
    forms = {v: options_for(v) for v in VARIANTS}
    return render_template(
        "control.html",
        snap=snap,
        parts=live_parts(snap),
        last_id=st.event_id(st.view.latest_event_id()),
        pin_set=st.pins.is_set(),
        unlocked=is_unlocked(),
        csrf=csrf_token(),
        editor=editor,
        layout=layout,
        variants=VARIANTS,
        option_forms=forms,
        lang_code=lang(),
        tournament_supported=hasattr(st.commands, "set_tournament"),
        new_game_supported=bool(getattr(st.commands, "can_start_games", True)),
        request_path=request.path,
    )
