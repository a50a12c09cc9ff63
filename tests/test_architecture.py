"""The dependency direction of ARCHITECTURE.md, checked on the source: rules imports nothing of
ours (and only the standard library); recording and vision only rules; firmware_bridge nothing
of ours; web_ui only rules and recording; club only rules, recording and web_ui; synth (the
development tools: the 3-D renderer, training) only rules and vision; nothing imports controller."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"rules", "recording", "vision", "firmware_bridge", "controller", "web_ui", "club", "synth"}
ALLOWED = {
    "rules": {"rules"},
    "recording": {"rules", "recording"},
    "vision": {"rules", "vision"},
    "firmware_bridge": {"firmware_bridge"},
    "web_ui": {"rules", "recording", "web_ui"},
    "club": {"rules", "recording", "web_ui", "club"},
    "synth": {"rules", "vision", "synth"},
    "controller": OURS,
}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_follow_the_dependency_direction(package: str) -> None:
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name in imports(path):
            if name in OURS and name not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
            if package == "rules" and name not in OURS and name not in sys.stdlib_module_names:
                wrong.append(f"{path.relative_to(ROOT)} imports third-party {name}")
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_controller() -> None:
    for package in OURS - {"controller"}:
        for path in (ROOT / package).rglob("*.py"):
            assert "controller" not in imports(path), path


def test_every_package_is_in_the_distribution() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(f"{package}*" for package in OURS) == sorted(include)
