"""``referee demo``: the whole referee on built-in scripted games, through the real pipeline.

A scripted board (:class:`ScriptedBoard`) renders each moment of a game script with
``vision.render`` as the camera would see it: rolls landing (some void), hands over the board
mid-play, the result with the dice still down, the dice lifted.  Every frame goes through the same
:class:`~controller.table.Table` as on the Pi: the gate, the reader, the referee, the journal, the
LED strip (the simulated controller on a pseudo-terminal, spoken to by the real serial link), the
Pi's buzzer and LEDs on gpiozero's mock pins, and the companion page when it is served.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from controller.referee import Referee, RefereeSettings
from controller.script import GameScript, Turn, backgammon_game, describe, nardy_game
from controller.signals import BoardSignals
from controller.table import Table
from firmware_bridge import Leds, open_leds
from recording.export import FORMATS, export_journal
from recording.journal import Header, Journal
from rules.position import Position, starting_position
from vision import render as rnd
from vision.calibration import calibrate
from vision.config import VisionConfig
from vision.observation import position_to_physical
from vision.pipeline import Reader

log = logging.getLogger(__name__)

FPS = 10.0
#: The demo's long nardy game is shown from the start through the middle game (the first-turn
#: head exception and the refused six-point block come early); the whole game is 101 turns.
NARDY_DEMO_TURNS = 40
#: At the end of the demo, how long to wait for a club broker that is away to take the last lines.
CLUB_FLUSH_S = float(os.environ.get("REFEREE_CLUB_FLUSH_S", "30"))
Action = Callable[[Referee], Any]


@dataclass
class Moment:
    """One still scene held for ``frames`` frames; ``actions`` run before its first frame."""

    scene: rnd.Scene | None
    frames: int
    actions: list[Action] = field(default_factory=list)
    moving: bool = False  # a hand is over the board (one fresh render per frame)


class ScriptedBoard:
    """A game script as a camera sees it."""

    def __init__(self, script: GameScript, setup: rnd.BoardSetup, orientation: str, *, seed: int = 0,
                 hold: int = 12, light_player: int = 0) -> None:
        self.script = script
        self.setup = setup
        self.orientation = orientation
        self.light_player = light_player
        self.rng = np.random.default_rng(seed)
        self.hold = hold
        self.seed = seed
        self.referee: Referee | None = None  # set when the players can see the referee's lights
        self.turn_offset = 0  # plays already in the journal when this run began
        self.first_turn = 0

    # --- scenes --------------------------------------------------------------------------------
    def seat(self, player: int) -> str:
        from controller.referee import Seating

        return Seating(self.orientation, self.light_player, self.script.variant).seat(player)

    def scene(self, position: Position, player: int, dice: tuple[int, ...] = (), kind: str = "valid",
              hand: bool = False) -> rnd.Scene:
        points, bar = position_to_physical(position, player == self.light_player, self.orientation)
        scene = rnd.Scene(points=list(points), bar=bar, seed=int(self.rng.integers(0, 2**31)))
        if dice:
            half = "right" if self.seat(player) == "bottom" else "left"
            rnd._place_dice(scene, self.rng, list(dice), self.setup.board.aspect, kind, forced_half=half)
        if hand:
            edge = self.seat(player)
            tip = (float(self.rng.uniform(0.25, 0.75)), 0.62 if edge == "bottom" else 0.38)
            scene.hand = rnd.HandSpec(tip, edge)
        return scene

    def empty_scene(self) -> rnd.Scene:
        return rnd.Scene(points=[(0, 0)] * 24, seed=1)

    # --- the game as moments -------------------------------------------------------------------
    def moments(self, max_turns: int | None = None, first_turn: int = 0, opening_done: bool = False) -> Iterator[Moment]:
        """The game from turn ``first_turn`` on (a resumed game starts where its journal stopped)."""
        script = self.script
        hold = self.hold
        start = starting_position(script.variant)
        turns = script.turns[:max_turns] if max_turns else script.turns
        if first_turn:
            resume_at = turns[first_turn] if first_turn < len(turns) else turns[-1]
            yield Moment(self.scene(resume_at.before, resume_at.player), hold)
        else:
            yield Moment(self.scene(start, 0), hold)
        if script.opening is not None and not first_turn and not opening_done:
            die0, die1 = script.opening
            # Each player rolls one die into their own right-hand half; the kind puts the second
            # die in the other half.
            bottom_player = 0 if self.seat(0) == "bottom" else 1
            first, second = (die0, die1) if bottom_player == 0 else (die1, die0)
            scene = self.scene(start, bottom_player, (first, second), "different_halves")
            yield Moment(scene, hold)
            yield from self._until_opening(start, bottom_player, (first, second))
            if script.variant != "backgammon":
                yield Moment(self.scene(start, 0), hold)  # dice picked up; the starter rolls afresh
        for index, turn in enumerate(turns):
            if index >= first_turn:
                yield from self._turn(index, turn, resumed=opening_done and index == first_turn)
        if turns:
            last = turns[-1]
            yield Moment(self.scene(last.result, last.player), hold)

    def _turn(self, index: int, turn: Turn, resumed: bool = False) -> Iterator[Moment]:
        hold = self.hold
        player = turn.player
        opening_dice = index == 0 and self.script.variant == "backgammon" and self.script.opening is not None
        if opening_dice and resumed:
            # Resumed after the opening roll was recorded: the opening dice are still down.
            yield Moment(self.scene(turn.before, player, turn.dice), hold)
        actions: list[Action] = [_cube(action, who) for action, who in turn.cube]
        if not opening_dice:
            if turn.void_first:
                yield Moment(self.scene(turn.before, player, turn.dice, turn.void_first), hold, actions)
                actions = []
                yield Moment(self.scene(turn.before, player), hold)
            rolls = self._rolls_recorded()
            yield Moment(self.scene(turn.before, player, turn.dice), hold, actions)
            yield from self._until_rolled(turn, rolls)
        for _ in range(3):
            yield Moment(self.scene(turn.before, player, turn.dice, hand=True), 1, moving=True)
        if turn.illegal_first is not None:
            yield Moment(self.scene(turn.illegal_first, player, turn.dice), hold // 2)
            yield Moment(self.scene(turn.illegal_first, player), hold + 8)
            for _ in range(2):
                yield Moment(self.scene(turn.illegal_first, player, hand=True), 1, moving=True)
            yield Moment(self.scene(turn.result, player), hold + 4)
        else:
            yield Moment(self.scene(turn.result, player, turn.dice), hold // 2)
            yield Moment(self.scene(turn.result, player), hold)
        yield from self._until_recorded(index, turn)

    # --- the players wait for the referee, as at a real board --------------------------------
    def _plays_recorded(self) -> int:
        from rules import match

        referee = self.referee
        if referee is None:
            return 0
        return sum(isinstance(r.event, (match.Play, match.IllegalPlayAccepted)) for r in referee.journal.records)

    def _until_opening(self, start: Position, bottom_player: int, dice: tuple[int, int]) -> Iterator[Moment]:
        """The opening roll taken, or rolled again after the referee called it void."""
        from rules import match

        referee = self.referee
        if referee is None:
            return
        for _ in range(4):
            records = referee.journal.records
            if any(isinstance(r.event, match.OpeningRoll) for r in records) or referee.mode != "normal":
                return
            if records and isinstance(records[-1].event, match.VoidRoll):
                yield Moment(self.scene(start, 0), self.hold)  # dice picked up
            yield Moment(self.scene(start, bottom_player, dice, "different_halves"), self.hold)

    def _rolls_recorded(self) -> int:
        from rules import match

        referee = self.referee
        if referee is None:
            return 0
        return sum(isinstance(r.event, match.Roll) for r in referee.journal.records)

    def _until_rolled(self, turn: Turn, rolls_before: int) -> Iterator[Moment]:
        """Wait for the roll to be taken; when the referee calls it void, roll again."""
        from rules import match

        referee = self.referee
        if referee is None:
            return
        for _ in range(4):
            if self._rolls_recorded() > rolls_before or referee.mode != "normal":
                return
            last = referee.journal.records[-1].event if referee.journal.records else None
            if isinstance(last, match.VoidRoll):
                yield Moment(self.scene(turn.before, turn.player), self.hold)  # dice picked up
            yield Moment(self.scene(turn.before, turn.player, turn.dice), self.hold)  # (rolled again)

    def _until_recorded(self, index: int, turn: Turn) -> Iterator[Moment]:
        """Wait for the referee's verdict; answer its question as the director would on the page."""
        referee = self.referee
        if referee is None:
            return
        scene = self.scene(turn.result, turn.player)
        for _ in range(6):
            if self._plays_recorded() > self.turn_offset + index - self.first_turn:
                return
            if referee.mode == "question" or (referee.mode == "illegal" and turn.illegal_first is None):
                # The director answers the question, or overrides an alert a misreading caused.
                yield Moment(scene, 1, [lambda ref: ref.correct_reading(turn.result)])
            else:
                yield Moment(scene, self.hold)

    def frames(self, max_turns: int | None = None, first_turn: int = 0,
               opening_done: bool = False) -> Iterator[tuple[np.ndarray, list[Action]]]:
        for moment in self.moments(max_turns, first_turn, opening_done):
            assert moment.scene is not None
            image, _ = rnd.render(self.setup, moment.scene)
            for n in range(moment.frames):
                yield image, (moment.actions if n == 0 else [])


