"""The club dashboard in Debian's Chromium (Playwright): several tables fed through a real Mosquitto
and the club server's listener; the grid updates by itself, marks alerts and device problems,
reflows on a phone.  Screenshots in ``test-artifacts/``.  Runs in its own pytest process with the
page's tests (see the Makefile), so it imports no OpenCV."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from club.mirror import Mirror
from club.protocol import parse_broker
from club.run import HttpThread, make_http_server
from club.server import ClubListener
from club.web import create_club_app
from recording.export import import_to_journal
from tests.club.broker import Broker
from web_ui.security import PinStore

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg"
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def club(tmp_path: Path, broker: Broker) -> Iterator[dict[str, Any]]:
    mirror = Mirror(tmp_path / "club")
    listener = ClubListener(parse_broker(broker.url), mirror).start()
    assert listener.connected.wait(10)
    pins = PinStore(tmp_path / "director-pin.json", cost=2**8)
    pins.set("2468")
    sent: list[tuple[str, str, str, int]] = []

    def send(table: str, action: str, match: str, seq: int) -> bool:
        sent.append((table, action, match, seq))
        return listener.command(table, action, match, seq)

    http = HttpThread(make_http_server(create_club_app(mirror, send, pins), "127.0.0.1", 0)).start()
    referee = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    referee.connect("127.0.0.1", broker.port)
    referee.loop_start()
    yield {"mirror": mirror, "url": f"http://127.0.0.1:{http.port}", "referee": referee,
           "tmp": tmp_path, "sent": sent}
    referee.disconnect()
    referee.loop_stop()
    listener.close()
    http.stop()


def publish(referee: mqtt.Client, table: str, lines: list[bytes], snapshot: dict[str, Any] | None = None,
            online: bool = True) -> None:
    for line in lines:
        referee.publish(f"referee/testclub/{table}/events/match-1", line, qos=1).wait_for_publish(5)
    referee.publish(f"referee/testclub/{table}/status", "online" if online else "offline", qos=1,
                    retain=True).wait_for_publish(5)
    if snapshot is not None:
        referee.publish(f"referee/testclub/{table}/snapshot", json.dumps(snapshot), qos=1,
                        retain=True).wait_for_publish(5)


def wait_until(page: Any, expression: str, timeout: float = 15.0) -> None:
    started = time.monotonic()
    while not page.evaluate(expression):
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not true within {timeout} s: {expression}")
        time.sleep(0.05)


def test_dashboard_in_chromium(club: dict[str, Any]) -> None:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (make setup installs it)")
    ARTIFACTS.mkdir(exist_ok=True)
    tmp: Path = club["tmp"]
    referee: mqtt.Client = club["referee"]
    sources = {}
    for name in ("sample_5pt.mat", "money_session.mat", "sample_3pt_crawford.mat"):
        path = tmp / f"{name}.jsonl"
        import_to_journal(DATA / name, path).close()
        sources[name] = path.read_bytes().splitlines(keepends=True)
    publish(referee, "T1", sources["sample_5pt.mat"][:40], {"match": "match-1", "seq": 39, "health": {"camera_ok": True}})
    publish(referee, "T2", sources["money_session.mat"][:25],
            {"match": "match-1", "seq": 24, "alert": "the 9-point has one checker too many", "mode": "illegal",
             "marks": [[9, "extra"], [4, "missing"]], "health": {"camera_ok": True}})
    publish(referee, "T3", sources["sample_3pt_crawford.mat"][:60], {"match": "match-1", "seq": 59,
                                                                    "health": {"camera_ok": False}})
    publish(referee, "T10", sources["sample_5pt.mat"][:12], online=False)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
            page = context.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(club["url"] + "/")
            wait_until(page, "document.querySelectorAll('article.club-table svg').length === 4")
            assert page.locator("#table-T2.has-alert .mark-alert").is_visible()
            assert page.locator("#table-T3.has-device .mark-device").is_visible()
            assert page.locator("#table-T10.is-offline").count() == 1
            names = page.eval_on_selector_all("article.club-table h2", "els => els.map(e => e.textContent)")
            assert names == ["T1", "T2", "T3", "T10"]
            before = page.locator("#table-T1 .club-score").inner_text()
            # the game at T1 goes on: the grid follows without a reload
            publish(referee, "T1", sources["sample_5pt.mat"][40:], {"match": "match-1",
                                                                   "seq": len(sources["sample_5pt.mat"]) - 1})
            wait_until(page, "document.querySelector('#table-T1 .club-score').innerText !== "
                             + json.dumps(before))
            # the director types the PIN on T2's alert: the grid's refresh does not wipe it
            page.fill("#table-T2 input[name=pin]", "2468")
            time.sleep(3.5)  # more than two refresh periods
            assert page.input_value("#table-T2 input[name=pin]") == "2468"
            page.screenshot(path=str(ARTIFACTS / "club-dashboard.png"), full_page=True)
            page.click("#table-T2 .club-decide button")
            page.wait_for_url(club["url"] + "/")
            assert club["sent"] == [("T2", "accept", "match-1", 24)]
            phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU",
                                        is_mobile=True, device_scale_factor=2).new_page()
            phone.goto(club["url"] + "/?view=spectator")
            wait_until(phone, "document.querySelectorAll('article.club-table svg').length === 4")
            assert "Для зрителей" not in phone.content() and "Для главного судьи" in phone.content()
            assert phone.locator("#table-T2 .mark-alert").inner_text().strip() == "⚠ Неправильный ход"
            widths = phone.eval_on_selector_all("article.club-table", "els => els.map(e => e.getBoundingClientRect().width)")
            assert all(w <= 390 for w in widths)  # one column on a phone, nothing wider than the screen
            phone.screenshot(path=str(ARTIFACTS / "club-dashboard-phone.png"))
            assert not errors, errors
        finally:
            browser.close()
