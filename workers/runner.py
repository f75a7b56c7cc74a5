"""Running a worker: RQ's SimpleWorker with the scheduler, plus the sweeper thread.

SimpleWorker runs jobs in its own process instead of forking one per job: resolutions
are short and pure, and on two cores it runs several times more jobs per second
than the forking Worker (see bench/).
"""
from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import time
from typing import Any

import redis
from rq import Queue, SimpleWorker, Worker
from rq.serializers import JSONSerializer

from engines import registry
from runtime import checkpoints
from runtime.context import Context, webhook_queue_name
from workers import sweeper, webhooks

PR_SET_PDEATHSIG = 1  # linux/prctl.h
SCHEDULER_RETRY_S = 5.0  # how often a worker whose scheduler is not running tries to start it
WORKER_TTL_S = 35  # RQ's dequeue waits worker_ttl - 15 s: an idle worker looks at its scheduler every 20 s

_parent = 0  # the worker's pid, as each fork sees it


def children_die_with_the_worker() -> None:
    """Every child this process forks from now on (RQ's scheduler, a fork worker's work horses) gets SIGTERM from
    the kernel when the worker dies, however it dies: a ``kill -9`` of the worker alone once left its scheduler
    running old code and holding the scheduler lock.  SIGTERM, not SIGKILL: RQ's scheduler then releases its
    lock on the way out.  Linux only (``prctl(PR_SET_PDEATHSIG)``); elsewhere, stop the worker's process group.

    The signal follows the thread that forked, and RQ forks from the worker's main thread, which lives as long as
    the worker does.  A worker that died between the fork and the ``prctl`` is caught by the parent check."""
    global _parent
    if not sys.platform.startswith("linux") or _parent:
        return
    libc = ctypes.CDLL(None, use_errno=True)

    def before() -> None:
        global _parent
        _parent = os.getpid()

    def in_child() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != _parent:  # the worker is already gone
            os.kill(os.getpid(), signal.SIGTERM)

    os.register_at_fork(before=before, after_in_child=in_child)
    _parent = os.getpid()


class KeepsItsScheduler:
    """A worker that restarts its RQ scheduler within seconds of losing it.

    RQ's scheduler process dies on a ``ConnectionError`` in its heartbeat (a Redis restart), and RQ starts it
    again only at the worker's maintenance, every 10 minutes: meanwhile every deadline waits for the sweeper and
    webhook retries have no backstop.  This worker looks at its scheduler at each of its own heartbeats (each
    dequeue, at least every 20 s idle, and every second while Redis is away), and starts it again as RQ's
    maintenance would (``acquire_locks(auto_start=True)``).  A worker whose scheduler lost the lock to another
    worker's tries again every few seconds, so a lock left by a dead host is taken as soon as it expires."""

    max_connection_wait_time = 1.0  # RQ backs off to 60 s between reconnections; Redis back means work back
    keep_scheduler = False  # set by run(): never in burst mode, whose scheduler runs once in the worker's process
    _next_scheduler_try = 0.0

    def check_for_suspension(self, burst: bool) -> None:
        """RQ asks between jobs, outside its reconnecting loop: a Redis away just then ended the worker (and with it
        ``arbiter up``).  Not suspended as far as anyone can tell; the dequeue that follows waits for Redis."""
        try:
            super().check_for_suspension(burst)  # type: ignore[misc]
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            self.log.warning("Worker %s: Redis is away (%s); waiting for it", self.name, exc)  # type: ignore[attr-defined]

    def run_maintenance_tasks(self) -> None:
        """Also outside RQ's reconnecting loop at the start: left for the next turn while Redis is away."""
        try:
            super().run_maintenance_tasks()  # type: ignore[misc]
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            self.log.warning("Worker %s: maintenance waits for Redis (%s)", self.name, exc)  # type: ignore[attr-defined]

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        """RQ records the worker idle before its reconnecting loop: a Redis away just then ended the worker."""
        while True:
            try:
                return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)  # type: ignore[misc]
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self.log.warning("Worker %s: Redis is away (%s); waiting for it", self.name, exc)  # type: ignore[attr-defined]
                time.sleep(self.max_connection_wait_time)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        super().heartbeat(timeout, pipeline)  # type: ignore[misc]
        if pipeline is None:  # a heartbeat queued in one of RQ's transactions is not the worker's own
            self._keep_scheduler()

    def _keep_scheduler(self) -> None:
        scheduler = self.scheduler  # type: ignore[attr-defined]
        if not self.keep_scheduler or scheduler is None or self._stop_requested:  # type: ignore[attr-defined]
            return
        process = scheduler._process
        if (process is not None and process.is_alive()) or time.monotonic() < self._next_scheduler_try:
            return
        try:
            if scheduler.acquire_locks(auto_start=True) and process is not None:
                self.log.warning("Worker %s: its RQ scheduler had died; started it again", self.name)  # type: ignore[attr-defined]
        except (redis.ConnectionError, redis.TimeoutError) as exc:  # Redis still away: the next heartbeat tries
            self.log.warning("Worker %s: could not restart its RQ scheduler yet: %s", self.name, exc)  # type: ignore[attr-defined]
            return
        self._next_scheduler_try = time.monotonic() + SCHEDULER_RETRY_S  # the lock is another's: try again later


