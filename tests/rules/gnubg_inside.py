"""Runs INSIDE GNU Backgammon's embedded Python (``gnubg -t -q -r -p gnubg_inside.py``).

Never imported by the test suite: :mod:`tests.rules.gnubg_oracle` starts gnubg with this script
and a job file named by the environment variable ``REFEREE_GNUBG_JOB`` (JSON), and reads the JSON
answer the script writes to the job's ``out`` path.  Jobs:

* ``{"kind": "selfplay", "seeds": [...]}``: one game per seed, gnubg (0-ply) playing both sides
  with gnubg's own seeded dice, then ``analyse match`` at 0-ply, which stores for every turn the
  full list of legal moves.  Each turn becomes a case: the position before it (ID seen from the
  mover, as gnubg records it), the dice, the played move's result and every legal result.
* ``{"kind": "hint", "cases": [[ID, d1, d2], ...]}``: ``set board`` / ``set dice`` / ``hint`` at
  0-ply for arbitrary cases (about 10 ms each: gnubg polls its worker thread every 10 ms).
* ``{"kind": "cube", "cases": [{length, score, cube, owner, crawford, player}, ...]}``: may the
  player on roll double?  The situation is set with ``new match`` (``new session`` for length 0),
  ``set score``, ``set crawford``, ``set cube value/owner``, ``set turn``; then ``double`` and
  ``take``: the double counts as allowed when the cube value has doubled.  gnubg's words are kept.
* ``{"kind": "resign", "cases": [{length, score, cube, owner, jacoby, value, player}, ...]}``: the
  player on roll resigns ``value`` (1 normal, 2 gammon, 3 backgammon), the other accepts; the
  answer is who won and gnubg's ``points-won``.

Legal results are position IDs seen from the mover (NOT swapped).  gnubg lists each distinct
resulting position once; its moves are (from, to) steps in the mover's numbering, 25 = bar and
0 = off, and are applied here (a landing on an opponent blot hits it), then encoded with gnubg's
own ``positionid``.  ``gnubg.board()`` and ``positionfromid`` give ``(opponent, player on roll)``.
"""

import json
import os
import sys
import time

import gnubg  # only exists inside gnubg

SETUP = [
    "set display off",
    "set automatic game off",
    "set automatic roll off",
    "set automatic move off",
    "set automatic bearoff off",
    "set automatic crawford off",
    "set player 0 human",
    "set player 1 human",
    "set threads 1",
    "set evaluation chequerplay evaluation plies 0",
    "set evaluation cubedecision evaluation plies 0",
    "set evaluation chequerplay evaluation prune off",
    "set analysis chequerplay evaluation plies 0",
    "set analysis cubedecision evaluation plies 0",
    "set analysis chequerplay evaluation prune off",
]
MAX_TURNS = 1000


def apply(position_id, steps):
    """The position ID (mover's view) after gnubg's (from, to) steps; order does not matter."""
    opponent, mover = (list(side) for side in gnubg.positionfromid(position_id))
    for start, end in steps:
        mover[start - 1] -= 1  # 25 = bar -> index 24
        if end > 0:
            mover[end - 1] += 1
            theirs = 24 - end  # the opponent's own point 25 - end, as an index
            if opponent[theirs]:
                if opponent[theirs] != 1:
                    raise ValueError(f"{position_id}: gnubg step {start}/{end} lands on a closed point")
                opponent[theirs] = 0
                opponent[24] += 1
    if min(mover) < 0:
        raise ValueError(f"{position_id}: gnubg steps {steps} move checkers that are not there")
    return gnubg.positionid((opponent, mover))


def pairs(move):
    return [(int(a), int(b)) for a, b in move]


def winner():
    return gnubg.match(0, 0, 0, 0)["games"][-1]["info"]["winner"]


def play_game(seed):
    """One self-play game; returns the number of turns played."""
    gnubg.command(f"set seed {seed}")
    gnubg.command("new match 1")
    turns = 0
    while winner() is None:
        turns += 1
        if turns > MAX_TURNS:
            raise RuntimeError(f"game with seed {seed} did not end")
        gnubg.command("roll")
        try:
            best = gnubg.findbestmove()
        except Exception as error:  # the roll could not be played: gnubg already passed the turn
            if "dice" in str(error).lower():
                continue
            raise
        text = gnubg.movetupletostring(best, gnubg.board())
        gnubg.command("move " + text)
    return turns


