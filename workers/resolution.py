"""Resolving one phase: the heart of the worker.

Idempotent by construction: the outcome is appended conditionally on the seq the
resolver read, so a second run (a retried job, a duplicate from the sweeper, a worker
killed half-way) either finds the phase already resolved or loses the race cleanly.
A job that starts before the deadline never resolves early: it waits a moment or
re-schedules itself.  ``resolve_due`` drains one second's batch of deadlines
(``workers/scheduling.py``), resolving its phases one after another in-process.
"""
from __future__ import annotations

import gc
import logging
import os
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Callable
from datetime import datetime

from rq.timeouts import BaseTimeoutException

from engines.canonical import roundtrip
from engines.rng import Rng
from eventlog import clock, deadlines, keys
from eventlog.events import ARBITER_ACTOR
from replays.fold import engine_for
from replays.phases import resolvable, what_follows
from runtime.commit import Decision, commit
from runtime.context import Context
from runtime.reactions import Opened
from runtime.scheduling import JOB_TIMEOUT, phases_opened, pop_due, schedule_at, schedule_batch

log = logging.getLogger("arbiter.resolution")

WAIT_IN_JOB = 3.0   # a job this close to its deadline waits instead of re-scheduling
MAX_WAITS = 20      # a job released just before its deadline waits in place at most this often
POP = 4             # members a batch job takes at a time (a killed worker leaves at most these to the sweeper)
BATCH_BUDGET = JOB_TIMEOUT / 2  # a batch still draining after this long hands the rest to a fresh job


def resolve_phase(ctx: Context, game_id: str, number: int, batch: int | None = None,
                  opened: Opened | None = None) -> str:
    """Resolve phase ``number`` of ``game_id`` if it is due; returns what happened.

    ``batch``: the second whose batch this call comes from.  A phase whose deadline has
    since moved to another second is left to that second's batch, not waited for.
    ``opened``: where to leave the next phase's scheduling, for the caller to do together
    with others' (``phases_opened``); without it, it is done at once."""
    for _attempt in range(MAX_WAITS):
        # The seed and the game's deadline index entry come in the same round trip as the record.
        record, (seed, indexed) = ctx.loader.load_with(game_id, lambda pipe: (
            pipe.hget(keys.private(game_id), "seed"), deadlines.queue_score(pipe, game_id)))
        if record is None:
            return "unknown game"
        if record["status"] != "running" or record["phase"] is None:
            if record["status"] in ("finished",):
                deadlines.clear(ctx.redis, game_id)
            return f"not running ({record['status']})"
        if record["phase"]["number"] != number:
            return "already resolved"
        now = clock.now()
        deadline = clock.parse(record["phase"]["deadline"])
        if resolvable(record, engine_for(record), now) is None:
            if batch is not None and deadline.timestamp() != batch:
                return "not due yet (deadline moved)"
            wait = (deadline - now).total_seconds()
            if wait <= WAIT_IN_JOB:
                time.sleep(wait + 0.01)
                continue
            schedule_at(ctx.queue, game_id, number, deadline, f"at{int(deadline.timestamp())}")
            return "not due yet"
        if seed is None:
            raise RuntimeError(f"game {game_id} has no seed")
        decide = partial(decide_resolution, number=number, seed=seed.decode(), now=now, pause=_fault_point(ctx))
        committed = commit(ctx, game_id, decide, None, record, opened=opened, indexed=indexed)
        if committed is None:
            return "already resolved"
        log.info("game %s phase %s resolved (%s)", game_id, number, committed.event["data"]["trigger"]
                 if committed.event else "before")
        return f"resolved ({committed.event['data']['trigger']})" if committed.event else "already resolved"
    return "not due yet"


