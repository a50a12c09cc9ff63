"""firmware_bridge imports only the standard library, pyserial and gpiozero (never RPi.GPIO)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import firmware_bridge

ALLOWED = set(sys.stdlib_module_names) | {"serial", "gpiozero"}


def test_firmware_bridge_imports_nothing_of_ours() -> None:
    package = Path(firmware_bridge.__file__).parent
    for source in package.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in ALLOWED, f"{source.name} imports {name}"
                assert not name.startswith("RPi"), f"{source.name} imports {name}"
