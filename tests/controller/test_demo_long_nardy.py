"""The whole long nardy demo, as a user runs it (issue 24, item 15): all 101 scripted turns
through the real pipeline (rendered frames, gate, reader, referee, journal, exports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.script import nardy_game
from recording.journal import replay
from rules import match

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def test_the_whole_long_nardy_demo_plays_every_turn(tmp_path: Path) -> None:
    script = nardy_game()
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "demo", "--headless", "--game", "nardy", "--max-turns", "200",
         "--data-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"({len(script.turns)} of {len(script.turns)} turns)" in done.stdout
    assert "every scripted play recorded: yes" in done.stdout
    journals = list(tmp_path.glob("nardy-*.jsonl"))
    assert len(journals) == 1
    journal = replay(journals[0])  # every play judged again on reading
    plays = [e for e in journal.events if isinstance(e, match.Play)]
    assert [p.result for p in plays] == [turn.result for turn in script.turns]  # every turn, as scripted
    assert journal.state.phase in (match.GAME_OVER, match.MATCH_OVER)
    assert journal.state.last_result is not None and journal.state.last_result.winner is not None
    for fmt in ("json", "txt"):
        assert journals[0].with_suffix(f".{fmt}").is_file()
