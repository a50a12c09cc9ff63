"""The dashboard and the records pages, served from journal copies (Flask test client, no broker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from club.mirror import Mirror
from club.web import create_club_app
from recording.export import render
from recording.journal import replay
from tests.club.test_mirror import board_journal
from web_ui.security import PinStore


@pytest.fixture
def mirror(tmp_path: Path) -> Mirror:
    board = board_journal(tmp_path, events=30)
    mirror = Mirror(tmp_path / "club")
    for table in ("T1", "T2", "T10"):
        for line in board.read_bytes().splitlines(keepends=True):
            mirror.receive(table, "match-1", line)
        mirror.set_status(table, True)
    mirror.set_snapshot("T2", {"match": "match-1", "seq": 30, "alert": "the 9-point has one checker too many",
                               "marks": [[9, "extra"]], "mode": "illegal", "health": {"camera_ok": True}})
    mirror.set_snapshot("T10", {"match": "match-1", "seq": 30, "question": None, "health": {"camera_ok": False},
                                "page": "http://table10.local:8080/"})
    mirror.set_status("T1", False)
    return mirror


def test_the_grid_shows_every_table_with_its_board_and_marks(mirror: Mirror) -> None:
    html = create_club_app(mirror).test_client().get("/").get_data(as_text=True)
    assert html.count("<svg") == 3
    order = [html.rindex("<article", 0, html.index(f'id="table-{t}"')) for t in ("T1", "T2", "T10")]
    assert order == sorted(order)  # T2 before T10, as a director counts
    t2 = html[order[1]:order[2]]
    assert "has-alert" in t2 and "the 9-point has one checker too many" in t2
    t10 = html[order[2]:]
    assert "has-device" in t10 and 'href="http://table10.local:8080/"' in t10
    assert "is-offline" in html[order[0]:order[1]]
    header_players = " ".join(mirror.tables["T1"].matches["match-1"].header.players)
    assert header_players.split()[0] in html


def test_the_spectator_view_hides_the_wording_and_the_pips(mirror: Mirror) -> None:
    client = create_club_app(mirror).test_client()
    director = client.get("/").get_data(as_text=True)
    spectator = client.get("/?view=spectator").get_data(as_text=True)
    assert "has-alert" in spectator and "the 9-point has one checker too many" not in spectator
    assert "pips" in director and "pips" not in spectator


@pytest.mark.parametrize(("lang", "word"), [("en", "Spectator view"), ("ro", "Pentru spectatori"),
                                            ("ru", "Для зрителей"), ("bg", "За зрители"),
                                            ("tr", "İzleyici görünümü"), ("uz", "Tomoshabinlar uchun")])
def test_six_languages(mirror: Mirror, lang: str, word: str) -> None:
    client = create_club_app(mirror).test_client()
    assert word in client.get(f"/?lang={lang}").get_data(as_text=True)
    assert word in client.get("/").get_data(as_text=True)  # the choice is remembered


def test_records_are_made_from_the_copies(mirror: Mirror, tmp_path: Path) -> None:
    client = create_club_app(mirror).test_client()
    page = client.get("/club/records").get_data(as_text=True)
    assert page.count("match-1.mat") == 3
    copy = replay(tmp_path / "club" / "T2" / "match-1.jsonl")
    for fmt in ("mat", "sgf", "json", "txt"):
        response = client.get(f"/club/records/T2/match-1.{fmt}")
        assert response.status_code == 200 and response.get_data(as_text=True) == render(copy, fmt)
    assert client.get("/club/records/T2/match-1.jsonl").data == (tmp_path / "club" / "T2" / "match-1.jsonl").read_bytes()
    assert client.get("/club/records/T2/match-1.exe").status_code == 404
    assert client.get("/club/records/T9/match-1.mat").status_code == 404
    assert client.get("/club/records/..%2F..%2Fetc/passwd.txt").status_code == 404


@pytest.fixture
def director(mirror: Mirror, tmp_path: Path) -> tuple[Any, list[tuple[str, str, str, int]]]:
    pins = PinStore(tmp_path / "director-pin.json", cost=2**8)
    pins.set("2468")
    sent: list[tuple[str, str, str, int]] = []

    def send(table: str, action: str, match: str, seq: int) -> bool:
        sent.append((table, action, match, seq))
        return True

    return create_club_app(mirror, send, pins).test_client(), sent


def test_director_actions_need_the_pin(director: tuple[Any, list[tuple[str, str, str, int]]]) -> None:
    client, sent = director
    html = client.get("/").get_data(as_text=True)
    t2 = html[html.index('id="table-T2"'):html.index('id="table-T10"')]
    assert 'action="/club/table/T2/action"' in t2 and 'value="accept"' in t2
    assert html.count("club-decide") == 1  # only the table with something to decide
    assert "club-decide" not in client.get("/?view=spectator").get_data(as_text=True)
    form = {"action": "accept", "match": "match-1", "seq": "30"}
    assert client.post("/club/table/T2/action", data={**form, "pin": "1357"}).status_code == 403
    assert client.post("/club/table/T2/action", data={**form, "pin": "2468", "seq": "29"}).status_code == 409
    assert client.post("/club/table/T1/action", data={**form, "pin": "2468"}).status_code == 409
    assert sent == []
    answer = client.post("/club/table/T2/action", data={**form, "pin": "2468"})
    assert answer.status_code == 303 and sent == [("T2", "accept", "match-1", 30)]
    for _ in range(5):
        client.post("/club/table/T2/action", data={**form, "pin": "0000"})
    assert client.post("/club/table/T2/action", data={**form, "pin": "2468"}).status_code == 429


def test_without_a_director_pin_the_dashboard_only_shows(mirror: Mirror, tmp_path: Path) -> None:
    client = create_club_app(mirror, lambda *a: True, PinStore(tmp_path / "none.json")).test_client()
    assert "club-decide" not in client.get("/").get_data(as_text=True)
    form = {"action": "accept", "match": "match-1", "seq": "30", "pin": "2468"}
    assert client.post("/club/table/T2/action", data=form).status_code == 403
