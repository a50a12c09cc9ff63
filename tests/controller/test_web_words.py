"""What the real referee tells the page is sent as keys and values and put in the reader's words
(issue 24, items 5 and 6): no English from the referee inside the other five languages."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.webref.table import RealTable, observation
from web_ui.common import describe, shown
from web_ui.i18n import LANGUAGES, translator
from web_ui.view import Snapshot

PIN = "4321"


@pytest.fixture
def table(tmp_path: Path) -> RealTable:
    return RealTable(tmp_path, serve=False, pin=PIN)


def _app(table: RealTable, tmp_path: Path):  # type: ignore[no-untyped-def]
    from web_ui import create_app

    return create_app(table.hub, table.hub, {"TESTING": True, "DATA_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                                             "PIN_COST": 2**4})


def _game(table: RealTable) -> None:
    table.start(6, 2)
    table.play("13/7 8/6")
    assert table.referee.cube("double", 1) and table.referee.cube("take", 0)
    position, light = table._view()
    table.referee.observe(observation(position, light, dice=(5, 2), roll="void", void_reason="cocked",
                                      half="left"))
    table.referee.observe(observation(position, light))
    table.roll(4, 2)
    table.misplay("13/10 6/5")
    table.play("24/20 24/22")
    table.finish(7)


def test_every_logged_event_is_in_the_readers_words(table: RealTable) -> None:
    _game(table)
    events = [e for e in table.hub.events_since(0, 0) if shown(e)]
    kinds = {kind for _, kind, _ in events}
    assert {"roll", "play", "cube", "void", "alert", "corrected", "game_end", "new_game"} <= kinds
    snap = table.hub.snapshot()
    english = [describe(e, snap, translator("en")) for e in events]
    assert "Opening roll 6-2: Ana starts" in english
    assert any(line.startswith("Void roll (cocked die)") for line in english)
    assert any(" wins 4 (" in line or " wins 2 (" in line or " wins 6 (" in line for line in english)
    assert not any(line in ("board", "turn", "ready", "verified") for line in english)
    for lang in LANGUAGES:
        if lang == "en":
            continue
        words = [describe(e, snap, translator(lang)) for e in events]
        for english_line, line, event in zip(english, words, events, strict=True):
            assert line != english_line, (lang, event[1], line)


def test_result_moves_devices_and_questions_translated_on_the_page(table: RealTable, tmp_path: Path) -> None:
    _game(table)
    client = _app(table, tmp_path).test_client()
    html = client.get("/", headers={"Host": "localhost", "Accept-Language": "ru"}).get_data(as_text=True)
    snap: Snapshot = table.hub.snapshot()
    assert snap.result and snap.result not in html  # the English result line is not shown…
    assert "выигрывает" in html  # …its Russian one is
    assert "Удваивает" in html and "Принимает" in html and "Doubles" not in html
    assert "нет контроллера светодиодов" in html and "no LED controller" not in html


def test_a_question_is_asked_in_the_readers_words(table: RealTable, tmp_path: Path) -> None:
    from rules.position import Position

    table.start(3, 1)
    position, light = table._view()
    from tests.webref.table import legal_results  # the same engine the referee judges with

    right = next(r for r, found in legal_results(position, "31").items() if found.notation() == "8/5 6/5")
    mover = list(right.mover)
    mover[4] -= 1  # one checker of the made point misread
    blurry = Position(tuple(mover), right.opponent)
    for _ in range(4):
        table.referee.observe(observation(blurry, light))
    assert table.hub.snapshot().question is not None
    client = _app(table, tmp_path).test_client()
    html = client.get("/", headers={"Host": "localhost", "Accept-Language": "tr"}).get_data(as_text=True)
    assert "Bir pul geçerli bir hamleden farklı." in html
    assert "one checker differs" not in html


def test_the_move_list_writes_the_higher_die_first(table: RealTable) -> None:
    table.start(3, 1)
    table.play("8/5 6/5")
    table.roll(1, 5)
    table.play_any(random.Random(3))
    assert [m.dice for m in table.hub.snapshot().moves] == ["31", "51"]
