"""A match as a fold over events: ``apply(state, event) -> state``.

Everything the referee records (RULES.md §6) is an event: rolls, void rolls, plays with the
position they produce, cube actions, resignations, illegal plays detected / accepted / corrected,
manual corrections and the end of each game.  :func:`apply` checks that an event is allowed now and
returns the next :class:`MatchState`; an event that is not allowed raises
:class:`~rules.errors.IllegalEvent` saying why.  The state is never mutated, so a journal replay is
``functools.reduce(apply, events, new_match(...))``.

Players are 0 and 1.  In backgammon player 0 is gnubg's player 0 (White in SGF, the left column of
a ``.mat`` file); in the nardy variants player 0 is White (``white_always_starts``).  Boards are
stored per player, each in its own numbering (index 0..23 = points 1..24, 24 = bar), so
``state.position`` is simply ``Position(sides[turn], sides[1 - turn])``.

Scoring (RULES.md §2.3-2.7, §3.6-3.8): backgammon single 1 / gammon 2 / backgammon 3 times the cube,
the Crawford rule and gnubg's dead cube in match play, Jacoby and beavers in money play (a resignation
scores its face value, as gnubg scores it); the nardy family oin 1 / mars 2,
options ``koks`` 3 and ``home_mars`` 4, ``last_roll_draw`` with ``draw_points``, and "the previous
game's winner begins the next game" (or ``white_always_starts``); six-one's race (the first
player with all 15 checkers home wins 1 point).  A win worth more than the points still needed ends
the match.  This module is pure: no I/O, clock or randomness.

Gul bara's doubles cascade (RULES.md §4.2): ``MatchState.roll_number`` counts the game's
:class:`Roll` events, both players together.  The opening roll is **not** counted: in the nardy
family it only decides who starts, and the starter then rolls afresh (RULES.md §1.1, §3.1); in
backgammon the starter plays the opening dice, but no backgammon rule depends on the count.  A
double from the fourth roll on cascades; when the roller cannot play all of it (and has not just
borne off the last checker), the phase becomes :data:`REMAINDER`: the opponent is to act, with the
unplayed steps in ``pending_steps``, and plays them as a :class:`CascadePlay` (an empty one when
none can be played); then the opponent rolls as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules.errors import IllegalEvent, IllegalPlay
from rules.position import CHECKERS, Position, outside_home, starting_position
from rules.steps import Dice, Step

Side = tuple[int, ...]

# --- phases -----------------------------------------------------------------------------------

OPENING = "opening"  # waiting for the opening roll (or the starter's first roll)
ROLL = "roll"  # player `turn` may double, resign or roll
PLAY = "play"  # player `turn` has rolled and must play
REMAINDER = "remainder"  # gul bara: player `turn` plays the cascade steps the roller could not
CUBE = "cube"  # a double waits for the answer of the other player
RESIGN = "resign"  # a resignation waits for the answer of the other player
GAME_OVER = "game_over"  # the game has ended; the next opening roll starts a new game
MATCH_OVER = "match_over"

BACKGAMMON_RESULTS = {1: "single", 2: "gammon", 3: "backgammon"}
NARDY_RESULTS = {1: "oin", 2: "mars", 3: "koks", 4: "home_mars"}


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every match event; ``kind`` names it in journals and exports."""

    kind: ClassVar[str] = "Event"


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    """Each player rolls one die; the higher starts.  A tie is recorded and rolled again.

    In backgammon the starter plays these two dice; in the nardy family the starter then rolls
    afresh (a :class:`Roll` follows).
    """

    kind: ClassVar[str] = "OpeningRoll"
    die0: int  # player 0's die
    die1: int  # player 1's die


@dataclass(frozen=True, slots=True)
class Roll(Event):
    """The player on roll rolls two dice (a valid roll)."""

    kind: ClassVar[str] = "Roll"
    player: int
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class VoidRoll(Event):
    """A roll that does not count (cocked, off the board, on a checker, different halves)."""

    kind: ClassVar[str] = "VoidRoll"
    player: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DiceCorrected(Event):
    """A person corrected the dice the referee recorded (the camera misread them), while they are
    being played.  ``read`` is what was recorded, ``dice`` what the dice really show, ``who`` who
    corrected them (``"director"`` from the page).  From here on the roll is ``dice``: an illegal
    play judged with the misread dice no longer stands (the referee judges the board again).
    """

    kind: ClassVar[str] = "DiceCorrected"
    player: int
    read: tuple[int, int]
    dice: tuple[int, int]
    who: str = ""


