# Runs inside GNU Backgammon: loads one match file and prints what it ended with as one JSON line.
import json
import os

import gnubg

path = os.environ["CHECK_FILE"]
if path.endswith(".sgf"):
    gnubg.command(f"load match {path}")
else:
    gnubg.command(f"import mat {path}")
info = gnubg.match(0, 0, 0, 0)
games = info["games"] if info else []
print(
    "RESULT "
    + json.dumps(
        {
            "position": gnubg.positionid(),
            "match": gnubg.matchid(),
            "games": len(games),
            "results": [
                [g["info"].get("score-X"), g["info"].get("score-O"), g["info"].get("winner"),
                 g["info"].get("points-won"), bool(g["info"].get("resigned"))]
                for g in games
            ],
        }
    )
)
