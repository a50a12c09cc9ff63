"""`recording` imports only `rules` and the standard library; `rules.match` / `rules.ids` only stdlib + rules."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "recording").glob("*.py")) + [ROOT / "rules" / "match.py", ROOT / "rules" / "ids.py"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_stay_inside_the_layer(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"rules", "__future__"}
    if path.parent.name == "recording":
        allowed.add("recording")
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
