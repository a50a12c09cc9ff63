"""An in-memory game behind the page: a :class:`~web_ui.view.GameView` and command sink in one object.

Tests, the benchmark and ``python -m web_ui`` use it; the real referee provides its own.  It keeps
a ``rules`` position, applies plays written in the usual notation without judging them (the
referee judges; this is a stand-in), and publishes an event for every change.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rules.errors import RulesError
from rules.position import BAR, OFF, OPPOSITE_DIRECTION, Position, opponent_point, starting_position
from rules.steps import parse_notation
from web_ui.view import (
    Alert,
    CameraReading,
    CommandRefused,
    DeviceStatus,
    Event,
    Health,
    MoveEntry,
    OptionValue,
    PointMark,
    Question,
    Snapshot,
)

log = logging.getLogger(__name__)


class EventLog:
    """Numbered events kept in a bounded buffer; readers block on a condition until one arrives."""

    def __init__(self, keep: int = 1000) -> None:
        self._events: deque[Event] = deque(maxlen=keep)
        self._last = 0
        self._cond = threading.Condition()

    def publish(self, kind: str, data: dict[str, object] | None = None) -> int:
        with self._cond:
            self._last += 1
            self._events.append((self._last, kind, dict(data or {})))
            self._cond.notify_all()
            return self._last

    def latest(self) -> int:
        with self._cond:
            return self._last

    def since(self, last_id: int, timeout: float) -> list[Event]:
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while self._last <= last_id:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._cond.wait(remaining)
            return [event for event in self._events if event[0] > last_id]


def apply_notation(position: Position, notation: str) -> Position:
    """Move the mover's checkers as ``notation`` says (hits included), without judging legality."""
    mover = list(position.mover)
    opponent = list(position.opponent)
    for start, end in parse_notation(notation):
        index = 24 if start == BAR else start - 1
        if mover[index] <= 0:
            raise CommandRefused(f"no checker on point {start} for {notation!r}")
        mover[index] -= 1
        if end == OFF:
            continue
        if end == BAR:
            raise CommandRefused(f"{notation!r} moves a checker to the bar")
        theirs = opponent_point(position.variant, end) - 1
        if opponent[theirs]:
            if position.variant in OPPOSITE_DIRECTION and opponent[theirs] == 1:
                opponent[theirs] = 0
                opponent[24] += 1
            else:
                raise CommandRefused(f"point {end} is held by the other side in {notation!r}")
        mover[end - 1] += 1
    return Position(tuple(mover), tuple(opponent), position.variant)


