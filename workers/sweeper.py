"""The sweeper: finds phases that should have been resolved and were not.

A lost job (worker killed, queue wiped, scheduler down, an API process killed between
an order and its early-resolution job, a batch member popped by a worker that then
died) would otherwise stall a game until its deadline, or for ever; the sweeper looks
at the deadline index every second and re-queues a resolution for any phase resolvable
for more than its grace, 5 s (its deadline passed, everyone acted, the GM said resolve
now), so such a phase is late by seconds.  Both are settings (``sweep_every``,
``sweep_grace``: ARBITER_SWEEP_EVERY, ARBITER_SWEEP_GRACE).  A phase that keeps failing is retried less and less often,
first after ``sweep_retry`` (ARBITER_SWEEP_RETRY, 5 s).
"""
from __future__ import annotations

import logging
import threading

from eventlog import clock, deadlines, keys
from runtime.context import Context
from redis.exceptions import RedisClusterException, RedisError
from rq.job import Job, JobStatus

from replays.fold import engine_for
from replays.phases import resolvable
from runtime.scheduling import batch_second, job_id, member, resolve_soon

log = logging.getLogger("arbiter.sweeper")

RETRY_AT_MOST = 300  # a phase whose resolution keeps failing: the longest wait between re-queues


def sweep_once(ctx: Context) -> list[tuple[str, str]]:
    now = clock.now().timestamp()
    actions: list[tuple[str, str]] = []
    for game_id in deadlines.due(ctx.redis, now - ctx.settings.sweep_grace):
        try:
            _sweep_game(ctx, game_id, now, actions)
        except (RedisError, RedisClusterException) as exc:
            # On a Redis Cluster with a primary down (and cluster-require-full-coverage no), the games on the
            # other primaries are still swept: one unreachable game must not stall all the others.
            log.warning("game %s could not be swept (%s); sweeping the others", game_id, type(exc).__name__)
            actions.append((game_id, "unreachable"))
    return actions


def _sweep_game(ctx: Context, game_id: str, now: float, actions: list[tuple[str, str]]) -> None:
    """Re-queue one game's phase if it should have been resolved and was not (``sweep_once``)."""
    record = ctx.loader.load(game_id)
    if record is None or record["status"] != "running" or record["phase"] is None:
        deadlines.clear(ctx.redis, game_id)  # finished, paused (resume re-adds) or gone
        actions.append((game_id, "cleared"))
        return
    due_at = clock.parse(record["phase"]["deadline"]).timestamp()
    trigger = resolvable(record, engine_for(record), clock.now())
    if trigger is None or (trigger == "deadline" and due_at > now - ctx.settings.sweep_grace):
        deadlines.set_due(ctx.redis, game_id, due_at)
        actions.append((game_id, "not yet due"))
        return
    # Past its deadline by the grace, or resolvable early since at least the grace ago (the
    # index was pulled forward to that moment before the event that made it so).
    number = record["phase"]["number"]
    if _waiting_in_queue(ctx, game_id, number, due_at):
        deadlines.set_due(ctx.redis, game_id, now + ctx.settings.sweep_retry)
        actions.append((game_id, "waiting in queue"))
        return
    # A fresh job id per attempt: an id reused from a job whose worker was killed
    # (still "started" in RQ's registry) would make this enqueue a silent no-op.
    queued = resolve_soon(ctx.queue, game_id, number, f"sweep{int(now)}")
    if queued:
        ctx.queue_redis.set(_last_sweep(game_id), job_id(game_id, number, f"sweep{int(now)}"), ex=3600)
    deadlines.set_due(ctx.redis, game_id, now + _backoff(ctx, game_id, number))
    late = f"overdue by {now - due_at:.1f}s" if trigger == "deadline" else f"resolvable ({trigger}), not resolved"
    log.warning("game %s phase %s %s: %s", game_id, number, late, "re-queued" if queued else "already queued")
    actions.append((game_id, "requeued" if queued else "already queued"))


def _backoff(ctx: Context, game_id: str, number: int) -> float:
    """``sweep_retry`` (5 s), 10 s, 20 s … up to ``RETRY_AT_MOST`` between re-queues of one phase: a
    poisoned game must not add a failed job to the queue every few seconds for ever."""
    key = f"{_last_sweep(game_id)}:tries:{number}"
    pipe = ctx.queue_redis.pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, 86400)
    tries = pipe.execute()[0]
    return float(min(ctx.settings.sweep_retry * 2 ** min(tries - 1, 16), RETRY_AT_MOST))


def _last_sweep(game_id: str) -> str:
    return keys.last_sweep(game_id)


def _waiting_in_queue(ctx: Context, game_id: str, number: int, due_at: float) -> bool:
    """A resolution for this phase is on its way, not lost: a job of its own on the queue,
    not yet picked up, or its deadline's batch still holding it while one of that batch's
    jobs is on the queue or draining it.  The workers are behind, and another copy would
    only lengthen the queue.  (In a deadline storm bigger than the workers clear in
    the grace, every overdue phase got a duplicate job every ``sweep_retry``
    seconds and the backlog snowballed; found by bench storm.)  A "started" job is not
    trusted (its worker may have been killed), nor a batch job still scheduled (the
    scheduler may be dead): a draining batch says it is alive on every pop instead."""
    second = batch_second(due_at)
    ids = [job_id(game_id, number), job_id(game_id, number, f"at{second}"), job_id(game_id, number, "early")]
    pipe = ctx.queue_redis.pipeline(transaction=False)
    pipe.get(_last_sweep(game_id))
    pipe.sismember(keys.batch(second), member(game_id, number))
    pipe.exists(keys.batch_alive(second))
    pipe.smembers(keys.batch_jobs(second))
    for one in ids:
        pipe.hget(Job.key_for(one), "status")
    last, batched, draining, batch_jobs, *statuses = pipe.execute()
    if batched and draining:
        return True
    more = [m.decode() for m in batch_jobs] if batched else []
    if last is not None and last.decode().startswith(job_id(game_id, number, "sweep")):
        more.append(last.decode())
    if more:
        pipe = ctx.queue_redis.pipeline(transaction=False)
        for one in more:
            pipe.hget(Job.key_for(one), "status")
        statuses += pipe.execute()
    return any(status == JobStatus.QUEUED.value.encode() for status in statuses)


def run_forever(ctx: Context, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            sweep_once(ctx)
        except Exception:  # a sweeper that dies silently is worse than one that logs
            log.exception("sweep failed; trying again")
        stop.wait(ctx.settings.sweep_every)


def start_thread(ctx: Context) -> threading.Event:
    stop = threading.Event()
    thread = threading.Thread(target=run_forever, args=(ctx, stop), name="sweeper", daemon=True)
    thread.start()
    return stop
