"""The read-only pages: live board, SSE replay, languages, tournament mode, records, calibration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.web_ui.conftest import app_config
from web_ui import create_app
from web_ui.demo_view import DemoGame


def _sse_messages(client: FlaskClient, **kwargs: object) -> list[dict[str, object]]:
    response = client.get("/events", buffered=False, **kwargs)  # type: ignore[arg-type]
    assert response.mimetype == "text/event-stream"
    text = b"".join(response.response).decode()  # type: ignore[arg-type]
    response.close()
    messages = []
    for block in text.split("\n\n"):
        fields: dict[str, object] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            if name in ("id", "event", "data", "retry"):
                fields[name] = value
            elif line.startswith("retry:"):
                fields["retry"] = line[6:].strip()
        if "data" in fields:
            fields["data"] = json.loads(str(fields["data"]))
        if fields:
            messages.append(fields)
    return messages


def test_live_page_shows_the_game(client: FlaskClient, game: DemoGame) -> None:
    game.roll(3, 1)
    game.play("8/5 6/5")
    html = client.get("/").get_data(as_text=True)
    assert "Ana" in html and "Boris" in html
    assert "8/5 6/5" in html
    assert 'id="board"' in html and 'class="ck ck-light"' in html
    assert "Pips 163" in html and "Pips 167" in html
    state = client.get("/state.json").json
    assert state["pips"] == [163, 167] and state["on_roll"] == 1


def test_sse_replays_missed_events_after_last_event_id(client: FlaskClient, game: DemoGame) -> None:
    game.roll(3, 1)  # 1
    game.play("8/5 6/5")  # 2
    game.roll(6, 4)  # 3
    game.play("24/18 13/9")  # 4
    epoch = client.application.extensions["referee"].epoch
    messages = _sse_messages(client, headers={"Last-Event-ID": f"{epoch}-2"})
    logs = [m for m in messages if m.get("event") == "log"]
    assert [m["id"] for m in logs] == [f"{epoch}-3", f"{epoch}-4"]
    assert logs[1]["data"]["text"] == "Boris played 24/18 13/9"  # type: ignore[index]
    states = [m for m in messages if m.get("event") == "state"]
    assert states and states[0]["id"] == f"{epoch}-4"
    assert "24/18 13/9" in states[0]["data"]["live"]  # type: ignore[index]
    assert messages[0]["retry"] == "1000"


def test_sse_query_parameter_and_fresh_start(client: FlaskClient, game: DemoGame) -> None:
    game.roll(5, 5)
    fresh = _sse_messages(client)
    assert [m["event"] for m in fresh if "event" in m] == ["state"]
    epoch = client.application.extensions["referee"].epoch
    assert fresh[-1]["id"] == f"{epoch}-1"
    replay = _sse_messages(client, query_string={"last": f"{epoch}-0"})
    assert [m["event"] for m in replay if "event" in m] == ["log", "state"]


def test_sse_turns_viewers_away_politely_when_full(game: DemoGame, tmp_path: Path) -> None:
    app = create_app(game, game, app_config(tmp_path, SSE_MAX_STREAMS=0))
    messages = _sse_messages(app.test_client())
    assert messages[0]["retry"] == "5000"
    assert messages[1]["event"] == "state" and messages[1]["data"]["busy"] is True  # type: ignore[index]
    # no event id: coming back, the viewer still gets the events it has not seen
    assert "id" not in messages[1]


def test_alert_names_the_reason_and_points(client: FlaskClient, game: DemoGame) -> None:
    game.roll(5, 2)
    game.illegal("A checker moved 6 pips with a 5", [(13, "missing"), (7, "extra")], "wrong_distance")
    html = client.get("/").get_data(as_text=True)
    assert "Illegal play by Ana" in html
    assert "A checker moved a distance the dice do not allow." in html
    assert "point 13: checker missing" in html and "point 7: checker should not be here" in html
    assert re.search(r'class="point mark mark-extra" data-point="7"', html)
    assert re.search(r'class="point mark mark-missing" data-point="13"', html)


def test_alert_points_follow_the_side_on_roll(client: FlaskClient, game: DemoGame) -> None:
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.roll(6, 4)
    game.illegal("blocked", [(24, "missing"), (18, "extra")], "blocked_point")  # Boris's numbering
    html = client.get("/").get_data(as_text=True)
    assert 'class="point mark mark-missing" data-point="1" data-label="24"' in html
    assert 'class="point mark mark-extra" data-point="7" data-label="18"' in html
    assert "Illegal play by Boris" in html


def test_uncertain_reading_is_asked(client: FlaskClient, game: DemoGame) -> None:
    game.ask("Two or three checkers on point 6?", [6])
    html = client.get("/").get_data(as_text=True)
    assert "The referee is not sure what it sees" in html and "Two or three checkers on point 6?" in html


def test_device_status_always_shown(client: FlaskClient, game: DemoGame) -> None:
    game.set_status("camera", "error", "no frames for 5 s")
    for path in ("/", "/control", "/calibration"):
        html = client.get(path).get_data(as_text=True)
        assert 'class="device level-error" data-device="camera"' in html, path
        assert "no frames for 5 s" in html
    assert 'id="conn"' in client.get("/records").get_data(as_text=True)


def test_tournament_mode_hides_pip_counts(client: FlaskClient, game: DemoGame) -> None:
    assert "Pips" in client.get("/").get_data(as_text=True)
    game.set_tournament(True)
    html = client.get("/").get_data(as_text=True)
    assert "Pips" not in html and 'class="pips ' not in html
    assert "Tournament mode" in html
    assert "pips" not in client.get("/state.json").json
    assert 'class="pips' not in client.get("/board.svg").get_data(as_text=True)


def test_board_svg_is_an_image(client: FlaskClient) -> None:
    response = client.get("/board.svg")
    assert response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).startswith("<svg")


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("ro-RO,ro;q=0.9", ["Comenzi", "Table (backgammon)"]),
        ("ru", ["Управление", "Короткие нарды"]),
        ("bg", ["Управление", "Табла"]),
        ("tr-TR", ["Yönetim", "Tavla"]),
        ("uz", ["Boshqaruv", "Qisqa nard"]),
        ("de, en;q=0.5", ["Control", "Backgammon"]),
    ],
)
def test_language_from_the_browser(client: FlaskClient, header: str, words: list[str]) -> None:
    html = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    for word in words:
        assert word in html


def test_language_switch_sets_a_cookie(client: FlaskClient) -> None:
    response = client.get("/lang?lang=ru&next=/records")
    assert response.status_code == 303 and response.headers["Location"] == "/records"
    assert "lang=ru" in response.headers["Set-Cookie"]
    assert "Партии" in client.get("/records", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert client.get("/lang?lang=xx&next=//evil.example/").headers["Location"] == "/"


def test_new_game_form_explains_every_option(client: FlaskClient) -> None:
    client.post("/unlock", json={"pin": "2468"})
    html = client.get("/control", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    for name in ("illegal_play", "dice_half", "crawford", "jacoby", "beavers", "prime_check", "prime_condition",
                 "koks", "home_mars", "last_roll_draw", "draw_points", "white_always_starts", "cascade_unplayed",
                 "first_turn_exception", "home_moves"):
        assert f'.{name}"' in html, name
    assert "Table lung" in html and "Table nebun" in html and "Șase-unu" in html
    assert "Regula Crawford" in html and "Marț acasă" in html
    assert html.count('class="help"') >= 20


def test_nardy_words(client: FlaskClient, game: DemoGame) -> None:
    game.new_game("nardy", ("Aziz", "Olga"), 3, {})
    client.post("/unlock", json={"pin": "2468"})
    ru = client.get("/control", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Длинные нарды" in ru and "ойн (1)" in ru and "марс (2)" in ru and "кокс (3)" in ru
    uz = client.get("/control", headers={"Accept-Language": "uz"}).get_data(as_text=True)
    assert "Uzun nard" in uz and "oyin (1)" in uz


def test_calibration_page_frame_and_reading(client: FlaskClient, game: DemoGame) -> None:
    html = client.get("/calibration").get_data(as_text=True)
    assert 'id="frame"' in html and "What the camera reads now" in html
    frame = client.get("/calibration/frame.jpg")
    assert frame.status_code == 200 and frame.mimetype == "image/jpeg" and frame.data[:2] == b"\xff\xd8"
    game.roll(4, 2)
    reading = client.get("/calibration/reading").json["html"]
    assert "4-2" in reading and 'id="reading-board"' in reading


def _write_journal(path: Path, events: list[dict[str, object]]) -> None:
    import zlib

    lines = []
    for event in events:
        body = json.dumps(event)
        lines.append(f"{body}\t{zlib.crc32(body.encode()):08x}\n")
    path.write_text("".join(lines))


def test_records_list_downloads_and_evidence(client: FlaskClient, game: DemoGame) -> None:
    records = game.records_dir
    (records / "m-2026-12-01").mkdir(parents=True)
    _write_journal(records / "m-2026-12-01.jsonl", [{"type": "play", "evidence": "m-2026-12-01/0002.jpg"},
                                                    {"type": "play", "evidence": "../../etc/passwd.jpg"}])
    (records / "m-2026-12-01.mat").write_text(" 5 point match\n")
    (records / "m-2026-12-01.sgf").write_text("(;GM[6])")
    (records / "m-2026-12-01" / "0001.jpg").write_bytes(b"\xff\xd8one")
    (records / "m-2026-12-01" / "0002.jpg").write_bytes(b"\xff\xd8two")
    (records / "secret.key").write_text("do not serve")
    html = client.get("/records").get_data(as_text=True)
    assert "m-2026-12-01" in html and ">mat<" in html and ">sgf<" in html and "2 frames" in html
    download = client.get("/records/m-2026-12-01/file/m-2026-12-01.mat")
    assert download.status_code == 200 and download.data == b" 5 point match\n"
    assert "attachment" in download.headers["Content-Disposition"]
    assert client.get("/records/m-2026-12-01/file/m-2026-12-01.jsonl").status_code == 200
    assert client.get("/records/m-2026-12-01/file/secret.key").status_code == 404
    assert client.get("/records/m-2026-12-01/file/..%2Fsecret.key").status_code == 404
    assert client.get("/records/..%2F..%2Fetc/file/passwd").status_code == 404
    assert client.get("/records/nothing/file/nothing.mat").status_code == 404
    assert client.get("/records/m-2026-12-01/evidence/0.jpg").data in (b"\xff\xd8one", b"\xff\xd8two")
    assert client.get("/records/m-2026-12-01/evidence/2.jpg").status_code == 404
    assert "0002.jpg" in client.get("/records/m-2026-12-01/evidence").get_data(as_text=True)


def test_records_empty(client: FlaskClient) -> None:
    assert "No recorded matches yet." in client.get("/records").get_data(as_text=True)


def test_web_ui_imports_only_rules_and_recording() -> None:
    import ast

    ours = {"rules", "recording", "vision", "controller", "firmware_bridge", "web_ui"}
    for path in Path("web_ui").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in ours:
                    assert top in ("rules", "recording", "web_ui"), f"{path} imports {name}"


def test_records_export_on_demand_or_a_clear_refusal(client: FlaskClient, game: DemoGame) -> None:
    records = game.records_dir
    records.mkdir(parents=True)
    _write_journal(records / "broken.jsonl", [{"type": "not an event"}])
    from web_ui.records import exporter

    if exporter() is None:
        assert client.get("/records/broken/export/mat").status_code == 404
        return
    assert "/records/broken/export/sgf" in client.get("/records").get_data(as_text=True)
    response = client.get("/records/broken/export/sgf", headers={"Accept": "application/json"})
    assert response.status_code in (200, 409)
    if response.status_code == 409:
        assert "Could not make the sgf export" in response.json["error"]
    assert client.get("/records/broken/export/exe").status_code == 404


def test_correction_editor_starts_from_the_doubtful_reading(client: FlaskClient, game: DemoGame) -> None:
    from dataclasses import replace

    from rules.position import starting_position
    from web_ui.view import PointMark, Question

    read = starting_position("backgammon")
    read = type(read)(read.mover[:5] + (4,) + read.mover[6:], read.opponent, "backgammon")
    with game._lock:
        game._snapshot = replace(game._snapshot, question=Question("Is the 6-point right?", read, (PointMark(6),)))
    client.post("/unlock", json={"pin": "2468"})
    html = client.get("/control").get_data(as_text=True)
    editor = html[html.index('id="editor-wrap"'):]
    assert 'data-bottom="[0, 0, 0, 0, 0, 4,' in editor
    assert 'class="point mark mark-extra" data-point="6"' in editor