class DemoGame:
    """A GameView and a command sink backed by ``rules``; every change is published as an event."""

    def __init__(
        self,
        records_dir: Path | str = "data/records",
        variant: str = "backgammon",
        players: tuple[str, str] = ("Ana", "Boris"),
        tournament: bool = False,
        match_length: int = 5,
    ) -> None:
        self.records_dir = Path(records_dir)
        self.log = EventLog()
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self.corners: list[tuple[float, float]] = []
        self._lock = threading.RLock()
        self._snapshot = Snapshot(
            variant=variant,
            position=starting_position(variant),
            players=players,
            match_length=match_length,
            phase="await_roll",
            tournament=tournament,
            status=DeviceStatus(
                camera=Health("ok", "synthetic"),
                leds=Health("ok", "simulated"),
                journal=Health("ok"),
                disk=Health("ok"),
            ),
        )

    # --- GameView ------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    def latest_event_id(self) -> int:
        return self.log.latest()

    def events_since(self, last_id: int, timeout: float) -> list[Event]:
        return self.log.since(last_id, timeout)

    def camera_jpeg(self) -> bytes | None:
        from web_ui import demo_camera

        return demo_camera.frame(self.snapshot(), self.corners)

    def camera_reading(self) -> CameraReading | None:
        snap = self.snapshot()
        bottom, top = _sides(snap)
        points = []
        for p in range(1, 25):
            dark = top[opponent_point(snap.variant, p) - 1]
            points.append((bottom[p - 1], dark))
        return CameraReading(
            points=tuple(points),
            bar=(bottom[24], top[24]),
            dice=snap.dice,
            roll="valid" if snap.dice else "none",
            confidence=0.97,
        )

    # --- driving the demo (tests, bench, the scripted game) -----------------------------------------
    def _set(self, kind: str, data: dict[str, object] | None = None, **changes: object) -> int:
        with self._lock:
            self._snapshot = replace(self._snapshot, **changes)  # type: ignore[arg-type]
            return self.log.publish(kind, data)

    def publish(self, kind: str, data: dict[str, object] | None = None) -> int:
        """Publish an event without changing the state (a ping for the benchmark)."""
        return self.log.publish(kind, data)

    def roll(self, first: int, second: int) -> int:
        return self._set("roll", {"dice": [first, second]}, dice=(first, second), phase="await_play")

    def play(self, notation: str) -> int:
        """The side on roll plays ``notation``; the turn passes to the other side."""
        with self._lock:
            snap = self._snapshot
            after = apply_notation(snap.position, notation).swapped()
            dice = "".join(str(d) for d in snap.dice)
            moves = snap.moves + (MoveEntry(snap.on_roll, dice, notation),)
            return self._set(
                "play",
                {"player": snap.on_roll, "notation": notation, "dice": dice},
                position=after,
                on_roll=1 - snap.on_roll,
                dice=(),
                moves=moves,
                alert=None,
                phase="await_roll",
            )

    def illegal(self, reason: str, points: Sequence[tuple[int, str]], code: str = "", can_accept: bool = True) -> int:
        """Raise an illegal-play alert; ``points`` are (point, 'extra'|'missing') in the mover's numbering."""
        marks = tuple(PointMark(p, "missing" if k == "missing" else "extra") for p, k in points)
        alert = Alert(reason, marks, code, can_accept)
        return self._set(
            "alert",
            {"reason": reason, "points": [[m.point, m.kind] for m in marks], "code": code},
            alert=alert,
            phase="illegal",
        )

    def ask(self, text: str, points: Sequence[int] = ()) -> int:
        snap = self.snapshot()
        question = Question(text, snap.position, tuple(PointMark(p, "extra") for p in points))
        return self._set("question", {"text": text}, question=question, phase="question")

    def set_status(self, device: str, level: str, detail: str = "") -> int:
        snap = self.snapshot()
        status = replace(snap.status, **{device: Health(level, detail)})  # type: ignore[arg-type]
        return self._set("status", {"device": device, "level": level, "detail": detail}, status=status)

    def set_tournament(self, on: bool) -> int:
        """Command (optional in the protocol): tournament mode hides pip counts and other aids."""
        self._record("set_tournament", on)
        return self._set("settings", {"tournament": on}, tournament=on)

    # --- Commands ------------------------------------------------------------------------------
    def _record(self, name: str, *args: object) -> None:
        with self._lock:
            self.calls.append((name, args))

    def new_game(
        self, variant: str, players: tuple[str, str], match_length: int, options: Mapping[str, OptionValue]
    ) -> None:
        self._record("new_game", variant, players, match_length, dict(options))
        with self._lock:
            self._set(
                "new_game",
                {"variant": variant, "players": list(players), "match_length": match_length},
                variant=variant,
                position=starting_position(variant),
                on_roll=0,
                players=players,
                match_length=match_length,
                score=(0, 0),
                dice=(),
                moves=(),
                cube_value=1,
                cube_owner=None,
                cube_offered_by=None,
                alert=None,
                question=None,
                result="",
                game_number=1,
                phase="opening",
                options=tuple(sorted(options.items())),
            )

    def accept_illegal(self) -> None:
        self._record("accept_illegal")
        if self.snapshot().alert is None:
            raise CommandRefused("There is no illegal play to accept.")
        self._set("accepted", {}, alert=None, phase="await_roll")

    def confirm_reading(self) -> None:
        self._record("confirm_reading")
        if self.snapshot().question is None:
            raise CommandRefused("There is no reading waiting for confirmation.")
        self._set("confirmed", {}, question=None, phase="await_roll")

    def correct_reading(self, position: Position) -> None:
        self._record("correct_reading", position)
        self._set("corrected", {"position": position.id}, position=position, question=None, alert=None)

    def correct_dice(self, dice: tuple[int, int]) -> None:
        self._record("correct_dice", dice)
        snap = self.snapshot()
        if not snap.dice:
            raise CommandRefused("the dice can be corrected only while the roll is being played")
        self._set("dice_corrected", {"read": list(snap.dice), "dice": list(dice), "player": snap.on_roll},
                  dice=tuple(dice), alert=None, question=None, phase="await_play")

    def double(self) -> None:
        self._record("double")
        snap = self.snapshot()
        if snap.variant != "backgammon":
            raise CommandRefused("This game has no doubling cube.")
        if snap.cube_offered_by is not None:
            raise CommandRefused("A double is already offered.")
        if snap.cube_owner not in (None, snap.on_roll):
            raise CommandRefused("Only the owner of the cube may redouble.")
        self._set("cube", {"action": "double", "player": snap.on_roll}, cube_offered_by=snap.on_roll)

    def take(self) -> None:
        self._record("take")
        snap = self.snapshot()
        if snap.cube_offered_by is None:
            raise CommandRefused("No double has been offered.")
        taker = 1 - snap.cube_offered_by
        self._set(
            "cube",
            {"action": "take", "player": taker},
            cube_value=snap.cube_value * 2,
            cube_owner=taker,
            cube_offered_by=None,
            moves=snap.moves + (MoveEntry(snap.cube_offered_by, "", f"Doubles => {snap.cube_value * 2}"),
                                MoveEntry(taker, "", "Takes")),
        )

    def drop(self) -> None:
        self._record("drop")
        snap = self.snapshot()
        if snap.cube_offered_by is None:
            raise CommandRefused("No double has been offered.")
        winner = snap.cube_offered_by
        self._end(winner, snap.cube_value, "drop")

    def resign(self, points: int) -> None:
        self._record("resign", points)
        snap = self.snapshot()
        self._end(1 - snap.on_roll, points * snap.cube_value, "resign")

    def _end(self, winner: int, points: int, how: str) -> None:
        snap = self.snapshot()
        score = list(snap.score)
        score[winner] += points
        result = f"{snap.players[winner]} wins {points} point{'s' if points != 1 else ''}"
        self._set(
            "game_end",
            {"winner": winner, "points": points, "how": how},
            score=(score[0], score[1]),
            cube_offered_by=None,
            result=result,
            phase="game_over",
        )

    def pause(self) -> None:
        self._record("pause")
        self._set("paused", {}, paused=True)

    def resume(self) -> None:
        self._record("resume")
        self._set("resumed", {}, paused=False)

    def resume_damaged(self) -> None:
        self._record("resume_damaged")
        self.log.publish("journal", {"ok": True})

    def set_corners(self, corners: Sequence[tuple[float, float]]) -> None:
        self._record("set_corners", list(corners))
        with self._lock:
            self.corners = [(float(x), float(y)) for x, y in corners]
        self.log.publish("calibration", {"corners": [list(c) for c in self.corners]})

    def capture_empty(self) -> None:
        self._record("capture_empty")
        self.log.publish("calibration", {"captured": "empty"})

    def capture_start(self, variant: str) -> None:
        self._record("capture_start", variant)
        self.log.publish("calibration", {"captured": "start", "variant": variant})


