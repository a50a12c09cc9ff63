"""``python -m web_ui``'s scripted game goes on whatever people do on the page (issue 24 item 9):
a correction, corrected dice, an accepted alert, a new long nardy game."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.web_ui.conftest import PIN, app_config
from web_ui import board_svg, create_app
from web_ui.demo_view import NARDY_SCRIPT, SCRIPT, DemoGame, apply_notation, run_script


@pytest.mark.parametrize("variant, script", [("backgammon", SCRIPT), ("nardy", NARDY_SCRIPT),
                                             ("gulbara", NARDY_SCRIPT), ("sixone", NARDY_SCRIPT)])
def test_every_script_plays_through(variant: str, script: tuple[tuple[tuple[int, int], str], ...]) -> None:
    from rules.position import starting_position

    position = starting_position(variant)
    for _, notation in script:
        position = apply_notation(position, notation).swapped()


def _wait(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.01)


def test_scripted_game_survives_what_people_do(tmp_path: Path) -> None:
    game = DemoGame(tmp_path / "records")
    client = create_app(game, game, app_config(tmp_path)).test_client()
    stop = threading.Event()
    thread = threading.Thread(target=run_script, args=(game, stop, 0.01), daemon=True)
    thread.start()
    headers = {"Host": "localhost", "Accept": "application/json", "X-Referee-Pin": PIN}
    try:
        def act(action: str, **data: object) -> None:
            response = client.post(f"/api/{action}", json=data, headers=headers)
            assert response.status_code in (200, 409), response.get_data(as_text=True)

        _wait(lambda: len(game.snapshot().moves) >= 2)
        # the director sets the board by hand: the script's next play no longer fits it
        layout = board_svg.layout_from_snapshot(game.snapshot())
        bottom = list(layout.bottom)
        bottom[bottom.index(max(bottom))] -= 1
        bottom[next(i for i in range(24) if bottom[i] == 0 and layout.top[i] == 0)] += 1
        act("correct_reading", bottom=bottom, top=list(layout.top))
        _wait(lambda: game.snapshot().dice != ())
        act("correct_dice", die0=6, die1=2)
        _wait(lambda: game.snapshot().alert is not None)
        act("accept_illegal")
        act("new_game", variant="nardy", player0="Aziz", player1="Olga", match_length=3)
        _wait(lambda: game.snapshot().variant == "nardy" and len(game.snapshot().moves) >= 3)
        assert thread.is_alive()
        assert game.snapshot().players == ("Aziz", "Olga")
        assert [m.notation for m in game.snapshot().moves][:2] == [NARDY_SCRIPT[0][1], NARDY_SCRIPT[1][1]]
        events = game.latest_event_id()
        _wait(lambda: game.latest_event_id() > events + 3)
        assert thread.is_alive()
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()
