"""Driving the real GNU Backgammon (Debian ``gnubg``) from tests: self-play and file checks."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

GNUBG = "/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else (shutil.which("gnubg") or "")
SCRIPTS = Path(__file__).parent / "gnubg_scripts"

needs_gnubg = pytest.mark.skipif(not GNUBG, reason="GNU Backgammon (gnubg) is not installed")


def run_script(script: str, env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-r", "-p", str(SCRIPTS / script)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout + done.stderr


def selfplay(out: Path, seed: int, length: int) -> tuple[Path, Path]:
    """gnubg plays a seeded ``length``-point match against itself; returns (.mat, .sgf)."""
    run_script("selfplay.py", {"SELFPLAY_SEED": str(seed), "SELFPLAY_LENGTH": str(length), "SELFPLAY_OUT": str(out)})
    mat, sgf = out.with_suffix(".mat"), out.with_suffix(".sgf")
    assert mat.exists() and sgf.exists(), f"gnubg did not write {out}.mat/.sgf"
    return mat, sgf


def selfplay_many(folder: Path, matches: list[tuple[int, int]]) -> dict[tuple[int, int], tuple[Path, Path]]:
    """Several self-play matches, two gnubg processes at a time."""
    done: dict[tuple[int, int], tuple[Path, Path]] = {}
    pending = list(matches)
    while pending:
        batch, pending = pending[:2], pending[2:]
        children = []
        for seed, length in batch:
            out = folder / f"m{seed}_{length}"
            env = {**os.environ, "SELFPLAY_SEED": str(seed), "SELFPLAY_LENGTH": str(length), "SELFPLAY_OUT": str(out)}
            command = [GNUBG, "-t", "-q", "-r", "-p", str(SCRIPTS / "selfplay.py")]
            with open(out.with_suffix(".err"), "wb") as err:  # what gnubg says if it fails
                children.append((seed, length, out, subprocess.Popen(
                    command, env=env, stdout=subprocess.DEVNULL, stderr=err)))
        for seed, length, out, child in children:
            code = child.wait(timeout=120)
            mat, sgf = out.with_suffix(".mat"), out.with_suffix(".sgf")
            said = out.with_suffix(".err").read_text(errors="replace")[-600:]
            assert mat.exists() and sgf.exists(), f"gnubg did not write {out}.mat/.sgf (exit {code}): {said}"
            done[(seed, length)] = (mat, sgf)
    return done


def load(path: Path) -> tuple[dict[str, Any], list[str]]:
    """What gnubg ends with after importing ``path``, and any warnings it printed."""
    output = run_script("check.py", {"CHECK_FILE": str(path)})
    warnings = [line for line in output.splitlines() if re.search(r"warning|invalid|illegal|error", line, re.I)]
    found = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert found, f"gnubg printed no result for {path}:\n{output[-2000:]}"
    return json.loads(found[-1][len("RESULT ") :]), warnings


def strip_private(sgf_text: str) -> str:
    """gnubg's SGF without its analysis properties (what the referee writes), AP aside."""
    keep_root = ("FF", "GM", "CA", "AP", "MI", "PW", "PB", "DT", "EV", "RO", "PC", "RU", "RE")
    out: list[str] = []
    for line in sgf_text.splitlines():
        kept = ""
        for name, values in re.findall(r"([A-Z]+)((?:\[(?:\\.|[^\]\\])*\])+)", line):
            if name in keep_root or name in ("W", "B"):
                kept += name + values
        prefix = "(;" if line.startswith("(;") else ";"
        suffix = ")" if line.rstrip().endswith(")") else ""
        out.append(prefix + kept + suffix)
    return "\n".join(out) + "\n"
