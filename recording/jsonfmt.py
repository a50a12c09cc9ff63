"""The ``.json`` record: the header, every event with its time and evidence, and per-game results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

from recording.codec import event_to_json
from rules import match

FORMAT = "referee-match/1"


def to_json(header: Any, records: Sequence[Any]) -> dict[str, Any]:
    """``records`` are journal records (``seq``, ``time``, ``event``, ``evidence``)."""
    state = header.new_state(check_plays=False)
    events: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    for record in records:
        before = state
        state = match.apply(state, record.event)
        item: dict[str, Any] = {"seq": record.seq, "t": record.time, "game": before.game}
        if before.phase == match.GAME_OVER and state.phase != match.GAME_OVER:
            item["game"] = state.game
        item.update(event_to_json(record.event))
        if isinstance(record.event, match.Roll):
            item["roll_number"] = state.roll_number  # the game's Nth roll (gul bara's cascade)
        if state.phase == match.REMAINDER and before.phase != match.REMAINDER:
            item["handed_on"] = list(state.pending_steps)  # cascade steps the opponent must play
        if record.evidence:
            item["evidence"] = record.evidence
        events.append(item)
        if len(state.results) > len(before.results):
            result = state.results[-1]
            games.append(
                {
                    "game": before.game,
                    "score_before": list(before.score),
                    "winner": result.winner,
                    "points": result.points,
                    "result": result.result,
                    "cube": result.cube,
                }
            )
    data = header.to_json()
    data.pop("type", None)
    return {
        "format": FORMAT,
        "header": data,
        "events": events,
        "games": games,
        "final": {
            "score": list(state.score),
            "phase": state.phase,
            "game": state.game,
            "position": state.position.id,
            "turn": state.turn,
            "pending_steps": list(state.pending_steps),
            "cube": state.cube,
            "cube_owner": state.cube_owner,
            "match_over": state.match_over,
            "winner": state.winner,
        },
    }


def write_json(stream: IO[str], header: Any, records: Sequence[Any]) -> None:
    json.dump(to_json(header, records), stream, ensure_ascii=False, indent=1)
    stream.write("\n")
