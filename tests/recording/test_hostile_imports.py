"""`referee import` of hostile files (issue 23, item 13): accept what GNU Backgammon accepts, refuse the rest
with a reason in one line (exit 2), never hang."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.cli import main
from rules.errors import InvalidDice, InvalidNotation
from rules.steps import Dice, parse_notation
from tests.recording.gnubg_tools import GNUBG, SCRIPTS, needs_gnubg

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "gnubg" / "sample_3pt_crawford.mat").read_text(encoding="utf-8")
FIRST_MOVE = "65: 24/18 18/13 "
assert FIRST_MOVE in SAMPLE and " 3 point match\n" in SAMPLE and "31: 6/5 8/5" in SAMPLE

#: name -> (file name, bytes, what the refusal says; None when the file is a good match)
HOSTILE: dict[str, tuple[str, Callable[[], bytes], str | None]] = {
    "lf": ("m.mat", lambda: SAMPLE.encode(), None),
    "crlf": ("m.mat", lambda: SAMPLE.replace("\n", "\r\n").encode(), None),
    "64 points": ("m.mat", lambda: SAMPLE.replace(" 3 point match", " 64 point match").encode(), None),
    "cr only": ("m.mat", lambda: SAMPLE.replace("\n", "\r").encode(), "carriage return without a line feed"),
    "no length line": ("m.mat", lambda: SAMPLE.replace(" 3 point match\n", "").encode(), "'N point match' line"),
    "65 points": ("m.mat", lambda: SAMPLE.replace(" 3 point match", " 65 point match").encode(), "64 points at most"),
    "huge length": ("m.mat", lambda: SAMPLE.replace(" 3 point match", " 99999999999999999999 point match").encode(),
                    "64 points at most"),
    "u2028 inside": ("m.mat", lambda: SAMPLE.replace(FIRST_MOVE, "65: 24/18\u202818/13 ", 1).encode(), "cannot read"),
    "u2028 at the end": ("m.mat", lambda: SAMPLE.replace(FIRST_MOVE, "65: 24/18 18/13\u2028", 1).encode(),
                         "cannot read"),
    "arabic-indic dice": ("m.mat", lambda: SAMPLE.replace("31: 6/5 8/5", "\u0663\u0661: 6/5 8/5", 1).encode(),
                          "cannot read"),
    "arabic-indic length": ("m.mat", lambda: SAMPLE.replace(" 3 point match", " \u0663 point match").encode(),
                            "cannot read"),
    "length line only": ("m.mat", lambda: b" 5 point match\n", "no game in the file"),
    "sgf without a game": ("m.sgf", lambda: b"(;FF[4]GM[6]CA[UTF-8]MI[length:3][game:0][ws:0][bs:0])\n",
                           "no game in the file"),
    "sgf huge length": ("m.sgf", lambda: b"(;FF[4]GM[6]MI[length:99999999999999999999];W[31gfig])\n",
                        "64 points at most"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_import_accepts_what_gnubg_accepts_and_refuses_the_rest(name: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    file_name, content, refusal = HOSTILE[name]
    source = tmp_path / file_name
    source.write_bytes(content())
    journal = tmp_path / "j.jsonl"
    code = main(["import", str(source), "-o", str(journal)])
    err = capsys.readouterr().err
    if refusal is None:
        assert code == 0, err
        assert journal.exists()
    else:
        assert code == 2, err
        assert refusal in err and len(err.strip().splitlines()) == 1, err
        assert not journal.exists()
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".importing")]


def _gnubg_loads(path: Path) -> bool:
    """True when GNU Backgammon loads the file without complaint and holds a game with moves."""
    verb = "load match" if path.suffix == ".sgf" else "import mat"
    script = path.with_name("load.py")
    script.write_text("import gnubg\n"
                      f"gnubg.command('{verb} {path}')\n"
                      "info = gnubg.match(0, 0, 0, 0)\n"
                      "print('GAMES', sum(1 for g in info['games'] if g['game']) if info else 0)\n")
    done = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                          timeout=120, check=False)
    output = done.stdout + done.stderr
    games = [int(line.split()[1]) for line in output.splitlines() if line.startswith("GAMES ")]
    assert games, output[-2000:]
    return games[0] > 0 and not any(word in output for word in ("Unrecognised", "Invalid", "must be"))


@needs_gnubg
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in HOSTILE if n not in ("sgf huge length",)])
def test_gnubg_agrees_with_each_verdict(name: str, tmp_path: Path) -> None:
    file_name, content, refusal = HOSTILE[name]
    source = tmp_path / file_name
    source.write_bytes(content())
    assert SCRIPTS.is_dir()
    assert _gnubg_loads(source) == (refusal is None)


def test_import_of_a_fifo_does_not_block_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "match.mat"
    os.mkfifo(fifo)
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(["import", str(fifo), "-o", str(tmp_path / "j")])),
                              daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # let the hung open() return so the thread ends
        with open(fifo, "w"):
            pass
        worker.join(timeout=5)
        pytest.fail("referee import blocked on a FIFO with no writer")
    assert result == [2]


@pytest.mark.parametrize("text", ["\u0663\u0661", "\u0663-\u0661", "\uff13\uff11"])
def test_dice_are_ascii_digits_only(text: str) -> None:
    with pytest.raises(InvalidDice):
        Dice.parse(text)


def test_play_notation_takes_ascii_digits_only() -> None:
    with pytest.raises(InvalidNotation):
        parse_notation("\u0662\u0664/\u0661\u0668")
    with pytest.raises(InvalidNotation):
        parse_notation("13/7(\u0662)")
    assert parse_notation("24/18 13/7(2)") == [(24, 18), (13, 7), (13, 7)]
