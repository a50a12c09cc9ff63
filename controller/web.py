"""The referee seen by the companion page: ``web_ui.view.GameView`` and ``Commands`` over a live table.

:class:`RefereeHub` keeps the page's event log (every referee announcement gets an increasing id
for Server-Sent Events), builds immutable snapshots from the match journal, and passes the page's
actions to the referee.  Which table it shows can change (``attach``): the demo plays several
games, the service starts new matches.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.referee import ILLEGAL, PAUSED, QUESTION, Referee, Seating
from controller.table import Table
from rules import match
from rules.position import Position
from vision.calibration import DIE_PX_ADVISED
from vision.observation import position_to_physical
from web_ui.view import (
    Alert,
    CameraReading,
    CommandRefused,
    DeviceStatus,
    Health,
    MoveEntry,
    PointMark,
    Question,
    Snapshot,
)

Event = tuple[int, str, dict[str, object]]


def mover_point(physical: int, seating: Seating, variant: str, player: int) -> int:
    """The acting player's own number for physical point ``physical`` (25 stays the bar)."""
    if physical == 25:
        return 25
    probe = Position(tuple([0] * 25), tuple([0] * 25), variant)
    for own in range(1, 25):
        counts = [0] * 25
        counts[own - 1] = 1
        points, _ = position_to_physical(Position(tuple(counts), probe.opponent, variant),
                                         seating.light_on_roll(player), seating.orientation)
        if points[physical - 1] != (0, 0):
            return own
    return physical


#: Words in the referee's reasons -> the page's translation codes.
REASON_CODES = (
    ("leave the head", "head_rule"),
    ("six-point block", "prime_rule"),
    ("both dice could be played", "dice_not_used"),
    ("more of the roll could be played", "dice_not_used"),
    ("no checker has moved", "dice_not_used"),
    ("larger die must", "larger_die"),
    ("is closed", "blocked_point"),
    ("held by the opponent", "blocked_point"),
    ("bar must enter first", "bar_first"),
    ("before all checkers are home", "bear_off_early"),
    ("cannot move", "wrong_distance"),
    ("may only bear off", "home_moves"),
    ("needs the exact number", "exact_bear_off"),
    ("only from the highest occupied point", "highest_point"),
    ("first turn, strict rule", "first_turn_strict"),
    ("do not match the roll", "cascade_order"),
    ("not a possible position", "impossible_reading"),
    ("reading is uncertain", "uncertain_reading"),
    ("one checker differs", "one_checker_differs"),
    ("dice were not read surely", "dice_unsure"),
)


#: The referee's refusals of a page action -> translation keys (the page shows them in the
#: reader's language; anything not listed is shown in the referee's own words).
REFUSAL_KEYS = (
    ("there is no illegal play to accept", "refuse.no_illegal"),
    ("an illegal play must be corrected", "refuse.must_correct"),
    ("there is no question to answer", "refuse.no_question"),
    ("a correction is taken only while a play is being judged", "refuse.no_correction"),
    ("the dice can be corrected only while the roll is being played", "refuse.dice_when"),
    ("each die shows 1 to 6", "refuse.dice_range"),
    ("the roll is already recorded as", "refuse.dice_same"),
    ("not a legal play either", "refuse.not_legal_either"),
    ("the cube is dead", "refuse.cube_dead"),
    ("may double only on their own turn", "refuse.double_when"),
    ("no doubling in the Crawford game", "refuse.crawford"),
    ("does not own the cube", "refuse.not_cube_owner"),
    ("there is no doubling cube", "refuse.no_cube"),
    ("there is no double to", "refuse.no_double"),
    ("an illegal play is pending", "refuse.illegal_pending"),
    ("the match is over", "refuse.match_over"),
    ("the game is over", "refuse.game_over"),
    ("a double is pending", "refuse.double_pending"),
    ("has rolled and must play first", "refuse.must_play"),
    ("set up the starting position", "refuse.set_up_start"),
    ("the board differs from the record", "refuse.board_differs"),
)


def refusal_key(message: str) -> str:
    for words, key in REFUSAL_KEYS:
        if words in message:
            return key
    return ""


