"""The companion page: live board for players and spectators, control for the tournament director.

The seam
========
``create_app(game_view, commands, test_config=None)`` builds a Flask app; there is no module-level
app.  The page imports ``rules`` (and, for records, reads files) and never the referee: the
referee plugs two objects in (both defined as ``typing.Protocol`` in :mod:`web_ui.view`):

``game_view`` (:class:`web_ui.view.GameView`, read-only, called from many threads)
    * ``records_dir: Path`` -- journals ``*.jsonl``, exports beside them, evidence JPEGs.
    * ``snapshot() -> Snapshot`` -- an immutable picture of the game: ``variant``; ``position``
      (a ``rules.position.Position`` seen from the side on roll) and ``on_roll`` (0 = light,
      drawn at the bottom; 1 = dark); ``players``; ``dice``; ``cube_value``, ``cube_owner``
      (None = centred), ``cube_offered_by``; ``score``, ``match_length`` (0 = money/single
      games), ``crawford``, ``game_number``; ``moves`` (``MoveEntry(player, dice, notation)``);
      ``phase``; ``result``; ``alert`` (``Alert(reason, points, code, can_accept)``, points are
      ``PointMark(point, kind)`` in the numbering of the side on roll, kind ``'extra'`` or
      ``'missing'``, 25 = bar, 0 = off); ``question`` (``Question(text, read, points)``: an
      uncertain reading to confirm or correct); ``status`` (``DeviceStatus`` of camera, leds,
      journal, disk, each ``Health(level, detail)`` with level ok/warn/error/off);
      ``tournament`` (no pip counts or other aids); ``paused``; ``options``.  Pip counts are
      derived (``snapshot.pips``).
    * ``latest_event_id() -> int`` and ``events_since(last_id, timeout) -> list[(id, type, data)]``
      -- increasing ids, blocking up to ``timeout`` seconds when nothing is newer; they drive the
      Server-Sent Events stream (``Last-Event-ID`` replay).  Any ``type`` is fine; the page
      redraws from ``snapshot()`` after each batch and names known types in its event log
      (roll, play, alert, accepted, question, confirmed, corrected, cube, game_end, new_game,
      paused, resumed, status, calibration).
    * ``camera_jpeg() -> bytes | None`` (frame with the detected board drawn over it) and
      ``camera_reading() -> CameraReading | None`` (what the camera reads now, physical P1..P24).

``commands`` (:class:`web_ui.view.Commands`): ``new_game(variant, players, match_length,
options)``, ``accept_illegal()``, ``confirm_reading()``, ``correct_reading(position)``,
``correct_dice((d0, d1))``,
``double()``, ``take()``, ``drop()``, ``resign(points)``, ``pause()``,
``resume()``, ``set_corners([(x, y)] * 4)``, ``capture_empty()``, ``capture_start(variant)``,
optionally ``set_tournament(on)``.  Each returns None or raises ``ValueError`` (for instance
``web_ui.view.CommandRefused`` or a ``rules`` error) whose message the page shows as it is.
The page checks the PIN before it calls any of them.

``web_ui.demo_view.DemoGame`` implements both for tests and ``python -m web_ui``.

Serving: :func:`serve` (blocks) or :func:`make_server` (to run in a thread), both the page's own
event-driven server (:mod:`web_ui.server`, Tornado): a live viewer holds no thread, so a club's
projector, the players' phones and a hundred spectators are served at once (``SSE_MAX_STREAMS``,
default 1000; viewers beyond it get the current state and come back every few seconds).  Event
ids are ``EPOCH-N``: a page left open across a restart is brought up to date.  Security: ``TRUSTED_HOSTS``
(defaults to this device's names and addresses, plus ``REFEREE_WEB_HOSTS``); CSP and nosniff;
bounded bodies; reading needs no PIN; every action needs the PIN or the token of a browser
session unlocked with it (SameSite=Strict cookie), compared in constant time and rate-limited.
The PIN is kept hashed (scrypt) in ``DATA_DIR/web/pin.json``: set it with ``referee pin set``
(or the ``PIN`` setting), or, while none is set, on the control page with the one-time setup code
the referee prints on its console (``setup_code_notice``; also in ``DATA_DIR/web/setup-code``).
A PIN change ends every browser session unlocked before it.  Wrong PINs slow down the address
they come from (doubling waits), never anyone else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge, SecurityError

from web_ui.common import ActionFailed, WebState, lang, t, wants_json
from web_ui.i18n import LANGUAGES, js_strings, translator
from web_ui.security import (
    CSP,
    PinStore,
    RateLimiter,
    default_trusted_hosts,
    secret_key,
    setup_code,
    setup_code_notice,
    write_setup_code,
)
from web_ui.view import Commands, GameView

__all__ = ["create_app", "serve"]


def create_app(game_view: GameView, commands: Commands, test_config: dict[str, Any] | None = None) -> Flask:
    """A new app around ``game_view`` and ``commands`` (see the module docstring for both)."""
    app = Flask(__name__)
    config = dict(test_config or {})
    data_dir = Path(config.get("DATA_DIR") or os.environ.get("REFEREE_DATA_DIR") or "data")
    app.config.from_mapping(
        DATA_DIR=str(data_dir),
        MAX_CONTENT_LENGTH=16 * 1024,
        MAX_FORM_MEMORY_SIZE=16 * 1024,
        MAX_FORM_PARTS=200,
        SESSION_COOKIE_NAME="referee_session",
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        UNLOCK_SECONDS=8 * 3600,
        PIN=None,  # a PIN to set on first start (else the page asks for one)
        PIN_COST=2**14,  # scrypt cost
        RATE_FREE_TRIES=5,  # wrong PINs from one address before it must wait
        RATE_BASE_SECONDS=2.0,  # its first wait; each further wrong PIN doubles it
        RATE_LONGEST_SECONDS=900.0,
        SSE_HEARTBEAT=15.0,
        SSE_MAX_SECONDS=300.0,
        SSE_RETRY_MS=1000,
        SSE_MAX_STREAMS=1000,
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    app.config.update(config)
    if not app.config.get("TRUSTED_HOSTS"):
        app.config["TRUSTED_HOSTS"] = default_trusted_hosts()
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(data_dir / "web" / "secret_key")

    pins = PinStore(data_dir / "web" / "pin.json", int(app.config["PIN_COST"]))
    if app.config["PIN"] and not pins.is_set():
        pins.set(str(app.config["PIN"]))
    limiter = RateLimiter(int(app.config["RATE_FREE_TRIES"]), float(app.config["RATE_BASE_SECONDS"]),
                          float(app.config["RATE_LONGEST_SECONDS"]))
    app.extensions["referee"] = WebState(game_view, commands, pins, limiter, int(app.config["SSE_MAX_STREAMS"]))
    if not pins.is_set():
        # Nobody may choose the PIN from the network without this code, shown on the console.
        code = setup_code()
        app.extensions["referee"].setup_code = code
        write_setup_code(data_dir / "web" / "setup-code", code)

    from web_ui import calibration, control, live, records

    for blueprint in (live.bp, control.bp, calibration.bp, records.bp):
        app.register_blueprint(blueprint)

    @app.context_processor
    def inject() -> dict[str, Any]:
        code = lang()
        return {
            "_": translator(code),
            "lang": code,
            "languages": LANGUAGES,
            "js_strings": js_strings(code),
            "path": request.path,
        }

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"
        if not request.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response

    @app.errorhandler(HTTPException)
    def error(exc: HTTPException) -> Response | tuple[str, int]:
        code = exc.code or 500
        if isinstance(exc, ActionFailed):
            message = str(exc.description)
        elif isinstance(exc, SecurityError):
            message = t("err.host")
        elif isinstance(exc, RequestEntityTooLarge):
            message = t("err.too_large", kb=int(app.config["MAX_CONTENT_LENGTH"]) // 1024)
        elif code == 404:
            message = t("err.not_found")
        elif code == 405:
            message = t("err.method")
        else:
            message = t("err.bad_request")
        if isinstance(exc, SecurityError):  # no URL adapter: answer in plain text
            return Response(message + "\n", 400, mimetype="text/plain")
        if wants_json():
            response = jsonify({"ok": False, "error": message})
            response.status_code = code
        else:
            response = Response(render_template("error.html", code=code, message=message), code)
        if isinstance(exc, ActionFailed) and exc.retry_after:
            response.headers["Retry-After"] = str(int(exc.retry_after) + 1)
        return response

    return app


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8080, threads: int = 8) -> None:
    """Serve ``app`` on the page's own event-driven server (never the debug server); blocks."""
    if host not in ("0.0.0.0", "::", "") and host not in app.config["TRUSTED_HOSTS"]:
        app.config["TRUSTED_HOSTS"] = [*app.config["TRUSTED_HOSTS"], host]
    server = make_server(app, host, port, threads)
    notice = setup_code_notice(app.extensions["referee"], f"http://127.0.0.1:{server.effective_port}/")
    if notice:
        print(notice, file=sys.stderr, flush=True)  # the console: only someone at the device sees it
    server.run()


def make_server(app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int = 8) -> Any:
    """The page's server (:class:`web_ui.server.PageServer`), bound but not started: ``run()``
    serves (blocks; the referee runs it in a thread), ``close()`` stops it from any thread,
    ``effective_port`` is the port it got.  ``threads`` run the Flask app; live viewers need none."""
    from web_ui.server import PageServer

    return PageServer(app, host=host, port=port, threads=threads)