def selfplay(job):
    cases = []
    for seed in job["seeds"]:
        play_game(seed)
        gnubg.command("analyse match")
        game = gnubg.match(1, 1, 0, 0)["games"][-1]["game"]
        for turn, record in enumerate(game):
            if record.get("action") != "move":
                continue
            before = record["board"]
            dice = [int(d) for d in record["dice"]]
            played = pairs(record["move"])
            analysis = record.get("analysis")
            if analysis is None and played:
                raise RuntimeError(f"seed {seed} turn {turn}: gnubg left a move unanalysed")
            moves = [pairs(entry["move"]) for entry in (analysis or {}).get("moves", [])]
            results = [apply(before, move) for move in moves]
            cases.append({
                "seed": seed,
                "turn": turn,
                "position": before,
                "dice": dice,
                "played": apply(before, played) if played else None,
                "results": results,
            })
    return {"cases": cases}


def hint(job):
    answers = []
    gnubg.command("new match 1")
    for position_id, die1, die2 in job["cases"]:
        gnubg.command(f"set board {position_id}")
        if gnubg.positionid() != position_id:
            raise RuntimeError(f"gnubg did not take the board {position_id}")
        gnubg.command(f"set dice {die1}{die2}")
        found = gnubg.hint(100000)
        hints = found.get("hint", []) if isinstance(found, dict) else []
        answers.append({
            "position": position_id,
            "dice": [die1, die2],
            "moves": [entry["move"] for entry in hints],
            "results": [apply(position_id, gnubg.parsemove(entry["move"])) for entry in hints],
        })
    return {"cases": answers}


def said(command):
    """Run a gnubg command and return what it printed (stdout is otherwise silenced)."""
    import ctypes
    import tempfile

    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile(mode="w+b") as capture:
        sys.stdout.flush()
        libc.fflush(None)
        saved = os.dup(1)
        os.dup2(capture.fileno(), 1)
        try:
            gnubg.command(command)
            sys.stdout.flush()
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode(errors="replace").strip()


def set_situation(case, jacoby=False):
    """A fresh game with the case's match length, score, Crawford flag and cube; player to roll."""
    gnubg.command(f"set jacoby {'on' if jacoby else 'off'}")
    if case["length"]:
        gnubg.command(f"new match {case['length']}")
        gnubg.command("set score {} {}".format(*case["score"]))
        gnubg.command(f"set crawford {'on' if case.get('crawford') else 'off'}")
    else:
        gnubg.command("new session")
    gnubg.command(f"set cube value {case['cube']}")
    owner = case["owner"]
    gnubg.command("set cube centre" if owner is None else f"set cube owner {owner}")
    gnubg.command(f"set turn {case['player']}")
    info = gnubg.cubeinfo()
    wanted = (case["cube"], -1 if owner is None else owner, case["player"])
    if (info["cube"], info["cubeowner"], info["move"]) != wanted or (
            case["length"] and list(info["score"]) != list(case["score"])):
        raise RuntimeError(f"gnubg did not take the situation {case}: {info}")


def cube(job):
    answers = []
    for case in job["cases"]:
        set_situation(case)
        words = said("double")
        gnubg.command("take")
        allowed = gnubg.cubeinfo()["cube"] == 2 * case["cube"]
        answers.append({**case, "allowed": allowed, "words": "" if allowed else words})
    return {"cases": answers}


def resign(job):
    names = {1: "normal", 2: "gammon", 3: "backgammon"}
    answers = []
    for case in job["cases"]:
        set_situation(case, jacoby=case.get("jacoby", False))
        gnubg.command(f"resign {names[case['value']]}")
        gnubg.command("accept")
        info = gnubg.match(0, 0, 0, 0)["games"][-1]["info"]
        answers.append({**case, "winner": {"X": 0, "O": 1}.get(info.get("winner")),
                        "points": info.get("points-won"), "resigned": bool(info.get("resigned"))})
    return {"cases": answers}


def main():
    # gnubg prints boards and chatter on stdout; silence it and answer through the job's file.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    with open(os.environ["REFEREE_GNUBG_JOB"], encoding="utf-8") as stream:
        job = json.load(stream)
    started = time.perf_counter()
    for command in SETUP:
        gnubg.command(command)
    try:
        answer = {"selfplay": selfplay, "hint": hint, "cube": cube, "resign": resign}[job["kind"]](job)
    except Exception as error:  # reported to the caller, which raises it in the test
        answer = {"error": f"{type(error).__name__}: {error}"}
    answer["seconds"] = time.perf_counter() - started
    answer["version"] = gnubg.show("version").splitlines()[0] if hasattr(gnubg, "show") else ""
    with open(job["out"], "w", encoding="utf-8") as stream:
        json.dump(answer, stream)
    sys.stdout.flush()


main()
