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
from web_ui.common import describe, lang, live_parts, shown, state, t
from web_ui.i18n import COOKIE, LANGUAGES, Translator, translator
from web_ui.view import Event, Snapshot

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
    last_id = st.event_id(max(0, st.view.latest_event_id() - RESYNC_EVENTS))
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
              "points": [[p.point, p.kind] for p in snap.alert.points], "can_accept": snap.alert.can_accept,
              "read": snap.alert.read.id if snap.alert.read is not None else None},
        "void_roll": snap.void_roll,
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


def _sse(kind: str, data: object, event_id: str | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {kind}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


#: How many recent events a page that comes back from another run of the server is sent again.
RESYNC_EVENTS = 12


def requested_last() -> tuple[int | None, bool]:
    """(event number to replay after, whether the viewer named one): ``Last-Event-ID`` (or
    ``?last=``) is ``EPOCH-N``.  An id of another run of the server (a restart), or one this run
    never gave, is no place to resume from: (None, True), and the viewer is brought up to date."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("last") or ""
    if not raw:
        return None, False
    epoch, _, number = raw.partition("-")
    st = state()
    try:
        value = int(number)
    except ValueError:
        return None, True
    if epoch != st.epoch or not 0 <= value <= st.view.latest_event_id():
        return None, True
    return value, True


def log_message(event: Event, snap: Snapshot, tr: Translator) -> str:
    """One ``log`` message: the event's line in the viewer's words, its own time and names."""
    event_id, kind, data = event
    body = {"type": kind, "data": data, "text": describe(event, snap, tr), "at": data.get("at")}
    return _sse("log", body, state().event_id(event_id))


def batch_messages(batch: list[Event], snap: Snapshot) -> str:
    """The log lines of ``batch`` (internal ones left out) and the page's state after them."""
    tr = translator(lang())
    out = [log_message(event, snap, tr) for event in batch if shown(event)]
    out.append(_sse("state", live_parts(snap), state().event_id(batch[-1][0])))
    return "".join(out)


def opening_messages(last: int | None, named: bool) -> tuple[str, int]:
    """What a viewer gets on connecting, and the event number it is then up to."""
    st = state()
    out = [f"retry: {int(current_app.config['SSE_RETRY_MS'])}\n\n"]
    if last is None:
        now = st.view.latest_event_id()
        if named:  # a page from another run: start its log again from what this run has
            out.append(_sse("reset", {}))
            recent = [e for e in st.view.events_since(max(0, now - RESYNC_EVENTS), 0) if e[0] <= now]
            if recent:
                snap = st.view.snapshot()
                return "".join(out) + batch_messages(recent, snap), recent[-1][0]
        out.append(_sse("state", live_parts(st.view.snapshot()), st.event_id(now)))
        return "".join(out), now
    return "".join(out), last


def busy_message() -> str:
    """For a viewer beyond the server's limit: the state now, and come back later.  No event id:
    the browser keeps the Last-Event-ID it had, so nothing it has not seen is skipped."""
    retry = int(current_app.config["SSE_RETRY_MS"])
    snap = state().view.snapshot()
    return f"retry: {retry * 5}\n\n" + _sse("state", {**live_parts(snap), "busy": True}, None)


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: missed events are replayed after ``Last-Event-ID``, then each new batch
    is followed by a ``state`` message holding the re-rendered page parts.

    The page's own server (:mod:`web_ui.server`) answers ``/events`` itself without a thread per
    viewer, from the same functions; this view serves it under any other WSGI server (and tests).
    """
    st = state()
    config = current_app.config
    heartbeat = float(config["SSE_HEARTBEAT"])
    lifetime = float(config["SSE_MAX_SECONDS"])
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}

    if not st.open_stream():
        return Response(busy_message(), mimetype="text/event-stream", headers=headers)
    first, last = opening_messages(*requested_last())

    def stream() -> Iterator[str]:
        nonlocal last
        try:
            yield first
            started = time.monotonic()
            while time.monotonic() - started < lifetime:
                batch = st.view.events_since(last, heartbeat)
                if not batch:
                    yield ": keep-alive\n\n"
                    continue
                yield batch_messages(batch, st.view.snapshot())
                last = batch[-1][0]
        finally:
            st.close_stream()

    return Response(stream_with_context(stream()), mimetype="text/event-stream", headers=headers)
