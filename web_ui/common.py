"""What every blueprint shares: the app's state, the translator, the PIN check, request parsing."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn
from urllib.parse import urlsplit

from flask import Flask, current_app, g, render_template, request, session
from werkzeug.exceptions import BadRequest, HTTPException

from web_ui import board_svg
from web_ui.i18n import Translator, pick_language, translator
from web_ui.security import PinStore, RateLimiter
from web_ui.view import Commands, Event, GameView, Snapshot


@dataclass
class WebState:
    view: GameView
    commands: Commands
    pins: PinStore
    limiter: RateLimiter
    max_streams: int
    setup_code: str = ""  # while no PIN is set: the one-time code that lets a visitor choose it
    streams: int = 0
    #: This run of the server: event ids are ``EPOCH-N``, so a page left open across a restart
    #: (whose ids belong to the old run) is recognised and brought up to date.
    epoch: str = field(default_factory=lambda: secrets.token_hex(4))
    lock: threading.Lock = field(default_factory=threading.Lock)
    render_lock: threading.Lock = field(default_factory=threading.Lock)
    cache: OrderedDict[tuple[Snapshot, str], dict[str, str]] = field(default_factory=OrderedDict)

    def open_stream(self) -> bool:
        with self.lock:
            if self.streams >= self.max_streams:
                return False
            self.streams += 1
            return True

    def event_id(self, number: int) -> str:
        return f"{self.epoch}-{number}"

    def close_stream(self) -> None:
        with self.lock:
            self.streams -= 1


def state(app: Flask | None = None) -> WebState:
    return (app or current_app).extensions["referee"]  # type: ignore[no-any-return]


def lang() -> str:
    if "lang" not in g:
        g.lang = pick_language(request)
    return str(g.lang)


def t(key: str, default: str | None = None, **values: object) -> str:
    return translator(lang())(key, default, **values)


class ActionFailed(HTTPException):
    """An error with a sentence for the user; shown as JSON to scripts and as a page to browsers."""

    def __init__(self, code: int, message: str, retry_after: float = 0.0) -> None:
        super().__init__(description=message)
        self.code = code
        self.retry_after = retry_after


def fail(code: int, message: str, retry_after: float = 0.0) -> NoReturn:
    raise ActionFailed(code, message, retry_after)


def wants_json() -> bool:
    """JSON for scripts and the page's own requests; HTML for a browser navigating (a form without script)."""
    if request.path == "/events":
        return True
    explicit_html = any(value in ("text/html", "application/xhtml+xml") for value, _ in request.accept_mimetypes)
    if request.path.startswith("/api/"):
        return not explicit_html
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" or (request.method == "POST" and not explicit_html)


def payload() -> dict[str, Any]:
    """The request body as a dict: JSON object or form fields (last value of a repeated field)."""
    if request.mimetype == "application/json":
        try:
            data = request.get_json(force=False, silent=False)
        except (BadRequest, RecursionError):  # RecursionError: JSON nested thousands deep
            fail(400, t("err.bad_json"))
        if not isinstance(data, dict):
            fail(400, t("err.bad_json"))
        return data
    return {key: values[-1] for key, values in request.form.lists()}


