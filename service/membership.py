"""Who plays: joining (at sign-up, or after the start where the game allows it), quitting and
ejection.  After the start each is a membership change the engine rules on (``Engine.change_members``)
with its own seeded draws, recorded in the event with what follows: the same phase going on, the
next phase (``closes_phase``), or the end of the game with its result and seed, exactly as a
resolution would record it.
"""
from __future__ import annotations

from typing import Any

from engines.canonical import roundtrip
from engines.contract import Engine, RuleError
from engines.rng import Rng
from eventlog import clock, deadlines
from replays.fold import Record, engine_for
from replays.phases import nobody_awaited, what_follows
from runtime.context import Context
from runtime.scheduling import phase_opened
from service.appending import Plan, resolve_early
from service.errors import RULE_CODES, ApiError, conflict, invalid
from service.guards import require_running, seed_of


def find_player(record: Record, player_id: str, field: str = "player_id") -> dict[str, Any]:
    player = next((p for p in record["players"] if p["id"] == player_id), None)
    if player is None:
        raise invalid(f"No player {player_id!r} in this game.", {field: ["Unknown player."]})
    return player


def still_playing(player: dict[str, Any]) -> bool:
    return not (player["ejected"] or player.get("left"))


def leave_plan(ctx: Context, game_id: str, record: Record, player_id: str, how: str, event_type: str, actor: str,
               data: dict[str, Any]) -> Plan:
    """A quit or an ejection: during sign-up the player is struck off; after the start the engine
    rules on it and the change may close the phase or end the game."""
    if record["status"] == "finished":
        raise conflict("finished", "The game is over.")
    player = find_player(record, player_id)
    if not still_playing(player):
        raise conflict("already_left", "That player has already left the game (quit or ejected).")
    data = {**data, "player_id": player_id}
    if record["engine"] is None:
        return Plan(event_type, actor, data)
    change = {"kind": how, "player": {"id": player["id"], "name": player["name"], "fields": player["fields"]}}
    return change_plan(ctx, game_id, record, change, event_type, actor, data)


def change_plan(ctx: Context, game_id: str, record: Record, change: dict[str, Any], event_type: str, actor: str,
                data: dict[str, Any], **plan: Any) -> Plan:
    """The event of a membership change in a running (or paused) game, with its outcome and what follows."""
    engine = engine_for(record)
    seq = record["seq"] + 1
    seed = seed_of(ctx, game_id)
    try:
        outcome = roundtrip(engine.change_members(record["engine"], change, Rng(seed, "members", seq)))
    except RuleError as exc:
        code = "signup_closed" if change["kind"] == "join" and exc.status == 409 else RULE_CODES[exc.status]
        raise ApiError(exc.status, code, exc.message, {"rule": exc.rule, **exc.details}) from exc
    state = roundtrip(engine.apply_members(record["engine"], change, outcome))
    data = {**data, "outcome": outcome}
    if outcome.get("closes_phase") or engine.phase(state) is None:
        return _closing_plan(ctx, game_id, record, engine, state, seed, event_type, actor, data, plan)
    if record["status"] == "running" and record["resolve_early"] and nobody_awaited(engine, state):
        number = record["phase"]["number"]
        return Plan(event_type, actor, data, **plan, **resolve_early(ctx, game_id, number, f"{change['kind']}{{seq}}"))
    return Plan(event_type, actor, data, **plan)


def _closing_plan(ctx: Context, game_id: str, record: Record, engine: Engine, state: Any, seed: str,
                  event_type: str, actor: str, data: dict[str, Any], plan: dict[str, Any]) -> Plan:
    follows = what_follows(record, engine, state, seed, clock.now())
    spec = follows["next"]
    data = {**data, **follows}
    if spec is None:
        return Plan(event_type, actor, data, **plan, after=lambda event: deadlines.clear(ctx.redis, game_id))
    if record["status"] == "paused":
        raise conflict("paused", "This would close the open phase while the game is paused; "
                                 "the GM resumes it first (gm.resume).")
    ready = record["resolve_early"] and nobody_awaited(engine, state)
    return Plan(event_type, actor, data, **plan,
                before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(spec["deadline"])),
                after=lambda event: phase_opened(ctx.queue, ctx.redis, game_id, spec, ready))


def late_join_plan(ctx: Context, game_id: str, record: Record, player: dict[str, Any], data: dict[str, Any],
                   **plan: Any) -> Plan:
    """A join after the start: the engine decides whether it may happen now, and how."""
    require_running(record)
    return change_plan(ctx, game_id, record, {"kind": "join", "player": player}, "player.joined", plan.pop("actor"),
                       data, **plan)
