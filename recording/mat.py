"""Jellyfish ``.mat`` match files, read and written exactly as GNU Backgammon does.

Layout (gnubg 1.07's ``export match mat``)::

    ; [Site "…"]                      optional header comments
    ; [EventDate "2026.11.30"]

     5 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             63: 24/18 18/15
      2) 65: 24/18 18/13             Doubles => 2
      3)  Takes                      …
                                      Wins 2 points

Player 0 is the left column.  Moves are in the mover's own numbering, one sub-move per die, 25 =
bar, 0 = off, ``*`` after a hit.  The reader also takes the notations gnubg's importer accepts
(``24/14``, ``13/7(2)``, ``bar/22``) and judges every play; a game that ends without a bear-off or
a drop ended by resignation (``Wins`` names the points).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

from recording.moves import (
    IllegalRecord,
    ImportedMatch,
    RecordError,
    checked,
    fold,
    play_event,
    unchecked,
)
from rules import match
from rules.errors import InvalidNotation
from rules.position import BAR, OFF, Position
from rules.steps import Step, parse_notation

MAX_BYTES = 16 << 20  # a 25-game match is ~60 kB; anything this big is not a match file
MAX_LINE = 4096
MAX_LENGTH = 64  # GNU Backgammon's longest match (MAXSCORE); it refuses longer ones
_BLANKS = " \t"  # the only spaces gnubg skips inside a line (no U+2028, no NBSP)

_HEADER = re.compile(r'^;\s*\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$', re.ASCII)
_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE | re.ASCII)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE | re.ASCII)
_SCORES = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$", re.ASCII)
_NUMBER = re.compile(r"^\s*(\d+)\)(.*)$", re.ASCII)
_POINT = r"(?:bar|off|\d+)"
_ACTION = re.compile(
    r"(?P<dice>[1-6])(?P<dice2>[1-6]):(?P<moves>(?:[ \t]+" + _POINT + r"(?:/" + _POINT + r"\*?)+(?:\(\d\))?)*)"
    r"|(?P<double>Doubles\s*=>\s*(?P<cube>\d+))"
    r"|(?P<take>Takes)"
    r"|(?P<drop>Drops)"
    r"|(?P<beaver>Beavers(?:\s*=>\s*\d+)?)"
    r"|(?P<win>Wins\s+(?P<points>\d+)\s+points?)",
    re.IGNORECASE | re.ASCII,
)
_RIGHT_COLUMN = 14  # an action starting this far right of ")" is in player 1's column


# --- reading ----------------------------------------------------------------------------------


def read_lines(stream: IO[str], max_bytes: int = MAX_BYTES) -> Iterable[tuple[int, str]]:
    """(line number, text) with bounded memory: refuses files or lines that are too long."""
    total = 0
    number = 0
    while True:
        try:
            line = stream.readline(MAX_LINE + 1)
        except UnicodeDecodeError:
            raise RecordError(f"line {number + 1}: not text (binary data?)") from None
        if not line:
            return
        number += 1
        total += len(line)
        if total > max_bytes:
            raise RecordError(f"file too large: over {max_bytes // (1 << 20)} MB, not a match file")
        if "\x00" in line:
            raise RecordError(f"line {number}: not text (binary data?)")
        body = line[:-1] if line.endswith("\n") else line
        if "\r" in body[:-1]:
            # gnubg reads LF and CR LF line ends; lone CRs (old Mac files) it cannot read
            raise RecordError(f"line {number}: a carriage return without a line feed "
                              "(GNU Backgammon reads LF or CR LF line ends only)")
        if len(line) > MAX_LINE and not line.endswith("\n"):
            raise RecordError(f"line {number}: longer than {MAX_LINE} characters, not a match file")
        if number == 1:
            line = line.lstrip("\ufeff")  # a byte-order mark some editors add
        yield number, line.rstrip("\r\n")


def read_mat(stream: IO[str], *, max_bytes: int = MAX_BYTES) -> ImportedMatch:
    """Read a ``.mat`` match; RecordError (IllegalRecord for an illegal play) naming the line.

    A ``.mat`` file does not say whether the Crawford rule was played (gnubg infers it).  When a
    file without a ``Crawford`` header doubles in what would be the Crawford game, the match was
    played without the rule: it is read again with ``crawford`` off, and the record says so.
    """
    lines = list(read_lines(stream, max_bytes))
    try:
        return _read_mat_lines(lines, crawford_off=False)
    except IllegalRecord as error:
        if "Crawford game" not in str(error) or any(
            (found := _HEADER.match(line)) and found.group(1).strip() == "Crawford" for _, line in lines
        ):
            raise
        result = _read_mat_lines(lines, crawford_off=True)
        result.extra["Crawford"] = f"Off (inferred: {error})"
        return result


def _read_mat_lines(lines: list[tuple[int, str]], *, crawford_off: bool) -> ImportedMatch:
    result = ImportedMatch()
    headers: dict[str, str] = {"Crawford": "Off"} if crawford_off else {}
    state: match.MatchState | None = None
    in_game = False
    expect_scores = False
    seen_length = False
    for number, line in lines:
        where = f"line {number}"
        if not line.strip():
            continue
        found = _HEADER.match(line)
        if found:
            headers[found.group(1).strip()] = found.group(2)
            continue
        if line.lstrip().startswith(";"):
            continue
        found = _LENGTH.match(line)
        if found and state is None:
            result.length = int(found.group(1))
            if result.length > MAX_LENGTH:
                raise RecordError(f"{where}: a {found.group(1)[:24]} point match is longer than "
                                  f"GNU Backgammon allows ({MAX_LENGTH} points at most)")
            seen_length = True
            continue
        found = _GAME.match(line)
        if found:
            if state is None:
                if not seen_length:
                    raise RecordError(f"{where}: {line.strip()!r} before the 'N point match' line "
                                      "(GNU Backgammon needs it; 0 for money play)")
                state = _start(result, headers)
            if state.phase not in (match.OPENING, match.GAME_OVER, match.MATCH_OVER):
                raise RecordError(f"{where}: game {found.group(1)} starts before the last game ended")
            if state.phase == match.MATCH_OVER:
                raise IllegalRecord(f"{where}: game {found.group(1)} follows the end of the match")
            expected = len(state.results) + 1
            if int(found.group(1)) != expected:
                raise RecordError(f"{where}: game {found.group(1)} where game {expected} was expected")
            in_game = True
            expect_scores = True
            continue
        if expect_scores:
            found = _SCORES.match(line)
            if not found:
                raise RecordError(f"{where}: expected the players and scores ('Alice : 0   Bob : 0')")
            assert state is not None
            names = (found.group(1), found.group(3))
            if len(state.results) == 0:
                result.players = (names[0], names[1])
            scores = (int(found.group(2)), int(found.group(4)))
            if (float(scores[0]), float(scores[1])) != state.score:
                raise IllegalRecord(
                    f"{where}: the score {scores[0]}-{scores[1]} does not follow from the games before "
                    f"({state.score[0]:g}-{state.score[1]:g})"
                )
            expect_scores = False
            continue
        if not in_game or state is None:
            raise RecordError(f"{where}: cannot read {line.strip()[:40]!r} (expected a header or 'Game 1')")
        state = _read_line(result, state, line, where)
    if state is None:
        if seen_length:
            raise RecordError("no game in the file (GNU Backgammon cannot load a match without one)")
        raise RecordError("not a match file: no 'N point match' and no games")
    result.state = checked(state)
    return result


def _start(result: ImportedMatch, headers: dict[str, str]) -> match.MatchState:
    result.event = headers.get("Event", "")
    result.site = headers.get("Site", "")
    result.round = headers.get("Round", "")
    date = headers.get("EventDate", "")
    result.date = date.replace(".", "-") if re.fullmatch(r"\d{4}\.\d\d\.\d\d", date) else ""
    options: dict[str, Any] = {"match_length": result.length}
    crawford = headers.get("Crawford", "On").strip().lower()
    options["crawford"] = crawford not in ("off", "false", "no")
    if result.length == 0:
        # .mat files do not say whether beavers were allowed; a beaver in the file shows they were.
        options["jacoby"] = headers.get("Jacoby", "").strip().lower() in ("on", "true", "yes")
        options["beavers"] = headers.get("Beavers", "on").strip().lower() not in ("off", "false", "no")
    variation = headers.get("Variation", "Backgammon").strip().lower()
    if variation not in ("backgammon", "standard"):
        raise RecordError(f"variation {headers['Variation']!r} is not supported (backgammon only)")
    for key in ("Player 1", "Player 2", "Transcriber", "Annotator", "Place", "Comment"):
        if key in headers:
            result.extra[key] = headers[key]
    result.options = options
    return unchecked(match.new_match("backgammon", result.length, options))


def _actions(text: str, where: str) -> list[tuple[int, re.Match[str]]]:
    found: list[tuple[int, re.Match[str]]] = []
    position = 0
    for item in _ACTION.finditer(text):
        gap = text[position : item.start()].strip(_BLANKS)
        if gap:
            raise RecordError(f"{where}: cannot read {gap[:40]!r}")
        found.append((item.start(), item))
        position = item.end()
    rest = text[position:].strip(_BLANKS)
    if rest:
        raise RecordError(f"{where}: cannot read {rest[:40]!r}")
    return found


def _read_line(result: ImportedMatch, state: match.MatchState, line: str, where: str) -> match.MatchState:
    numbered = _NUMBER.match(line)
    text = numbered.group(2) if numbered else line
    actions = _actions(text, where)
    if not actions:
        raise RecordError(f"{where}: cannot read {line.strip()[:40]!r}")
    for index, (column, item) in enumerate(actions):
        if numbered:
            player = index if len(actions) == 2 else (1 if column >= _RIGHT_COLUMN else 0)
        else:
            # A line with no number holds only "Wins": its indentation says whose column.
            player = 1 if len(line) - len(line.lstrip()) >= _RIGHT_COLUMN + 5 else 0
        state = _action(result, state, player, item, where)
    return state


def _action(
    result: ImportedMatch, state: match.MatchState, player: int, item: re.Match[str], where: str
) -> match.MatchState:
    events: list[match.Event] = []
    name = result.players[player]
    if item.group("dice"):
        dice = (int(item.group("dice")), int(item.group("dice2")))
        if state.phase in (match.OPENING, match.GAME_OVER):
            if dice[0] == dice[1]:
                raise IllegalRecord(f"{where}: the opening roll cannot be a double ({dice[0]}{dice[1]})")
            high, low = max(dice), min(dice)
            opening = match.OpeningRoll(die0=high if player == 0 else low, die1=high if player == 1 else low)
            state = fold(state, opening, where)
            events.append(opening)
            if state.turn != player:  # pragma: no cover - the higher die always moves first
                raise IllegalRecord(f"{where}: {name} did not win the opening roll")
            dice = (state.dice[0], state.dice[1]) if state.dice else dice
        else:
            if state.phase != match.ROLL or state.turn != player:
                raise IllegalRecord(f"{where}: {name} rolls {dice[0]}{dice[1]} out of turn ({_expected(state, result)})")
            roll = match.Roll(player, dice)
            state = fold(state, roll, where)
            events.append(roll)
        try:
            hops = parse_notation(item.group("moves").strip()) if item.group("moves").strip() else []
        except InvalidNotation as error:
            raise RecordError(f"{where}: {error}") from None
        play = play_event(state, player, dice, hops, f"{where}: {name}")
        state = fold(state, play, where)
        events.append(play)
    elif item.group("double"):
        cube = int(item.group("cube"))
        event: match.Event = match.Double(player)
        state = fold(state, event, f"{where}: {name} doubles")
        events.append(event)
        if cube != state.cube * 2:
            raise IllegalRecord(f"{where}: {name} doubles to {cube}, but the cube is at {state.cube}")
    elif item.group("take"):
        event = match.Take(player)
        state = fold(state, event, f"{where}: {name} takes")
        events.append(event)
    elif item.group("beaver"):
        event = match.Beaver(player)
        state = fold(state, event, f"{where}: {name} beavers")
        events.append(event)
    elif item.group("drop"):
        event = match.Drop(player)
        state = fold(state, event, f"{where}: {name} drops")
        events.append(event)
    elif item.group("win"):
        points = int(item.group("points"))
        if state.phase in (match.ROLL, match.PLAY):
            # No bear-off and no drop: the other player resigned.
            if points % state.cube or not 1 <= points // state.cube <= 3:
                raise IllegalRecord(
                    f"{where}: {name} wins {points} point(s) with the cube at {state.cube} and the game not over"
                )
            resign = match.Resign(1 - player, points // state.cube)
            state = fold(state, resign, where)
            accept = match.ResignAccepted(player)
            state = fold(state, accept, where)
            events.extend([resign, accept])
        last = state.last_result
        if state.phase not in (match.GAME_OVER, match.MATCH_OVER) or last is None:
            raise IllegalRecord(f"{where}: {name} cannot win now")
        # The game itself says who won (hand-written files put "Wins" in either column).
        if last.points != points:
            raise IllegalRecord(
                f"{where}: the record says {points} point(s) were won; the game gave "
                f"{result.players[last.winner] if last.winner is not None else 'nobody'} {last.points:g}"
            )
        end = match.GameEnd(last.winner, float(points), last.result)
        state = fold(state, end, where)
        events.append(end)
    result.events.extend(events)
    return state


def _expected(state: match.MatchState, result: ImportedMatch) -> str:
    if state.turn is None:
        return f"phase {state.phase}"
    return f"{result.players[state.turn]} is to act ({state.phase})"


# --- writing ----------------------------------------------------------------------------------


def _point(point: int) -> str:
    return "25" if point == BAR else "0" if point == OFF else str(point)


def format_steps(steps: Sequence[Step]) -> str:
    """gnubg's move text: one sub-move per die, each followed by a space except the fourth."""
    text = ""
    for index, step in enumerate(steps):
        text += f"{_point(step.start)}/{_point(step.end)}{'*' if step.hit else ''}"
        if index < 3:
            text += " "
    return text


