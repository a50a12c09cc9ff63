"""``referee pin set``: the PIN is set on the device, checked, and kept hashed."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from controller.cli import main
from web_ui.security import PinStore


def test_pin_set_from_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "setup-code").write_text("12345678\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("24680\n"))
    assert main(["pin", "set", "--data-dir", str(tmp_path), "--stdin"]) == 0
    store = PinStore(tmp_path / "web" / "pin.json")
    assert store.check("24680") and not store.check("2468")
    assert "24680" not in (tmp_path / "web" / "pin.json").read_text()
    assert set(json.loads((tmp_path / "web" / "pin.json").read_text())) == {"scheme", "n", "salt", "hash"}
    assert not (tmp_path / "web" / "setup-code").exists()  # the one-time code is spent
    assert "PIN saved" in capsys.readouterr().out


def test_pin_set_refuses_a_bad_pin_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("12\n"))
    assert main(["pin", "set", "--data-dir", str(tmp_path), "--stdin"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "referee pin: A PIN is 4 to 12 digits." and "Traceback" not in err
    assert not (tmp_path / "web" / "pin.json").exists()
