"""The referee: settled camera observations and players' actions in, journal events and signals out.

The match itself is :mod:`rules.match` folded by the journal (``journal.state``): it knows whose
turn it is, the dice, the cube and the score.  This module adds what only an arbiter at the board
knows: how the board lies (the seating, learnt from the starting position), when a turn ends (the
dice are lifted, a turn button, or a board that stays settled), whether a reading is sure enough to
judge, and what to show while an illegal play waits for its correction.

Every verdict goes to the journal first (``append`` returns only once the line is fsynced) and
only then to the players (``signals.emit``), so nothing the players were told can be lost.

Signals (``emit(kind, data)``), each a dict of plain values:
``ready`` (seating learnt), ``board`` (a new reading), ``rolled``, ``void``, ``no_play``, ``play``,
``illegal`` (points: {physical point: "extra"|"missing"}, reason), ``guide`` (points still wrong),
``corrected``, ``accepted``, ``dice_corrected`` (read, dice, who), ``question``, ``mismatch`` (the board differs from the record),
``cube``, ``game_end``, ``match_end``, ``paused``, ``resumed``, ``turn``, ``cascade`` (gul bara:
the opponent is to play the cascade steps the roller could not; player, steps).
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from recording.journal import Journal, has_room
from rules import match
from rules.errors import IllegalEvent, IllegalPlay, RulesError
from rules.plays import judge, legal_results, nearest
from rules.position import Position, outside_home, starting_position
from rules.steps import Dice
from rules.variants import find_variant, gulbara
from vision.observation import (
    DICE_QUESTION_CONFIDENCE,
    ORIENTATIONS,
    CheckerTotals,
    Observation,
    may_bear_off,
    position_to_physical,
    side_totals,
    start_layouts,
)

log = logging.getLogger(__name__)

SETUP = "setup"  # waiting for the starting position (learns the seating)
NORMAL = "normal"
ILLEGAL = "illegal"  # an illegal play waits for its correction (or acceptance)
QUESTION = "question"  # an uncertain reading waits for a person's answer
PAUSED = "paused"


class Signals(Protocol):
    """Where the referee's announcements go (LEDs, buzzer, page): see the module docstring."""

    def emit(self, kind: str, data: dict[str, Any]) -> None: ...


@dataclass
class RefereeSettings:
    """How the arbiter behaves; every threshold is a setting, not a constant in the code."""

    #: How a turn ends: the player lifts the dice ("dice"), presses the turn button ("button"), or
    #: the changed board stays settled for ``settled_turn_end_s`` ("settled").  "dice" also
    #: accepts the button.
    turn_end: str = "dice"
    settled_turn_end_s: float = 4.0
    #: Below this overall confidence a reading is never judged; it waits, then asks.  Measured on
    #: a rendered dataset (seed 9090, 102 readable frames): 0.3 holds back 5 of 91 exact readings;
    #: the misreads that pass it are mostly one checker off a legal play, which asks instead.
    min_confidence: float = 0.3
    #: Below this, a die of the roll was not read surely (the least sure die's confidence): a play
    #: that looks illegal for the roll as read is asked about, not announced, since the dice may be
    #: what was misread (vision.observation.DICE_QUESTION_CONFIDENCE, where it was measured).
    min_dice_confidence: float = DICE_QUESTION_CONFIDENCE
    #: Identical readings needed before an illegal play is announced.
    confirm_reads: int = 2
    #: Uncertain readings before the page is asked to confirm or correct.
    question_after_reads: int = 3
    #: The player with the light checkers (0 = White / gnubg's player 0).
    light_player: int = 0


@dataclass
class Seating:
    """How the board lies: where light's home is and which player has the light checkers."""

    orientation: str = "bottom-right"
    light_player: int = 0
    variant: str = "backgammon"

    def light_on_roll(self, player: int) -> bool:
        return player == self.light_player

    def seat(self, player: int) -> str:
        """Which side of the board the player sits on ("bottom" or "top"), for the dice half.

        A backgammon player sits by their home board; a nardy player by their head.
        """
        home_bottom = self.orientation.startswith("bottom")
        light_seat = "bottom" if home_bottom == (self.variant == "backgammon") else "top"
        if player == self.light_player:
            return light_seat
        return "top" if light_seat == "bottom" else "bottom"

    def to_text(self) -> str:
        return f"seating orientation={self.orientation} light_player={self.light_player} variant={self.variant}"

    @classmethod
    def from_text(cls, text: str) -> Seating | None:
        if not text.startswith("seating "):
            return None
        fields = dict(part.split("=", 1) for part in text.split()[1:] if "=" in part)
        orientation = fields.get("orientation", "")
        if orientation not in ORIENTATIONS:
            return None
        return cls(orientation, int(fields.get("light_player", "0")), fields.get("variant", "backgammon"))


def recognise_start(obs: Observation, variant: str, light_player: int = 0) -> Seating | None:
    """The seating under which ``obs`` shows ``variant``'s starting position, if any."""
    if obs.points is None:
        return None
    if tuple(obs.bar) != (0, 0):
        return None
    for orientation, points in start_layouts(variant).items():
        if [tuple(p) for p in obs.points] == points:
            return Seating(orientation, light_player, variant)
    return None


