"""Security probes of issue 24: the language switch never leaves the site, CR/LF or JSON nested
thousands deep are refused with a 4xx and a sentence, never a 500."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.web_ui.conftest import PIN

OFF_SITE = [
    "%2F%09%2Fevil.example%2Fphish",  # "/<TAB>/evil.example/phish": browsers drop the tab -> //evil.example
    "%2F%0A%2Fevil.example",
    "%2F%0D%2Fevil.example",
    "%09%2F%2Fevil.example",
    "%2F%2Fevil.example",
    "%2F%5C%2Fevil.example",
    "%2F%5Cevil.example",
    "https%3A%2F%2Fevil.example%2F",
    "%2F%20%2Fevil.example",
    "javascript%3Aalert(1)",
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_language_switch_never_leaves_the_site(client: FlaskClient, target: str) -> None:
    response = client.get(f"/lang?lang=ru&next={target}")
    assert response.status_code == 303
    assert response.headers["Location"] == "/"
    assert response.headers.get_all("Set-Cookie") and "lang=ru" in response.headers["Set-Cookie"]


@pytest.mark.parametrize("target", ["%2Fcontrol", "%2Frecords", "%2Fcalibration%3Fx%3D1"])
def test_language_switch_goes_back_to_the_page(client: FlaskClient, target: str) -> None:
    response = client.get(f"/lang?lang=ro&next={target}")
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith("/") and not location.startswith("//")
    assert location in ("/control", "/records", "/calibration?x=1")


def test_cr_lf_in_next_is_no_server_error(client: FlaskClient) -> None:
    response = client.get("/lang?lang=ru&next=%2Fcontrol%0D%0ASet-Cookie:%20x=1")
    assert response.status_code == 303
    assert response.headers["Location"] == "/"
    assert "x=1" not in " ".join(response.headers.get_all("Set-Cookie"))


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("path", ["/api/correct_reading", "/api/preview", "/unlock", "/setup-pin", "/api/new_game"])
def test_json_nested_thousands_deep_is_a_clear_400(client: FlaskClient, path: str) -> None:
    body = '{"pin": "' + PIN + '", "bottom": ' + _deep(5000) + "}"
    response = client.post(path, data=body, content_type="application/json",
                           headers={"Accept": "application/json"})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.json == {"ok": False, "error": "The request is not a valid JSON object."}


def test_json_nested_deep_as_a_whole_body(client: FlaskClient) -> None:
    response = client.post("/api/pause", data=_deep(100_00)[:16000], content_type="application/json",
                           headers={"Accept": "application/json"})
    assert 400 <= response.status_code < 500
