"""The club server's pages: the dashboard (``/``), ``/club/state.json`` and the records of the club.

Every mini-board is the table page's own SVG (:mod:`web_ui.board_svg`), drawn from the club's copy
of the table's journal; alerts, questions and device health come from the table's retained
snapshot.  The dashboard refreshes its grid every second and a half (``/club/grid``).  The
spectator view (``?view=spectator``) hides what tournament mode hides (pip counts) and the wording
of alerts.  Words in the six languages of the table page.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from html import escape
from importlib import resources
from typing import Any

from flask import Flask, Response, abort, jsonify, make_response, redirect, request

from club.mirror import MatchCopy, Mirror, TableInfo
from club.words import club_translator
from recording.export import FORMATS, render
from recording.journal import replay
from rules import match
from web_ui import board_svg
from web_ui.i18n import COOKIE, LANGUAGES, pick_language
from web_ui.security import PinStore, RateLimiter
from web_ui.view import PointMark

CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
REFRESH_MS = 1500
MIME = {"mat": "text/plain", "sgf": "application/x-go-sgf", "json": "application/json", "txt": "text/plain"}


Send = Callable[[str, str, str, int], bool]  # (table, action, match, seq) -> sent
ACTIONS = {"accept": "act.accept_illegal", "confirm": "act.confirm_reading"}


def create_club_app(mirror: Mirror, send: Send | None = None, pins: PinStore | None = None) -> Flask:
    """The club's pages; director actions need ``send`` (the MQTT side) and a director's PIN in ``pins``."""
    static = resources.files("web_ui").joinpath("static")
    limiter = RateLimiter()
    director = send is not None and pins is not None and pins.is_set()
    app = Flask(__name__, static_folder=str(static), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = 1024
    app.json.sort_keys = False  # type: ignore[attr-defined]  # state.json keys in INTERFACES.md §6 order

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def language() -> str:
        chosen = request.args.get("lang", "")
        return chosen if chosen in LANGUAGES else pick_language(request)

    def spectator() -> bool:
        return request.args.get("view") == "spectator"

    @app.get("/")
    def dashboard() -> Response:
        lang = language()
        response = make_response(page(mirror, lang, spectator(), director))
        if request.args.get("lang") in LANGUAGES:
            response.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="Strict")
        return response

    @app.get("/club/grid")
    def grid() -> str:
        return grid_html(mirror, club_translator(language()), spectator(), director)

    @app.post("/club/table/<table>/action")
    def action(table: str) -> Any:
        """A director's decision on a table's alert or question, with the director's PIN."""
        if not director or send is None or pins is None:
            return "director actions are off: start the club server with a director's PIN", 403
        client = request.remote_addr or "?"
        wait = limiter.wait_time(client)
        if wait > 0:
            return f"too many wrong PINs; try again in {wait:.0f} s", 429
        if not pins.check(request.form.get("pin", "")):
            limiter.failed(client)
            return "wrong PIN", 403
        name, what = request.form.get("match", ""), request.form.get("action", "")
        try:
            seq = int(request.form.get("seq", ""))
        except ValueError:
            return "bad request", 400
        if what not in ACTIONS:
            return "unknown action", 400
        with mirror.lock:
            info = mirror.tables.get(table)
            snap = dict(info.snapshot) if info is not None else {}
            online = info is not None and info.online
        if not online or snap.get("match") != name or snap.get("seq") != seq or not (
                snap.get("alert") if what == "accept" else snap.get("question")):
            return "the table has moved on; look again", 409
        if not send(table, what, name, seq):
            return "the club's broker is not connected", 503
        return redirect("/", code=303)

    @app.get("/club/state.json")
    def state() -> Response:
        response = jsonify(mirror.state_json())
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/club/static/<name>")
    def own_static(name: str) -> Response:
        if name not in ("club.css", "club.js"):
            abort(404)
        text = resources.files("club").joinpath("static", name).read_text(encoding="utf-8")
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return Response(text, mimetype=kind)

    @app.get("/club/records")
    def records() -> str:
        return records_page(mirror, club_translator(language()), language())

    @app.get("/club/records/<table>/<name>.<fmt>")
    def record(table: str, name: str, fmt: str) -> Response:
        copy = mirror.find(table, name)
        if copy is None:
            abort(404)
        if fmt == "jsonl":
            return Response(copy.path.read_bytes(), mimetype="application/x-ndjson")
        if fmt not in FORMATS or (fmt in ("mat", "sgf") and copy.header.variant != "backgammon"):
            abort(404)
        text = render(replay(copy.path, check_plays=False), fmt)
        response = Response(text, mimetype=MIME[fmt])
        response.headers["Content-Disposition"] = f'attachment; filename="{table}-{name}.{fmt}"'
        return response

    @app.get("/lang/<code>")
    def set_language(code: str) -> Any:
        target = "/?view=spectator" if request.args.get("view") == "spectator" else "/"
        response = redirect(target)
        if code in LANGUAGES:
            response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Strict")
        return response

    @app.errorhandler(404)
    def not_found(error: Exception) -> tuple[str, int]:
        return "not found", 404

    return app


