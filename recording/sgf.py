"""SGF (``GM[6]``, backgammon) match files, as GNU Backgammon saves them.

One game tree per game; the root holds ``MI[length:5][game:0][ws:0][bs:0]``, the players
(``PW`` White = player 0, ``PB``), ``RU[Crawford]`` (``Crawford:CrawfordGame`` in the Crawford
game) and ``RE[W+2]`` (``R`` appended for a resignation).  Each move node is ``;W[52mhxv]``: the
dice, then a from/to letter pair per checker step in White's numbering (``a`` = White's 1 …
``x`` = 24, ``y`` = bar, ``z`` = off) for both colours; cube actions are ``;B[double]``,
``;W[take]``, ``;W[drop]``.  gnubg numbers games from 0 although the SGF spec says 1: both are
accepted.  gnubg's private analysis properties are ignored on reading and not written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from recording.mat import MAX_LENGTH, GameLog, match_date, split_games, steps_from_difference
from recording.moves import IllegalRecord, ImportedMatch, RecordError, checked, fold, play_event, unchecked
from rules import match
from rules.position import BAR, OFF
from rules.steps import Step

MAX_BYTES = 16 << 20
APPLICATION = "referee:0.1.0"

Node = tuple[int, dict[str, list[str]]]  # (line number, properties)


# --- parsing ----------------------------------------------------------------------------------


def parse(text: str) -> list[list[Node]]:
    """The main line of each game tree: a list of nodes with their line numbers.

    Variations are skipped (their first branch is followed).  RecordError names the line of a
    syntax problem, including a file that ends inside a tree.
    """
    games: list[list[Node]] = []
    depth = 0
    line = 1
    index = 0
    length = len(text)
    current: list[Node] | None = None
    skipping = 0  # depth below which a later variation is being skipped
    branch_taken: list[bool] = []
    while index < length:
        char = text[index]
        if char == "\n":
            line += 1
            index += 1
        elif char in " \t\r":
            index += 1
        elif char == "(":
            depth += 1
            if depth == 1:
                current = []
                games.append(current)
                branch_taken = [False]
            else:
                if skipping == 0 and branch_taken[-1]:
                    skipping = depth
                branch_taken[-1] = True
                branch_taken.append(False)
            index += 1
        elif char == ")":
            if depth == 0:
                raise RecordError(f"line {line}: ')' without '('")
            if skipping == depth:
                skipping = 0
            depth -= 1
            branch_taken.pop()
            index += 1
        elif char == ";":
            if depth == 0 or current is None:
                raise RecordError(f"line {line}: a node outside any game tree")
            props: dict[str, list[str]] = {}
            node_line = line
            index += 1
            while True:
                while index < length and text[index] in " \t\r\n":
                    line += text[index] == "\n"
                    index += 1
                start = index
                while index < length and text[index].isalpha():
                    index += 1
                name = text[start:index]
                if not name:
                    break
                if not name.isupper() and not any(c.isupper() for c in name):
                    raise RecordError(f"line {line}: bad property name {name[:20]!r}")
                values: list[str] = []
                while True:
                    while index < length and text[index] in " \t\r\n":
                        line += text[index] == "\n"
                        index += 1
                    if index >= length or text[index] != "[":
                        break
                    index += 1
                    value: list[str] = []
                    while True:
                        if index >= length:
                            raise RecordError(f"line {line}: the file ends inside a property value (truncated)")
                        char = text[index]
                        if char == "\\" and index + 1 < length:
                            value.append(text[index + 1])
                            line += text[index + 1] == "\n"
                            index += 2
                            continue
                        if char == "]":
                            index += 1
                            break
                        line += char == "\n"
                        value.append(char)
                        index += 1
                    values.append("".join(value))
                if not values:
                    raise RecordError(f"line {line}: property {name[:20]} has no value")
                props[name] = values
            if skipping == 0:
                current.append((node_line, props))
        else:
            raise RecordError(f"line {line}: unexpected {char!r}")
    if depth:
        raise RecordError(f"line {line}: the file ends inside a game tree (truncated)")
    if not games:
        raise RecordError("not an SGF file: no game tree")
    return games


def read_text(stream: IO[str], max_bytes: int) -> str:
    try:
        text = stream.read(max_bytes + 1)
    except UnicodeDecodeError:
        raise RecordError("not text (binary data?)") from None
    if len(text) > max_bytes:
        raise RecordError(f"file too large: over {max_bytes // (1 << 20)} MB, not a match file")
    if "\x00" in text:
        raise RecordError(f"line {text[: text.index(chr(0))].count(chr(10)) + 1}: not text (binary data?)")
    return text


# --- reading ----------------------------------------------------------------------------------


def _letter_point(letter: str, player: int, where: str) -> int:
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    if not "a" <= letter <= "x":
        raise RecordError(f"{where}: {letter!r} is not a point letter (a-x, y bar, z off)")
    white = ord(letter) - ord("a") + 1
    return white if player == 0 else 25 - white


def _ascii_int(text: str) -> int:
    """int() of ASCII digits only (int() itself takes Arabic-Indic and other Unicode digits)."""
    if not text.isascii():
        raise ValueError(f"not a number: {text!r}")
    return int(text)


def _mi(values: list[str]) -> dict[str, str]:
    info: dict[str, str] = {}
    for value in values:
        key, _, rest = value.partition(":")
        info[key.strip().lower()] = rest.strip()
    return info


def read_sgf(stream: IO[str], *, max_bytes: int = MAX_BYTES) -> ImportedMatch:
    """Read a gnubg SGF match; RecordError (IllegalRecord for an illegal play) naming the line."""
    games = parse(read_text(stream, max_bytes))
    result = ImportedMatch()
    state: match.MatchState | None = None
    for number, nodes in enumerate(games):
        if not nodes:
            raise RecordError(f"game tree {number + 1} is empty")
        root_line, root = nodes[0]
        where = f"line {root_line}"
        if root.get("GM", ["6"])[0].strip() != "6":
            raise RecordError(f"{where}: GM[{root['GM'][0]}] is not backgammon (GM[6])")
        info = _mi(root.get("MI", []))
        rules = root.get("RU", [""])[0]
        if state is None:
            length = info.get("length", "0") or "0"
            if not (length.isascii() and length.isdigit()):
                raise RecordError(f"{where}: bad match length {length[:24]!r}")
            if int(length) > MAX_LENGTH:
                raise RecordError(f"{where}: a {length[:24]} point match is longer than "
                                  f"GNU Backgammon allows ({MAX_LENGTH} points at most)")
            result.length = int(length)
            result.players = (root.get("PW", ["White"])[0], root.get("PB", ["Black"])[0])
            result.date = root.get("DT", [""])[0]
            result.event = root.get("EV", [""])[0]
            result.round = root.get("RO", [""])[0]
            result.site = root.get("PC", [""])[0]
            options: dict[str, Any] = {"match_length": result.length}
            lowered = rules.lower()
            if result.length:
                options["crawford"] = "crawford" in lowered or not lowered
            else:
                options["jacoby"] = "jacoby" in lowered
                options["beavers"] = "beaver" in lowered
            result.options = options
            state = unchecked(match.new_match("backgammon", result.length, options))
        else:
            if state.phase not in (match.GAME_OVER,):
                raise IllegalRecord(f"{where}: a new game starts before the last one ended")
        try:
            ws, bs = _ascii_int(info.get("ws", "-1")), _ascii_int(info.get("bs", "-1"))
        except ValueError:
            raise RecordError(f"{where}: bad score in MI") from None
        if ws >= 0 and bs >= 0 and (float(ws), float(bs)) != state.score:
            raise IllegalRecord(
                f"{where}: the score {ws}-{bs} does not follow from the games before "
                f"({state.score[0]:g}-{state.score[1]:g})"
            )
        for node_line, props in nodes[1:]:
            for colour, player in (("W", 0), ("B", 1)):
                if colour in props:
                    state = _move(result, state, player, props[colour][0].strip(), f"line {node_line}")
            for setup in ("AB", "AW", "AE", "PL"):
                if setup in props:
                    raise RecordError(f"line {node_line}: board set-up ({setup}) is not supported")
        state = _finish(result, state, root.get("RE", [""])[0].strip(), where)
    assert state is not None
    if not result.events:
        raise RecordError("no game in the file: not a single roll or cube action "
                          "(GNU Backgammon cannot load a match without one)")
    result.state = checked(state)
    return result


def _move(result: ImportedMatch, state: match.MatchState, player: int, value: str, where: str) -> match.MatchState:
    name = result.players[player]
    lowered = value.lower()
    simple: dict[str, type[match.Event]] = {
        "double": match.Double,
        "take": match.Take,
        "drop": match.Drop,
        "beaver": match.Beaver,
    }
    if lowered in simple:
        event = simple[lowered](player)  # type: ignore[call-arg]
        state = fold(state, event, f"{where}: {name} {lowered}s")
        result.events.append(event)
        return state
    if len(value) < 2 or not value[:2].isdigit() or not all(c in "123456" for c in value[:2]):
        raise RecordError(f"{where}: cannot read move {value[:40]!r}")
    dice = (int(value[0]), int(value[1]))
    letters = value[2:]
    if len(letters) % 2:
        raise RecordError(f"{where}: move {value[:40]!r} has an odd number of point letters")
    hops = [
        (_letter_point(letters[i], player, where), _letter_point(letters[i + 1], player, where))
        for i in range(0, len(letters), 2)
    ]
    events: list[match.Event] = []
    if state.phase in (match.OPENING, match.GAME_OVER):
        if dice[0] == dice[1]:
            raise IllegalRecord(f"{where}: the opening roll cannot be a double ({value[:2]})")
        high, low = max(dice), min(dice)
        opening = match.OpeningRoll(die0=high if player == 0 else low, die1=high if player == 1 else low)
        state = fold(state, opening, where)
        events.append(opening)
    else:
        if state.phase != match.ROLL or state.turn != player:
            raise IllegalRecord(f"{where}: {name} rolls {value[:2]} out of turn")
        roll = match.Roll(player, dice)
        state = fold(state, roll, where)
        events.append(roll)
    play = play_event(state, player, dice, hops, f"{where}: {name}")
    state = fold(state, play, where)
    events.append(play)
    result.events.extend(events)
    return state


def _finish(result: ImportedMatch, state: match.MatchState, outcome: str, where: str) -> match.MatchState:
    if not outcome:
        if state.phase in (match.GAME_OVER, match.MATCH_OVER):
            return _confirm(result, state, where)
        return state  # an unfinished game
    text = outcome.upper()
    if len(text) < 3 or text[0] not in "WB" or text[1] != "+":
        raise RecordError(f"{where}: cannot read the result RE[{outcome[:20]}]")
    winner = 0 if text[0] == "W" else 1
    resigned = text.endswith("R")
    digits = text[2:].rstrip("R")
    try:
        points = _ascii_int(digits)
    except ValueError:
        raise RecordError(f"{where}: cannot read the result RE[{outcome[:20]}]") from None
    if state.phase in (match.ROLL, match.PLAY) or (resigned and state.phase not in (match.GAME_OVER, match.MATCH_OVER)):
        if points % state.cube or not 1 <= points // state.cube <= 3:
            raise IllegalRecord(f"{where}: RE[{outcome}] does not fit a resignation with the cube at {state.cube}")
        resign = match.Resign(1 - winner, points // state.cube)
        state = fold(state, resign, where)
        accept = match.ResignAccepted(winner)
        state = fold(state, accept, where)
        result.events.extend([resign, accept])
    last = state.last_result
    if state.phase not in (match.GAME_OVER, match.MATCH_OVER) or last is None:
        raise IllegalRecord(f"{where}: RE[{outcome}] but the game is not over")
    if last.winner != winner or last.points != points:
        raise IllegalRecord(
            f"{where}: RE[{outcome}] but the game gave {result.players[last.winner] if last.winner is not None else 'nobody'} "
            f"{last.points:g} point(s)"
        )
    return _confirm(result, state, where)


def _confirm(result: ImportedMatch, state: match.MatchState, where: str) -> match.MatchState:
    last = state.last_result
    assert last is not None
    end = match.GameEnd(last.winner, last.points, last.result)
    state = fold(state, end, where)
    result.events.append(end)
    return state


# --- writing ----------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(point: int, player: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    white = point if player == 0 else 25 - point
    return chr(ord("a") + white - 1)


def format_move(player: int, dice: tuple[int, int], steps: Sequence[Step]) -> str:
    high, low = max(dice), min(dice)
    return f"{high}{low}" + "".join(_letter(s.start, player) + _letter(s.end, player) for s in steps)


def write_sgf(stream: IO[str], header: Any, events: Sequence[match.Event], *, first_time: str = "") -> None:
    """Write a backgammon match as gnubg's ``save match`` does (without analysis properties)."""
    if header.variant != "backgammon":
        raise RecordError(f".sgf files hold backgammon only, not {header.variant} (use txt or json)")
    games = split_games(header, events)
    date = match_date(header.date, first_time).replace(".", "-")
    out: list[str] = []
    length = header.match_length
    for game in games:
        root = "(;FF[4]GM[6]CA[UTF-8]AP[" + APPLICATION + "]"
        root += f"MI[length:{length}][game:{game.number}][ws:{game.score[0]:g}][bs:{game.score[1]:g}]"
        root += f"PW[{_escape(header.players[0])}]PB[{_escape(header.players[1])}]"
        if game.number == 0:
            if date:
                root += f"DT[{date}]"
            for key, value in (("EV", header.event), ("RO", header.round), ("PC", header.site)):
                if value:
                    root += f"{key}[{_escape(value)}]"
        root += "RU[" + _rules(header, game) + "]"
        if game.result is not None and game.result.winner is not None:
            resigned = "R" if game.result.result.startswith("resign") else ""
            root += f"RE[{'WB'[game.result.winner]}+{game.result.points:g}{resigned}]"
        out.append(root)
        for node in _nodes(game):
            out.append("\n;" + node)
        out.append(")\n")
    stream.write("".join(out))