def physical_difference(obs: Observation, expected: Position, seating: Seating, player: int) -> dict[int, str]:
    """Physical points (25 = bar) where ``obs`` has checkers that ``expected`` lacks ("extra",
    red) or lacks checkers it has ("missing", green)."""
    points, bar = position_to_physical(expected, seating.light_on_roll(player), seating.orientation)
    out: dict[int, str] = {}
    assert obs.points is not None
    for index, (seen, want) in enumerate(zip(obs.points, points, strict=True)):
        if seen[0] > want[0] or seen[1] > want[1]:
            out[index + 1] = "extra"
        elif seen[0] < want[0] or seen[1] < want[1]:
            out[index + 1] = "missing"
    if obs.bar[0] > bar[0] or obs.bar[1] > bar[1]:
        out[25] = "extra"
    elif obs.bar[0] < bar[0] or obs.bar[1] < bar[1]:
        out[25] = "missing"
    return out


@dataclass
class _Pending:
    """An illegal play or an uncertain reading waiting to be resolved."""

    player: int
    observed: Position
    reason: str = ""
    points: dict[int, str] = field(default_factory=dict)
    standing: bool = True  # the last dice-free reading still shows the illegal play
    roll_refused: bool = False  # dice thrown over it under must_correct, not yet lifted
    about_dice: bool = False  # the question is whether the roll was read right


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _one_at_a_time(method: _Method) -> _Method:
    """The camera's thread and the page's threads act on one referee: one action at a time."""

    @functools.wraps(method)
    def locked(self: Referee, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return cast(_Method, locked)


class Referee:
    """The arbiter's state machine over one match journal."""

    def __init__(
        self,
        journal: Journal,
        signals: Signals,
        settings: RefereeSettings | None = None,
        *,
        evidence: Callable[[], str | None] | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self.journal = journal
        self.signals = signals
        self.settings = settings or RefereeSettings()
        self.evidence = evidence or (lambda: None)
        self.seating = self._seating_from_journal()
        self.mode = SETUP if self.seating is None else NORMAL
        self.verified = not journal.records  # a resumed match checks the board first
        self.dice_latched: tuple[int, ...] | None = None  # dice already taken as a roll
        #: the roll being played, as read, when a die of it was not read surely (else None)
        self.roll_unsure: tuple[int, ...] | None = None
        self.dice_seen_in_play = False
        self.last: Observation | None = None
        self.last_position: Position | None = None
        self.settled_since: float | None = None
        self.pending: _Pending | None = None
        self.same_reads = 0
        self.uncertain_reads = 0
        self.paused_mode = NORMAL
        #: Why the game is paused: "director" (the page), "camera", "disk full", "journal",
        #: "camera resolution"; each is lifted only by what set it.
        self.pause_reasons: set[str] = set()
        self.journal_error = ""  # the last failed journal write (disk full ...), "" when writing works
        self.message = ""
        self.board_ok = False  # the last dice-free reading matched the record
        self.remainder_board: tuple[Observation, Position] | None = None  # gul bara: last dice-free reading
        if self.journal.state.illegal_pending:
            self._restore_illegal()
        self.mismatch: dict[int, str] = {}  # points shown as differing from the record

    # --- facts for the page ------------------------------------------------------------------
    @property
    def state(self) -> match.MatchState:
        return self.journal.state

    @property
    def variant(self) -> str:
        return self.state.variant

    @property
    def options(self) -> dict[str, object]:
        return self.state.config.rule_options()

    @property
    def wants_reads(self) -> bool:
        """True while the referee needs fresh readings of an unchanged board."""
        return self.mode in (ILLEGAL, QUESTION) or self.uncertain_reads > 0 or self.same_reads > 0 or (
            self.settings.turn_end == "settled" and self.state.phase in (match.PLAY, match.REMAINDER)
        )

    def _seating_from_journal(self) -> Seating | None:
        for record in reversed(self.journal.records):
            if isinstance(record.event, match.Comment):
                found = Seating.from_text(record.event.text)
                if found is not None:
                    return found
        return None

    def _restore_illegal(self) -> None:
        """After a restart: the illegal play the journal says is still waiting for its correction."""
        for record in reversed(self.journal.records):
            event = record.event
            if isinstance(event, match.IllegalPlayDetected):
                self.pending = _Pending(event.player, event.result, event.reason)
                self.mode = ILLEGAL if self.seating is not None else self.mode
                self.message = event.reason
                return

    def _emit(self, kind: str, **data: Any) -> None:
        try:
            self.signals.emit(kind, data)
        except Exception:  # a broken LED link or page must never stop the referee
            log.exception("signal %s failed", kind)

    def _append(self, event: match.Event, *, with_evidence: bool = False) -> bool:
        """Journal first; False (and a message) when the match refuses the event."""
        try:
            self.journal.append(event, evidence=self.evidence() if with_evidence else None)
        except IllegalEvent as error:
            self.message = str(error)
            log.warning("event refused: %s", error)
            return False
        except OSError as error:
            # Disk full (or another write error): nothing half-written stays in the journal and
            # nothing was confirmed.  Pause until it can be written again; the roll or play on the
            # board is read again then.
            self.dice_latched = None
            reason = "disk full" if error.errno == errno.ENOSPC else "journal"
            self.journal_error = f"{error.strerror or error}: the journal cannot be written; game paused"
            self.message = self.journal_error
            log.error("journal write failed (%s): game paused", error)
            self.pause(reason)
            self._emit("disk", ok=False, reason=reason, error=error.strerror or str(error))
            return False
        return True

    def retry_journal(self) -> bool:
        """After a failed journal write: resume when the journal's disk takes writes again."""
        reasons = self.pause_reasons & {"disk full", "journal"}
        if not reasons:
            return False
        if not has_room(os.path.dirname(os.path.abspath(self.journal.path))):
            return False
        self.journal_error = ""
        self.message = ""
        for reason in reasons:
            self.resume(reason)
        self._emit("disk", ok=True)
        return True

    # --- camera ------------------------------------------------------------------------------
    @_one_at_a_time
    def observe(self, obs: Observation, now: float = 0.0) -> None:
        """One reading of a settled frame (the service never passes an occluded frame as read)."""
        if obs.refused or obs.occluded or obs.points is None:
            self.settled_since = None
            return
        if self.mode == PAUSED:
            return
        self.last = obs
        if self.mode == SETUP:
            self._learn_seating(obs)
            return
        if self.state.phase == match.MATCH_OVER:
            return
        assert self.seating is not None
        player = self._acting_player()
        try:
            observed = obs.to_position(self.variant, self.seating.light_on_roll(player), self.seating.orientation)
        except (ValueError, RulesError):
            self._uncertain(None, "the reading is not a possible position")
            return
        if observed != self.last_position:
            self.settled_since = now
            self.last_position = observed
            self.same_reads = 0
            self._emit("board", player=player, position=observed.id, confidence=obs.confidence)
        else:
            self.same_reads += 1
        phase = self.state.phase
        if self.mode == ILLEGAL:
            self._while_illegal(obs, observed)
        elif self.mode == QUESTION:
            self._while_question(obs, observed)
        elif phase in (match.OPENING, match.GAME_OVER):
            self._await_opening(obs, observed)
        elif phase == match.ROLL:
            self._await_roll(obs, observed)
        elif phase == match.PLAY:
            self._during_play(obs, observed, now)
        elif phase == match.REMAINDER:
            self._during_remainder(obs, observed, now)

    def _acting_player(self) -> int:
        turn = self.state.turn
        return turn if turn is not None else 0

    #: the phases of a game under way, whose position the referee knows
    _UNDER_WAY = (match.ROLL, match.PLAY, match.REMAINDER, match.CUBE, match.RESIGN)

    @_one_at_a_time
    def checker_totals(self) -> CheckerTotals | None:
        """How many checkers each side has on the board and bar as the game stands, for the
        reader to keep to (`vision.observation.CheckerTotals`): 15 less those borne off, the
        side whose turn it is down to four fewer when it may be bearing off (fewer than four of
        its checkers outside its home board; in a gul bara cascade, down to none), the other
        exactly.  None while no game is under way (the board is being
        set up, the game is over), the seating is not known yet, or the board does not yet, or no
        longer, match the record (a resumed match not yet checked, a board shown differing from the
        record): the record is then not what the reading should keep to."""
        state = self.state
        if (self.mode in (SETUP, PAUSED) or self.seating is None or state.phase not in self._UNDER_WAY
                or not self.verified or self.mismatch):
            return None
        player = self._acting_player()
        light_moves = self.seating.light_on_roll(player)
        position = state.position_for(player)
        light, dark = side_totals(*position_to_physical(position, light_moves, self.seating.orientation))
        cascade = state.variant == "gulbara" and (state.phase == match.REMAINDER or self._cascading())
        bears_off = light + dark if cascade else may_bear_off(outside_home(position.mover))
        return CheckerTotals.in_turn(light, dark, light_moves, bears_off=bears_off)

    def _learn_seating(self, obs: Observation) -> None:
        seating = recognise_start(obs, self.variant, self.settings.light_player)
        if seating is None:
            self.message = f"set up the {find_variant(self.variant).title} starting position"
            return
        if not self._append(match.Comment(seating.to_text())):
            return
        self.seating = seating
        self.mode = NORMAL
        self.verified = True
        self.board_ok = True
        self._emit("ready", orientation=seating.orientation, light_player=seating.light_player)

    def _board_matches(self, obs: Observation, observed: Position, player: int) -> bool:
        """Is the board as recorded?  Judged on dice-free readings (a die can hide or look like a
        checker); a reading with dice relies on the last dice-free one."""
        expected = self.state.position_for(player)
        if self._dice(obs):
            return self.board_ok
        self.board_ok = observed == expected
        if observed == expected:
            if not self.verified:
                self.verified = True
                self._emit("verified")
            if self.mismatch:
                self.mismatch = {}
                self._emit("matched", player=player)
            self.message = ""
            return True
        if self.same_reads + 1 >= self.settings.confirm_reads:
            assert self.seating is not None
            points = physical_difference(obs, expected, self.seating, player)
            self.message = "the board differs from the record"
            if points != self.mismatch:
                self.mismatch = points
                self._emit("mismatch", player=player, points=points, reason=self.message)
        return False

    def _dice(self, obs: Observation) -> list[dict[str, Any]]:
        return [d for d in obs.dice if isinstance(d, dict) and "value" in d]

    def _signature(self, obs: Observation) -> tuple[int, ...]:
        return tuple(sorted(int(d["value"]) for d in self._dice(obs)))

    def _await_opening(self, obs: Observation, observed: Position) -> None:
        state = self.state
        if state.phase == match.GAME_OVER:
            # The next game begins from the starting position.
            start = starting_position(self.variant)
            if observed not in (start, start.swapped()):
                self.message = "set up the starting position for the next game"
                return
            if match.next_starter(state) is not None:  # nardy: the last winner rolls
                self._await_roll(obs, observed, starter=match.next_starter(state))
                return
        elif not self._board_matches(obs, observed, 0):
            return
        dice = self._dice(obs)
        if obs.roll == "none" or not dice:
            self.dice_latched = None
            return
        if self.dice_latched is not None or len(dice) != 2:
            return
        if obs.roll == "void" and obs.void_reason != "different_halves":
            self.dice_latched = self._signature(obs)
            self._append(match.VoidRoll(player=0, reason=f"opening roll {obs.void_reason}"))
            self._emit("void", player=None, reason=obs.void_reason)
            return
        assert self.seating is not None
        by_player = self._opening_dice(dice)
        self.dice_latched = self._signature(obs)
        if self._append(match.OpeningRoll(die0=by_player[0], die1=by_player[1])):
            self._note_roll(obs)
            new = self.state
            self.dice_seen_in_play = True
            self._emit("rolled", player=new.turn, dice=list(new.dice or ()), opening=[by_player[0], by_player[1]])
            if new.turn is not None:
                self._emit("turn", player=new.turn)
            if new.phase == match.PLAY:
                self._check_playable()

    def _note_roll(self, obs: Observation) -> None:
        """Remember whether the roll just recorded was read surely (`roll_unsure`)."""
        unsure = obs.dice_confidence < self.settings.min_dice_confidence
        self.roll_unsure = self._signature(obs) if unsure else None

    def _opening_dice(self, dice: list[dict[str, Any]]) -> tuple[int, int]:
        """Which die is whose: each player rolls into their own side (or own right-hand half)."""
        assert self.seating is not None
        seats = {self.seating.seat(p): p for p in (0, 1)}
        owner: dict[int, int] = {}
        sides = [d.get("side") for d in dice]
        if set(sides) == {"top", "bottom"}:
            for d in dice:
                owner[seats[str(d["side"])]] = int(d["value"])
        else:
            # Each player rolls into their right-hand half: bottom's right is the physical right.
            ordered = sorted(dice, key=lambda d: float(d.get("centre", (0, 0))[0]))
            left, right = int(ordered[0]["value"]), int(ordered[1]["value"])
            owner[seats["bottom"]] = right
            owner[seats["top"]] = left
        return owner[0], owner[1]

    def _await_roll(self, obs: Observation, observed: Position, starter: int | None = None) -> None:
        state = self.state
        player = starter if starter is not None else (state.turn if state.turn is not None else 0)
        if starter is None and not self._board_matches(obs, observed, player):
            return
        dice = self._dice(obs)
        if obs.roll == "none" or not dice:
            self.dice_latched = None
            return
        if self.dice_latched is not None:
            return
        if obs.roll == "void":
            self.dice_latched = self._signature(obs)
            if self._append(match.VoidRoll(player=player, reason=obs.void_reason or "")):
                self._emit("void", player=player, reason=obs.void_reason)
            return
        if len(dice) != 2:
            return  # not a readable roll yet: wait for the next reading
        self.dice_latched = self._signature(obs)
        if not self._right_half_ok(obs, player):
            if self._append(match.VoidRoll(player=player, reason="not_right_half")):
                self._emit("void", player=player, reason="not_right_half")
            return
        values = (int(dice[0]["value"]), int(dice[1]["value"]))
        if self._append(match.Roll(player=player, dice=values)):
            self._note_roll(obs)
            self.dice_seen_in_play = True
            self._emit("rolled", player=player, dice=list(values))
            self._check_playable()

    def _right_half_ok(self, obs: Observation, player: int) -> bool:
        if self.options.get("dice_half", "either") != "right" or obs.dice_half is None:
            return True
        assert self.seating is not None
        right = "right" if self.seating.seat(player) == "bottom" else "left"
        return obs.dice_half == right

    def _legal(self) -> Mapping[Position, Any]:
        state = self.state
        assert state.turn is not None
        before = state.position_for(state.turn)
        if self._cascading():
            return _Judged(lambda observed: self._judge_observed(before, observed))
        assert state.dice is not None
        return legal_results(before, Dice(*state.dice), first_turn=state.first_turn, options=self.options,
                             roll_number=state.roll_number)

    # --- gul bara's cascade ----------------------------------------------------------------
    def _cascading(self) -> bool:
        """A gul bara cascade (a double from the game's 4th roll on) or the opponent's part of one.

        Such a turn is judged by searching for the observed board, never by listing the legal
        results (a 1-1 cascade early in the game has millions of them).
        """
        state = self.state
        if state.phase == match.REMAINDER:
            return True
        return state.variant == "gulbara" and state.dice is not None and gulbara.cascades(state.dice, state.roll_number)

    def _judge_observed(self, before: Position, observed: Position) -> Any:
        """The play turning ``before`` into ``observed`` now; IllegalPlay when there is none."""
        state = self.state
        if state.phase == match.REMAINDER:
            return gulbara.judge_remainder(before, observed, state.pending_steps, options=self.options)
        assert state.dice is not None
        return judge(before, observed, Dice(*state.dice), first_turn=state.first_turn, options=self.options,
                     roll_number=state.roll_number)

    def _play_event(self, player: int, observed: Position, play: Any) -> match.Event:
        """The journal event for a judged play: the opponent's part of a cascade is a CascadePlay."""
        if self.state.phase == match.REMAINDER:
            return match.CascadePlay(player=player, result=observed, steps=play.steps)
        return match.Play(player=player, result=observed, steps=play.steps)

    def _enter_remainder(self) -> None:
        """The roller could not play the whole cascade: the opponent plays the rest, then rolls.

        Dice still lying on the board are the roller's: latched, so they are not taken as the
        opponent's roll.  A remainder the opponent cannot play is recorded at once.
        """
        state = self.state
        last = self.last
        self.dice_latched = self._signature(last) if last is not None and self._dice(last) else None
        self.remainder_board = None
        self._emit("cascade", player=state.turn, steps=list(state.pending_steps))
        self._emit("turn", player=state.turn)
        self._check_playable()

    def _during_remainder(self, obs: Observation, observed: Position, now: float) -> None:
        """The opponent plays the handed-on cascade steps.  Their part ends when they roll their
        own dice (the last dice-free board is judged first, then the roll is taken), press the turn
        button, or (``turn_end`` "settled") leave a changed board settled long enough."""
        if not self._dice(obs):
            self.dice_latched = None
            self.remainder_board = (obs, observed)
            before = self.state.position_for(self._acting_player())
            if (
                self.settings.turn_end == "settled"
                and observed != before
                and self.settled_since is not None
                and now - self.settled_since >= self.settings.settled_turn_end_s
            ):
                self._judge_turn(obs, observed)
            return
        if self.dice_latched is not None and self._signature(obs) == self.dice_latched:
            return  # the roller's dice, still on the board
        if obs.roll == "valid" and len(self._dice(obs)) != 2:
            return  # not a readable roll yet
        board_obs, board = self.remainder_board or (obs, observed)
        self._judge_turn(board_obs, board)
        if self.mode == NORMAL and self.state.phase == match.ROLL:
            self._await_roll(obs, observed)

    def _check_playable(self) -> None:
        """A roll that cannot be played is recorded at once: the dice are lost."""
        state = self.state
        if state.phase not in (match.PLAY, match.REMAINDER) or state.turn is None:
            return
        legal = self._legal()
        before = state.position_for(state.turn)
        if before in legal:  # only an unplayable roll leaves the board unchanged
            player = state.turn
            if self._append(self._play_event(player, before, legal[before])):
                self._emit("no_play", player=player, dice=list(state.dice or ()))
                self._after_play()

    def _during_play(self, obs: Observation, observed: Position, now: float) -> None:
        state = self.state
        player = state.turn if state.turn is not None else 0
        before = state.position_for(player)
        dice_now = self._dice(obs)
        if dice_now:
            self.dice_seen_in_play = True
            return
        ends = False
        if self.settings.turn_end == "dice" and obs.roll == "none" and self.dice_seen_in_play:
            ends = True
        elif (
            self.settings.turn_end == "settled"
            and observed != before
            and self.settled_since is not None
            and now - self.settled_since >= self.settings.settled_turn_end_s
        ):
            ends = True
        if ends:
            self._judge_turn(obs, observed)

    @_one_at_a_time
    def turn_button(self, player: int | None = None) -> None:
        """A player pressed their turn (clock) button: the turn ends with the board as it is."""
        if self.mode != NORMAL or self.state.phase not in (match.PLAY, match.REMAINDER) or self.last is None:
            return
        if player is not None and player != self.state.turn:
            return
        if self.last_position is not None:
            self._judge_turn(self.last, self.last_position)

    def _sure(self, obs: Observation) -> bool:
        return obs.confidence >= self.settings.min_confidence and not obs.problems()

    def _judge_turn(self, obs: Observation, observed: Position) -> None:
        state = self.state
        player = state.turn if state.turn is not None else 0
        legal = self._legal()
        play = legal.get(observed)
        if play is not None and self._sure(obs):
            self.uncertain_reads = 0
            if self._append(self._play_event(player, observed, play), with_evidence=True):
                self._emit("play", player=player, play=play.notation(), position=observed.id)
                self._after_play()
            return
        close = nearest(observed, legal)
        distance = _checker_distance(observed, close) if close is not None else 99
        if not self._sure(obs):
            self._uncertain(observed, "the reading is uncertain")
            return
        if distance <= 1:
            self._uncertain(observed, "one checker differs from a legal play")
            return
        if self.roll_unsure is not None:  # the play may be legal: the dice may be what was misread
            roll = "-".join(map(str, self.roll_unsure))
            self._uncertain(observed, f"the dice were not read surely ({roll}): is that the roll?", about_dice=True)
            return
        if self.same_reads + 1 < self.settings.confirm_reads:
            return  # wait for the same reading again before crying foul
        self._declare_illegal(obs, observed, legal)

    def _why_illegal(self, before: Position, observed: Position) -> IllegalPlay | None:
        """The rules' refusal of ``observed`` (through the variant's own judge), or None if legal."""
        try:
            self._judge_observed(before, observed)
        except IllegalPlay as error:
            return error
        return None

    def _uncertain(self, observed: Position | None, why: str, about_dice: bool = False) -> None:
        self.uncertain_reads += 1
        if self.uncertain_reads >= self.settings.question_after_reads and observed is not None:
            state = self.state
            player = state.turn if state.turn is not None else 0
            self.mode = QUESTION
            self.pending = _Pending(player, observed, why, about_dice=about_dice)
            self.message = why
            self._emit("question", player=player, position=observed.id, reason=why)

    def _declare_illegal(self, obs: Observation, observed: Position, legal: Mapping[Position, Any]) -> None:
        state = self.state
        player = state.turn if state.turn is not None else 0
        assert self.seating is not None
        before = state.position_for(player)
        error = self._why_illegal(before, observed)
        if error is None:
            return
        close = error.nearest if isinstance(error.nearest, Position) else None
        # Without a nearest legal result (a cascade is never listed) show what changed this turn.
        points = physical_difference(obs, close if close is not None else before, self.seating, player)
        policy = self.options.get("illegal_play", "must_correct")
        if not self._append(match.IllegalPlayDetected(player=player, result=observed, reason=error.reason,
                                                       points=tuple(sorted(points))), with_evidence=True):
            return
        self.pending = _Pending(player, observed, error.reason, points)
        self.message = error.reason
        self.dice_latched = self._signature(obs) or None  # dice down now are the mover's own
        self._emit("illegal", player=player, reason=error.reason, points=points, policy=policy,
                   position=observed.id)
        if policy == "alert_only":
            self._accept(observed)
        else:
            self.mode = ILLEGAL

    def _while_illegal(self, obs: Observation, observed: Position) -> None:
        assert self.pending is not None and self.seating is not None
        if self._roll_over_illegal(obs, observed):
            return
        legal = self._legal()
        if observed in legal and self._sure(obs):
            player = self.pending.player
            if self._append(match.IllegalPlayCorrected(player=player)):
                self.mode = NORMAL
                self.pending = None
                self._emit("corrected", player=player)
                play = legal[observed]
                if observed == self.state.position_for(player) and play.steps:
                    return  # taken back to the start of the turn: the player plays again
                if self._append(self._play_event(player, observed, play), with_evidence=True):
                    self._emit("play", player=player, play=play.notation(), position=observed.id)
                    self._after_play()
            return
        if observed == self.state.position_for(self.pending.player):
            # Taken back: nothing wrong on the board any more; the player plays the roll again.
            if self._append(match.IllegalPlayCorrected(player=self.pending.player)):
                self.mode = NORMAL
                self.pending = None
                self._emit("corrected", player=self._acting_player())
            return
        close = nearest(observed, legal)
        if close is not None:
            points = physical_difference(obs, close, self.seating, self.pending.player)
            if points != self.pending.points:
                self.pending.points = points
                self._emit("guide", player=self.pending.player, points=points)

    def _roll_over_illegal(self, obs: Observation, observed: Position) -> bool:
        """Dice thrown while an illegal play waits (RULES.md §1.8); True when this reading is theirs.

        Under ``opponent_may_accept`` the opponent's valid roll over the play as it stands accepts
        it (journaled as accepted by rolling) and is then his roll; otherwise the roll is not
        judged: the correction is still asked for, and the dice count only once thrown again.
        """
        pending = self.pending
        assert pending is not None
        if self.state.phase != match.PLAY:
            return False  # a gul bara cascade part: its player rolls next, not the opponent
        dice = self._dice(obs)
        if not dice:
            self.dice_latched = None
            pending.standing = observed == pending.observed
            pending.roll_refused = False
            return False
        if pending.roll_refused or self.dice_latched is not None:
            return pending.roll_refused  # the refused roll, or the mover's own dice still down
        self.dice_latched = self._signature(obs)
        accepting = self.options.get("illegal_play") == "opponent_may_accept"
        valid = obs.roll == "valid" and len(dice) == 2 and self._right_half_ok(obs, 1 - pending.player)
        if accepting and valid and pending.standing:
            if self._accept(pending.observed, how="roll") and self.state.phase == match.ROLL:
                self._await_roll(obs, observed)
            return True
        pending.roll_refused = True
        self.message = (f"this roll does not accept the illegal play: {'the board has changed' if valid else 'void'}"
                        if accepting else f"correct the illegal play first ({pending.reason}): this roll does not count")
        self._emit("guide", player=pending.player, points=pending.points, reason=self.message)
        return True

    def _while_question(self, obs: Observation, observed: Position) -> None:
        """A clearer reading may answer the question by itself."""
        assert self.pending is not None
        if self._sure(obs) and observed in self._legal():
            self.mode = NORMAL
            self.pending = None
            self.uncertain_reads = 0
            self._emit("answered", how="reading")
            self._judge_turn(obs, observed)

    def _after_play(self) -> None:
        self.board_ok = True  # the board was just judged to be the recorded position
        self.dice_seen_in_play = False
        self.dice_latched = None
        self.roll_unsure = None
        self.uncertain_reads = 0
        self.same_reads = 0
        self.message = ""
        self.remainder_board = None
        state = self.state
        if state.phase in (match.GAME_OVER, match.MATCH_OVER) and state.last_result is not None:
            result = state.last_result
            if not state.result_confirmed:
                self._append(match.GameEnd(winner=result.winner, points=result.points, result=result.result))
            self._emit("game_end", winner=result.winner, points=result.points, result=result.result,
                       score=list(self.state.score))
            if self.state.phase == match.MATCH_OVER:
                self._emit("match_end", winner=self.state.winner, score=list(self.state.score))
            return
        if state.phase == match.REMAINDER:
            self._enter_remainder()
            return
        if state.turn is not None:
            self._emit("turn", player=state.turn)

    # --- people ------------------------------------------------------------------------------
    @_one_at_a_time
    def accept_illegal(self) -> bool:
        """The opponent accepts the illegal play on the board (policy ``opponent_may_accept``)."""
        if self.mode != ILLEGAL or self.pending is None:
            self.message = "there is no illegal play to accept"
            return False
        if self.options.get("illegal_play") != "opponent_may_accept":
            self.message = "this game's rule is that an illegal play must be corrected"
            return False
        return self._accept(self.pending.observed)

    def _accept(self, observed: Position, how: str = "") -> bool:
        assert self.pending is not None
        player = self.pending.player
        if not self._append(match.IllegalPlayAccepted(player=player, result=observed, reason=self.pending.reason,
                                                      how=how)):
            return False
        self.mode = NORMAL
        self.pending = None
        self._emit("accepted", player=player, position=observed.id, how=how)
        self._after_play()
        return True

    @_one_at_a_time
    def confirm_reading(self) -> bool:
        """A person confirms the uncertain reading is what the board shows: judge it."""
        if self.mode != QUESTION or self.pending is None or self.last is None:
            self.message = "there is no question to answer"
            return False
        observed, about_dice = self.pending.observed, self.pending.about_dice
        self.mode = NORMAL
        self.pending = None
        self.uncertain_reads = 0
        if about_dice:  # the roll is as read: the board was read surely, so the play is illegal
            self.roll_unsure = None
            self._declare_illegal(self.last, observed, self._legal())
            return True
        self._judge_confirmed(observed)
        return True

    @_one_at_a_time
    def correct_reading(self, position: Position) -> bool:
        """A person says what the board really shows (from the acting player's side): judge that.

        Also overrides an illegal-play verdict that came from a misreading: the record keeps the
        alert, then its correction and the play as the person says it stands.
        """
        if self.mode not in (QUESTION, NORMAL, ILLEGAL) or self.state.phase not in (match.PLAY, match.REMAINDER):
            self.message = "a correction is taken only while a play is being judged"
            return False
        if position.variant != self.variant:
            self.message = f"the corrected position is not a {self.variant} position"
            return False
        if self.mode == ILLEGAL and self.pending is not None:
            if self._why_illegal(self.state.position_for(self.pending.player), position) is not None:
                self.message = "that position is not a legal play either"
                return False
            if not self._append(match.IllegalPlayCorrected(player=self.pending.player)):
                return False
            self._emit("corrected", player=self.pending.player, how="reading corrected")
        self.mode = NORMAL
        self.pending = None
        self.uncertain_reads = 0
        self._judge_confirmed(position)
        return True

    def _judge_confirmed(self, observed: Position) -> None:
        """Judge a position a person vouched for (no confidence or repeat checks)."""
        state = self.state
        player = state.turn if state.turn is not None else 0
        legal = self._legal()
        play = legal.get(observed)
        if play is not None:
            if self._append(self._play_event(player, observed, play)):
                self._emit("play", player=player, play=play.notation(), position=observed.id)
                self._after_play()
            return
        error = self._why_illegal(state.position_for(player), observed)
        if error is None:
            return
        if not self._append(match.IllegalPlayDetected(player=player, result=observed, reason=error.reason)):
            return
        self.pending = _Pending(player, observed, error.reason)
        self.message = error.reason
        self._emit("illegal", player=player, reason=error.reason, points={}, position=observed.id,
                   policy=self.options.get("illegal_play", "must_correct"))
        if self.options.get("illegal_play") == "alert_only":
            self._accept(observed)
        else:
            self.mode = ILLEGAL

    @_one_at_a_time
    def correct_dice(self, dice: tuple[int, int], who: str = "director") -> bool:
        """A person says the dice being played are ``dice``, not what the camera read.

        Journaled (with the evidence frame) as its own event before anything else; then the board
        is judged again with the real roll: an illegal play or a question that came from the
        misread dice is settled by it (a legal play is recorded at once), and a roll that cannot
        be played is recorded as such.
        """
        state = self.state
        if state.phase != match.PLAY or state.turn is None or state.dice is None:
            self.message = "the dice can be corrected only while the roll is being played"
            return False
        if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
            self.message = "each die shows 1 to 6"
            return False
        read = state.dice
        if sorted(dice) == sorted(read):
            self.message = f"the roll is already recorded as {read[0]}-{read[1]}"
            return False
        player = state.turn
        if not self._append(match.DiceCorrected(player=player, read=read, dice=(dice[0], dice[1]), who=who),
                            with_evidence=True):
            return False
        self._emit("dice_corrected", player=player, read=list(read), dice=list(dice), who=who)
        self.roll_unsure = None  # a person said what the dice show
        pending = self.pending if self.mode in (ILLEGAL, QUESTION) else None
        was = self.mode
        if pending is not None:
            self.mode = NORMAL
            self.pending = None
            self.mismatch = {}
        self.uncertain_reads = 0
        self.message = ""
        if pending is not None and self.last is not None:
            if was == ILLEGAL:
                self._emit("corrected", player=player, how="dice corrected")
                legal = self._legal()
                play = legal.get(pending.observed)
                if play is not None:
                    if self._append(self._play_event(player, pending.observed, play), with_evidence=True):
                        self._emit("play", player=player, play=play.notation(), position=pending.observed.id)
                        self._after_play()
                else:
                    self._declare_illegal(self.last, pending.observed, legal)
            else:
                self._judge_turn(self.last, pending.observed)
            return True
        self._check_playable()
        return True

    @_one_at_a_time
    def cube(self, action: str, player: int) -> bool:
        """``double``, ``take``, ``drop`` or ``beaver`` by ``player`` (buttons or the page)."""
        events = {"double": match.Double, "take": match.Take, "drop": match.Drop, "beaver": match.Beaver}
        if action not in events:
            self.message = f"unknown cube action {action!r}"
            return False
        if not self._append(events[action](player=player)):
            return False
        state = self.state
        self._emit("cube", action=action, player=player, value=state.cube, owner=state.cube_owner)
        if action == "drop":
            self._after_play()
        return True

    @_one_at_a_time
    def resign(self, player: int, value: int = 1) -> bool:
        return self._append(match.Resign(player=player, value=value)) and (self._emit("resign", player=player, value=value) or True)

    @_one_at_a_time
    def answer_resignation(self, accept: bool, player: int) -> bool:
        event = match.ResignAccepted(player=player) if accept else match.ResignDeclined(player=player)
        if not self._append(event):
            return False
        if accept:
            self._after_play()
        return True

    @_one_at_a_time
    def pause(self, reason: str = "director") -> None:
        """Pause the game for ``reason``; it goes on only when every reason is lifted."""
        if reason in self.pause_reasons:
            return
        self.pause_reasons.add(reason)
        if self.mode != PAUSED:
            self.paused_mode = self.mode
            self.mode = PAUSED
        self._emit("paused", reason=reason)

    @_one_at_a_time
    def resume(self, reason: str = "director") -> bool:
        """Lift the pause ``reason`` set (a camera that is back never lifts a director's pause).

        True when the game goes on; False while another reason still holds it.
        """
        self.pause_reasons.discard(reason)
        if self.mode != PAUSED:
            return True
        if self.pause_reasons:
            return False
        self.mode = self.paused_mode
        self.verified = False  # the board may have been touched: verify before judging
        self._emit("resumed")
        return True

    def paused_for(self) -> str:
        """Why the game is paused, in words ("" when it is not)."""
        return ", ".join(sorted(self.pause_reasons)) if self.mode == PAUSED else ""


class _Judged(Mapping[Position, Any]):
    """Legal results found by judging each board asked about, never by listing them all (gul bara's
    cascade).  Iterating gives only the results found so far, so no nearest result is offered."""

    def __init__(self, judge_one: Callable[[Position], Any]) -> None:
        self._judge_one = judge_one
        self._found: dict[Position, Any] = {}

    def __getitem__(self, observed: Position) -> Any:
        if observed not in self._found:
            try:
                self._found[observed] = self._judge_one(observed)
            except IllegalPlay:
                raise KeyError(observed) from None
        return self._found[observed]

    def __iter__(self) -> Iterator[Position]:
        return iter(dict(self._found))

    def __len__(self) -> int:
        return len(self._found)


def _checker_distance(a: Position, b: Position) -> int:
    """How many single-checker differences separate two positions (per side and point)."""
    return sum(abs(x - y) for x, y in zip(a.mover, b.mover, strict=True)) + sum(
        abs(x - y) for x, y in zip(a.opponent, b.opponent, strict=True)
    )
