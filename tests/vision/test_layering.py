"""vision imports nothing of ours but rules (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

OURS = {"rules", "recording", "vision", "firmware_bridge", "controller", "web_ui"}


def test_vision_imports_only_rules() -> None:
    root = Path(__file__).resolve().parents[2] / "vision"
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top not in OURS - {"rules", "vision"}, f"{path.name} imports {name}"