@dataclass(frozen=True, slots=True)
class Play(Event):
    """The player's play with the rolled dice: the position it produces, seen from the mover.

    ``steps`` are the checker steps (start, end, die, hit) in the order taken when known (an
    empty tuple when the dice could not be played); ``result`` is the authority.
    """

    kind: ClassVar[str] = "Play"
    player: int
    result: Position
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class CascadePlay(Event):
    """Gul bara: the opponent's play of the cascade steps the roller could not play (RULES.md §4.2).

    ``player`` is the opponent of the roller; ``result`` is seen from them; ``steps`` are their
    checker steps (empty when none of the handed-on steps could be played).  The steps played
    are the state's ``pending_steps``, in order, as far as they go; the rest is lost.
    """

    kind: ClassVar[str] = "CascadePlay"
    player: int
    result: Position
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class Double(Event):
    kind: ClassVar[str] = "Double"
    player: int


@dataclass(frozen=True, slots=True)
class Take(Event):
    kind: ClassVar[str] = "Take"
    player: int


@dataclass(frozen=True, slots=True)
class Drop(Event):
    kind: ClassVar[str] = "Drop"
    player: int


@dataclass(frozen=True, slots=True)
class Beaver(Event):
    """Money play with ``beavers``: the doubled player takes and at once redoubles, keeping the cube."""

    kind: ClassVar[str] = "Beaver"
    player: int


@dataclass(frozen=True, slots=True)
class Resign(Event):
    """The player offers to lose ``value`` times the cube (1 single, 2 gammon, 3 backgammon)."""

    kind: ClassVar[str] = "Resign"
    player: int
    value: int = 1


@dataclass(frozen=True, slots=True)
class ResignAccepted(Event):
    kind: ClassVar[str] = "ResignAccepted"
    player: int  # the player who accepts (the winner)


@dataclass(frozen=True, slots=True)
class ResignDeclined(Event):
    kind: ClassVar[str] = "ResignDeclined"
    player: int


@dataclass(frozen=True, slots=True)
class IllegalPlayDetected(Event):
    """The board shows a result the dice cannot produce; the referee alerted (no state change)."""

    kind: ClassVar[str] = "IllegalPlayDetected"
    player: int
    result: Position
    reason: str = ""
    points: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class IllegalPlayAccepted(Event):
    """The opponent accepted an illegal play (or the referee only alerts): the board moves on.

    ``how`` is ``"roll"`` when the opponent accepted it by throwing the dice (RULES.md §1.8).
    """

    kind: ClassVar[str] = "IllegalPlayAccepted"
    player: int
    result: Position
    reason: str = ""
    how: str = ""


@dataclass(frozen=True, slots=True)
class IllegalPlayCorrected(Event):
    """The illegal play was taken back; the player still has to play the same dice."""

    kind: ClassVar[str] = "IllegalPlayCorrected"
    player: int


@dataclass(frozen=True, slots=True)
class ManualCorrection(Event):
    """Somebody set the board by hand (a misread fixed, checkers knocked over).

    ``position`` is seen from ``player``'s side.  The phase and the dice are unchanged.
    """

    kind: ClassVar[str] = "ManualCorrection"
    player: int
    position: Position
    note: str = ""


@dataclass(frozen=True, slots=True)
class GameEnd(Event):
    """Confirms the end of a game (the fold computes it; this must agree).

    ``winner`` is None for a draw; ``points`` is what each side scored (the winner, or both for a
    draw); ``result`` names it (``single``, ``gammon``, ``oin``, ``mars``, ``drop``, ``draw`` …).
    """

    kind: ClassVar[str] = "GameEnd"
    winner: int | None
    points: float
    result: str = ""


@dataclass(frozen=True, slots=True)
class Comment(Event):
    """Free text for the record (no state change)."""

    kind: ClassVar[str] = "Comment"
    text: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        OpeningRoll,
        Roll,
        VoidRoll,
        DiceCorrected,
        Play,
        CascadePlay,
        Double,
        Take,
        Drop,
        Beaver,
        Resign,
        ResignAccepted,
        ResignDeclined,
        IllegalPlayDetected,
        IllegalPlayAccepted,
        IllegalPlayCorrected,
        ManualCorrection,
        GameEnd,
        Comment,
    )
}


