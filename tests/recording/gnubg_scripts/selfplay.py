# Runs inside GNU Backgammon (gnubg -t -q -r -p selfplay.py): gnubg plays a seeded match against
# itself and writes it as .mat and .sgf.  Parameters come from the environment (gnubg passes no argv).
import os

import gnubg

seed = int(os.environ["SELFPLAY_SEED"])
length = int(os.environ["SELFPLAY_LENGTH"])
out = os.environ["SELFPLAY_OUT"]
for command in [
    "set rng mersenne",
    f"set seed {seed}",
    "set player 0 gnubg",
    "set player 1 gnubg",
    "set player 0 chequerplay evaluation plies 0",
    "set player 1 chequerplay evaluation plies 0",
    "set player 0 cubedecision evaluation plies 0",
    "set player 1 cubedecision evaluation plies 0",
    "set automatic game on",
    "set automatic roll on",
    "set display off",
    f"new match {length}",
    "set player 0 name Alice",
    "set player 1 name Bob",
    "set matchinfo event Club night",
    "set matchinfo place Cahul",
]:
    gnubg.command(command)
for _ in range(400 * length):
    info = gnubg.match(0, 0, 0, 0)
    games = info["games"] if info else []
    if games:
        last = games[-1]["info"]
        x = last.get("score-X", 0) + (last.get("points-won", 0) if last.get("winner") == "X" else 0)
        o = last.get("score-O", 0) + (last.get("points-won", 0) if last.get("winner") == "O" else 0)
        if last.get("winner") and max(x, o) >= length:
            break
    gnubg.command("play")
gnubg.command(f"export match mat {out}.mat")
gnubg.command(f"save match {out}.sgf")