class KeepingSimpleWorker(KeepsItsScheduler, SimpleWorker):
    """SimpleWorker (jobs in the worker's process) that keeps its scheduler running."""


class KeepingWorker(KeepsItsScheduler, Worker):
    """RQ's forking Worker that keeps its scheduler running."""


WORKER_CLASSES: dict[str, type[Worker]] = {"simple": KeepingSimpleWorker, "fork": KeepingWorker}


def run(
    ctx: Context,
    *,
    burst: bool = False,
    with_scheduler: bool = True,
    with_sweeper: bool = True,
    worker_class: str = "simple",
    name: str | None = None,
    queues: tuple[str, ...] = ("resolutions",),
) -> bool:
    """``queues``: "resolutions" (phases at their deadlines), "webhooks" (deliveries), or both, in that order of
    priority.  A deployment runs one worker for each, so a webhook receiver that hangs never holds up a deadline."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # A forking worker copies this process while the sweeper thread may hold a lock, and a
    # work horse born with a lock held waits for it until the job times out.  So the engines
    # are imported now, before any thread (their registry loads under a lock), and the
    # sweeper has connections and a game cache of its own.
    registry.names()
    checkpoints.after_restart(ctx)  # a store that went back under its signed checkpoints says so before resolving
    children_die_with_the_worker()
    stop = sweeper.start_thread(Context(ctx.settings)) if with_sweeper and not burst else None
    # RQ gets a connection of its own: it raises that one's socket timeout to minutes for its blocking pops.
    connection = ctx.rq_connection()
    listened = _queues(ctx, queues, connection)
    worker = WORKER_CLASSES[worker_class](listened, connection=connection, serializer=JSONSerializer, name=name,
                                          worker_ttl=WORKER_TTL_S)
    worker.keep_scheduler = with_scheduler and not burst  # type: ignore[attr-defined]
    if "webhooks" in queues and worker_class == "simple" and not burst:
        # Deliveries on threads with per-host limits (workers/webhooks.py), with connections of their own.  Not in
        # a fork worker, whose work horse exits with its job, nor in a burst, which exits when the queue is empty.
        webhooks.start(Context(ctx.settings))
    try:
        return worker.work(burst=burst, with_scheduler=with_scheduler, logging_level="INFO")
    finally:
        if stop is not None:
            stop.set()
        webhooks.stop()  # the deliveries under way finish (5 s at most); those waiting are dropped


class BurstWorker(SimpleWorker):
    """A SimpleWorker for a short burst in this process (``arbiter simulate``, the tests): it does not subscribe to
    RQ's command channel.  RQ listens there from a thread that sleeps up to 60 s between reads and joins it for up
    to a second at every teardown: a second per phase of a simulation, which runs a burst per phase.  Nobody sends
    commands to a worker that lives a few milliseconds."""

    def subscribe(self) -> None:
        self.pubsub_thread = None


def run_burst(ctx: Context, queues: tuple[str, ...] = ("resolutions",)) -> bool:
    """Run every job queued now on ``queues`` (not the scheduled ones), in this process; True if any ran."""
    connection = ctx.rq_connection()
    try:
        worker = BurstWorker(_queues(ctx, queues, connection), connection=connection, serializer=JSONSerializer)
        return worker.work(burst=True, with_scheduler=False, logging_level="WARNING")
    finally:
        connection.close()


def _queues(ctx: Context, kinds: tuple[str, ...], connection: redis.Redis) -> list[Queue]:
    """The context's queues of these kinds ("resolutions", "webhooks") on ``connection``, in that order."""
    names = {"resolutions": ctx.settings.queue_name, "webhooks": webhook_queue_name(ctx.settings.queue_name)}
    return [Queue(names[kind], connection=connection, serializer=JSONSerializer) for kind in kinds]