def _cube(action: str, player: int) -> Action:
    def act(referee: Referee) -> Any:
        return referee.cube(action, player)
    return act


def demo_setup(variant: str, seed: int) -> tuple[rnd.BoardSetup, str]:
    """A fixed, well-lit board for the demo: tournament board for backgammon, wooden for nardy."""
    rng = np.random.default_rng(seed)
    style = "tournament" if variant == "backgammon" else "wooden"
    setup = rnd.random_setup(rng, style=style, checkers="ivory-black" if variant == "backgammon" else "cream-brown")
    setup.blur = 0.0
    setup.noise = 1.5
    setup.jpeg = 92
    setup.dice_style = "ivory"
    # the appliance's camera hangs over the board's centre, looking straight down
    setup.corners = rnd.camera_corners(setup.board.aspect, 0.74 * rnd.IMAGE_SIZE[1], (0.0, 0.0), tilt_deg=0.0,
                                       roll_deg=0.0, hfov_deg=62.0)
    orientation = "bottom-right" if variant == "backgammon" else "top-left"
    return setup, orientation


@dataclass
class GameRun:
    script: GameScript
    journal_path: Path
    exports: dict[str, str]
    signals: list[tuple[str, dict[str, Any]]]
    frames: int
    seconds: float
    final_phase: str
    facts: dict[str, Any]
    complete: bool = False  # every scripted play up to the last turn shown is in the journal