def decide_resolution(record: dict, phase: int | None, *, number: int, seed: str, now: datetime,
                      pause: Callable[[str], None]) -> Decision | None:
    """The outcome of phase ``number`` at ``now``, if the record is still at it and it is due: missing orders
    defaulted and every draw made by the engine, with what follows (the next phase, or the end)."""
    if record["status"] != "running" or record["phase"] is None or record["phase"]["number"] != number:
        return None  # resolved meanwhile, by another job
    engine = engine_for(record)
    trigger = resolvable(record, engine, now)
    if trigger is None:
        return None  # a GM moved the deadline meanwhile: its own job resolves it
    current = engine.phase(record["engine"])
    # Engines see exactly what a replay will see: canonical data, keys in sorted order.
    outcome = roundtrip(engine.resolve(record["engine"], Rng(seed, "phase", number)))
    state = roundtrip(engine.apply_outcome(record["engine"], outcome))
    pause(record["game_id"])
    return Decision("phase.resolved", ARBITER_ACTOR,
                    {"number": number, "name": current.name if current else None, "trigger": trigger,
                     "outcome": outcome, **what_follows(record, engine, state, seed, now)}, now)


def resolve_due(ctx: Context, second: int, part: int) -> str:
    """Drain the batch of phases due at ``second`` (unix time): wait for the second if
    released before it, then take members until none is left, resolving each in-process.

    Several jobs drain one batch together (one per worker); each member is taken by
    exactly one.  A member whose resolution fails is logged and left to the sweeper, which
    retries it with a job of its own: one poisoned game must not stall the others."""
    wait = second - clock.now().timestamp()
    if wait > WAIT_IN_JOB:  # released far too early (RQ releases a second early by design, not more)
        schedule_batch(ctx.queue, second, part, f"again{int(clock.now().timestamp())}")
        return "not due yet"
    if wait >= 0:
        time.sleep(wait + 0.005)  # a deadline is kept up to and including its own instant
    began = time.monotonic()
    done: Counter[str] = Counter()
    with _no_cycle_collection():
        while members := pop_due(ctx.queue_redis, second, POP):
            opened: Opened = []
            try:
                for game_id, number in members:
                    try:
                        outcome = resolve_phase(ctx, game_id, number, batch=second, opened=opened)
                    except BaseTimeoutException:
                        raise
                    except Exception:
                        log.exception("game %s phase %s: resolution failed; the sweeper will retry it",
                                      game_id, number)
                        outcome = "failed"
                    done[outcome.split(" (")[0]] += 1
            finally:
                _open_next(ctx, opened)
            if time.monotonic() - began > BATCH_BUDGET:
                schedule_batch(ctx.queue, second, part, f"more{int(clock.now().timestamp())}", now=True)
                done["handed on"] += 1
                break
    return ", ".join(f"{what}: {count}" for what, count in sorted(done.items())) or "none left"


def _open_next(ctx: Context, opened: Opened) -> None:
    """Schedule the next phases of the games a batch job just resolved, a few at a time.

    Best effort, as after any append: an outcome is already the truth, and its game's
    index entry still points at the phase it resolved (in the past), so the sweeper
    finds any next phase whose scheduling did not happen."""
    try:
        phases_opened(ctx.queue, ctx.redis, opened)
    except Exception:
        log.exception("scheduling the next phases of %s failed; the sweeper will catch up",
                      ", ".join(game_id for game_id, _spec, _ready in opened))


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a batch drains (at most ``BATCH_BUDGET``).

    A resolution allocates and frees thousands of containers (the fold's records) and
    makes no reference cycles (500 resolutions in a row left 36 unreachable objects), yet
    the allocations keep triggering collections that walk every live object, the loader's
    cache of records included: 55% of a resolution's CPU in a 500-game batch (1.39 ms
    against 3.12 ms, measured in-process).  Reference counting still frees everything at
    once; the collector runs as usual after the batch."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _fault_point(ctx: Context) -> Callable[[str], None]:
    """Fault injection for the kill tests: with ARBITER_FAULT_PAUSE_BEFORE_APPEND set,
    mark the game and stall between computing an outcome and recording it."""
    pause = os.environ.get("ARBITER_FAULT_PAUSE_BEFORE_APPEND")

    def stall(game_id: str) -> None:
        if pause:
            ctx.redis.set(keys.fault(game_id), "resolving")
            time.sleep(float(pause))

    return stall