def _rules(header: Any, game: GameLog) -> str:
    options = header.options
    if header.match_length:
        if not options.get("crawford", True):
            return ""
        crawford = bool(game.events) and game.events[0][0].crawford_game
        return "Crawford:CrawfordGame" if crawford else "Crawford"
    parts = []
    if options.get("jacoby"):
        parts.append("Jacoby")
    if options.get("beavers"):
        parts.append("Beavers")
    return ":".join(parts)


def _nodes(game: GameLog) -> list[str]:
    nodes: list[str] = []
    for before, event in game.events:
        colour = "WB"[getattr(event, "player", 0) or 0]
        if isinstance(event, match.Play):
            nodes.append(f"{colour}[{format_move(event.player, before.dice or (0, 0), event.steps)}]")
        elif isinstance(event, match.IllegalPlayAccepted):
            steps = steps_from_difference(before.position_for(event.player), event.result)
            nodes.append(f"{colour}[{format_move(event.player, before.dice or (0, 0), steps)}]")
        elif isinstance(event, match.Double):
            nodes.append(f"{colour}[double]")
        elif isinstance(event, match.Take):
            nodes.append(f"{colour}[take]")
        elif isinstance(event, match.Drop):
            nodes.append(f"{colour}[drop]")
        elif isinstance(event, match.Beaver):
            nodes.append(f"{colour}[beaver]")
    return nodes