def play_script(script: GameScript, data_dir: Path, leds: Leds | None, *, seed: int = 3,
                max_turns: int | None = None, listeners: list[Callable[[str, dict[str, Any]], None]] = (),  # type: ignore[assignment]
                on_table: Callable[[Table], None] | None = None, realtime: bool = False,
                resume: bool = False, accept_loss: bool = False) -> GameRun:
    """Referee one scripted game through the whole pipeline; returns what happened.

    With ``resume`` an unfinished journal of this game in ``data_dir`` is continued (after a
    crash or a power cut): the board is shown as the journal left it and the game goes on.  A
    journal damaged in the middle (events missing) resumes only with ``accept_loss``.
    """
    setup, orientation = demo_setup(script.variant, seed)
    empty, _ = rnd.render(setup, rnd.Scene(points=[(0, 0)] * 24, seed=1))
    board = ScriptedBoard(script, setup, orientation, seed=seed)
    start_scene = board.scene(starting_position(script.variant), 0)
    start_image, _ = rnd.render(setup, start_scene)
    config = VisionConfig()
    calibration = calibrate(setup.corners, rnd.IMAGE_SIZE, empty=empty, start=start_image,
                            variant=script.variant, config=config)
    unfinished = _unfinished(data_dir, script.variant) if resume else None
    first_turn = 0
    opening_done = False
    if unfinished is not None:
        journal_path = unfinished
        journal = Journal.open(journal_path, accept_loss=accept_loss)  # JournalGap: refused, one line
        for damage in journal.damage:
            print(f"  journal repaired: {damage}", flush=True)
        from rules import match as _match

        first_turn = sum(isinstance(r.event, (_match.Play, _match.IllegalPlayAccepted)) for r in journal.records)
        opening_done = any(isinstance(r.event, _match.OpeningRoll) for r in journal.records)
        name = journal_path.stem
        print(f"  resuming {journal_path.name} at turn {first_turn + 1}", flush=True)
    else:
        name = f"{script.variant}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        journal_path = data_dir / f"{name}.jsonl"
        header = Header(variant=script.variant, match_length=script.match_length, players=script.players,
                        options=script.options, device="referee demo", event="Built-in scripted game")
        journal = Journal.create(journal_path, header)
    signals = BoardSignals(leds)
    for listener in listeners:
        signals.add_listener(listener)
    referee = Referee(journal, signals, RefereeSettings())
    table = Table(Reader(calibration, config), referee, evidence_dir=data_dir / f"{name}-evidence")
    signals.seat_of = lambda player: referee.seating.seat(player) if referee.seating else "bottom"
    if on_table is not None:
        on_table(table)
    t0 = time.perf_counter()
    count = 0
    board.referee = referee
    board.turn_offset = sum(isinstance(r.event, (_match_types())) for r in journal.records)
    board.first_turn = first_turn
    for image, actions in board.frames(max_turns, first_turn, opening_done):
        for action in actions:
            action(referee)
        table.feed(image, count / FPS)
        count += 1
        if referee.journal_error and count % int(FPS) == 0:
            referee.retry_journal()  # paused by a full disk: goes on when it takes writes again
        if realtime:
            time.sleep(1 / FPS)
    seconds = time.perf_counter() - t0
    journal.close()
    exports: dict[str, str] = {}
    for fmt in FORMATS:
        if fmt in ("mat", "sgf") and script.variant != "backgammon":
            continue
        exports[fmt] = export_journal(journal_path, fmt)
    facts = describe(script)
    final = Journal.open(journal_path, repair=False)
    shown = script.turns[:max_turns] if max_turns else script.turns
    recorded = [e.result for e in final.events if isinstance(e, _match_types()[0])]
    complete = recorded == [t.result for t in shown]
    return GameRun(script, journal_path, exports, list(signals.history), count, seconds,
                   final.state.phase, facts, complete)


