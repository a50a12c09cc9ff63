"""The page in Chromium against the real referee (issue 24: items 5, 6, 10, 11, 12).

The referee runs in a process of its own (``python -m tests.webref.table``: journal, referee,
signals, hub and the page on the server ``referee run`` uses), fed what a camera would read;
this process drives Chromium and never imports OpenCV.  Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web_ui.test_browser import ARTIFACTS, Page, browser, wait_until  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
PIN = "4826"


class Referee:
    """``tests.webref.table`` in a subprocess, one command a line."""

    def __init__(self, data: Path, port: int = 0, pin: str = "") -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.webref.table", str(data), str(port)]
                                     + ([pin] if pin else []),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        assert self.proc.stdout is not None
        self.console: list[str] = []  # what the referee printed before it was ready
        line = self.proc.stdout.readline()
        while line and not line.startswith("ready "):
            self.console.append(line.strip())
            line = self.proc.stdout.readline()
        assert line.startswith("ready "), self.console
        self.port = int(line.split()[1])
        self.data = data
        self.url = f"http://127.0.0.1:{self.port}"

    def __call__(self, command: str) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        assert answer == "ok", f"{command}: {answer}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    running = Referee(tmp_path / "data")
    yield running
    running.stop()


@pytest.fixture
def tab(browser: Any) -> Iterator[Page]:  # noqa: F811
    page = Page(browser)
    yield page
    page.close()


def _log(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("#log li").all_inner_texts()]


def test_the_log_keeps_the_move_its_names_and_times(referee: Referee, tab: Page) -> None:
    referee("start 3 1")
    referee("play 8/5 6/5")
    referee("roll 1 5")
    referee("play 13/8 6/5")
    time.sleep(2.0)
    opened = time.time()
    page = tab.open(referee.url + "/")
    wait_until(page, "document.querySelectorAll('#log li').length >= 4")
    lines = _log(page)
    texts = [re.sub(r"^\d\d:\d\d:\d\d\s*", "", line) for line in lines]
    assert "Ana played 8/5 6/5" in texts and "Ion played 13/8 6/5" in texts
    assert "Opening roll 3-1: Ana starts" in texts
    assert "Ion rolled 5-1" in texts  # the higher die first
    # no internal step of the referee is named in the log
    for word in ("board", "turn", "ready", "verified"):
        assert not any(t.lower() == word or t.startswith(word) for t in texts), texts
    # replayed lines keep their own time, not the time they reached the browser
    stamps = page.eval_on_selector_all("#log time", "els => els.map(e => Date.parse(e.dateTime) / 1000)")
    assert stamps and all(stamp < opened - 1.5 for stamp in stamps)
    # the move list writes the higher die first
    assert "51:" in page.locator("#movelist").inner_text()
    # a new match with other players: the old lines keep Ana's and Ion's names
    referee("new_match Aziz Olga")
    wait_until(page, "document.querySelector('.pname')?.textContent === 'Olga'"
                     " || [...document.querySelectorAll('.pname')].some(e => e.textContent === 'Aziz')")
    tab.page.reload()
    wait_until(tab.page, "document.querySelectorAll('#log li').length >= 4")
    texts = [re.sub(r"^\d\d:\d\d:\d\d\s*", "", line) for line in _log(tab.page)]
    assert "Ion played 13/8 6/5" in texts and not any("Olga played" in t or "Aziz played" in t for t in texts)
    tab.shot("real-referee-log")
    assert tab.errors == []


def _act(page: Any, action: str) -> tuple[int, Any]:
    """The action as the page's script sends it (the browser's own language and cookies)."""
    return tuple(page.evaluate(  # type: ignore[return-value]
        """async ([action, pin]) => {
            const r = await fetch('/api/' + action, {method: 'POST', headers: {'X-Referee-Pin': pin, 'Accept': 'application/json'}});
            return [r.status, await r.json()];
        }""", [action, PIN]))


def test_russian_page_shows_no_english_from_the_referee(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    referee = Referee(tmp_path / "data", pin=PIN)
    tab = Page(browser, locale="ru-RU")
    try:
        referee("start 6 2")
        referee("play 13/7 8/6")
        page = tab.open(referee.url + "/")
        wait_until(page, "document.querySelectorAll('#log li').length >= 2")
        log = page.locator("#log").inner_text()
        assert "Первый бросок 6-2: начинает Ana" in log and "played" not in log
        devices = page.locator(".devices").inner_text()
        assert "нет контроллера светодиодов" in devices and "no LED controller" not in devices
        # a refusal of the referee, in the reader's language
        status, body = _act(page, "take")
        assert status == 409 and body["error"] == "Удвоение не предлагалось."
        # the cube in the move list
        for action in ("double", "take"):
            status, body = _act(page, action)
            assert status == 200, body
        wait_until(page, "document.querySelector('#movelist')?.textContent.includes('Принимает')")
        moves = page.locator("#movelist").inner_text()
        assert "Удваивает" in moves and "Doubles" not in moves and "Takes" not in moves
        # an illegal play: the alert's reason in Russian
        referee("roll 4 2")
        referee("misplay 13/10 6/5")  # a 3 and a 1 with 4-2
        page.wait_for_selector("#alert", timeout=5000)
        alert = page.locator("#alert").inner_text()
        assert "cannot move" not in alert and "Шашка" in alert, alert
        tab.shot("real-referee-ru-alert")
        referee("play 24/20 24/22")  # corrected on the board
        page.wait_for_selector("#alert", state="detached", timeout=5000)
        # the game to its end: the result and the log line with the points, in Russian
        referee("finish 7")
        wait_until(page, "document.querySelector('#phase')?.textContent.includes('выигрывает')")
        phase = page.locator("#phase").inner_text()
        assert "wins" not in phase and re.search(r"выигрывает \d", phase), phase
        wait_until(page, "[...document.querySelectorAll('#log li')].some(li => /выигрывает \\d/.test(li.textContent))")
        tab.shot("real-referee-ru")
        assert [e for e in tab.errors if "409" not in e] == []
    finally:
        tab.close()
        referee.stop()


def _sse_viewer(port: int, got: list[bytes], ready: threading.Event, stop: threading.Event) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        buffer = b""
        while not stop.is_set():
            try:
                chunk = sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            if b"event: state" in buffer:
                ready.set()
            if b"event: log" in buffer and b"rolled 6-5" in buffer:
                got.append(buffer)
                return


def test_a_hundred_live_viewers_all_get_the_roll(referee: Referee, tab: Page) -> None:
    referee("start 3 1")
    referee("play 8/5 6/5")
    stop = threading.Event()
    got: list[bytes] = []
    readies = [threading.Event() for _ in range(100)]
    threads = [threading.Thread(target=_sse_viewer, args=(referee.port, got, r, stop), daemon=True) for r in readies]
    for thread in threads:
        thread.start()
    for ready in readies:
        assert ready.wait(30), "a viewer was not served"
    page = tab.open(referee.url + "/")  # the 101st viewer, in Chromium
    referee("roll 6 5")
    for thread in threads:
        thread.join(30)
    stop.set()
    assert len(got) == 100 and not any(b'"busy":true' in g for g in got)
    wait_until(page, "document.querySelector('.dice-text')?.textContent === '6-5'")
    assert page.locator("#conn").get_attribute("data-state") == "live"
    assert tab.errors == []


def test_a_page_left_open_across_a_restart_catches_up(tmp_path: Path, tab: Page) -> None:
    first = Referee(tmp_path / "one")
    try:
        first("start 3 1")
        first("play 8/5 6/5")
        first("roll 6 4")
        first("play 24/18 13/9")
        first("roll 5 2")
        page = tab.open(first.url + "/")
        wait_until(page, "document.querySelectorAll('#log li').length >= 4")
        port = first.port
    finally:
        first.stop()
    wait_until(page, "document.querySelector('#conn').dataset.state !== 'live'")
    second = Referee(tmp_path / "two", port)  # a fresh run: its event ids start again at 1
    try:
        second("start 6 2")
        wait_until(page, "document.querySelector('#conn').dataset.state === 'live'", 20)
        second("play 13/7 8/6")
        wait_until(page, "[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('Ana played 13/7 8/6'))", 10)
        texts = _log(page)
        assert not any("24/18 13/9" in t for t in texts)  # the old run's lines were cleared
        assert "13/7 8/6" in page.locator("#movelist").inner_text()
        tab.shot("real-referee-restart")
        assert [e for e in tab.errors if "ERR_CONNECTION_REFUSED" not in e and "Failed to load" not in e] == []
    finally:
        second.stop()


def test_language_switch_never_takes_chromium_off_the_site(referee: Referee, tab: Page) -> None:
    tab.page.goto(referee.url + "/lang?lang=ru&next=%2F%09%2Fevil.example%2Fphish")
    assert tab.page.url == referee.url + "/"
    assert "Доска" in tab.page.locator("nav").inner_text()
    response = urllib.request.urlopen(referee.url + "/lang?lang=ru&next=%2Fx%0D%0ALocation:%20http://evil")
    assert response.status == 200 and response.url == referee.url + "/"


def test_first_pin_needs_the_console_code_and_a_pin_change_ends_the_session(referee: Referee, tab: Page) -> None:
    notice = next(line for line in referee.console if "setup code" in line)
    code = notice.rsplit(" ", 1)[-1]
    page = tab.page
    page.goto(referee.url + "/control")
    page.fill("#setup-code", "0" * 8 if code != "0" * 8 else "1" * 8)
    page.fill("input[name=new_pin]", "2580")
    page.fill("input[name=new_pin2]", "2580")
    page.click("#setup-pin button[type=submit]")
    page.wait_for_selector(".toast.error")
    assert "Wrong setup code" in page.locator("#toast").inner_text()
    page.fill("#setup-code", code)
    page.click("#setup-pin button[type=submit]")
    page.wait_for_selector("#btn-pause", timeout=10000)  # unlocked: the director's buttons
    tab.shot("real-referee-pin-set")
    # the operator changes the PIN on the device: the browser's session ends
    changed = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "set", "--data-dir", str(referee.data),
                              "--stdin"], input="9753\n", capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert changed.returncode == 0, changed.stderr
    page.click("#btn-pause")
    page.wait_for_selector(".toast.error")
    assert "This action needs the PIN." in page.locator("#toast").inner_text()
    page.reload()
    page.fill("#pin", "2580")
    page.click("#unlock-button")
    page.wait_for_selector(".toast.error")
    assert "Wrong PIN." in page.locator("#toast").inner_text()
    page.fill("#pin", "9753")
    page.click("#unlock-button")
    page.wait_for_selector("#btn-pause", timeout=10000)


def test_records_page_lists_the_referees_matches(referee: Referee, tab: Page) -> None:
    from tests.web_ui.test_records_list import _journals

    referee("start 3 1")
    referee("play 8/5 6/5")
    _journals(referee.data / "club")  # journals written beside it: a nardy match among them
    for path in (referee.data / "club").iterdir():
        path.rename(referee.data / f"old-{path.name}")
    page = tab.page
    page.goto(referee.url + "/records")
    rows = page.locator("table.records tbody tr")
    texts = rows.all_inner_texts()
    assert any("Ana – Ion" in t and "Backgammon" in t for t in texts)
    nardy = next(t for t in texts if "Aziz – Olga" in t)
    assert "Long nardy" in nardy and "mat" not in nardy.split() and "sgf" not in nardy.split()
    for href in page.eval_on_selector_all("table.records a", "els => els.map(e => e.getAttribute('href'))"):
        assert page.request.get(referee.url + href).status == 200, href
    tab.shot("real-referee-records")
    assert tab.errors == []
