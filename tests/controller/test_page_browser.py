"""The companion page in Chromium against the real referee (issue 24): the director's controls and
the board during alerts.  The referee is fed readings made from positions (no camera); every
verdict goes through its journal, as at a table.  Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.referee import Referee, RefereeSettings
from controller.signals import BoardSignals
from controller.web import RefereeHub
from recording.export import render
from recording.journal import Header, Journal
from rules.position import Position, starting_position
from tests.controller.test_dice_correction import (
    MISREAD,
    misreading,
    new_referee,
    opening,
    roll_and_play,
    take_turn,
    whole_game,
)
from tests.controller.test_referee import obs, start_game
from tests.web_ui.conftest import PIN, LiveServer, app_config
from tests.web_ui.test_browser import ARTIFACTS, Page, browser, wait_until  # noqa: F401  (browser: a fixture)
from web_ui import create_app

pytestmark = pytest.mark.browser

USED_PORTS: set[int] = set()


class Table:
    """A real referee behind the page, served by waitress."""

    def __init__(self, tmp_path: Path, options: dict[str, Any] | None = None, *, variant: str = "backgammon",
                 players: tuple[str, str] = ("Ana", "Ion"), new_game: Any = None) -> None:
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.journal = Journal.create(tmp_path / "match.jsonl", Header(variant=variant, match_length=5,
                                                                         players=players, options=options or {}))
        self.signals = BoardSignals(None)
        self.hub = RefereeHub(tmp_path, new_game=new_game)
        self.signals.add_listener(self.hub.publish)
        self.referee = Referee(self.journal, self.signals, RefereeSettings(confirm_reads=2, question_after_reads=3))
        self.hub.attach_referee(self.referee)
        app = create_app(self.hub, self.hub, app_config(tmp_path, TESTING=False, SSE_HEARTBEAT=0.25,
                                                        SSE_MAX_SECONDS=60.0))
        # A fresh port each time: a browser of an earlier test may still hold a keep-alive
        # connection to a closed server on a reused port and reach the wrong referee.
        while True:
            server = LiveServer(app, self.hub)  # type: ignore[arg-type]
            port = server.server.effective_port
            if port not in USED_PORTS:
                break
            server.server.close()
        USED_PORTS.add(port)
        self.server = server
        self.url = server.url

    def __enter__(self) -> Table:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def kinds(self) -> list[str]:
        return [record.event.kind for record in self.journal.records]


@pytest.fixture
def tab(browser: Any) -> Iterator[Page]:  # noqa: F811
    page = Page(browser, 1366, 800)
    yield page
    page.close()


def unlock(tab: Page, url: str) -> Any:
    page = tab.open(url + "/control")
    page.fill("#pin", PIN)
    page.click("#unlock-button")
    try:
        page.wait_for_selector("#btn-pause", timeout=10000)
    except Exception:
        tab.shot("unlock-failed", full_page=True)
        raise
    page.wait_for_selector("#conn[data-state=live]")
    return page


def thirteen_to_nine_and_eleven() -> Position:
    """13/9 13/11 from the start: a 4-2, illegal with 3-1, two checkers off any 3-1 play."""
    start = starting_position()
    mover = list(start.mover)
    mover[12] -= 2
    mover[8] += 1
    mover[10] += 1
    return Position(tuple(mover), start.opponent)


@pytest.mark.parametrize("policy", ["must_correct", "opponent_may_accept"])
def test_accept_is_offered_only_when_the_rules_allow_it(tmp_path: Path, tab: Page, policy: str) -> None:
    with Table(tmp_path, {"illegal_play": policy}) as table:
        page = unlock(tab, table.url)
        assert page.locator("#btn-undo").count() == 0  # the referee has no undo: not offered
        assert not page.locator("#btn-accept").is_visible() and not page.locator("#btn-confirm").is_visible()
        start_game(table.referee, 3, 1)
        wrong = thirteen_to_nine_and_eleven()
        table.referee.observe(obs(wrong))
        table.referee.observe(obs(wrong))
        page.wait_for_selector("#alert", timeout=5000)
        if policy == "must_correct":
            assert not page.locator("#btn-accept").is_visible()
            tab.shot("referee-alert-must-correct")
        else:
            page.wait_for_selector("#btn-accept", timeout=2000)
            page.click("#btn-accept")
            page.wait_for_selector(".toast.ok")
            page.wait_for_selector("#alert", state="detached", timeout=5000)
            assert table.kinds()[-1] == "IllegalPlayAccepted"
            wait_until(page, "document.querySelector('#btn-accept').offsetParent === null")
        assert tab.errors == []


def test_new_game_is_not_offered_where_it_cannot_start(tmp_path: Path, tab: Page) -> None:
    with Table(tmp_path) as table:  # like the demo: the hub cannot start games
        page = unlock(tab, table.url)
        assert page.locator("#btn-new-game").count() == 0
        assert "referee run" in page.locator("#new-game").inner_text()
        page.goto("about:blank")  # leave before this referee's server stops
    started: list[tuple[Any, ...]] = []
    with Table(tmp_path / "own", new_game=lambda *args: started.append(args)) as table:
        page = unlock(tab, table.url)
        page.once("dialog", lambda dialog: dialog.accept())
        with page.expect_navigation():  # the form reloads the page once the game started
            page.click("#btn-new-game")
        assert started and started[0][0] == "backgammon"
    assert tab.errors == []


def test_tournament_mode_toggle_hides_the_pip_counts(tmp_path: Path, tab: Page) -> None:
    with Table(tmp_path) as table:
        page = unlock(tab, table.url)
        assert page.locator("#board .pips").count() == 2
        page.click("#btn-tournament")
        wait_until(page, "document.querySelectorAll('#board .pips').length === 0")
        assert table.hub.snapshot().tournament
        wait_until(page, "document.querySelectorAll('.device.tournament').length === 1")
        page.click("#btn-tournament")
        wait_until(page, "document.querySelectorAll('#board .pips').length === 2")
        assert tab.errors == []


def test_misread_dice_corrected_from_the_page(tmp_path: Path, tab: Page) -> None:
    """A whole game in which one roll is misread, so the right play is called illegal and the game
    stalls; the director taps the dice to their real values on the control page and the game goes
    on to its end with the record of the same game read right."""
    turns = whole_game(2410)
    right, _ = new_referee(tmp_path / "right.jsonl")
    opening(right)
    for turn in turns:
        take_turn(right, turn)
    index, read = misreading(turns, 10)
    real = turns[index][1]
    with Table(tmp_path / "table") as table:
        referee = table.referee
        opening(referee)
        page = unlock(tab, table.url)
        assert not page.locator("#dice-card").is_visible()
        for turn in turns[:index]:
            take_turn(referee, turn)
        take_turn(referee, turns[index], read)
        page.wait_for_selector("#alert", timeout=5000)
        page.wait_for_selector("#dice-card", timeout=2000)
        wait_until(page, f"document.querySelector('#die-0').dataset.value === '{read[0]}'")
        assert page.locator("#die-1").get_attribute("data-value") == str(read[1])
        box = page.locator("#die-0").bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44  # the roll shown large
        tab.shot("dice-misread-alert")
        for die in (0, 1):
            for _ in range((real[die] - read[die]) % 6):
                page.click(f"#die-{die}")
            assert page.locator(f"#die-{die}").get_attribute("data-value") == str(real[die])
        page.click("#btn-correct-dice")
        page.wait_for_selector(".toast.ok")
        page.wait_for_selector("#alert", state="detached", timeout=5000)
        assert table.kinds()[-3:] == ["IllegalPlayDetected", "DiceCorrected", "Play"]
        wait_until(page, "document.querySelector('#dice-card').hidden === true")
        tab.shot("dice-corrected")
        for turn in turns[index + 1:]:
            take_turn(referee, turn)
        assert referee.state.score == right.state.score and referee.state.score != (0, 0)
        assert render(table.journal, "mat") == render(right.journal, "mat")
        high, low = max(read), min(read)
        assert f"(dice corrected: read {high}{low}, really {max(real)}{min(real)}, by director)" in render(
            table.journal, "txt")
        page.wait_for_selector(".phase strong", timeout=5000)  # the page shows the result
        assert tab.errors == []


def _count(page: Any, label: int, cls: str) -> int:
    return int(page.evaluate(f"document.querySelectorAll(\"#board g.point[data-label='{label}'] .{cls}\").length"))


@pytest.mark.parametrize("path", ["/", "/control"])
def test_alert_draws_what_the_camera_read_with_the_recorded_position(tmp_path: Path, tab: Page, path: str) -> None:
    """Ion's 6-2 read as 1-6: his 24/18 13/11 is called illegal with four points marked.  The board
    shows the play as it stands (the marks ring checkers that are there), the recorded position as
    dashed ghosts, and all of it in view on a 1366x800 screen."""
    with Table(tmp_path) as table:
        opening(table.referee)
        page = unlock(tab, table.url) if path == "/control" else tab.open(table.url + path)
        roll_and_play(table.referee, 0, MISREAD)
        page.wait_for_selector("#alert", timeout=5000)
        assert page.locator("#alert .alert-points li").count() >= 4
        assert "dashed outlines" in page.locator("#alert").inner_text()
        # Ion's numbering on the labels (he is on roll): 13/11 and 24/18 were played
        assert _count(page, 11, "ck-dark") == 1 and _count(page, 18, "ck-dark") == 1
        assert _count(page, 13, "ck-dark") == 4 and _count(page, 24, "ck-dark") == 1
        assert _count(page, 13, "ck-ghost") == 5 and _count(page, 24, "ck-ghost") == 2
        assert _count(page, 11, "ck-ghost") == 0  # recorded empty there
        assert _count(page, 6, "ck-ghost") == 0  # unchanged points get no ghosts
        for extra in page.locator("#board g.mark-extra").all():  # "should not be here" rings a checker
            assert extra.locator(".ck").count() >= 1
        board = page.locator("#board").bounding_box()
        assert board is not None and board["y"] >= 0 and board["y"] + board["height"] <= 800, board
        tab.shot(f"alert-camera-reading{path.replace('/', '-')}")
        assert tab.errors == []


#: the void banner's and the board's boxes, or null while either is missing
RECTS = ("(() => { const b = document.querySelector('#void-banner'), d = document.querySelector('#board');"
         " return b && d ? [b.getBoundingClientRect().toJSON(), d.getBoundingClientRect().toJSON()] : null; })()")


@pytest.mark.parametrize("locale, words", [("en-GB", "Cocked die — roll again"),
                                           ("ru-RU", "Кость стоит на ребре — бросайте снова")])
def test_void_roll_banner_on_the_board(tmp_path: Path, browser: Any, locale: str, words: str) -> None:  # noqa: F811
    """Ion's dice come to rest cocked: the referee journals a void roll and the page says so over
    the board, in the reader's language, until he throws again."""
    tab = Page(browser, 1366, 800, locale=locale)
    try:
        with Table(tmp_path) as table:
            referee = table.referee
            opening(referee)
            page = tab.open(table.url + "/")
            before = referee.state.position_for(1)
            referee.observe(obs(before, False))
            referee.observe(obs(before, False, dice=(5, 3), roll="void", void_reason="cocked", half="left"))
            assert table.kinds()[-1] == "VoidRoll"
            page.wait_for_selector("#void-banner", timeout=5000)
            banner = page.locator("#void-banner")
            assert words in banner.inner_text() and "Ion" in banner.inner_text()
            # both measured in one go: the live view is swapped in anew on every event, and a
            # banner measured between two swaps was once found detached (no box)
            found = None
            for _ in range(250):
                found = page.evaluate(RECTS)
                if found is not None:
                    break
                time.sleep(0.02)
            assert found is not None
            box, board = found
            assert board["x"] < box["x"] and box["x"] + box["width"] < board["x"] + board["width"]  # on the board
            assert board["y"] < box["y"] and box["y"] + box["height"] < board["y"] + board["height"]
            tab.shot(f"void-banner-{locale}")
            referee.observe(obs(before, False))  # the dice picked up and thrown again
            referee.observe(obs(before, False, dice=(5, 3), half="left"))
            assert table.kinds()[-1] == "Roll"
            page.wait_for_selector("#void-banner", state="detached", timeout=5000)
            assert tab.errors == []
    finally:
        tab.close()