def _match_types() -> tuple[type, ...]:
    from rules import match

    return (match.Play, match.IllegalPlayAccepted)


def _unfinished(data_dir: Path, variant: str) -> Path | None:
    """The newest journal of ``variant`` in ``data_dir`` whose game has not ended.

    A journal that cannot be read (a damaged header ...) is not passed over quietly: resuming is
    refused with what is wrong, since the game it holds may be the one to resume.
    """
    from rules import match as _match

    for path in sorted(data_dir.glob(f"{variant}-*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            state = Journal.open(path, repair=False).state
        except (ValueError, OSError) as error:
            raise ValueError(f"cannot resume: {path.name} cannot be read ({error}); move it aside to "
                             "resume an older game, or run without --resume for a new one") from None
        if state.phase not in (_match.GAME_OVER, _match.MATCH_OVER):
            return path
    return None


def _mock_gpio() -> Any:
    """The Pi's LEDs and buzzer on gpiozero's mock pins (the demo has no Pi)."""
    from gpiozero.pins.mock import MockFactory

    from firmware_bridge import GpioSignals

    return GpioSignals(pin_factory=MockFactory())


def run_demo(headless: bool = True, port: int = 8080, data_dir: str | None = None,
             games: tuple[str, ...] = ("backgammon", "nardy"), max_turns: int | None = None,
             resume: bool = False, club: str | None = None, table: str | None = None,
             accept_loss: bool = False) -> list[GameRun]:
    """Play the built-in games; print where the records are (and publish them to ``club``)."""
    out = Path(data_dir or os.environ.get("REFEREE_DATA_DIR") or "data/demo").resolve()
    out.mkdir(parents=True, exist_ok=True)
    leds = open_leds(os.environ.get("REFEREE_LEDS", "sim"), gpio=_mock_gpio())
    server = None
    listeners: list[Callable[[str, dict[str, Any]], None]] = []
    hub = None
    if not headless:
        from controller.web import start_page

        server, hub = start_page(port, out)
        listeners.append(hub.publish)
        print(f"companion page: http://127.0.0.1:{port}/", flush=True)
    publisher = None
    tables: list[Table] = []
    if club and table:
        from controller.club_link import ClubPublisher

        page = f"http://{socket.gethostname()}:{port}/" if not headless else ""
        publisher = ClubPublisher(club, table, data_dir=out, page=page,
                                  health=lambda: {"camera_ok": tables[-1].health.camera_ok} if tables else {})
        publisher.start()
        listeners.append(publisher.wake)
        print(f"publishing to the club at {publisher.address} as table {table}", flush=True)

    def attach(table_now: Table) -> None:
        tables.append(table_now)
        if hub is not None:
            hub.attach(table_now)
        if publisher is not None:
            publisher.attach(table_now.referee)

    runs = []
    try:
        for variant in games:
            script = backgammon_game() if variant == "backgammon" else nardy_game()
            limit = max_turns if max_turns else (None if variant == "backgammon" else NARDY_DEMO_TURNS)
            shown = len(script.turns[:limit]) if limit else len(script.turns)
            print(f"refereeing {script.title} ({shown} of {len(script.turns)} turns)…", flush=True)
            run = play_script(script, out, leds, max_turns=limit, listeners=listeners,
                              on_table=attach, realtime=not headless, resume=resume, accept_loss=accept_loss)
            runs.append(run)
            verdicts = [k for k, _ in run.signals]
            print(f"  {run.frames} frames in {run.seconds:.1f} s; plays {verdicts.count('play')}, "
                  f"illegal plays flagged {verdicts.count('illegal')}, void rolls {verdicts.count('void')}, "
                  f"questions {verdicts.count('question')}; game state: {run.final_phase}; "
                  f"every scripted play recorded: {'yes' if run.complete else 'NO'}")
            print(f"  journal: {run.journal_path}")
            for fmt, path in run.exports.items():
                print(f"  {fmt}: {path}")
        if leds.sim is not None:
            print(f"LED controller (simulated on {leds.sim.port}) showed {len(leds.history())} frames")
    finally:
        leds.close()
        if server is not None:
            server.close()
        if publisher is not None:
            if publisher.backlog():
                print(f"club: waiting up to {CLUB_FLUSH_S:.0f} s for the broker to take "
                      f"{publisher.backlog()} journal lines", flush=True)
            publisher.close(timeout=CLUB_FLUSH_S)
            left = publisher.backlog()
            print("club: every journal line is with the broker" if not left else
                  f"club: {left} journal lines not delivered (they stay in the journal)", flush=True)
    return runs


def main_demo(headless: bool, port: int, data_dir: str | None, max_turns: int | None,
              games: tuple[str, ...] = (), resume: bool = False, club: str | None = None,
              table: str | None = None, accept_loss: bool = False) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    runs = run_demo(headless=headless, port=port, data_dir=data_dir, max_turns=max_turns,
                    games=games or ("backgammon", "nardy"), resume=resume, club=club, table=table,
                    accept_loss=accept_loss)
    return 0 if all(run.complete for run in runs) else 1
