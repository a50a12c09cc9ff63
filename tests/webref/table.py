"""The real referee behind the page, fed what a camera would read (no rendering): for browser
tests and ``bench/web.py``.

``RealTable`` is the referee stack ``referee run`` builds — journal, :class:`controller.referee.Referee`,
:class:`controller.signals.BoardSignals`, :class:`controller.web.RefereeHub` and the page on its own
server (:func:`controller.web.start_page`) — with observations made from positions in place of
camera frames.  ``python -m tests.webref.table DIR`` serves it in a process of its own and takes
one command a line on standard input (``roll 3 1``, ``play 8/5 6/5``, …), answering ``ok`` or
``error: …``: the browser tests run Chromium in a process that never imports OpenCV.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from controller.referee import Referee, RefereeSettings
from controller.signals import BoardSignals
from controller.web import RefereeHub, start_page
from recording.journal import Header, Journal
from rules.plays import legal_results
from rules.position import Position, starting_position
from rules.steps import parse_notation
from vision.observation import Observation, position_to_physical


def observation(position: Position, light_on_roll: bool, *, dice: tuple[int, ...] = (), roll: str | None = None,
                void_reason: str | None = None, half: str | None = "right",
                sides: tuple[str, ...] = ()) -> Observation:
    points, bar = position_to_physical(position, light_on_roll, "bottom-right")
    listed: list[dict[str, Any]] = []
    for i, value in enumerate(dice):
        die: dict[str, Any] = {"value": value, "centre": [700 + 40 * i, 400]}
        if sides:
            die["side"] = sides[i]
        listed.append(die)
    return Observation(points=list(points), bar=bar, dice=listed, roll=roll or ("valid" if dice else "none"),
                       void_reason=void_reason, dice_half=half if dice else None, confidence=0.95)


class RealTable:
    """One backgammon match (light = player 0 at the bottom) refereed by the real referee."""

    def __init__(self, data_dir: Path, players: tuple[str, str] = ("Ana", "Ion"), *, port: int = 0,
                 match_length: int = 5, name: str = "match", serve: bool = True, pin: str = "") -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if pin:  # as `referee pin set` does before the referee starts
            from web_ui.security import PinStore

            PinStore(self.data_dir / "web" / "pin.json").set(pin)
        self.server: Any = None
        if serve:
            self.server, self.hub = start_page(port, self.data_dir)
        else:
            self.hub = RefereeHub(self.data_dir)
        self.signals = BoardSignals(None)
        self.signals.add_listener(self.hub.publish)
        self.referee: Referee
        self.new_match(players, match_length=match_length, name=name)

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    def new_match(self, players: tuple[str, str], *, match_length: int = 5, name: str = "match") -> None:
        path = self.data_dir / f"{name}.jsonl"
        journal = Journal.create(path, Header(variant="backgammon", match_length=match_length, players=players))
        self.referee = Referee(journal, self.signals, RefereeSettings())
        self.hub.attach_referee(self.referee)

    def _view(self) -> tuple[Position, bool]:
        state = self.referee.state
        turn = state.turn if state.turn is not None else 0
        return state.position_for(turn), turn == 0

    def start(self, light_die: int, dark_die: int) -> None:
        """The opening roll: one die each (the higher starts)."""
        start = starting_position()
        self.referee.observe(observation(start, True))
        self.referee.observe(observation(start, True, dice=(light_die, dark_die), roll="void",
                                         void_reason="different_halves", sides=("bottom", "top")))

    def roll(self, a: int, b: int) -> None:
        position, light = self._view()
        self.referee.observe(observation(position, light, dice=(a, b), half="right" if light else "left"))

    def play(self, notation: str) -> None:
        """The player on roll moves as ``notation`` says (judged like any play the camera sees)."""
        position, light = self._view()
        dice = "".join(str(d) for d in (self.referee.state.dice or ()))
        wanted = sorted(parse_notation(notation))
        for result, found in legal_results(position, dice).items():
            if sorted((s.start, s.end) for s in found.steps) == wanted or found.notation() == notation:
                self.show(result, light)
                return
        raise ValueError(f"{notation} is not legal for {dice}")

    def show(self, position: Position, light_on_roll: bool) -> None:
        """The board shows ``position`` (seen from the player on roll), dice lifted: read twice."""
        for _ in range(2):
            self.referee.observe(observation(position, light_on_roll))

    def play_any(self, rng: random.Random) -> str:
        """A legal play of the current roll chosen by ``rng`` (the notation)."""
        position, light = self._view()
        dice = "".join(str(d) for d in (self.referee.state.dice or ()))
        if not dice:  # the roll could not be played: the referee passed the turn itself
            return ""
        results = sorted(legal_results(position, dice).items(), key=lambda item: item[1].notation())
        result, found = results[rng.randrange(len(results))]
        self.show(result, light)
        return found.notation()

    def misplay(self, notation: str) -> None:
        """The player on roll moves as ``notation`` says, legal or not (read twice: an alert)."""
        from web_ui.demo_view import apply_notation

        position, light = self._view()
        self.show(apply_notation(position, notation), light)

    def finish(self, seed: int, limit: int = 600) -> None:
        """Both players roll seeded dice and play seeded legal plays until the game ends."""
        from rules import match as rules_match

        rng = random.Random(seed)
        for _ in range(limit):
            state = self.referee.state
            if state.phase in (rules_match.GAME_OVER, rules_match.MATCH_OVER):
                return
            if state.phase == rules_match.PLAY:
                self.play_any(rng)
            elif state.phase == rules_match.ROLL:
                self.roll(rng.randint(1, 6), rng.randint(1, 6))  # no legal play: the referee passes the turn
            else:
                raise ValueError(f"the game is waiting for something else: {state.phase} {self.referee.message}")
        raise ValueError(f"the game did not end in {limit} turns")

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def main(argv: list[str]) -> int:
    data_dir, port = Path(argv[0]), int(argv[1]) if len(argv) > 1 else 0
    table = RealTable(data_dir, port=port, pin=argv[2] if len(argv) > 2 else "")
    print(f"ready {table.port}", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            command, rest = words[0], words[1:]
            if command == "start":
                table.start(int(rest[0]), int(rest[1]))
            elif command == "roll":
                table.roll(int(rest[0]), int(rest[1]))
            elif command == "play":
                table.play(" ".join(rest))
            elif command == "misplay":
                table.misplay(" ".join(rest))
            elif command == "finish":
                table.finish(int(rest[0]))
            elif command == "new_match":
                table.new_match((rest[0], rest[1]), name=rest[2] if len(rest) > 2 else "match2")
            elif command == "quit":
                break
            else:
                raise ValueError(f"unknown command {command}")
            print("ok", flush=True)
        except Exception as error:  # the test reads the line
            print(f"error: {error}", flush=True)
    table.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