#: Pairs of board elements that must never overlap on screen.
OVERLAPS = """
(() => {
  const boxes = (sel) => Array.from(document.querySelectorAll('#board ' + sel)).map((e) => e.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const pairs = [['.off-count', '.turn-label'], ['.off-count', '.turn'], ['.off-count', '.pips'],
                 ['.die', '.pt-label'], ['.slab', '.turn'], ['.slab', '.turn-label']];
  const found = [];
  for (const [a, b] of pairs) for (const x of boxes(a)) for (const y of boxes(b)) if (meet(x, y)) found.push(a + ' / ' + b);
  return found;
})()
"""


def test_game_over_layout(tmp_path: Path, tab: Page) -> None:
    """Ana bears off her last two checkers with 3-1: 15 borne off, the game over; the board shows no
    turn marker and no dice, and nothing overlaps (the count, the turn marker, dice and labels)."""
    from rules import match
    from rules.position import Position

    with Table(tmp_path) as table:
        referee = table.referee
        start_game(referee, 3, 1)  # Ana (light) to play 3-1
        mover = [0] * 25
        mover[0] = mover[2] = 1  # her last two checkers, on her 1 and 3 points; 13 borne off
        opponent = [0] * 25
        opponent[11] = 15  # Ion: all on his 12 point (a gammon)
        near_end = Position(tuple(mover), tuple(opponent))
        assert referee._append(match.ManualCorrection(player=0, position=near_end, note="test: near the end"))
        page = tab.open(table.url + "/")
        referee.observe(obs(near_end, dice=(3, 1)))
        wait_until(page, "document.querySelectorAll('#board .die').length === 2")
        assert page.evaluate(OVERLAPS) == []  # dice in play clear the point labels
        after = Position(tuple([0] * 25), tuple(opponent))
        referee.observe(obs(after, dice=(3, 1)))
        referee.observe(obs(after))
        assert referee.state.phase in (match.GAME_OVER, match.MATCH_OVER), table.kinds()
        page.wait_for_selector(".phase strong", timeout=5000)
        wait_until(page, "document.querySelectorAll('#board .die').length === 0")
        assert page.locator("#board .turn").count() == 0 and page.locator("#board .turn-label").count() == 0
        assert page.locator("#board .off-count").first.text_content() == "15"
        assert page.locator(".player .badge").count() == 0
        assert page.evaluate(OVERLAPS) == []
        tab.shot("game-over")
        assert tab.errors == []


