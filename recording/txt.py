"""A readable record of any variant: the ``.mat`` layout, with what ``.mat`` cannot say.

Nardy-family games carry a ``; [Variation "LongNardy"]`` header and their moves in the mover's
own numbering (``24/18 13/off``); void rolls, illegal plays (detected, accepted, corrected),
corrected dice, manual corrections, resignations and draws are written in the mover's column, in words.  In gul
bara the opponent's part of a cascade (the steps the roller could not play) is a line of its own in
the opponent's column: ``cascade 556666: 24/19(2) 24/18(4)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from recording.mat import cube_text, format_steps, layout, match_date, split_games, steps_from_difference
from rules import match
from rules.steps import Play as StepsPlay

VARIATIONS = {"backgammon": "Backgammon", "nardy": "LongNardy", "gulbara": "GulBara", "sixone": "SixOne"}
RESIGN_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


def _moves(variant: str, play: StepsPlay) -> str:
    if variant == "backgammon":
        return format_steps(play.steps).rstrip()
    return play.notation() if play.steps else ""


def _text_for(variant: str) -> Any:
    def text(before: match.MatchState, after: match.MatchState, event: match.Event) -> tuple[int, str] | None:
        dice = before.dice or (0, 0)
        roll = f"{max(dice)}{min(dice)}"
        if before.phase == match.REMAINDER:
            roll = "cascade " + "".join(str(value) for value in before.pending_steps)
        if isinstance(event, match.CascadePlay):
            return event.player, f"{roll}: {_moves(variant, StepsPlay(event.steps)) or 'cannot move'}"
        if isinstance(event, match.Play):
            return event.player, f"{roll}: {_moves(variant, StepsPlay(event.steps))}".rstrip()
        if isinstance(event, match.IllegalPlayAccepted):
            steps = steps_from_difference(before.position_for(event.player), event.result)
            moved = _moves(variant, StepsPlay(steps)) or "no move"
            how = " by rolling" if event.how == "roll" else ""
            return event.player, f"{roll}: {moved} (illegal, accepted{how}: {event.reason or 'no reason'})"
        if isinstance(event, match.IllegalPlayDetected):
            return event.player, f"{roll}: illegal play ({event.reason or 'no reason'})"
        if isinstance(event, match.IllegalPlayCorrected):
            return event.player, " (corrected)"
        if isinstance(event, match.DiceCorrected):
            read, real = event.read, event.dice
            return event.player, (f" (dice corrected: read {max(read)}{min(read)}, really {max(real)}{min(real)}"
                                  f"{', by ' + event.who if event.who else ''})")
        if isinstance(event, match.VoidRoll):
            return event.player, f" (void roll{': ' + event.reason if event.reason else ''})"
        if isinstance(event, match.ManualCorrection):
            return event.player, f" (board set by hand: {event.position.id}{'; ' + event.note if event.note else ''})"
        cube = cube_text(before, event)
        if cube is not None:
            return cube
        if isinstance(event, match.Resign):
            names = RESIGN_NAMES if variant == "backgammon" else {1: "oin", 2: "mars", 3: "koks", 4: "home mars"}
            return event.player, f" Resigns ({names.get(event.value, event.value)})"
        if isinstance(event, match.ResignAccepted):
            return event.player, " Accepts"
        if isinstance(event, match.ResignDeclined):
            return event.player, " Declines"
        return None

    return text


def _wins(result: match.GameResult) -> str:
    if result.winner is None:
        return f" Draw ({result.points:g} point{'s' if result.points != 1 else ''} each)"
    plural = "s" if result.points != 1 else ""
    return f" Wins {result.points:g} point{plural} ({result.result})"


def write_txt(stream: IO[str], header: Any, events: Sequence[match.Event], *, first_time: str = "") -> None:
    out: list[str] = []
    if header.variant != "backgammon":
        out.append(f'; [Variation "{VARIATIONS.get(header.variant, header.variant)}"]\n')
    for key, value in (("Site", header.site), ("Event", header.event), ("Round", header.round)):
        if value:
            out.append(f'; [{key} "{value}"]\n')
    if header.device:
        out.append(f'; [Device "{header.device}"]\n')
    date = match_date(header.date, first_time)
    if date:
        out.append(f'; [EventDate "{date}"]\n')
    changed = {k: v for k, v in header.options.items() if k != "match_length"}
    if changed:
        out.append("; [Options \"" + " ".join(f"{k}={_value(v)}" for k, v in sorted(changed.items())) + "\"]\n")
    out.append("\n")
    if header.match_length:
        out.append(f" {header.match_length} point match\n")
    else:
        out.append(" Single games\n")
    out.append("\n")
    names = header.players
    for game in split_games(header, events, _text_for(header.variant)):
        out.append(f" Game {game.number + 1}\n")
        left = f"{names[0]} : {game.score[0]:g}"
        out.append(f" {left:<31}{names[1]} : {game.score[1]:g}\n")
        out.extend(layout(game.turns, game.result, _wins))
        out.append("\n")
    stream.write("".join(out))


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
