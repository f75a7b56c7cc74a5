"""Who plays: joining (at sign-up, or after the start where the game allows it), quitting and ejection, decided.

After the start each is a membership change the engine rules on (``Engine.change_members``) with its own seeded
draws, recorded in the event with what follows: the same phase going on, the next phase (``closes_phase``), or the
end of the game with its result and seed, exactly as a resolution would record it.  Pure: the seed is given.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from engines.canonical import roundtrip
from engines.contract import RuleError
from engines.rng import Rng
from replays.fold import Record, engine_for
from replays.phases import what_follows
from runtime.commit import Decision
from service.errors import RULE_CODES, ApiError, conflict, invalid


def find_player(record: Record, player_id: str, field: str = "player_id") -> dict[str, Any]:
    player = next((p for p in record["players"] if p["id"] == player_id), None)
    if player is None:
        raise invalid(f"No player {player_id!r} in this game.", {field: ["Unknown player."]})
    return player


def still_playing(player: dict[str, Any]) -> bool:
    return not (player["ejected"] or player.get("left"))


def leave(record: Record, player_id: str, how: str, event_type: str, actor: str, data: dict[str, Any],
          now: datetime, seed: str | None) -> Decision:
    """A quit or an ejection: during sign-up the player is struck off; after the start the engine
    rules on it and the change may close the phase or end the game."""
    if record["status"] == "finished":
        raise conflict("finished", "The game is over.")
    player = find_player(record, player_id)
    if not still_playing(player):
        raise conflict("already_left", "That player has already left the game (quit or ejected).")
    data = {**data, "player_id": player_id}
    if record["engine"] is None:
        return Decision(event_type, actor, data, now)
    change = {"kind": how, "player": {"id": player["id"], "name": player["name"], "fields": player["fields"]}}
    return changed(record, change, Decision(event_type, actor, data, now), seed)


def changed(record: Record, change: dict[str, Any], plain: Decision, seed: str | None) -> Decision:
    """``plain`` (the event of a membership change in a running or paused game) with the engine's ruling on the
    change and, where it closes the phase or ends the game, what follows."""
    if seed is None:
        raise ApiError(500, "internal", "This game's seed is missing.")
    engine = engine_for(record)
    seq = record["seq"] + 1
    try:
        outcome = roundtrip(engine.change_members(record["engine"], change, Rng(seed, "members", seq)))
    except RuleError as exc:
        code = "signup_closed" if change["kind"] == "join" and exc.status == 409 else RULE_CODES[exc.status]
        raise ApiError(exc.status, code, exc.message, {"rule": exc.rule, **exc.details}) from exc
    state = roundtrip(engine.apply_members(record["engine"], change, outcome))
    data = {**plain.data, "outcome": outcome}
    if outcome.get("closes_phase") or engine.phase(state) is None:
        follows = what_follows(record, engine, state, seed, plain.now)
        if follows["next"] is not None and record["status"] == "paused":
            raise conflict("paused", "This would close the open phase while the game is paused; "
                                     "the GM resumes it first (gm.resume).")
        data = {**data, **follows}
    return Decision(plain.type, plain.actor, data, plain.now, plain.status, plain.answer, plain.private)
