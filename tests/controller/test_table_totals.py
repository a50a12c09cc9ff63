"""The camera loop tells the reader the game's checker totals (controller.table.Table)."""

from __future__ import annotations

from pathlib import Path

from controller.referee import Referee, RefereeSettings
from controller.table import Table
from recording.journal import Header, Journal
from tests.controller.test_referee import Recorder, start_game
from vision.config import VisionConfig
from vision.dataset import calibration_for, load_dataset
from vision.pipeline import Reader
from vision.render import render_dataset


def test_the_table_reads_each_frame_with_the_games_totals(tmp_path: Path) -> None:
    """In a game both sides have all fifteen on the board; a frame of a board with fewer dark
    checkers is read by the learned counter refitted to the game's fifteen, and doubted by name,
    which it is only when the table passes the referee's totals to the reader."""
    root = render_dataset(tmp_path / "frames", 8, seed=606060, style="tournament", occluded_rate=0.0)
    dataset = load_dataset(root)
    config = VisionConfig.with_readers("learned")
    journal = Journal.create(tmp_path / "m.jsonl", Header(variant="backgammon", players=("Ana", "Ion")))
    referee = Referee(journal, Recorder(), RefereeSettings(confirm_reads=2, question_after_reads=3))
    start_game(referee, 3, 1)
    totals = referee.checker_totals()
    assert totals is not None and totals.dark == (15, 15)
    name = next(n for n in dataset.frames
                if sum(p[1] for p in dataset.label(n)["points"]) + dataset.label(n)["bar"]["dark"] < 15)
    frame = dataset.image(name)
    table = Table(Reader(calibration_for(dataset, config), config), referee)
    read = None
    for step in range(40):
        read = table.feed(frame, now=step * 0.1)
        if read is not None:
            break
    assert read is not None and read.points is not None
    assert sum(p[1] for p in read.points) + read.bar[1] == 15
    assert any(d.startswith("read again to fit the game's 15 light and 15 dark checkers") for d in read.doubts)
