"""The sweeper: finds phases whose deadline passed without a recorded outcome.

A lost job (worker killed, queue wiped, scheduler down) would otherwise stall a game;
the sweeper looks at the deadline index every second and re-queues a resolution for
anything overdue by more than ``GRACE`` seconds, so such a phase is late by seconds.
"""
from __future__ import annotations

import logging
import threading

from eventlog import deadlines
from service import clock
from service.context import Context
from workers.scheduling import resolve_soon

log = logging.getLogger("arbiter.sweeper")

GRACE = 5.0       # leave the scheduled job this long before stepping in
RETRY_EVERY = 5   # seconds between sweeper re-queues of the same phase (a duplicate job is harmless)


def sweep_once(ctx: Context) -> list[tuple[str, str]]:
    now = clock.now().timestamp()
    actions: list[tuple[str, str]] = []
    for game_id in deadlines.due(ctx.redis, now - GRACE):
        record = ctx.loader.load(game_id)
        if record is None or record["status"] != "running" or record["phase"] is None:
            deadlines.clear(ctx.redis, game_id)  # finished, paused (resume re-adds) or gone
            actions.append((game_id, "cleared"))
            continue
        due_at = clock.parse(record["phase"]["deadline"]).timestamp()
        if due_at > now - GRACE:
            deadlines.set_due(ctx.redis, game_id, due_at)
            actions.append((game_id, "not yet due"))
            continue
        number = record["phase"]["number"]
        # A fresh job id per attempt: an id reused from a job whose worker was killed
        # (still "started" in RQ's registry) would make this enqueue a silent no-op.
        queued = resolve_soon(ctx.queue, game_id, number, f"sweep{int(now)}")
        deadlines.set_due(ctx.redis, game_id, now + RETRY_EVERY)
        log.warning("game %s phase %s overdue by %.1fs: %s", game_id, number, now - due_at,
                    "re-queued" if queued else "already queued")
        actions.append((game_id, "requeued" if queued else "already queued"))
    return actions


def run_forever(ctx: Context, stop: threading.Event, interval: float = 1.0) -> None:
    while not stop.is_set():
        try:
            sweep_once(ctx)
        except Exception:  # a sweeper that dies silently is worse than one that logs
            log.exception("sweep failed; trying again")
        stop.wait(interval)


def start_thread(ctx: Context, interval: float = 1.0) -> threading.Event:
    stop = threading.Event()
    thread = threading.Thread(target=run_forever, args=(ctx, stop, interval), name="sweeper", daemon=True)
    thread.start()
    return stop