def page(mirror: Mirror, lang: str, spectator: bool, director: bool = False) -> str:
    t = club_translator(lang)
    view = "spectator" if spectator else "director"
    suffix = "?view=spectator" if spectator else ""
    current = ' aria-current="true"'
    langs = " ".join(
        f'<a href="/lang/{code}{suffix}"{current if code == lang else ""}>{escape(name)}</a>'
        for code, name in LANGUAGES.items())
    other = (f'<a href="/">{escape(t("club.director"))}</a>' if spectator
             else f'<a href="/?view=spectator">{escape(t("club.spectator"))}</a>')
    return f"""<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(t("club.title"))}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/club/static/club.css">
<script src="/club/static/club.js" defer></script>
</head>
<body data-view="{view}" data-refresh="{REFRESH_MS}">
<header class="topbar club-top">
  <span class="brand"><span class="brand-mark" aria-hidden="true">⚀</span>{escape(t("club.title"))}</span>
  <nav class="nav">{other} <a href="/club/records">{escape(t("nav.records"))}</a></nav>
  <nav class="club-langs" aria-label="{escape(t("nav.language"))}">{langs}</nav>
</header>
<main id="grid" class="club-grid" aria-live="polite">{grid_html(mirror, t, spectator, director)}</main>
</body>
</html>"""


def grid_html(mirror: Mirror, t: Any, spectator: bool, director: bool = False) -> str:
    with mirror.lock:
        tables = [mirror.tables[name] for name in sorted(mirror.tables, key=_order)]
        cards = [card(info, t, spectator, director and not spectator) for info in tables]
    if not cards:
        return f'<p class="muted">{escape(t("club.no_tables"))}</p>'
    return f'<p class="muted club-count">{escape(t("club.tables", n=len(cards)))}</p>' + "".join(cards)


