"""The seam between the referee and the page: a read-only :class:`GameView` and a :class:`Commands` sink.

The page never reaches into the referee.  It asks a ``GameView`` for an immutable
:class:`Snapshot` and for the events that happened since a given id, and it hands the players'
actions to a ``Commands`` object.  ``web_ui.demo_view`` holds an in-memory implementation of
both; the referee (``controller``) provides its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from rules.position import Position

#: One event for Server-Sent Events: (id, type, data).  Ids increase by at least 1.
Event = tuple[int, str, dict[str, object]]

Level = Literal["ok", "warn", "error", "off"]
MarkKind = Literal["extra", "missing"]
OptionValue = str | bool | int


class CommandRefused(ValueError):
    """An action that is not possible now; the message is shown to the user as it is, or, when
    ``key`` names a translation, in the reader's language (``values`` fill its blanks)."""

    def __init__(self, message: str, key: str = "", **values: object) -> None:
        super().__init__(message)
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class PointMark:
    """A point to highlight: ``point`` in the numbering of the side on roll (1..24, 25 = bar, 0 = off).

    ``kind`` is ``"extra"`` when the board shows a checker that should not be there and
    ``"missing"`` when a checker that should be there is not.
    """

    point: int
    kind: MarkKind = "extra"


@dataclass(frozen=True, slots=True)
class Alert:
    """An illegal play (or other problem) the players must see.

    ``reason`` is a sentence in English (shown as is when ``code`` has no translation);
    ``code`` is an optional stable key such as ``"head_rule"``, ``"prime_rule"``,
    ``"dice_not_used"``, ``"wrong_distance"``, ``"blocked_point"``, ``"void_roll"``.
    """

    reason: str
    points: tuple[PointMark, ...] = ()
    code: str = ""
    can_accept: bool = False  # the opponent may accept the play (option illegal_play)
    read: Position | None = None  # what the camera read (the play on the board), seen from the side on roll


@dataclass(frozen=True, slots=True)
class Question:
    """The referee is unsure what it saw and asks a person to confirm or correct the reading."""

    text: str
    read: Position | None = None  # what the camera read, seen from the side on roll
    points: tuple[PointMark, ...] = ()  # the points it is unsure about
    code: str = ""  # a translation key under ``reason.`` for ``text``


@dataclass(frozen=True, slots=True)
class Health:
    level: Level = "ok"
    detail: str = ""  # in English; shown as is when ``key`` is empty
    key: str = ""  # translation of ``detail`` (``devd.…``), its blanks filled from ``values``
    values: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    camera: Health = Health()
    leds: Health = Health()
    journal: Health = Health()
    disk: Health = Health()

    def items(self) -> tuple[tuple[str, Health], ...]:
        return (("camera", self.camera), ("leds", self.leds), ("journal", self.journal), ("disk", self.disk))