def check_origin() -> None:
    """Refuse a cross-site POST (the Origin header, when sent, must name this host)."""
    origin = request.headers.get("Origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.host:
        fail(403, t("err.origin"))


def is_unlocked() -> bool:
    """A browser session unlocked with the PIN, not expired, and the PIN not changed since."""
    until = session.get("until", 0)
    if not (session.get("csrf") and isinstance(until, (int, float)) and until > time.time()):
        return False
    return hmac.compare_digest(str(session.get("pin_gen", "")), state().pins.generation())


def csrf_token() -> str:
    return str(session.get("csrf", "")) if is_unlocked() else ""


def unlock_session() -> str:
    token = secrets.token_urlsafe(24)
    session.clear()
    session["csrf"] = token
    session["pin_gen"] = state().pins.generation()
    session["until"] = time.time() + float(current_app.config["UNLOCK_SECONDS"])
    return token


def client_id() -> str:
    return request.remote_addr or "unknown"


def check_pin_or_fail(pin: object) -> None:
    st = state()
    wait = st.limiter.wait_time(client_id())
    if wait > 0:
        fail(429, t("err.rate", seconds=int(wait) + 1), wait)
    if not st.pins.check(pin):
        st.limiter.failed(client_id())
        fail(403, t("err.wrong_pin"))
    st.limiter.succeeded(client_id())


def authorise(data: dict[str, Any]) -> None:
    """Pass when the request carries the PIN or the token of an unlocked session; else refuse."""
    check_origin()
    st = state()
    if not st.pins.is_set():
        fail(403, t("err.no_pin_set"))
    token = request.headers.get("X-CSRF-Token") or data.get("csrf")
    pin = request.headers.get("X-Referee-Pin") or data.get("pin")
    if isinstance(token, str) and token and is_unlocked():
        if hmac.compare_digest(token.encode(), str(session["csrf"]).encode()):
            return
    if pin is None or pin == "":
        fail(401, t("err.pin_needed"))
    check_pin_or_fail(pin)


def live_parts(snap: Snapshot) -> dict[str, str]:
    """The page's changing parts (board, panels, status) rendered once per snapshot and language."""
    st = state()
    key = (snap, lang())
    try:
        hash(key)
    except TypeError:  # a snapshot holding a list or dict cannot be a cache key: just render
        return _render_parts(snap)
    with st.lock:
        cached = st.cache.get(key)
        if cached is not None:
            st.cache.move_to_end(key)
            return cached
    with st.render_lock:  # many viewers wake up on the same event: render once, not once each
        with st.lock:
            cached = st.cache.get(key)
        if cached is not None:
            return cached
        parts = _render_parts(snap)
        with st.lock:
            st.cache[key] = parts
            while len(st.cache) > 32:
                st.cache.popitem(last=False)
    return parts


def _render_parts(snap: Snapshot) -> dict[str, str]:
    svg = board_svg.render_snapshot(snap, t, element_id="board")
    return {
        "live": render_template("_live.html", snap=snap, board=svg),
        "status": render_template("_status.html", snap=snap),
    }


#: The referee's internal steps: they drive the LEDs and the board, the log leaves them out.
INTERNAL = frozenset({"board", "turn", "ready", "verified", "matched", "guide", "ping"})


def shown(event: Event) -> bool:
    """Whether the page's log names this event (see :data:`INTERNAL`)."""
    return event[1] not in INTERNAL


def dice_words(dice: object) -> str:
    """Dice as players say them, the higher die first: "6-2"."""
    if not isinstance(dice, (list, tuple)):
        return ""
    values = sorted((int(d) for d in dice if isinstance(d, int)), reverse=True)
    return "-".join(str(v) for v in values)


def describe(event: Event, snap: Snapshot, tr: Translator) -> str:
    """One line for the page's event log, in the reader's language.  The names are those of the
    game the event belongs to (``data["names"]`` when the referee sent them), not the current one."""
    _, kind, data = event
    names = data.get("names")
    players = tuple(names) if isinstance(names, (list, tuple)) and len(names) == 2 else snap.players

    def name(key: str = "player") -> str:
        index = data.get(key)
        return str(players[index]) if isinstance(index, int) and index in (0, 1) else ""

    if kind == "roll":
        opening = data.get("opening")
        if isinstance(opening, list) and len(opening) == 2 and data.get("player") in (0, 1):
            return tr("log.opening", name=name(), dice=dice_words(opening))
        return tr("log.roll_by", name=name(), dice=dice_words(data.get("dice"))) if name() else \
            tr("log.roll", dice=dice_words(data.get("dice")))
    if kind == "play":
        notation = data.get("play", data.get("notation", ""))
        return tr("log.play", name=name(), notation=str(notation))
    if kind == "no_play":
        return tr("log.no_play", name=name(), dice=dice_words(data.get("dice")))
    if kind == "alert":
        code = str(data.get("code", ""))
        reason = tr(f"reason.{code}", str(data.get("reason", ""))) if code else str(data.get("reason", ""))
        return tr("log.alert", reason=reason)
    if kind == "void":
        why = str(data.get("reason") or "")
        return tr("log.void", reason=tr(f"void.{why}", why)) if why else tr("log.void_plain")
    if kind == "question":
        code = str(data.get("code", ""))
        return tr(f"log.question.{code}", tr("log.question")) if code else tr("log.question")
    if kind == "cube":
        return tr(f"log.cube.{data.get('action', '')}", name=name(), value=data.get("value", ""))
    if kind == "resign":
        return tr("log.resign", name=name(), points=data.get("value", ""))
    if kind == "game_end":
        if data.get("winner") not in (0, 1):
            return tr("log.draw")
        points = data.get("points", "")
        if isinstance(points, float) and points.is_integer():
            points = int(points)
        result = str(data.get("result", ""))
        return tr("log.game_end", name=name("winner"), points=points, result=tr(f"result.{result}", result))
    if kind == "match_end":
        return tr("log.match_end", name=name("winner"))
    if kind == "cascade":
        return tr("log.cascade", name=name())
    if kind == "camera":
        return tr("log.camera_back") if data.get("ok") else tr("log.camera_lost")
    if kind == "mismatch":
        return tr("log.mismatch")
    if kind == "dice_corrected":
        return tr("log.dice_corrected", name=name(), read=dice_words(data.get("read")), dice=dice_words(data.get("dice")))
    return tr(f"log.{kind}", tr("log.other"))


TemplateGlobal = Callable[..., Any]
