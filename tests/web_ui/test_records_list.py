"""The records page lists matches as a director looks for them (issue 24, item 7): players,
game, score and date from the journals the referee writes; a long nardy match offers no .mat or
.sgf (GNU Backgammon's formats hold backgammon only), and every link offered works."""

from __future__ import annotations

import re
from pathlib import Path

from flask.testing import FlaskClient

from recording.journal import Header, Journal
from rules import match
from web_ui.demo_view import DemoGame


def _journals(records: Path) -> None:
    records.mkdir(parents=True, exist_ok=True)
    with Journal.create(records / "match-1.jsonl", Header(variant="backgammon", match_length=5,
                                                          players=("Ana", "Ion"), date="2026-12-03")) as bg:
        bg.append(match.OpeningRoll(3, 1))
    with Journal.create(records / "match-2.jsonl", Header(variant="nardy", match_length=3,
                                                          players=("Aziz", "Olga"), date="2026-12-04")) as nardy:
        nardy.append(match.OpeningRoll(6, 2))
    (records / "match-2.txt").write_text("already exported\n")


def test_records_list_players_game_score_and_date(client: FlaskClient, game: DemoGame) -> None:
    _journals(game.records_dir)
    html = client.get("/records").get_data(as_text=True)
    rows = re.findall(r"<tr>.*?</tr>", html, re.S)
    bg = next(r for r in rows if "Ana – Ion" in r)
    nardy = next(r for r in rows if "Aziz – Olga" in r)
    assert "Backgammon" in bg and "0–0" in bg and "Match to 5" in bg and "2026-12-03" in bg
    assert "Long nardy" in nardy and "Match to 3" in nardy and "2026-12-04" in nardy
    assert ">mat<" in bg and ">sgf<" in bg
    assert ">mat<" not in nardy and ">sgf<" not in nardy and ">json<" in nardy and ">txt<" in nardy
    # every link offered works
    for row in (bg, nardy):
        for href in re.findall(r'href="(/records/[^"]+)"', row):
            assert client.get(href).status_code == 200, href
    assert client.get("/records/match-2/export/mat").status_code == 404  # not offered, not made


def test_records_list_in_russian(client: FlaskClient, game: DemoGame) -> None:
    _journals(game.records_dir)
    html = client.get("/records", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Игроки" in html and "Длинные нарды" in html and "Матч до 3" in html