def steps_from_difference(before: Position, after: Position) -> tuple[Step, ...]:
    """Rough steps for a result that has no legal play (an accepted illegal play)."""
    losses: list[int] = []
    gains: list[int] = []
    for index in range(25):
        point = index + 1
        change = after.mover[index] - before.mover[index]
        losses.extend([point] * max(0, -change))
        gains.extend([point] * max(0, change))
    gains.extend([OFF] * max(0, after.borne_off() - before.borne_off()))
    losses.sort(reverse=True)
    gains.sort(reverse=True)
    return tuple(Step(a, b, max(1, min(6, a - b))) for a, b in zip(losses, gains, strict=False))


class Turn:
    """One written action: its player and text."""

    __slots__ = ("player", "text")

    def __init__(self, player: int, text: str) -> None:
        self.player = player
        self.text = text


def _wins(points: float) -> str:
    value = int(points)
    return f" Wins {value} point{'s' if value != 1 else ''}"


def match_date(header_date: str, first_time: str) -> str:
    """``YYYY.MM.DD`` from the header's date or the first event's time."""
    for text in (header_date, first_time[:10]):
        try:
            return _dt.date.fromisoformat(text).strftime("%Y.%m.%d")
        except ValueError:
            continue
    return ""


def write_mat(
    stream: IO[str],
    header: Any,
    events: Sequence[match.Event],
    *,
    first_time: str = "",
) -> None:
    """Write a backgammon match as gnubg's ``export match mat`` does.

    ``header`` is a :class:`recording.journal.Header`; ``events`` the journal's events.
    """
    if header.variant != "backgammon":
        raise RecordError(f".mat files hold backgammon only, not {header.variant} (use txt or json)")
    out: list[str] = []
    for key, value in (("Site", header.site), ("Event", header.event), ("Round", header.round)):
        if value:
            out.append(f'; [{key} "{value}"]\n')
    date = match_date(header.date, first_time)
    if date:
        out.append(f'; [EventDate "{date}"]\n')
    out.append("\n")
    out.append(f" {header.match_length} point match\n")
    out.append("\n")
    names = header.players
    for game in split_games(header, events):
        out.append(f" Game {game.number + 1}\n")
        left = f"{names[0]} : {game.score[0]:g}"
        out.append(f" {left:<31}{names[1]} : {game.score[1]:g}\n")
        out.extend(layout(game.turns, game.result))
        out.append("\n")
    stream.write("".join(out))


