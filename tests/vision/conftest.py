"""Shared fixtures: one small rendered dataset per test session (seeded, a few seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.render import render_dataset


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("frames") / "tournament"
    return render_dataset(root, 24, seed=424242, style="tournament", occluded_rate=0.2)


@pytest.fixture(scope="session")
def wooden_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("frames") / "wooden"
    return render_dataset(root, 16, seed=515151, style="wooden", occluded_rate=0.2)