# --- state ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What the players chose before the match: variant, match length and options."""

    variant: str = "backgammon"
    length: int = 0  # 0 = money play / single games
    options: tuple[tuple[str, object], ...] = ()
    check_plays: bool = True  # judge every Play with rules.plays

    def option(self, name: str, default: object = None) -> object:
        for key, value in self.options:
            if key == name:
                return value
        return default

    @property
    def has_cube(self) -> bool:
        return self.variant == "backgammon"

    @property
    def crawford(self) -> bool:
        return self.length > 0 and bool(self.option("crawford", True))

    @property
    def jacoby(self) -> bool:
        return self.length == 0 and bool(self.option("jacoby", False))

    @property
    def beavers(self) -> bool:
        return self.length == 0 and bool(self.option("beavers", False))

    @property
    def last_roll_draw(self) -> bool:
        return self.variant != "backgammon" and bool(self.option("last_roll_draw", False))

    @property
    def white_always_starts(self) -> bool:
        return self.variant != "backgammon" and (
            bool(self.option("white_always_starts", False)) or self.last_roll_draw
        )

    @property
    def draw_points(self) -> float:
        return 1.0 if self.option("draw_points", "half") == "one" else 0.5

    def rule_options(self) -> dict[str, object]:
        """The options as the rules engine takes them."""
        return dict(self.options)


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: int | None  # None: a draw
    points: float
    result: str
    cube: int = 1
    crawford: bool = False  # this game was the Crawford game
    resign_value: int = 0  # 1..3 (4) when the game ended by resignation
    on_roll: int | None = None  # whose turn it was when the game ended (for the Match ID)


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything known about the match after a sequence of events."""

    config: MatchConfig
    score: tuple[float, float] = (0.0, 0.0)
    game: int = 0  # 0-based number of the current (or last finished) game
    phase: str = OPENING
    turn: int | None = None  # who acts now (rolls, plays, answers a double...)
    dice: tuple[int, int] | None = None
    sides: tuple[Side, Side] = ((), ())
    cube: int = 1
    cube_owner: int | None = None
    crawford_game: bool = False
    crawford_done: bool = False
    starter: int | None = None  # who moved first in this game
    turns_played: tuple[int, int] = (0, 0)
    #: The game's Roll events so far, both players (the opening roll not counted): while a roll is
    #: played it is that roll's number, as ``rules.plays`` takes ``roll_number`` (gul bara).
    roll_number: int = 0
    #: Phase REMAINDER: the cascade steps player ``turn`` (the roller's opponent) must play.
    pending_steps: tuple[int, ...] = ()
    resign_value: int = 0
    resume_phase: str = ""  # the phase a declined resignation returns to
    resume_turn: int | None = None  # who was to act when the resignation was offered
    illegal_pending: bool = False
    final_turn: bool = False  # last_roll_draw: the second player's one more turn
    results: tuple[GameResult, ...] = ()
    result_confirmed: bool = False
    events: int = 0  # number of events folded in

    # --- derived ---------------------------------------------------------------------------
    @property
    def variant(self) -> str:
        return self.config.variant

    @property
    def position(self) -> Position:
        """The board seen from the player who acts now (player 0 before the first roll)."""
        player = self.turn if self.turn is not None else 0
        return self.position_for(player)

    def position_for(self, player: int) -> Position:
        if not self.sides[0]:
            start = starting_position(self.variant)
            return Position(start.mover, start.opponent, self.variant)
        return Position(self.sides[player], self.sides[1 - player], self.variant)

    @property
    def on_roll(self) -> int | None:
        """The player whose turn it is (gnubg's "player on roll"): the doubler while a double waits."""
        if self.phase == CUBE and self.turn is not None:
            return 1 - self.turn
        if self.phase == RESIGN:
            return self.resume_turn
        return self.turn

    @property
    def match_over(self) -> bool:
        return self.phase == MATCH_OVER

    @property
    def winner(self) -> int | None:
        """The match winner once the match is over."""
        if not self.match_over or not self.results:
            return None
        if self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1

    @property
    def last_result(self) -> GameResult | None:
        return self.results[-1] if self.results else None

    @property
    def first_turn(self) -> bool:
        """Whether the player on roll is making their first play of the game (nardy head rule)."""
        return self.turn is not None and self.turns_played[self.turn] == 0

    def dead_cube(self, player: int) -> str:
        """Why the cube is dead for ``player`` in match play (RULES.md §2.7, as gnubg), else empty.

        gnubg lets a player double only while their score plus the cube value is short of the match
        length: in a 1-point match the cube is never used, and a player who already wins the match
        by winning this game at the present cube value (the post-Crawford leader, the owner of a
        cube big enough) gains nothing by doubling.
        """
        length = self.config.length
        if not length or self.score[player] + self.cube < length:
            return ""
        if length == 1:
            return "the cube is dead in a 1-point match"
        single = "a single game" if self.cube == 1 else f"a single game at the {self.cube}-cube"
        return (f"the cube is dead: player {player} already wins the match with {single} "
                f"({self.score[player]:g} of {length} points)")

    def may_double(self, player: int) -> str:
        """Empty when ``player`` may double now, else why not."""
        if not self.config.has_cube:
            return f"there is no doubling cube in {self.variant}"
        if self.phase != ROLL or self.turn != player:
            return "a player may double only on their own turn, before rolling"
        if self.crawford_game:
            return "no doubling in the Crawford game"
        if self.cube_owner is not None and self.cube_owner != player:
            return f"player {player} does not own the cube"
        dead = self.dead_cube(player)
        if dead:
            return dead
        if self.cube >= 64 and self.config.length == 0:
            return "the cube is at 64"
        if self.config.length and self.cube >= 1 << 14:
            return "the cube cannot go higher"
        return ""


def new_match(
    variant: str = "backgammon",
    length: int = 0,
    options: Mapping[str, object] | Iterable[tuple[str, object]] = (),
    *,
    check_plays: bool = True,
) -> MatchState:
    """The state before the first event.  ``options`` are the variant's (validated by the caller)."""
    pairs = tuple(sorted(options.items() if isinstance(options, Mapping) else options))
    if length < 0:
        raise IllegalEvent(f"match length must be 0 (money/single games) or more, not {length}")
    config = MatchConfig(variant=variant, length=length, options=pairs, check_plays=check_plays)
    start = starting_position(variant)
    state = MatchState(config=config, sides=(start.mover, start.opponent))
    if config.white_always_starts:
        state = replace(state, phase=ROLL, turn=0, starter=0)
    return state


# --- the fold ---------------------------------------------------------------------------------


def apply(state: MatchState, event: Event) -> MatchState:
    """The state after ``event``; IllegalEvent (why) when the event is not allowed now."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise IllegalEvent(f"unknown event {event!r}")
    if state.phase == MATCH_OVER and not isinstance(event, (Comment, GameEnd)):
        raise IllegalEvent(f"the match is over; {event.kind} is not allowed")
    player = getattr(event, "player", None)
    if player is not None and player not in (0, 1):
        raise IllegalEvent(f"player must be 0 or 1, not {player!r}")
    new = handler(state, event)
    return replace(new, events=state.events + 1)


def replay(state: MatchState, events: Iterable[Event]) -> MatchState:
    for event in events:
        state = apply(state, event)
    return state


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise IllegalEvent(message)


def _begin_game(state: MatchState) -> MatchState:
    """Reset the board and game counters for the next game (called by its first event)."""
    _need(state.phase in (OPENING, GAME_OVER), "a new game starts only after the last one ended")
    if state.phase == OPENING:
        return state
    start = starting_position(state.variant)
    return replace(
        state,
        game=state.game + 1,
        phase=OPENING,
        turn=None,
        dice=None,
        sides=(start.mover, start.opponent),
        cube=1,
        cube_owner=None,
        starter=None,
        turns_played=(0, 0),
        roll_number=0,
        pending_steps=(),
        resign_value=0,
        resume_phase="",
        illegal_pending=False,
        final_turn=False,
        result_confirmed=False,
    )


def _next_starter(state: MatchState) -> int | None:
    """Who begins the next game without an opening roll (nardy rules), or None."""
    if state.variant == "backgammon":
        return None
    if state.config.white_always_starts:
        return 0
    last = state.last_result
    if last is not None and last.winner is not None:
        return last.winner
    return None


def next_starter(state: MatchState) -> int | None:
    """Who begins the next game without an opening roll (the nardy rules), or None (roll for it)."""
    return _next_starter(state)


def _opening_roll(state: MatchState, event: OpeningRoll) -> MatchState:
    for die in (event.die0, event.die1):
        _need(isinstance(die, int) and 1 <= die <= 6, f"opening die {die!r} is not 1..6")
    if state.phase == GAME_OVER:
        _need(_next_starter(state) is None, "the previous game's winner begins this game (no opening roll)")
        state = _begin_game(state)
    _need(state.phase == OPENING, f"an opening roll is not expected now (phase {state.phase})")
    if event.die0 == event.die1:
        return state  # a tie: roll again
    starter = 0 if event.die0 > event.die1 else 1
    if state.variant == "backgammon":
        high, low = max(event.die0, event.die1), min(event.die0, event.die1)
        return replace(state, phase=PLAY, turn=starter, starter=starter, dice=(high, low))
    return replace(state, phase=ROLL, turn=starter, starter=starter)


def _roll(state: MatchState, event: Roll) -> MatchState:
    dice = tuple(event.dice)
    _need(
        len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice),
        f"dice {event.dice!r} must be two numbers 1..6",
    )
    if state.phase == GAME_OVER:
        starter = _next_starter(state)
        _need(starter is not None, "a new backgammon game begins with an opening roll")
        state = _begin_game(state)
        state = replace(state, phase=ROLL, turn=starter, starter=starter)
    _need(state.phase == ROLL, _not_now(state, "roll"))
    _need(state.turn == event.player, f"it is player {state.turn}'s turn to roll, not player {event.player}'s")
    return replace(state, phase=PLAY, dice=(dice[0], dice[1]), roll_number=state.roll_number + 1)


def _void_roll(state: MatchState, event: VoidRoll) -> MatchState:
    _need(state.phase in (OPENING, ROLL, GAME_OVER), "a void roll is recorded only when a roll is due")
    return state


def _dice_corrected(state: MatchState, event: DiceCorrected) -> MatchState:
    dice = tuple(event.dice)
    _need(
        len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice),
        f"dice {event.dice!r} must be two numbers 1..6",
    )
    _need(state.phase == PLAY and state.dice is not None, "the dice can be corrected only while the roll is being played")
    _need(state.turn == event.player, f"player {state.turn} is playing the roll, not player {event.player}")
    assert state.dice is not None
    _need(sorted(event.read) == sorted(state.dice),
          f"the recorded roll is {state.dice[0]}-{state.dice[1]}, not {event.read[0]}-{event.read[1]}")
    if state.variant == "backgammon" and state.roll_number == 0:  # the opening roll is being played
        _need(dice[0] != dice[1], "an opening roll cannot be a double")
    return replace(state, dice=(dice[0], dice[1]), illegal_pending=False)


def _not_now(state: MatchState, what: str) -> str:
    reasons = {
        OPENING: "the game has not started (an opening roll is due)",
        ROLL: f"player {state.turn} has not rolled yet",
        PLAY: f"player {state.turn} has rolled and must play first",
        REMAINDER: f"player {state.turn} must first play the cascade steps {_spell(state.pending_steps)}",
        CUBE: "a double is pending",
        RESIGN: "a resignation is pending",
        GAME_OVER: "the game is over",
        MATCH_OVER: "the match is over",
    }
    return f"{what} is not allowed now: {reasons.get(state.phase, state.phase)}"


def _check_result(state: MatchState, player: int, result: Position) -> Position:
    _need(result.variant == state.variant, f"the result is a {result.variant} position, not {state.variant}")
    problem = result.problem()
    _need(not problem, f"the result is impossible: {problem}")
    return result


def _judge(state: MatchState, before: Position, result: Position, dice: tuple[int, int]) -> None:
    """Check a play with the rules engine (every variant; gul bara with the game's roll number)."""
    if not state.config.check_plays:
        return
    from rules.plays import judge  # the move generator is only needed when plays are checked

    try:
        judge(
            before,
            result,
            Dice(dice[0], dice[1]),
            first_turn=state.turns_played[state.turn or 0] == 0,
            options=state.config.rule_options(),
            roll_number=state.roll_number,
        )
    except IllegalPlay as error:
        raise IllegalEvent(f"illegal play for {dice[0]}{dice[1]}: {error}") from None


def _play(state: MatchState, event: Play) -> MatchState:
    _need(state.phase == PLAY, _not_now(state, "a play"))
    _need(state.turn == event.player, f"it is player {state.turn}'s turn to play, not player {event.player}'s")
    _need(not state.illegal_pending, "an illegal play is pending: accept or correct it first")
    assert state.dice is not None
    before = state.position_for(event.player)
    result = _check_result(state, event.player, event.result)
    _judge(state, before, result, state.dice)
    return _after_play(state, event.player, result, _handed_on(state, before, result))


def _handed_on(state: MatchState, before: Position, result: Position) -> tuple[int, ...]:
    """Gul bara: the cascade steps the roller did not play and the opponent must (RULES.md §4.2).

    Every step moves a checker exactly its number of pips (bearing off too: only with the exact
    number), so the pips the roller moved tell how many of the cascade's steps were played; this
    works the same when plays are not checked (exports).
    """
    if state.variant != "gulbara" or state.dice is None:
        return ()
    from rules.variants import gulbara

    if not gulbara.cascades(state.dice, state.roll_number):
        return ()
    if state.config.option("cascade_unplayed", "opponent") == "lost":
        return ()
    steps = gulbara.roll_steps(state.dice, state.roll_number)
    moved = before.pips() - result.pips()
    total = 0
    for index, value in enumerate((0, *steps)):
        total += value
        if total == moved:
            return steps[index:]
    return ()  # not a beginning of the cascade (an unchecked record): nothing to hand on


def _spell(steps: tuple[int, ...]) -> str:
    return " ".join(str(value) for value in steps) or "(none)"


def _cascade_play(state: MatchState, event: CascadePlay) -> MatchState:
    _need(state.phase == REMAINDER, _not_now(state, "a cascade play"))
    _need(state.turn == event.player,
          f"player {state.turn} plays the handed-on cascade steps, not player {event.player}")
    _need(not state.illegal_pending, "an illegal play is pending: accept or correct it first")
    before = state.position_for(event.player)
    result = _check_result(state, event.player, event.result)
    if state.config.check_plays:
        from rules.variants import gulbara

        try:
            gulbara.judge_remainder(before, result, state.pending_steps, options=state.config.rule_options())
        except IllegalPlay as error:
            raise IllegalEvent(f"illegal play of the cascade steps {_spell(state.pending_steps)}: {error}") from None
    return _after_remainder(state, event.player, result)


def _after_remainder(state: MatchState, player: int, result: Position) -> MatchState:
    """The opponent has played the handed-on steps: it is now their turn to roll."""
    sides = list(state.sides)
    sides[player] = result.mover
    sides[1 - player] = result.opponent
    new = replace(
        state,
        sides=(sides[0], sides[1]),
        dice=None,
        pending_steps=(),
        illegal_pending=False,
        phase=ROLL,
        turn=player,
    )
    return _check_game_end(new, player)


def _after_play(state: MatchState, player: int, result: Position, rest: tuple[int, ...] = ()) -> MatchState:
    sides = list(state.sides)
    sides[player] = result.mover
    sides[1 - player] = result.opponent
    played = list(state.turns_played)
    played[player] += 1
    new = replace(
        state,
        sides=(sides[0], sides[1]),
        turns_played=(played[0], played[1]),
        dice=None,
        illegal_pending=False,
        phase=ROLL,
        turn=1 - player,
    )
    new = _check_game_end(new, player)
    if rest and new.phase == ROLL and not new.final_turn and sum(new.sides[player]) > 0:
        # The roller could not finish the cascade: the opponent plays the rest (RULES.md §4.2).
        new = replace(new, phase=REMAINDER, pending_steps=rest, dice=state.dice)
    return new


def _all_home(side: Side) -> bool:
    return outside_home(side) == 0


def _check_game_end(state: MatchState, mover: int) -> MatchState:
    side = state.sides[mover]
    other = state.sides[1 - mover]
    variant = state.variant
    if variant == "sixone":
        # RULES.md §5: no bearing off; the first player with all 15 checkers home wins 1 point.
        # Only the mover's checkers move, so the mover is the first to get there.
        if _all_home(side):
            return _end_game(state, mover, 1.0, "race")
        return state
    finished = sum(side) == 0
    if state.final_turn:
        # last_roll_draw: this was the second player's one more turn.
        starter = 1 - mover
        if finished:
            return _end_game(state, None, state.config.draw_points, "draw")
        points, name = _nardy_value(state, state.sides[mover])
        return _end_game(state, starter, points, name)
    if not finished:
        return state
    if variant == "backgammon":
        points_value, name = _backgammon_value(other)
        if state.config.jacoby and state.cube_owner is None:
            points_value, name = 1, "single"
        return _end_game(state, mover, float(points_value * state.cube), name)
    if state.config.last_roll_draw and mover == state.starter and sum(other) > 0:
        return replace(state, final_turn=True, phase=ROLL, turn=1 - mover)
    points, name = _nardy_value(state, other)
    return _end_game(state, mover, points, name)


def _backgammon_value(loser: Side) -> tuple[int, str]:
    if sum(loser) < CHECKERS:
        return 1, "single"
    # The winner's home board is the loser's points 19..24; the bar is index 24.
    if sum(loser[18:25]) > 0:
        return 3, "backgammon"
    return 2, "gammon"


def _nardy_value(state: MatchState, loser: Side) -> tuple[float, str]:
    if sum(loser) < CHECKERS:
        return 1.0, "oin"
    home = sum(loser[:6])
    if state.config.option("home_mars", False) and home == CHECKERS:
        return 4.0, "home_mars"
    if state.config.option("koks", False) and home == 0:
        return 3.0, "koks"
    return 2.0, "mars"


def _end_game(state: MatchState, winner: int | None, points: float, name: str) -> MatchState:
    score = list(state.score)
    if winner is None:
        score[0] += points
        score[1] += points
    else:
        score[winner] += points
    result = GameResult(
        winner=winner,
        points=points,
        result=name,
        cube=state.cube,
        crawford=state.crawford_game,
        resign_value=state.resign_value if state.phase == RESIGN else 0,
        on_roll=state.on_roll,
    )
    length = state.config.length
    crawford_done = state.crawford_done or state.crawford_game
    next_crawford = False
    if state.config.crawford and not crawford_done and winner is not None:
        before = state.score[winner]
        if before < length - 1 <= score[winner] < length:
            next_crawford = True
    over = length > 0 and max(score) >= length and score[0] != score[1]
    return replace(
        state,
        score=(score[0], score[1]),
        results=(*state.results, result),
        phase=MATCH_OVER if over else GAME_OVER,
        turn=None,
        dice=None,
        crawford_done=crawford_done,
        crawford_game=next_crawford,
        resign_value=0,
        illegal_pending=False,
        final_turn=False,
    )


def _double(state: MatchState, event: Double) -> MatchState:
    why = state.may_double(event.player)
    if why and state.phase == ROLL and state.turn != event.player:
        why = f"player {event.player} cannot double: it is player {state.turn}'s turn"
    _need(not why, why)
    return replace(state, phase=CUBE, turn=1 - event.player)


def _take(state: MatchState, event: Take) -> MatchState:
    _need(state.phase == CUBE, "there is no double to take")
    _need(state.turn == event.player, f"player {event.player} was not doubled; player {state.turn} answers")
    return replace(state, phase=ROLL, turn=1 - event.player, cube=state.cube * 2, cube_owner=event.player)


def _beaver(state: MatchState, event: Beaver) -> MatchState:
    _need(state.phase == CUBE, "there is no double to beaver")
    _need(state.config.beavers, "beavers are not allowed (money play with the beavers option only)")
    _need(state.turn == event.player, f"player {event.player} was not doubled; player {state.turn} answers")
    return replace(state, phase=ROLL, turn=1 - event.player, cube=state.cube * 4, cube_owner=event.player)


def _drop(state: MatchState, event: Drop) -> MatchState:
    _need(state.phase == CUBE, "there is no double to drop")
    _need(state.turn == event.player, f"player {event.player} was not doubled; player {state.turn} answers")
    return _end_game(state, 1 - event.player, float(state.cube), "drop")


def _resign(state: MatchState, event: Resign) -> MatchState:
    _need(state.phase in (ROLL, PLAY, REMAINDER), _not_now(state, "a resignation"))
    limit = {"backgammon": 3, "sixone": 1}.get(state.variant, 4)
    _need(1 <= event.value <= limit, f"a resignation offers 1..{limit} times the cube, not {event.value}")
    if state.variant in ("nardy", "gulbara") and event.value > 2:
        name, option = (("koks", "koks") if event.value == 3 else ("home mars", "home_mars"))
        _need(bool(state.config.option(option, False)),
              f"a resignation worth {event.value} ({name}) is not possible: {option} is off in this "
              f"game (the most a game can be worth here is {_nardy_most(state)})")
    return replace(
        state,
        phase=RESIGN,
        resign_value=event.value,
        resume_phase=state.phase,
        resume_turn=state.turn,
        turn=1 - event.player,
        dice=state.dice,
    )


def _nardy_most(state: MatchState) -> str:
    if state.config.option("home_mars", False):
        return "home mars (4)"
    if state.config.option("koks", False):
        return "koks (3)"
    return "mars (2)"


def _resign_answer(state: MatchState, player: int) -> None:
    _need(state.phase == RESIGN, "there is no resignation to answer")
    _need(state.turn == player, f"player {player} cannot answer their own resignation")


def _resign_accepted(state: MatchState, event: ResignAccepted) -> MatchState:
    _resign_answer(state, event.player)
    value = state.resign_value  # at face value, as gnubg: Jacoby does not reduce it (RULES.md §2.6)
    if state.variant == "sixone":  # a race worth 1 point, with no names for bigger wins
        return _end_game(state, event.player, float(value), "resign")
    names = BACKGAMMON_RESULTS if state.variant == "backgammon" else NARDY_RESULTS
    return _end_game(state, event.player, float(value * state.cube), "resign " + names.get(value, str(value)))


def _resign_declined(state: MatchState, event: ResignDeclined) -> MatchState:
    _resign_answer(state, event.player)
    return replace(
        state, phase=state.resume_phase, turn=state.resume_turn, resign_value=0, resume_phase="", resume_turn=None
    )


def _illegal_detected(state: MatchState, event: IllegalPlayDetected) -> MatchState:
    _need(state.phase in (PLAY, REMAINDER) and state.turn == event.player, _not_now(state, "an illegal play"))
    _check_result(state, event.player, event.result)
    return replace(state, illegal_pending=True)


def _illegal_accepted(state: MatchState, event: IllegalPlayAccepted) -> MatchState:
    """The board moves on.  An accepted illegal play ends the roller's part: nothing is handed on;
    accepted in phase REMAINDER it stands for the opponent's cascade part."""
    _need(state.phase in (PLAY, REMAINDER) and state.turn == event.player,
          _not_now(state, "accepting an illegal play"))
    result = _check_result(state, event.player, event.result)
    if state.phase == REMAINDER:
        return _after_remainder(state, event.player, result)
    return _after_play(state, event.player, result)


def _illegal_corrected(state: MatchState, event: IllegalPlayCorrected) -> MatchState:
    _need(state.illegal_pending and state.turn == event.player, "no illegal play of this player is pending")
    return replace(state, illegal_pending=False)


def _manual(state: MatchState, event: ManualCorrection) -> MatchState:
    result = _check_result(state, event.player, event.position)
    sides = [state.sides[0], state.sides[1]]
    sides[event.player] = result.mover
    sides[1 - event.player] = result.opponent
    return replace(state, sides=(sides[0], sides[1]))


def _game_end(state: MatchState, event: GameEnd) -> MatchState:
    _need(state.phase in (GAME_OVER, MATCH_OVER) and not state.result_confirmed, "no game has just ended")
    last = state.last_result
    assert last is not None
    _need(
        last.winner == event.winner and abs(last.points - float(event.points)) < 1e-9,
        f"the game ended {_describe(last)}, not {_describe(GameResult(event.winner, float(event.points), ''))}",
    )
    return replace(state, result_confirmed=True)


def _describe(result: GameResult) -> str:
    if result.winner is None:
        return f"in a draw ({result.points:g} each)"
    return f"with player {result.winner} winning {result.points:g} point(s)"


def _comment(state: MatchState, event: Comment) -> MatchState:
    return state


_HANDLERS: dict[type[Event], Callable[[MatchState, Any], MatchState]] = {}


def _register() -> None:
    table: dict[type[Event], Callable[[MatchState, Any], MatchState]] = {
        OpeningRoll: _opening_roll,
        Roll: _roll,
        VoidRoll: _void_roll,
        DiceCorrected: _dice_corrected,
        Play: _play,
        CascadePlay: _cascade_play,
        Double: _double,
        Take: _take,
        Beaver: _beaver,
        Drop: _drop,
        Resign: _resign,
        ResignAccepted: _resign_accepted,
        ResignDeclined: _resign_declined,
        IllegalPlayDetected: _illegal_detected,
        IllegalPlayAccepted: _illegal_accepted,
        IllegalPlayCorrected: _illegal_corrected,
        ManualCorrection: _manual,
        GameEnd: _game_end,
        Comment: _comment,
    }
    _HANDLERS.update(table)


_register()

__all__ = [
    "Event",
    "OpeningRoll",
    "Roll",
    "VoidRoll",
    "DiceCorrected",
    "Play",
    "CascadePlay",
    "Double",
    "Take",
    "Drop",
    "Beaver",
    "Resign",
    "ResignAccepted",
    "ResignDeclined",
    "IllegalPlayDetected",
    "IllegalPlayAccepted",
    "IllegalPlayCorrected",
    "ManualCorrection",
    "GameEnd",
    "Comment",
    "EVENT_TYPES",
    "MatchConfig",
    "MatchState",
    "GameResult",
    "new_match",
    "next_starter",
    "apply",
    "replay",
]
