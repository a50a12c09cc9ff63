"""Real-browser tests: Playwright driving Debian's Chromium against the app on waitress.

Screenshots go to ``test-artifacts/`` at the repository root.  Never ``playwright install``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web_ui.conftest import PIN, LiveServer

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (make setup installs it)")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


class Page:
    """A page with its console errors collected."""

    def __init__(self, browser: Any, width: int = 1280, height: int = 900, locale: str = "en-GB") -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_selector("#conn[data-state=live]", timeout=5000)
        return self.page

    def shot(self, name: str, full_page: bool = False) -> None:
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)

    def close(self) -> None:
        self.context.close()


def wait_until(page: Any, expression: str, timeout: float = 10.0) -> float:
    """Poll ``expression`` in the page until it is true; returns the seconds it took.

    (``page.wait_for_function`` compiles its predicate with eval, which the page's CSP forbids.)
    """
    started = time.monotonic()
    while True:
        try:
            if page.evaluate(expression):
                return time.monotonic() - started
        except sync_api.Error:  # the page is navigating; try again on the new one
            pass
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not true within {timeout} s: {expression}")
        time.sleep(0.01)


@pytest.fixture
def tab(browser: Any) -> Iterator[Page]:
    page = Page(browser)
    yield page
    page.close()


def _prepare(server: LiveServer) -> None:
    game = server.game
    for dice, notation in (((3, 1), "8/5 6/5"), ((6, 4), "24/18 13/9"), ((5, 2), "13/8 13/11")):
        game.roll(*dice)
        game.play(notation)


def test_pages_load_without_console_errors(live_server: LiveServer, tab: Page) -> None:
    _prepare(live_server)
    for path in ("/", "/control", "/calibration", "/records"):
        tab.open(live_server.url + path)
    tab.page.goto(live_server.url + "/")
    tab.page.wait_for_selector("#conn[data-state=live]")
    # the log is replayed over the event stream; a cold browser on a busy CI machine can take a while
    wait_until(tab.page, "document.querySelectorAll('#log li').length >= 3", timeout=30.0)
    tab.shot("live-board")
    assert tab.errors == []


def test_event_reaches_the_dom_within_a_second(live_server: LiveServer, tab: Page) -> None:
    page = tab.open(live_server.url + "/")
    started = time.monotonic()
    live_server.game.roll(6, 5)
    wait_until(page, "document.querySelector('.dice-text')?.textContent === '6-5'", 1.0)
    assert time.monotonic() - started < 1.0
    assert page.locator("#board .die").count() == 2
    assert "Rolled 6-5" in page.locator("#log").inner_text()
    assert tab.errors == []


def test_illegal_play_alert_highlights_the_points(live_server: LiveServer, tab: Page) -> None:
    _prepare(live_server)  # Boris (dark, top) is on roll
    page = tab.open(live_server.url + "/")
    live_server.game.roll(5, 2)
    live_server.game.illegal("A checker moved 6 pips with a 5", [(13, "missing"), (6, "extra")], "wrong_distance")
    page.wait_for_selector("#alert", timeout=1000)
    assert "Illegal play by Boris" in page.locator("#alert").inner_text()
    assert "A checker moved a distance the dice do not allow." in page.locator("#alert").inner_text()
    # Boris's 13 and 6 are physical points 12 and 19 (player 0's numbering)
    extra = page.locator("#board g.mark-extra")
    missing = page.locator("#board g.mark-missing")
    assert extra.count() == 1 and extra.get_attribute("data-point") == "19" and extra.get_attribute("data-label") == "6"
    assert missing.count() == 1 and missing.get_attribute("data-point") == "12"
    tab.shot("illegal-alert")
    assert tab.errors == []


def test_action_with_the_pin(live_server: LiveServer, tab: Page) -> None:
    game = live_server.game
    game.roll(5, 2)
    game.illegal("A checker moved 6 pips with a 5", [(13, "missing"), (7, "extra")], "wrong_distance")
    page = tab.open(live_server.url + "/control")
    page.fill("#pin", "0000")
    page.click("#unlock-button")
    page.wait_for_selector(".toast.error")
    assert "Wrong PIN." in page.locator("#toast").inner_text()
    assert tab.errors == ["Failed to load resource: the server responded with a status of 403 (FORBIDDEN)"]
    tab.errors.clear()  # that refusal was the point
    page.fill("#pin", PIN)
    page.click("#unlock-button")
    page.wait_for_selector("#btn-accept")
    page.wait_for_selector("#conn[data-state=live]")
    assert page.locator("#alert").count() == 1
    page.click("#btn-accept")
    page.wait_for_selector(".toast.ok")
    assert "The play is accepted." in page.locator("#toast").inner_text()
    page.wait_for_selector("#alert", state="detached", timeout=1000)
    assert game.calls[-1][0] == "accept_illegal"
    tab.shot("control-unlocked", full_page=True)
    assert tab.errors == []


def test_correct_the_reading_on_the_board(live_server: LiveServer, tab: Page) -> None:
    game = live_server.game
    page = tab.open(live_server.url + "/control")
    page.fill("#pin", PIN)
    page.click("#unlock-button")
    page.wait_for_selector("#editor")
    page.check("input[name=brush][value=remove]")
    page.click("#editor [data-point='6']")
    wait_until(page, "document.querySelectorAll(\"#editor [data-point='6'] .ck\").length === 4")
    page.check("input[name=brush][value=light]")
    page.click("#editor [data-point='5']")
    wait_until(page, "document.querySelectorAll(\"#editor [data-point='5'] .ck\").length === 1")
    page.click("#editor-submit")
    page.wait_for_selector(".toast.ok")
    name, args = game.calls[-1]
    assert name == "correct_reading"
    position = args[0]
    assert position.mover[5] == 4 and position.mover[4] == 1  # type: ignore[attr-defined]
    assert tab.errors == []


def test_switching_to_romanian(live_server: LiveServer, tab: Page) -> None:
    page = tab.open(live_server.url + "/")
    assert page.locator("nav a").first.inner_text() == "Board"
    page.select_option("#lang-select", "ro")
    wait_until(page, "document.documentElement.lang === 'ro'")
    page.wait_for_selector("#conn[data-state=live]")
    assert [a.inner_text() for a in page.locator("nav a").all()] == ["Tabla", "Comenzi", "Cameră", "Partide"]
    assert page.locator("#conn-text").inner_text() == "În direct"
    live_server.game.roll(4, 4)
    wait_until(page, "document.querySelector('#phase')?.textContent.includes('Ana mută')", 1.0)
    tab.shot("romanian")
    assert tab.errors == []


def test_phone_sized_viewport(live_server: LiveServer, browser: Any) -> None:
    _prepare(live_server)
    phone = Page(browser, 390, 844)
    try:
        page = phone.open(live_server.url + "/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        board = page.locator("#board").bounding_box()
        assert board is not None and board["width"] >= 340 and board["x"] >= 0
        for link in page.locator("nav a").all():
            box = link.bounding_box()
            assert box is not None and box["height"] >= 24 and box["x"] + box["width"] <= 390
        phone.shot("phone-board", full_page=True)
        page = phone.open(live_server.url + "/control")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.fill("#pin", PIN)
        page.click("#unlock-button")
        page.wait_for_selector("#btn-pause")
        page.wait_for_load_state("load")  # the unlock reloads the page: measure once its stylesheet applies
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        button = page.locator("#btn-double").bounding_box()
        assert button is not None and button["height"] >= 40
        page.click("#btn-double")
        page.wait_for_selector(".toast.ok")
        phone.shot("phone-control", full_page=True)
        assert live_server.game.calls[-1][0] == "double"
        assert phone.errors == []
    finally:
        phone.close()


def test_calibration_clicks_four_corners(live_server: LiveServer, tab: Page) -> None:
    page = tab.open(live_server.url + "/control")
    page.fill("#pin", PIN)
    page.click("#unlock-button")
    page.wait_for_selector("#btn-pause")
    page = tab.open(live_server.url + "/calibration")
    wait_until(page, "document.querySelector('#frame').naturalWidth > 0")
    box = page.locator("#corner-overlay").bounding_box()
    assert box is not None
    for fx, fy in ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    assert page.locator("#corner-overlay circle").count() == 4
    page.click("#corners-save")
    page.wait_for_selector(".toast.ok")
    name, args = live_server.game.calls[-1]
    corners = args[0]
    assert name == "set_corners" and len(corners) == 4  # type: ignore[arg-type]
    assert abs(corners[0][0] - 96) <= 3 and abs(corners[2][1] - 576) <= 3  # type: ignore[index]
    tab.shot("calibration")
    assert tab.errors == []