HIT_BOXES = """
Array.from(document.querySelectorAll('#editor-wrap svg')).filter((svg) => svg.getBoundingClientRect().width > 0)
  .flatMap((svg) => {
    const view = svg.getBoundingClientRect();  // each half shows only part of the board: keep what is in view
    return Array.from(svg.querySelectorAll('[data-point] > .hit')).map((hit) => [hit, hit.getBoundingClientRect()])
      .filter(([hit, box]) => box.left >= view.left - 0.5 && box.right <= view.right + 0.5)
      .map(([hit, box]) => [hit.parentElement.dataset.point, box.width, box.height, box.right <= window.innerWidth + 0.5]);
  })
"""


def test_phone_correction_editor_has_44_px_tap_targets(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    """On a 390x844 phone every point and bar half of the correction editor is at least 44 px wide and
    tall, and the director corrects the reading by tapping: the real referee records the play."""
    phone = Page(browser, 390, 844)
    try:
        with Table(tmp_path) as table:
            start_game(table.referee, 3, 1)  # Ana (light, bottom) to play 3-1
            page = unlock(phone, table.url)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            boxes = page.evaluate(HIT_BOXES)
            points = {box[0] for box in boxes}
            assert {str(d) for d in range(1, 25)} | {"bar-bottom", "bar-top"} <= points, points
            small = [box for box in boxes if box[1] < 44 or box[2] < 44 or not box[3]]
            assert small == [], small
            page.locator("#editor-wrap").scroll_into_view_if_needed()
            phone.shot("phone-editor", full_page=True)
            page.check("input[name=brush][value=remove]")
            for point in ("8", "6"):
                page.click(f"#editor-right [data-point='{point}']" if point == "6"
                           else f"#editor-left [data-point='{point}']")
            wait_until(page, "document.querySelectorAll(\"#editor-right [data-point='6'] .ck\").length === 4")
            page.check("input[name=brush][value=light]")
            page.click("#editor-right [data-point='5']")
            wait_until(page, "document.querySelectorAll(\"#editor-right [data-point='5'] .ck\").length === 1")
            page.click("#editor-right [data-point='5']")
            wait_until(page, "document.querySelectorAll(\"#editor-right [data-point='5'] .ck\").length === 2")
            page.click("#editor-submit")
            page.wait_for_selector(".toast.ok")
            assert table.kinds()[-1] == "Play" and table.hub.snapshot().moves[-1].notation == "8/5 6/5"
            assert phone.errors == []
    finally:
        phone.close()