class GameLog:
    """One game's written actions and result, split from the journal's events."""

    def __init__(self, number: int, score: tuple[float, float]) -> None:
        self.number = number
        self.score = score
        self.turns: list[Turn] = []
        self.result: match.GameResult | None = None
        self.events: list[tuple[match.MatchState, match.Event]] = []


TextFunction = Callable[[match.MatchState, match.MatchState, match.Event], "tuple[int, str] | None"]


def split_games(header: Any, events: Sequence[match.Event], text_of: TextFunction | None = None) -> list[GameLog]:
    """Fold the events and group them per game with the text written for each action.

    ``text_of(before, after, event)`` gives (player, text) for an action that takes a column, or
    None; by default the text gnubg writes.
    """
    text_of = text_of or _text
    state = unchecked(header.new_state(check_plays=False))
    games: list[GameLog] = []
    current: GameLog | None = None
    for event in events:
        starts = state.phase in (match.OPENING, match.GAME_OVER) and isinstance(
            event, (match.OpeningRoll, match.Roll)
        )
        if current is None or (starts and current.result is not None):
            current = GameLog(len(games), state.score)
            games.append(current)
        before = state
        state = match.apply(state, event)
        current.events.append((before, event))
        text = text_of(before, state, event)
        if text is not None:
            current.turns.append(Turn(text[0], text[1]))
        if state.phase in (match.GAME_OVER, match.MATCH_OVER) and before.phase not in (
            match.GAME_OVER,
            match.MATCH_OVER,
        ):
            current.result = state.last_result
    return games


