"""Shared fixtures: small rendered datasets, each once per test session (seeded; the 2-D ones a few
seconds, the ray-traced marble board about half a minute)."""

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


@pytest.fixture(scope="session")
def marble_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A held-out ray-traced design (white marble with dark veins and black points, never in
    training) at a seed of its own, 5 frames, the lamp moved after calibration."""
    from controller.cli import main
    from synth.povray import povray_available

    if not povray_available():
        pytest.skip("POV-Ray is not installed (make setup installs it)")
    root = tmp_path_factory.mktemp("frames") / "marble"
    assert main(["render3d", "--dataset", str(root), "--design", "marble-white", "--frames", "5",
                 "--seed", "31006", "--quiet"]) == 0
    return root