@dataclass(frozen=True, slots=True)
class MoveEntry:
    """One line of the move list: who played, the dice and the play in the usual notation."""

    player: int  # 0 or 1
    dice: str  # "31", "" for a cube action
    notation: str  # "24/21 6/5", "Doubles => 2", "Takes", "(illegal, accepted) 24/18"
    key: str = ""  # a translation (``move.…``) of what is not notation: "Doubles", "(no play)"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything the page shows, at one moment.  Immutable, so it can be cached and shared.

    ``position`` is seen from the side on roll, ``on_roll`` says which player that is.
    Player 0 plays the light checkers and is drawn at the bottom; player 1 plays dark, at the top.
    """

    variant: str
    position: Position
    on_roll: int = 0
    players: tuple[str, str] = ("Light", "Dark")
    dice: tuple[int, ...] = ()
    cube_value: int = 1
    cube_owner: int | None = None  # None: centred
    cube_offered_by: int | None = None  # a double waiting for take/drop
    score: tuple[int, int] = (0, 0)
    match_length: int = 0  # 0: money play / single games
    crawford: bool = False  # this game is the Crawford game
    game_number: int = 1
    moves: tuple[MoveEntry, ...] = ()
    phase: str = "idle"  # idle | opening | await_roll | await_play | illegal | question | paused | game_over
    result: str = ""  # in words, when the game or match has ended
    result_key: str = ""  # its translation key (``result.wins``), blanks from ``result_values``
    result_values: tuple[tuple[str, object], ...] = ()
    alert: Alert | None = None
    question: Question | None = None
    status: DeviceStatus = field(default_factory=DeviceStatus)
    tournament: bool = False  # no pip counts or other aids on the page
    paused: bool = False
    options: tuple[tuple[str, OptionValue], ...] = ()
    #: A void roll waiting to be thrown again: its reason (``cocked``, ``different_halves``,
    #: ``on_checker``, ``off_board``, ``not_right_half``; ``void`` when none was given), else "".
    void_roll: str = ""

    @property
    def pips(self) -> tuple[int, int]:
        """Pip counts of player 0 and player 1."""
        mine, theirs = self.position.pips(True), self.position.pips(False)
        return (mine, theirs) if self.on_roll == 0 else (theirs, mine)

    @property
    def borne_off(self) -> tuple[int, int]:
        mine, theirs = self.position.borne_off(True), self.position.borne_off(False)
        return (mine, theirs) if self.on_roll == 0 else (theirs, mine)


@dataclass(frozen=True, slots=True)
class CameraReading:
    """What the camera reads now, in physical points P1..P24 (INTERFACES.md §3; light at the bottom)."""

    points: tuple[tuple[int, int], ...] = ((0, 0),) * 24  # [light, dark] per P1..P24
    bar: tuple[int, int] = (0, 0)  # light, dark
    dice: tuple[int, ...] = ()
    roll: str = "none"  # valid | void | none
    void_reason: str = ""
    occluded: bool = False
    confidence: float = 1.0
    calibrated: bool = True
    die_px: float = 0.0  # how many pixels a die spans where the board is seen smallest (0: not known)
    die_px_advised: float = 0.0  # the least the dice reader needs (the page warns below it)


@runtime_checkable
class GameView(Protocol):
    """Read-only access to the game for the page.  Every method must be safe to call from many threads."""

    records_dir: Path  # journals (*.jsonl), exports beside them, evidence frames

    def snapshot(self) -> Snapshot:
        """The current state (an immutable object; cheap to call often)."""
        ...

    def latest_event_id(self) -> int:
        """The id of the newest event (0 when there is none yet)."""
        ...

    def events_since(self, last_id: int, timeout: float) -> list[Event]:
        """Events with an id greater than ``last_id``, oldest first.

        Blocks up to ``timeout`` seconds while there are none, then returns ``[]``.  When
        ``last_id`` is older than what is kept, returns what is kept (the page then simply
        redraws from :meth:`snapshot`).
        """
        ...

    def camera_jpeg(self) -> bytes | None:
        """The current camera frame as JPEG with the detected board, points and dice drawn over it."""
        ...

    def camera_reading(self) -> CameraReading | None:
        """What the camera reads now (None when there is no camera or no calibration)."""
        ...


@runtime_checkable
class Commands(Protocol):
    """Actions from the page.  Each returns nothing or raises ``ValueError`` (e.g. :class:`CommandRefused`,
    ``rules.errors.IllegalEvent``) with a sentence the page shows to the user.  The page has already
    checked the PIN; the referee checks whether the action makes sense now.
    """

    def new_game(
        self, variant: str, players: tuple[str, str], match_length: int, options: Mapping[str, OptionValue]
    ) -> None: ...

    def accept_illegal(self) -> None: ...

    def confirm_reading(self) -> None: ...

    def correct_reading(self, position: Position) -> None:
        """``position`` is the board as it really is, seen from the side on roll."""
        ...

    def correct_dice(self, dice: tuple[int, int]) -> None:
        """The dice being played really show ``dice`` (the camera misread them): the referee
        records the correction and judges the board again with them."""
        ...

    def double(self) -> None: ...

    def take(self) -> None: ...

    def drop(self) -> None: ...

    def resign(self, points: int) -> None:
        """The side on roll resigns ``points`` = 1, 2 or 3 (times the cube)."""
        ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def set_corners(self, corners: Sequence[tuple[float, float]]) -> None:
        """Four board corners in camera pixels: top-left, top-right, bottom-right, bottom-left of the board."""
        ...

    def capture_empty(self) -> None: ...

    def capture_start(self, variant: str) -> None: ...
