"""One board at work: every camera frame through the gate; settled frames read and refereed.

The gate runs on every frame (a few ms).  A frame is read only once the scene has settled, once
per settled spell and then again every ``reread_s`` while it stays settled (the referee wants
repeated readings before it cries foul or asks a question).  A hand over the board resets the
spell: nothing is read while it is there.  Health figures (frames per second, last frame age,
reads, read time) are kept for the page and the systemd watchdog.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.referee import Referee
from vision.gate import Gate
from vision.observation import Observation
from vision.pipeline import Reader

log = logging.getLogger(__name__)


@dataclass
class Health:
    frames: int = 0
    reads: int = 0
    refused: int = 0
    last_frame_at: float | None = None
    read_ms: deque[float] = field(default_factory=lambda: deque(maxlen=50))
    gate_ms: deque[float] = field(default_factory=lambda: deque(maxlen=200))
    frame_times: deque[float] = field(default_factory=lambda: deque(maxlen=50))
    camera_ok: bool = True

    def fps(self) -> float:
        if len(self.frame_times) < 2:
            return 0.0
        span = self.frame_times[-1] - self.frame_times[0]
        return (len(self.frame_times) - 1) / span if span > 0 else 0.0

    def to_json(self, now: float) -> dict[str, Any]:
        def median(values: deque[float]) -> float | None:
            return round(float(np.median(list(values))), 2) if values else None
        return {
            "camera_ok": self.camera_ok,
            "fps": round(self.fps(), 1),
            "last_frame_age_s": None if self.last_frame_at is None else round(now - self.last_frame_at, 2),
            "frames": self.frames,
            "reads": self.reads,
            "refused": self.refused,
            "read_ms_median": median(self.read_ms),
            "gate_ms_median": median(self.gate_ms),
        }


class Table:
    """Feeds frames to the gate, settled frames to the reader, readings to the referee."""

    def __init__(
        self,
        reader: Reader,
        referee: Referee,
        *,
        gate: Gate | None = None,
        reread_s: float = 0.5,
        evidence_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.reader = reader
        self.referee = referee
        self.gate = gate or Gate(reader.calibration, reader.config)
        self.reread_s = reread_s
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.health = Health()
        self.frame: np.ndarray | None = None
        self.last_read_at: float | None = None
        self.last_observation: Observation | None = None
        self.hand = False
        if self.evidence_dir is not None:
            self.evidence_dir.mkdir(parents=True, exist_ok=True)
            referee.evidence = self.save_evidence

    def feed(self, frame: np.ndarray, now: float | None = None) -> Observation | None:
        """One camera frame; returns the reading when this frame was read."""
        now = time.monotonic() if now is None else now
        health = self.health
        health.frames += 1
        health.last_frame_at = now
        health.frame_times.append(now)
        state = self.gate.update(frame, now)
        health.gate_ms.append(state.ms)
        self.hand = state.hand
        if state.moving or state.hand:
            self.last_read_at = None
            return None
        if not state.settled:
            return None
        if self.last_read_at is not None and now - self.last_read_at < self.reread_s:
            return None
        self.frame = frame
        t0 = time.perf_counter()
        # the game's checker totals, which the learned counter's reading keeps to
        try:
            totals = self.referee.checker_totals()
        except ValueError as error:  # a record the totals cannot be taken from: read without them
            log.warning("reading without the game's checker totals: %s", error)
            totals = None
        obs = self.reader.read(frame, hand=state.hand, totals=totals)
        health.read_ms.append((time.perf_counter() - t0) * 1000)
        health.reads += 1
        if obs.refused:
            health.refused += 1
        self.last_read_at = now
        self.last_observation = obs
        self.referee.observe(obs, now)
        return obs

    def save_evidence(self) -> str | None:
        """Write the frame being judged as a JPEG beside the journal; its name goes in the journal."""
        if self.frame is None or self.evidence_dir is None:
            return None
        name = f"frame-{len(self.referee.journal.records) + 1:05d}.jpg"
        path = self.evidence_dir / name
        try:
            ok, data = cv2.imencode(".jpg", self.frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if not ok:
                return None
            path.write_bytes(data.tobytes())
        except OSError as error:  # a full card must not stop the game: the journal matters more
            log.warning("evidence frame not saved: %s", error)
            return None
        return f"{self.evidence_dir.name}/{name}"