def _order(name: str) -> tuple[str, int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return ("".join(c for c in name if not c.isdigit()), int(digits) if digits else 0, name)


def device_problem(snapshot: dict[str, Any]) -> bool:
    health = snapshot.get("health") or {}
    return isinstance(health, dict) and any(key.endswith("_ok") and value is False for key, value in health.items())


def card(info: TableInfo, t: Any, spectator: bool, director: bool = False) -> str:
    copy = info.current_copy()
    snap = info.snapshot
    live = info.online and (copy is None or snap.get("match") == copy.name)
    alert = snap.get("alert") if live else None
    question = snap.get("question") if live else None
    device = live and device_problem(snap)
    classes = ["club-table"]
    marks_html = []
    if not info.online:
        classes.append("is-offline")
    if alert:
        classes.append("has-alert")
        text = t("club.alert") if spectator else f'{t("club.alert")}: {alert}'
        marks_html.append(f'<span class="mark mark-alert">⚠ {escape(text)}</span>')
    if question:
        classes.append("has-question")
        text = t("club.question") if spectator else f'{t("club.question")}: {question}'
        marks_html.append(f'<span class="mark mark-question">? {escape(text)}</span>')
    if device:
        classes.append("has-device")
        marks_html.append(f'<span class="mark mark-device">⚙ {escape(t("club.device"))}</span>')
    status = t("club.online") if info.online else t("club.offline")
    board = ""
    players: list[str] = list(snap.get("players") or ["", ""])
    score_text = ""
    turn = ""
    age = ""
    if copy is not None:
        state = copy.state
        players = list(copy.header.players)
        on_roll = state.turn if state.turn is not None else 0
        marks = tuple(PointMark(int(p), k) for p, k in (snap.get("marks") or []) if k in ("extra", "missing")) \
            if (alert or question) else ()
        tournament = bool(snap.get("tournament")) or spectator
        layout = board_svg.layout_from_position(state.position_for(on_roll), on_roll, dice=tuple(state.dice or ()),
                                                cube_value=state.cube, cube_owner=state.cube_owner,
                                                show_pips=not tournament)
        board = board_svg.render(layout, t, marks, None, False, f"board-{info.name}")
        score = [int(s) if float(s).is_integer() else s for s in state.score]
        length = t("live.match_to", n=state.config.length) if state.config.length else t("live.single_games")
        score_text = (f'<span class="who">{escape(players[0])}</span> <b>{score[0]}–{score[1]}</b> '
                      f'<span class="who">{escape(players[1])}</span> · {escape(length)}')
        turn = phase_text(copy, snap if live else {}, t)
        age = t("club.last_event", s=_age(copy))
    elif snap:
        score_text = escape(" – ".join(players))
    decide = ""
    if director and (alert or question) and isinstance(snap.get("match"), str) and isinstance(snap.get("seq"), int):
        what = "accept" if alert else "confirm"
        decide = (f'<form class="club-decide" method="post" action="/club/table/{escape(info.name)}/action">'
                  f'<input type="hidden" name="action" value="{what}">'
                  f'<input type="hidden" name="match" value="{escape(str(snap["match"]))}">'
                  f'<input type="hidden" name="seq" value="{int(snap["seq"])}">'
                  f'<label>{escape(t("pin.pin"))} <input type="password" name="pin" inputmode="numeric" '
                  f'autocomplete="off" size="8" required></label> '
                  f'<button type="submit">{escape(t(ACTIONS[what]))}</button></form>')
    link = snap.get("page") if isinstance(snap.get("page"), str) and str(snap.get("page")).startswith("http") else ""
    link_html = f'<a class="club-link" href="{escape(link)}">{escape(t("club.table_page"))}</a>' if link else ""
    records = (f'<a class="club-link" href="/club/records#{escape(info.name)}">{escape(t("nav.records"))}</a>'
               if copy is not None else "")
    return (f'<article class="{" ".join(classes)}" id="table-{escape(info.name)}" data-table="{escape(info.name)}">'
            f'<header><h2>{escape(info.name)}</h2><span class="club-status">{escape(status)}</span></header>'
            f'<div class="club-marks">{"".join(marks_html)}</div>'
            f'<div class="board-wrap small">{board}</div>'
            f'<p class="club-score">{score_text}</p><p class="club-turn">{escape(turn)}</p>'
            f'<p class="muted club-foot">{escape(age)} {link_html} {records}</p>{decide}</article>')


def _age(copy: MatchCopy) -> int:
    import time

    return int(max(0.0, time.time() - copy.received_at))


def phase_text(copy: MatchCopy, snap: dict[str, Any], t: Any) -> str:
    state = copy.state
    mode = snap.get("mode")
    if mode in ("illegal", "question", "paused"):
        return str(t(f"phase.{mode}"))
    name = copy.header.players[state.turn] if state.turn is not None else ""
    phase = state.phase
    if phase == match.OPENING:
        return str(t("phase.opening"))
    if phase in (match.ROLL, match.CUBE, match.RESIGN):
        return str(t("phase.await_roll", name=name))
    if phase in (match.PLAY, match.REMAINDER):
        return str(t("phase.await_play", name=name))
    if phase in (match.GAME_OVER, match.MATCH_OVER):
        return str(t("phase.game_over"))
    return str(t("phase.idle"))


def records_page(mirror: Mirror, t: Any, lang: str) -> str:
    rows = []
    for copy in mirror.matches():
        formats = ["jsonl", *(f for f in FORMATS if f not in ("mat", "sgf") or copy.header.variant == "backgammon")]
        links = " ".join(f'<a href="/club/records/{escape(copy.table)}/{escape(copy.name)}.{f}">.{f}</a>' for f in formats)
        rows.append(f'<tr id="{escape(copy.table)}"><td>{escape(copy.table)}</td><td>{escape(copy.name)}</td>'
                    f'<td>{escape(" – ".join(copy.header.players))}</td><td>{escape(t("variant." + copy.header.variant))}</td>'
                    f'<td>{copy.events}</td><td>{links}</td></tr>')
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(t("club.records"))}</title><link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/club/static/club.css"></head>
<body><header class="topbar club-top"><a class="brand" href="/">{escape(t("club.title"))}</a></header>
<main class="club-records"><h1>{escape(t("club.records"))}</h1>
<table><tbody>{"".join(rows)}</tbody></table></main></body></html>"""


def data_dir_default() -> str:
    return os.environ.get("REFEREE_CLUB_DATA_DIR") or "data/club"
