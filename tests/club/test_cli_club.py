"""Bad club settings are one-line errors (exit 2); a referee without a broker referees as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.service import load_settings
from recording.journal import replay
from tests.club.broker import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("argv", "words"), [
    (["club"], "--broker is required"),
    (["club", "--broker", "http://127.0.0.1:1883"], "expected mqtt://HOST:PORT"),
    (["club", "--broker", "mqtt://127.0.0.1:99999"], "port must be a number"),
    (["club", "--broker", "mqtt://127.0.0.1:1883/bad club"], "club 'bad club'"),
    (["club", "init", "--broker", "mqtt://127.0.0.1:1883", "--tables", "0"], "--tables must be 1..500"),
    (["demo", "--headless", "--club", "mqtt://127.0.0.1:1883"], "--club needs --table"),
    (["demo", "--headless", "--club", "mqtt://127.0.0.1:1883", "--table", "../T1"], "table '../T1'"),
])
def test_bad_club_input_is_one_line_exit_2(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_service_settings_name_the_missing_table(tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text('camera = "synthetic"\nclub = "mqtt://10.0.0.2:1883/tuesday"\n')
    with pytest.raises(ValueError, match="club needs table"):
        load_settings(str(config), environ={})
    settings = load_settings(str(config), environ={"REFEREE_TABLE": "T4"})
    assert settings.table == "T4" and settings.club.endswith("/tuesday")


def test_a_referee_without_a_broker_referees_as_before(tmp_path: Path) -> None:
    nobody = free_port()  # nothing listens there
    env = dict(os.environ, PYTHONPATH=str(ROOT), REFEREE_LEDS="sim", REFEREE_CLUB_FLUSH_S="1")
    done = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--headless", "--game", "backgammon",
                           "--max-turns", "2", "--data-dir", str(tmp_path), "--club", f"mqtt://127.0.0.1:{nobody}",
                           "--table", "T1"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "every scripted play recorded: yes" in done.stdout
    assert "not delivered (they stay in the journal)" in done.stdout
    journal = replay(next(tmp_path.glob("*.jsonl")))
    assert sum(type(r.event).__name__ == "Play" for r in journal.records) == 2
