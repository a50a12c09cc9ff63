"""The live board for players and spectators: page, SVG, JSON state and the Server-Sent Events stream."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    stream_with_context,
)
from werkzeug.wrappers import Response as BaseResponse

from web_ui import board_svg
from web_ui.common import describe, lang, live_parts, state, t
from web_ui.i18n import COOKIE, LANGUAGES, translator

bp = Blueprint("live", __name__)

#: Where the language switch may send the browser back to: a path on this site.  Browsers drop
#: tabs and line breaks from a URL ("/\t/evil.example" becomes "//evil.example", another site),
#: so anything but these characters sends the browser to the board instead.
SAFE_NEXT = re.compile(r"/(?![/\\])[A-Za-z0-9/_.~%=&?+-]{0,300}")


@bp.get("/")
def index() -> str:
    st = state()
    snap = st.view.snapshot()
    # Start the stream a few events back so the log shows what just happened (the replay path).
    last_id = max(0, st.view.latest_event_id() - 12)
    return render_template("index.html", snap=snap, parts=live_parts(snap), last_id=last_id)


@bp.get("/board.svg")
def board() -> Response:
    snap = state().view.snapshot()
    return Response(board_svg.render_snapshot(snap, t), mimetype="image/svg+xml")


@bp.get("/state.json")
def state_json() -> Response:
    """The snapshot for scripts (pip counts left out in tournament mode)."""
    st = state()
    snap = st.view.snapshot()
    data: dict[str, object] = {
        "event_id": st.view.latest_event_id(),
        "variant": snap.variant,
        "position": snap.position.id,
        "on_roll": snap.on_roll,
        "players": list(snap.players),
        "dice": list(snap.dice),
        "cube": {"value": snap.cube_value, "owner": snap.cube_owner, "offered_by": snap.cube_offered_by},
        "score": list(snap.score),
        "match_length": snap.match_length,
        "moves": [[m.player, m.dice, m.notation] for m in snap.moves],
        "phase": snap.phase,
        "paused": snap.paused,
        "result": snap.result,
        "alert": None
        if snap.alert is None
        else {"reason": snap.alert.reason, "code": snap.alert.code,
              "points": [[p.point, p.kind] for p in snap.alert.points]},
        "question": None if snap.question is None else {"text": snap.question.text},
        "status": {name: {"level": h.level, "detail": h.detail} for name, h in snap.status.items()},
        "tournament": snap.tournament,
    }
    if not snap.tournament:
        data["pips"] = list(snap.pips)
    return jsonify(data)


@bp.get("/lang")
def set_language() -> BaseResponse:
    """The language switch: remember the choice in a cookie and go back to the page."""
    code = request.args.get("lang", "")
    target = request.args.get("next", "/")
    if not SAFE_NEXT.fullmatch(target):
        target = "/"  # only a path of this site: no scheme, host, "//", backslash, space or control character
    response = redirect(target, 303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
    return response


def _sse(kind: str, data: object, event_id: int | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {kind}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def _last_id() -> int:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last") or ""
    try:
        value = int(raw)
    except ValueError:
        return -1  # unknown: send the current state only
    return max(-1, value)


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: missed events are replayed after ``Last-Event-ID``, then each new batch
    is followed by a ``state`` message holding the re-rendered page parts."""
    st = state()
    config = current_app.config
    heartbeat = float(config["SSE_HEARTBEAT"])
    lifetime = float(config["SSE_MAX_SECONDS"])
    retry = int(config["SSE_RETRY_MS"])
    last = _last_id()
    tr = translator(lang())
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}

    if not st.open_stream():
        # Too many viewers for the server's threads: answer with the state and let the browser
        # come back later.  No event id: the browser keeps the Last-Event-ID it had, so the events
        # it has not seen yet are replayed when it comes back (an id here would skip them).
        snap = st.view.snapshot()
        body = f"retry: {retry * 5}\n\n" + _sse("state", {**live_parts(snap), "busy": True}, None)
        return Response(body, mimetype="text/event-stream", headers=headers)

    def stream() -> Iterator[str]:
        nonlocal last
        try:
            yield f"retry: {retry}\n\n"
            if last < 0:
                last = st.view.latest_event_id()
                yield _sse("state", live_parts(st.view.snapshot()), last)
            started = time.monotonic()
            while time.monotonic() - started < lifetime:
                batch = st.view.events_since(last, heartbeat)
                if not batch:
                    yield ": keep-alive\n\n"
                    continue
                snap = st.view.snapshot()
                for event in batch:
                    event_id, kind, data = event
                    yield _sse("log", {"type": kind, "data": data, "text": describe(event, snap, tr)}, event_id)
                last = batch[-1][0]
                yield _sse("state", live_parts(snap), last)
        finally:
            st.close_stream()

    return Response(stream_with_context(stream()), mimetype="text/event-stream", headers=headers)
