"""Records: the matches in the records directory (``*.jsonl`` journals), their exports and the
evidence frames the referee judged on.  Downloads are served only for files this page lists."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, render_template, send_file

from web_ui.common import fail, state, t

bp = Blueprint("records", __name__)

EXPORTS = (".mat", ".sgf", ".json", ".txt")
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")
MAX_EVIDENCE_SCAN = 5_000_000  # bytes of journal read to find evidence names


@dataclass
class MatchRecord:
    name: str  # journal stem
    journal: Path
    modified: str
    size: int
    exports: list[Path] = field(default_factory=list)
    evidence: list[Path] = field(default_factory=list)
    summary: Summary | None = None  # None: the journal could not be read
    formats: tuple[str, ...] = ()  # exports this match can be made in (.mat/.sgf: backgammon only)


@dataclass(frozen=True)
class Summary:
    """What a director looks for in the list: who played what, the score, the day."""

    players: tuple[str, str]
    variant: str
    score: tuple[str, str]
    match_length: int
    date: str  # YYYY-MM-DD
    finished: bool


#: Exports that hold a backgammon match only (GNU Backgammon's formats).
BACKGAMMON_ONLY = (".mat", ".sgf")
_SUMMARIES: dict[tuple[str, float, int], Summary | None] = {}


def _points(value: float) -> str:
    return f"{value:g}"


def summary(journal: Path, stat: Any) -> Summary | None:
    """The match's summary from its journal (cached until the file changes)."""
    key = (str(journal), stat.st_mtime, stat.st_size)
    if key in _SUMMARIES:
        return _SUMMARIES[key]
    try:
        from recording.journal import replay
        from rules import match as rules_match

        read = replay(journal, check_plays=False)
        header, st = read.header, read.state
        first = read.records[0].time if read.records else ""
        found: Summary | None = Summary(
            players=(str(header.players[0]), str(header.players[1])),
            variant=str(header.variant),
            score=(_points(st.score[0]), _points(st.score[1])),
            match_length=int(header.match_length),
            date=(header.date or str(first)[:10]),
            finished=st.phase == rules_match.MATCH_OVER,
        )
    except Exception:  # a damaged or foreign journal is listed by name only
        found = None
    if len(_SUMMARIES) > 2000:
        _SUMMARIES.clear()
    _SUMMARIES[key] = found
    return found


def _inside(base: Path, candidate: Path) -> bool:
    try:
        return candidate.resolve().is_relative_to(base.resolve())
    except OSError:
        return False


def _evidence(base: Path, journal: Path) -> list[Path]:
    """Evidence frames named in the journal, plus JPEGs in a folder named after the match."""
    found: dict[Path, None] = {}
    try:
        with journal.open("rb") as handle:
            text = handle.read(MAX_EVIDENCE_SCAN).decode("utf-8", "replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        body = line.rsplit("\t", 1)[0]
        try:
            event = json.loads(body)
        except ValueError:
            continue
        if isinstance(event, dict):
            name = event.get("evidence") or event.get("frame")
            if isinstance(name, str) and name.lower().endswith((".jpg", ".jpeg")):
                path = base / name
                if _inside(base, path) and path.is_file():
                    found[path] = None
    for folder in (base / journal.stem, base / f"{journal.stem}.evidence", base / "evidence" / journal.stem):
        if folder.is_dir() and _inside(base, folder):
            for path in sorted(folder.iterdir()):
                if path.suffix.lower() in (".jpg", ".jpeg") and path.is_file():
                    found[path] = None
    return list(found)


def list_matches(base: Path) -> list[MatchRecord]:
    if not base.is_dir():
        return []
    matches = []
    for journal in sorted(base.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        if not SAFE_NAME.match(journal.name):
            continue
        stat = journal.stat()
        record = MatchRecord(
            journal.stem,
            journal,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(stat.st_mtime)),
            stat.st_size,
        )
        record.summary = summary(journal, stat)
        nardy = record.summary is not None and record.summary.variant != "backgammon"
        usable = [ext for ext in EXPORTS if not (nardy and ext in BACKGAMMON_ONLY)]
        record.exports = [journal.with_suffix(ext) for ext in usable if journal.with_suffix(ext).is_file()]
        record.formats = tuple(ext[1:] for ext in usable)
        record.evidence = _evidence(base, journal)
        matches.append(record)
    return matches


def _find(match: str) -> MatchRecord:
    if not SAFE_NAME.match(match):
        abort(404)
    for record in list_matches(state().view.records_dir):
        if record.name == match:
            return record
    abort(404)


@bp.get("/records")
def page() -> str:
    module = exporter()
    formats = tuple(module.FORMATS) if module is not None else ()
    return render_template("records.html", matches=list_matches(state().view.records_dir), formats=formats)


@bp.get("/records/<match>/file/<name>")
def download(match: str, name: str) -> Response:
    record = _find(match)
    for path in [record.journal, *record.exports]:
        if path.name == name:
            return send_file(path.resolve(), as_attachment=True, download_name=path.name, max_age=0)
    abort(404)


def exporter() -> Any:
    """``recording.export`` when the recording package offers it (else exports are only served as files)."""
    try:
        from recording import export
    except ImportError:
        return None
    return export if hasattr(export, "render") and hasattr(export, "FORMATS") else None


@bp.get("/records/<match>/export/<fmt>")
def export_now(match: str, fmt: str) -> Response:
    """Render an export from the journal on demand (nothing is written to the records folder)."""
    record = _find(match)
    module = exporter()
    if module is None or fmt not in module.FORMATS or fmt not in record.formats:
        abort(404)
    try:
        from recording.journal import replay

        text = module.render(replay(record.journal, check_plays=False), fmt)
    except (ValueError, OSError) as error:
        fail(409, t("rec.export_failed", fmt=fmt, problem=str(error)[:200]))
    response = Response(text, mimetype="application/json" if fmt == "json" else "text/plain")
    response.headers["Content-Disposition"] = f'attachment; filename="{record.name}.{fmt}"'
    return response


@bp.get("/records/<match>/evidence")
def evidence_page(match: str) -> str:
    record = _find(match)
    return render_template("evidence.html", record=record)


@bp.get("/records/<match>/evidence/<int:index>.jpg")
def evidence(match: str, index: int) -> Response:
    record = _find(match)
    if not 0 <= index < len(record.evidence):
        abort(404)
    return send_file(record.evidence[index].resolve(), mimetype="image/jpeg", max_age=0)