def _text(before: match.MatchState, after: match.MatchState, event: match.Event) -> tuple[int, str] | None:
    if isinstance(event, (match.Play, match.IllegalPlayAccepted)):
        dice = before.dice or (0, 0)
        high, low = max(dice), min(dice)
        if isinstance(event, match.Play):
            steps = event.steps
        else:
            steps = steps_from_difference(before.position_for(event.player), event.result)
        return event.player, f"{high}{low}: {format_steps(steps)}"
    return cube_text(before, event)


def cube_text(before: match.MatchState, event: match.Event) -> tuple[int, str] | None:
    """A cube action as gnubg writes it in a match file (also used by the .txt record)."""
    if isinstance(event, match.Double):
        return event.player, f" Doubles => {before.cube * 2}"
    if isinstance(event, match.Take):
        return event.player, " Takes"
    if isinstance(event, match.Beaver):
        return event.player, f" Beavers => {before.cube * 4}"
    if isinstance(event, match.Drop):
        return event.player, " Drops"
    return None


def layout(turns: list[Turn], result: match.GameResult | None, wins: Callable[[match.GameResult], str] | None = None) -> list[str]:
    lines: list[str] = []
    column = 0
    number = 0
    for turn in turns:
        if column == 1 and turn.player == 0:
            lines.append("\n")
            column = 0
        if column == 0:
            number += 1
            lines.append(f"{number:3d}) ")
            if turn.player == 1:
                lines.append(" " * 27 + " ")
                column = 1
        if column == 0:
            lines.append(f"{turn.text:<27} ")
            column = 1
        else:
            lines.append(turn.text + "\n")
            column = 0
    if result is not None and (result.winner is not None or wins is not None):
        text = wins(result) if wins is not None else _wins(result.points)
        winner = 1 if result.winner == 1 else 0
        if column == 1:
            if winner == 1:
                lines.append(text + " \n")
            else:
                lines.append("\n")
                lines.append("     " + text + "\n")
        elif winner == 1:
            lines.append(" " * 33 + text + "\n")
        else:
            lines.append("     " + text + "\n")
    elif column == 1:
        lines.append("\n")
    return lines
