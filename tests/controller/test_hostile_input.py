"""Hostile command-line input (issue 23, items 10-13): exit 2 with one line, never a traceback or a hang."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_refusal(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    limit = 1 << 30  # 1 GiB: an unbounded read fails long before the timeout
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def referee(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, check=False, preexec_fn=_limit_memory,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


# --- item 10: a deeply nested JSON board ----------------------------------------------------------------------

def test_deeply_nested_json_position_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    nested = '{"mover":' * 20000 + "1" + "}" * 20000
    code, _out, err = run(capsys, "plays", "--position", nested, "--dice", "31")
    assert "nested too deeply" in one_line_refusal(code, err)


def test_deeply_nested_batch_line_gets_an_error_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text("[" * 30000 + "]" * 30000 + "\n"
                       + json.dumps({"position": "4HPwATDgc/ABMA", "dice": [3, 1]}) + "\n")
    code, out, _err = run(capsys, "plays", "--batch", str(queries))
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert "nested too deeply" in first["error"]
    assert len(second["plays"]) > 0


# --- item 11: a batch line without end ------------------------------------------------------------------------

def test_batch_from_dev_zero_stops_with_one_line_in_bounded_memory() -> None:
    result = referee("plays", "--batch", "/dev/zero", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    assert "longer than" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "longer than" in json.loads(result.stdout.splitlines()[0])["error"]


def test_batch_line_of_exactly_the_limit_is_still_answered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cmd_rules import MAX_BATCH_LINE

    query = json.dumps({"position": "4HPwATDgc/ABMA", "dice": [3, 1]})
    padded = query[:-1] + " " * (MAX_BATCH_LINE - len(query)) + "}"
    assert len(padded) == MAX_BATCH_LINE
    queries = tmp_path / "q.jsonl"
    queries.write_text(padded + "\n" + query + "\n")
    code, out, _err = run(capsys, "plays", "--batch", str(queries))
    assert code == 0
    assert [len(json.loads(line)["plays"]) > 0 for line in out.splitlines()] == [True, True]