def _sides(snap: Snapshot) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(player 0's side, player 1's side), each in its own numbering."""
    pos = snap.position
    return (pos.mover, pos.opponent) if snap.on_roll == 0 else (pos.opponent, pos.mover)


#: A short scripted backgammon game for ``python -m web_ui`` (dice, play) with one illegal play.
SCRIPT: tuple[tuple[tuple[int, int], str], ...] = (
    ((3, 1), "8/5 6/5"),
    ((6, 4), "24/18 13/9"),
    ((5, 2), "13/8 13/11"),
    ((6, 6), "24/18 13/7(3)"),
    ((4, 2), "8/4 6/4"),
    ((5, 3), "18/13 18/15"),
)
#: The same for the nardy family (every checker starts on the head, the 24 point).
NARDY_SCRIPT: tuple[tuple[tuple[int, int], str], ...] = (
    ((6, 5), "24/13"),
    ((4, 2), "24/18"),
    ((6, 3), "13/4"),
    ((5, 1), "24/18"),
    ((6, 4), "24/14"),
    ((3, 2), "18/13"),
)
SCRIPTS = {"backgammon": SCRIPT, "nardy": NARDY_SCRIPT, "gulbara": NARDY_SCRIPT, "sixone": NARDY_SCRIPT}


def run_script(game: DemoGame, stop: threading.Event, pause: float = 2.5) -> None:
    """Play the scripted game of the current variant over and over (with an illegal-play alert in
    the middle) until ``stop`` is set.

    People act on the page while it plays: a correction, the dice corrected, an alert accepted, a
    new game of another variant.  A step the game then refuses starts the script again on the
    game as it now is (a new game of its variant, with its players), so the demo never stops.
    """
    while not stop.is_set():
        snap = game.snapshot()
        try:
            _play_script(game, stop, pause, snap.variant, snap.players)
        except (CommandRefused, RulesError) as error:
            log.info("scripted game starts again: %s", error)
            if stop.wait(pause):
                return


def _play_script(game: DemoGame, stop: threading.Event, pause: float, variant: str, players: tuple[str, str]) -> None:
    game.new_game(variant, players, 5, {})
    for index, (dice, notation) in enumerate(SCRIPTS.get(variant, NARDY_SCRIPT)):
        if stop.wait(pause):
            return
        game.roll(*dice)
        if index == 2:
            if stop.wait(pause):
                return
            game.illegal("A checker moved 6 pips with a 5", [(13, "missing"), (7, "extra")], "wrong_distance")
            if stop.wait(pause * 2):
                return
            if game.snapshot().alert is not None:  # nobody accepted it on the page meanwhile
                game.accept_illegal()
        if stop.wait(pause):
            return
        game.play(notation)
    stop.wait(pause * 2)
