"""GNU Backgammon Match ID: the match state every backgammon player can paste into gnubg.

The Match ID is 66 bits packed little-endian (bit *i* is bit ``i % 8`` of byte ``i // 8``; each
field is stored least significant bit first) into 9 bytes, written as 12 base64 characters:

====  =====  ==========================================================================
bits  width  field
====  =====  ==========================================================================
0     4      log2 of the cube value
4     2      cube owner: 0 = player 0, 1 = player 1, 3 = centred
6     1      player on roll (who holds the dice)
7     1      Crawford game
8     3      game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped
11    1      whose turn it is to act (differs from bit 6 while a double or resignation waits)
12    1      a double is offered
13    2      resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15    3      die 1 (0 = not rolled)
18    3      die 2
21    15     match length (0 = money play)
36    15     player 0's score
51    15     player 1's score
====  =====  ==========================================================================

The Position ID lives in :mod:`rules.position` (``Position.id`` / ``Position.from_id``).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.errors import InvalidNotation

if TYPE_CHECKING:
    from rules.match import MatchState

GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)

_FIELDS: tuple[tuple[str, int], ...] = (
    ("cube_log", 4),
    ("cube_owner", 2),
    ("dice_owner", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("length", 15),
    ("score0", 15),
    ("score1", 15),
)


@dataclass(frozen=True, slots=True)
class MatchId:
    """The fields of a gnubg Match ID; ``cube_owner`` is None when the cube is centred."""

    length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    turn: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise InvalidNotation(f"cube value {self.cube} is not a power of two")
        if self.cube_owner not in (None, 0, 1):
            raise InvalidNotation(f"cube owner must be 0, 1 or None, not {self.cube_owner!r}")
        for value, width, name in (
            (self.length, 15, "match length"),
            (self.score[0], 15, "score"),
            (self.score[1], 15, "score"),
            (self.game_state, 3, "game state"),
            (self.resigned, 2, "resignation"),
            (self.dice[0], 3, "die"),
            (self.dice[1], 3, "die"),
        ):
            if not 0 <= value < 1 << width:
                raise InvalidNotation(f"{name} {value} does not fit a Match ID")

    def encode(self) -> str:
        """The 12-character Match ID."""
        values = {
            "cube_log": self.cube.bit_length() - 1,
            "cube_owner": 3 if self.cube_owner is None else self.cube_owner,
            "dice_owner": self.dice_owner,
            "crawford": int(self.crawford),
            "game_state": self.game_state,
            "turn": self.turn,
            "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die1": self.dice[0],
            "die2": self.dice[1],
            "length": self.length,
            "score0": self.score[0],
            "score1": self.score[1],
        }
        number = 0
        shift = 0
        for name, width in _FIELDS:
            number |= (values[name] & ((1 << width) - 1)) << shift
            shift += width
        return base64.b64encode(number.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def decode(cls, text: str) -> MatchId:
        """Parse a Match ID; InvalidNotation for anything that is not one."""
        if not isinstance(text, str) or len(text.strip()) != 12:
            raise InvalidNotation(f"match ID {text!r} must have 12 characters")
        try:
            data = base64.b64decode(text.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise InvalidNotation(f"match ID {text!r} is not base64") from None
        number = int.from_bytes(data, "little")
        values: dict[str, int] = {}
        for name, width in _FIELDS:
            values[name] = number & ((1 << width) - 1)
            number >>= width
        if values["cube_owner"] == 2:
            raise InvalidNotation(f"match ID {text!r} has an impossible cube owner")
        if values["game_state"] > GAME_DROPPED:
            raise InvalidNotation(f"match ID {text!r} has an unknown game state")
        if any(values[d] > 6 for d in ("die1", "die2")):
            raise InvalidNotation(f"match ID {text!r} has a die above 6")
        return cls(
            length=values["length"],
            score=(values["score0"], values["score1"]),
            cube=1 << values["cube_log"],
            cube_owner=None if values["cube_owner"] == 3 else values["cube_owner"],
            dice_owner=values["dice_owner"],
            turn=values["turn"],
            crawford=bool(values["crawford"]),
            game_state=values["game_state"],
            doubled=bool(values["doubled"]),
            resigned=values["resigned"],
            dice=(values["die1"], values["die2"]),
        )

    def __str__(self) -> str:
        return self.encode()


def encode_match_id(match_id: MatchId) -> str:
    return match_id.encode()


def decode_match_id(text: str) -> MatchId:
    return MatchId.decode(text)


def match_id_of(state: MatchState) -> MatchId:
    """The gnubg Match ID fields of a backgammon match state."""
    from rules import match

    on_roll = state.on_roll
    turn = state.turn
    crawford = state.crawford_game
    resigned = state.resign_value if state.phase == match.RESIGN else 0
    last = state.last_result
    if state.phase in (match.GAME_OVER, match.MATCH_OVER) and last is not None:
        # gnubg describes the game that just ended: its Crawford flag, resignation and turn.
        game_state = GAME_OVER
        if last.result == "drop":
            game_state = GAME_DROPPED
        elif last.resign_value:
            game_state = GAME_RESIGNED
        crawford = last.crawford
        resigned = last.resign_value
        on_roll = turn = last.on_roll
    elif state.phase == match.OPENING:
        game_state = GAME_NONE
    else:
        game_state = GAME_PLAYING
    dice = state.dice if state.dice is not None else (0, 0)
    score = (min(int(state.score[0]), (1 << 15) - 1), min(int(state.score[1]), (1 << 15) - 1))
    return MatchId(
        length=state.config.length,
        score=score,
        cube=state.cube,
        cube_owner=state.cube_owner,
        dice_owner=on_roll if on_roll is not None else 0,
        turn=turn if turn is not None else (on_roll or 0),
        crawford=crawford,
        game_state=game_state,
        doubled=state.phase == match.CUBE,
        resigned=resigned,
        dice=(dice[0], dice[1]),
    )
