"""Resolving one phase: the heart of the worker.

Idempotent by construction: the outcome is appended conditionally on the seq the
resolver read, so a second run (a retried job, a duplicate from the sweeper, a worker
killed half-way) either finds the phase already resolved or loses the race cleanly.
A job that starts before the deadline never resolves early: it waits a moment or
re-schedules itself.
"""
from __future__ import annotations

import logging
import os
import time
from datetime import datetime

from engines.canonical import roundtrip
from engines.rng import Rng
from eventlog import deadlines
from eventlog.events import ARBITER_ACTOR, new_salt, seal
from eventlog.store import Conflict
from replays.fold import engine_for
from service import clock
from service.context import Context
from workers.scheduling import nobody_awaited, phase_opened, phase_spec, schedule_at

log = logging.getLogger("arbiter.resolution")

WAIT_IN_JOB = 3.0   # a job this close to its deadline waits instead of re-scheduling
MAX_ATTEMPTS = 20


def resolve_phase(ctx: Context, game_id: str, number: int) -> str:
    """Resolve phase ``number`` of ``game_id`` if it is due; returns what happened."""
    for _attempt in range(MAX_ATTEMPTS):
        record = ctx.loader.load(game_id)
        if record is None:
            return "unknown game"
        if record["status"] != "running" or record["phase"] is None:
            if record["status"] in ("finished",):
                deadlines.clear(ctx.redis, game_id)
            return f"not running ({record['status']})"
        if record["phase"]["number"] != number:
            return "already resolved"
        engine = engine_for(record)
        now = clock.now()
        deadline = clock.parse(record["phase"]["deadline"])
        trigger = resolvable(record, engine, now)
        if trigger is None:
            wait = (deadline - now).total_seconds()
            if wait <= WAIT_IN_JOB:
                time.sleep(wait + 0.01)
                continue
            schedule_at(ctx.queue, game_id, number, deadline, f"at{int(deadline.timestamp())}")
            return "not due yet"
        try:
            _append_outcome(ctx, record, engine, number, trigger, now)
        except Conflict:
            continue  # someone appended first: look again
        return f"resolved ({trigger})"
    return "gave up after repeated conflicts"


def resolvable(record: dict, engine, now: datetime) -> str | None:
    """Why the open phase may be resolved at ``now`` (the trigger recorded with its
    outcome), or None while it must wait for its deadline."""
    if record["phase"]["forced"]:
        return "gm"
    if now > clock.parse(record["phase"]["deadline"]):
        return "deadline"
    if record["resolve_early"] and nobody_awaited(engine, record["engine"]):
        return "early"
    return None


def _fault_point(ctx: Context, game_id: str) -> None:
    """Fault injection for the kill tests: with ARBITER_FAULT_PAUSE_BEFORE_APPEND set,
    mark the game and stall between computing an outcome and recording it."""
    pause = os.environ.get("ARBITER_FAULT_PAUSE_BEFORE_APPEND")
    if pause:
        ctx.redis.set(f"arbiter:{{{game_id}}}:fault", "resolving")
        time.sleep(float(pause))


def _append_outcome(ctx: Context, record: dict, engine, number: int, trigger: str, now: datetime) -> None:
    game_id = record["game_id"]
    seed = ctx.store.private_field(game_id, "seed")
    if seed is None:
        raise RuntimeError(f"game {game_id} has no seed")
    phase = engine.phase(record["engine"])
    # Engines see exactly what a replay will see: canonical data, keys in sorted order.
    outcome = roundtrip(engine.resolve(record["engine"], Rng(seed, "phase", number)))
    state = roundtrip(engine.apply_outcome(record["engine"], outcome))
    following = engine.phase(state)
    data: dict = {"number": number, "name": phase.name if phase else None, "trigger": trigger, "outcome": outcome}
    if following is None:
        data.update(next=None, result=engine.result(state), seed=seed)
    else:
        data["next"] = phase_spec(record, following.name, number + 1, now)
        # Only ever earlier: until the outcome is in the log, this phase must stay where
        # the sweeper looks (a worker killed here would otherwise hide it until the next
        # deadline); an entry that was lost comes back.
        deadlines.due_by(ctx.redis, game_id, clock.parse(data["next"]["deadline"]))
    event = seal(record["seq"] + 1, record["head_hash"], "phase.resolved", ARBITER_ACTOR, data, salt=new_salt())
    _fault_point(ctx, game_id)
    ctx.store.append(game_id, event)
    log.info("game %s phase %s resolved (%s)", game_id, number, trigger)
    if following is None:
        deadlines.clear(ctx.redis, game_id)
    else:
        ready = record["resolve_early"] and nobody_awaited(engine, state)
        phase_opened(ctx.queue, ctx.redis, game_id, data["next"], ready)