def reason_code(reason: str) -> str:
    for words, code in REASON_CODES:
        if words in reason:
            return code
    return ""


#: A camera whose last frame is older than this is not "ok" (it has stopped sending frames).
STALE_FRAME_S = 10.0


def camera_health(health: Mapping[str, Any]) -> Health:
    """The camera's line on the page from the table's health figures: never "ok" on a stale frame."""
    age = health.get("last_frame_age_s")
    fps = health.get("fps", 0)
    if not health.get("camera_ok", True):
        return Health("error", "camera lost: game paused", "devd.camera_lost")
    if age is None:
        return Health("warn", "no frame yet", "devd.no_frame")
    if age > STALE_FRAME_S:
        return Health("error", f"no new frame for {age:.0f} s: the camera has stopped", "devd.stale",
                      (("age", f"{age:.0f}"),))
    return Health("ok", f"{fps} fps", "devd.fps", (("fps", fps),))


class RefereeHub:
    """GameView + Commands for the page, over whichever table is attached."""

    def __init__(self, records_dir: str | os.PathLike[str], *, tournament: bool = False,
                 keep_events: int = 500, new_game: Callable[..., None] | None = None,
                 calibration: Any = None, leds_status: Callable[[], dict[str, Any]] | None = None,
                 camera_status: Callable[[], tuple[bool, str]] | None = None,
                 journal_status: Callable[[], tuple[str, str] | None] | None = None,
                 resume_damaged: Callable[[], None] | None = None) -> None:
        self.records_dir = Path(records_dir)
        self.tournament = tournament
        self.table: Table | None = None
        self._referee: Referee | None = None
        self._camera_status = camera_status
        self._events: deque[Event] = deque(maxlen=keep_events)
        self._next_id = 1
        self._cond = threading.Condition()
        self._new_game = new_game
        self._calibration = calibration
        self._leds_status = leds_status
        self._journal_status = journal_status  # (level, detail) when the journal needs attention
        self._resume_damaged = resume_damaged

    # --- wiring ------------------------------------------------------------------------------
    def attach(self, table: Table) -> None:
        self.table = table
        self._referee = table.referee
        self.publish("new_game", {"variant": table.referee.variant})

    def attach_referee(self, referee: Referee) -> None:
        """A referee without a camera pipeline yet (the board is not calibrated)."""
        if self.table is not None and self.table.referee is not referee:
            self.table = None
        self._referee = referee
        self.publish("new_game", {"variant": referee.variant})

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """A referee announcement becomes a page event (the Signals listener)."""
        names = {"rolled": "roll", "illegal": "alert", "answered": "confirmed"}
        safe = {k: (v if isinstance(v, (str, int, float, bool, type(None), list)) else str(v))
                for k, v in data.items() if not (k == "points" and isinstance(v, dict))}  # marks go to the LEDs
        if kind in ("illegal", "question", "mismatch") and isinstance(data.get("reason"), str):
            safe["code"] = reason_code(data["reason"])
        # The event keeps its own time and the names of the game it belongs to: a line replayed
        # later must not take the time it reached the browser or the next game's players.
        safe["at"] = round(time.time(), 3)
        if self._referee is not None:
            safe["names"] = list(self._referee.journal.header.players)
        with self._cond:
            self._events.append((self._next_id, names.get(kind, kind), safe))
            self._next_id += 1
            self._cond.notify_all()

    @property
    def referee(self) -> Referee | None:
        return self._referee

    # --- GameView ----------------------------------------------------------------------------
    def latest_event_id(self) -> int:
        with self._cond:
            return self._next_id - 1

    def events_since(self, last_id: int, timeout: float) -> list[Event]:
        with self._cond:
            if self._next_id - 1 <= last_id:
                self._cond.wait(timeout)
            return [e for e in self._events if e[0] > last_id]

    def snapshot(self) -> Snapshot:
        referee = self.referee
        if referee is None:
            from rules.position import starting_position

            return Snapshot(variant="backgammon", position=starting_position(), phase="idle",
                            status=self._status(), tournament=self.tournament)
        journal = referee.journal
        state = journal.state
        on_roll = state.turn if state.turn is not None else 0
        phase = {
            match.OPENING: "opening", match.ROLL: "await_roll", match.PLAY: "await_play",
            match.REMAINDER: "await_play",
            match.CUBE: "await_roll", match.RESIGN: "await_roll", match.GAME_OVER: "game_over",
            match.MATCH_OVER: "game_over",
        }.get(state.phase, "idle")
        if referee.mode == ILLEGAL:
            phase = "illegal"
        elif referee.mode == QUESTION:
            phase = "question"
        elif referee.mode == PAUSED:
            phase = "paused"
        alert = question = None
        pending = referee.pending
        if pending is not None and referee.seating is not None:
            marks = tuple(
                PointMark(mover_point(p, referee.seating, state.variant, pending.player), kind)  # type: ignore[arg-type]
                for p, kind in sorted(pending.points.items())
            )
            if referee.mode == ILLEGAL:
                alert = Alert(pending.reason, marks, code=reason_code(pending.reason),
                              can_accept=referee.options.get("illegal_play") == "opponent_may_accept",
                              read=pending.observed)
            elif referee.mode == QUESTION:
                question = Question(pending.reason, pending.observed, marks, code=reason_code(pending.reason))
        result, result_key, result_values = "", "", ()
        if state.phase in (match.GAME_OVER, match.MATCH_OVER) and state.last_result is not None:
            last = state.last_result
            who = journal.header.players[last.winner] if last.winner is not None else "nobody"
            result = f"{who} wins {last.points:g} ({last.result})" if last.winner is not None else "a draw"
            result_key = "result.wins" if last.winner is not None else "result.a_draw"
            result_values = (("name", who), ("points", f"{last.points:g}"), ("kind", last.result))
        score = tuple(int(s) if float(s).is_integer() else s for s in state.score)
        void_roll = ""
        if state.phase in (match.OPENING, match.ROLL, match.GAME_OVER) and referee.mode != PAUSED:
            for record in reversed(journal.records[-20:]):
                if isinstance(record.event, match.Comment):
                    continue
                if isinstance(record.event, match.VoidRoll):
                    void_roll = record.event.reason or "void"
                break
        return Snapshot(
            variant=state.variant,
            position=state.position_for(on_roll),
            on_roll=on_roll,
            players=tuple(journal.header.players),  # type: ignore[arg-type]
            dice=tuple(state.dice or ()),
            cube_value=state.cube,
            cube_owner=state.cube_owner,
            cube_offered_by=(1 - on_roll) if state.phase == match.CUBE else None,
            score=score,  # type: ignore[arg-type]
            match_length=state.config.length,
            crawford=state.crawford_game,
            game_number=state.game + 1,
            moves=self._moves(referee),
            phase=phase,
            result=result,
            result_key=result_key,
            result_values=result_values,  # type: ignore[arg-type]
            alert=alert,
            question=question,
            status=self._status(),
            tournament=self.tournament,
            paused=referee.mode == PAUSED,
            options=tuple((k, v) for k, v in state.config.options if isinstance(v, (str, bool, int))),
            void_roll=void_roll,
        )

    def _moves(self, referee: Referee) -> tuple[MoveEntry, ...]:
        moves: list[MoveEntry] = []
        dice: dict[int, str] = {}
        for record in referee.journal.records[-400:]:
            event = record.event
            if isinstance(event, match.Roll):
                dice[event.player] = f"{max(event.dice)}{min(event.dice)}"  # the higher die first, as gnubg writes it
            elif isinstance(event, match.OpeningRoll):
                high, low = max(event.die0, event.die1), min(event.die0, event.die1)
                dice[0 if event.die0 > event.die1 else 1] = f"{high}{low}"
            elif isinstance(event, match.Play):
                from rules.steps import Play

                text = Play(event.steps).notation() if event.steps else "(no play)"
                moves.append(MoveEntry(event.player, dice.pop(event.player, ""), text,
                                       "" if event.steps else "move.no_play"))
            elif isinstance(event, match.CascadePlay):  # gul bara: the opponent's part of a cascade
                from rules.steps import Play

                text = Play(event.steps).notation() if event.steps else "(no play)"
                moves.append(MoveEntry(event.player, "", text, "move.cascade"))
            elif isinstance(event, match.IllegalPlayAccepted):
                accepted = "(illegal, accepted by rolling)" if event.how == "roll" else "(illegal, accepted)"
                moves.append(MoveEntry(event.player, dice.pop(event.player, ""), accepted,
                                       "move.accepted_roll" if event.how == "roll" else "move.accepted"))
            elif isinstance(event, match.Double):
                moves.append(MoveEntry(event.player, "", "Doubles", "move.doubles"))
            elif isinstance(event, match.Take):
                moves.append(MoveEntry(event.player, "", "Takes", "move.takes"))
            elif isinstance(event, match.Drop):
                moves.append(MoveEntry(event.player, "", "Drops", "move.drops"))
        return tuple(moves)

    def _status(self) -> DeviceStatus:
        table = self.table
        camera_ok, camera_detail = self._camera_status() if self._camera_status is not None else (True, "")
        if not camera_ok:
            camera = Health("error", camera_detail or "camera lost: game paused", "" if camera_detail else "devd.camera_lost")
        elif table is None:
            camera = (Health("warn", "not calibrated: open the calibration page", "devd.not_calibrated") if self._referee
                      else Health("off", "no game", "devd.no_game"))
        else:
            import time

            camera = camera_health(table.health.to_json(time.monotonic()))
        leds = Health("off", "no LED controller", "devd.no_leds")
        if self._leds_status is not None:
            try:
                info = self._leds_status()
                connected = info.get("connected")
                leds = Health("ok" if connected else "warn", "connected" if connected else "unreachable: GPIO fallback",
                              "devd.leds_ok" if connected else "devd.leds_gpio")
            except Exception as error:  # status must never break the page
                leds = Health("warn", str(error))
        journal = Health("ok", "recording", "devd.recording") if self.referee is not None else Health("off", "")
        problem = self._journal_status() if self._journal_status is not None else None
        if problem is not None:
            journal = Health(problem[0], problem[1])  # type: ignore[arg-type]
        try:
            free = shutil.disk_usage(self.records_dir).free
            disk = Health("ok" if free > 200e6 else "warn", f"{free / 1e9:.1f} GB free", "devd.disk_free",
                          (("gb", f"{free / 1e9:.1f}"),))
        except OSError:
            disk = Health("warn", "unknown", "devd.unknown")
        referee = self.referee
        if referee is not None and "disk full" in referee.pause_reasons:
            disk = Health("error", "disk full: game paused; the confirmed record is kept")
        return DeviceStatus(camera=camera, leds=leds, journal=journal, disk=disk)

    def camera_jpeg(self) -> bytes | None:
        table = self.table
        if table is None or table.frame is None:
            return None
        image = table.frame.copy()
        geometry = table.reader.calibration.geometry
        cv2.polylines(image, [np.round(geometry.surface_polygon()).astype(np.int32)], True, (0, 255, 0), 2)
        for point in range(1, 25):
            cv2.polylines(image, [np.round(geometry.triangle_polygon(point)).astype(np.int32)], True, (0, 200, 255), 1)
        obs = table.last_observation
        if obs is not None:
            for die in obs.dice:
                x, y, w, h = die.get("box", (0, 0, 0, 0))
                cv2.rectangle(image, (int(x), int(y)), (int(x + w), int(y + h)), (255, 0, 255), 2)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return data.tobytes() if ok else None

    def camera_reading(self) -> CameraReading | None:
        table = self.table
        if table is None or table.last_observation is None:
            return None
        obs = table.last_observation
        dice_size = {"die_px": round(table.reader.calibration.geometry.smallest_die_px(), 1),
                     "die_px_advised": DIE_PX_ADVISED}
        if obs.points is None:
            return CameraReading(occluded=obs.occluded, confidence=0.0, **dice_size)
        return CameraReading(
            points=tuple((int(a), int(b)) for a, b in obs.points),
            bar=(int(obs.bar[0]), int(obs.bar[1])),
            dice=tuple(int(d["value"]) for d in obs.dice),
            roll=obs.roll,
            void_reason=obs.void_reason or "",
            occluded=obs.occluded,
            confidence=float(obs.confidence),
            **dice_size,
        )

    # --- Commands ----------------------------------------------------------------------------
    def _need(self) -> Referee:
        referee = self.referee
        if referee is None:
            raise CommandRefused("no game is running", "refuse.no_game")
        return referee

    def _check(self, ok: bool) -> None:
        if not ok:
            message = self._need().message
            raise CommandRefused(message or "not possible now", refusal_key(message) if message else "refuse.not_now")

    @property
    def can_start_games(self) -> bool:
        """False in the demo, which plays its built-in games (the page then offers no new game)."""
        return self._new_game is not None

    def set_tournament(self, on: bool) -> None:
        """Tournament mode: no pip counts or other aids on the page (README, HARDWARE.md)."""
        self.tournament = bool(on)
        self.publish("settings", {"tournament": self.tournament})

    def new_game(self, variant: str, players: tuple[str, str], match_length: int,
                 options: Mapping[str, Any]) -> None:
        if self._new_game is None:
            raise CommandRefused("the demo plays its built-in games; start `referee run` for your own",
                                 "refuse.demo_new_game")
        self._new_game(variant, players, match_length, options)

    def accept_illegal(self) -> None:
        self._check(self._need().accept_illegal())

    def confirm_reading(self) -> None:
        self._check(self._need().confirm_reading())

    def correct_reading(self, position: Position) -> None:
        self._check(self._need().correct_reading(position))

    def correct_dice(self, dice: tuple[int, int]) -> None:
        self._check(self._need().correct_dice(dice, who="director"))

    def _turn(self) -> int:
        turn = self._need().state.turn
        if turn is None:
            raise CommandRefused("nobody is on roll yet", "refuse.nobody_on_roll")
        return turn

    def double(self) -> None:
        self._check(self._need().cube("double", self._turn()))

    def take(self) -> None:
        self._check(self._need().cube("take", self._turn()))

    def drop(self) -> None:
        self._check(self._need().cube("drop", self._turn()))

    def resign(self, points: int) -> None:
        self._check(self._need().resign(self._turn(), points))

    def pause(self) -> None:
        self._need().pause("director")

    def resume(self) -> None:
        referee = self._need()
        if not referee.resume("director"):
            raise CommandRefused(f"the game stays paused: {referee.paused_for()}")

    def resume_damaged(self) -> None:
        """The director resumes a match damaged in the middle from before the damage."""
        if self._resume_damaged is None:
            raise CommandRefused("no damaged match is waiting")
        self._resume_damaged()

    def set_corners(self, corners: Sequence[tuple[float, float]]) -> None:
        self._calibrate("corners", corners)

    def capture_empty(self) -> None:
        self._calibrate("empty")

    def capture_start(self, variant: str) -> None:
        self._calibrate("start", variant)

    def _calibrate(self, what: str, *args: Any) -> None:
        if self._calibration is None:
            raise CommandRefused("calibration is fixed in the demo (its camera is synthetic)", "refuse.demo_calibration")
        self._calibration(what, *args)
        self.publish("calibration", {"what": what})


def start_page(port: int, records_dir: Path, *, host: str = "127.0.0.1", **hub_options: Any) -> tuple[Any, RefereeHub]:
    """Serve the companion page with waitress in a background thread; returns (server, hub)."""
    from web_ui import create_app, make_server
    from web_ui.security import setup_code_notice

    hub = RefereeHub(records_dir, **hub_options)
    app = create_app(hub, hub, {"DATA_DIR": str(records_dir)})
    server = make_server(app, host=host, port=port)
    notice = setup_code_notice(app.extensions["referee"], f"http://127.0.0.1:{server.effective_port}/")
    if notice:
        print(notice, flush=True)  # the console: only someone at the device sees it
    thread = threading.Thread(target=server.run, name="referee-web", daemon=True)
    thread.start()
    return server, hub
