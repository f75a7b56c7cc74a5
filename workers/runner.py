"""Running a worker: RQ's SimpleWorker with the scheduler, plus the sweeper thread.

SimpleWorker runs jobs in its own process instead of forking one per job: resolutions
are short and pure, and on two cores it runs several times more jobs per second
than the forking Worker (see bench/).
"""
from __future__ import annotations

import logging

from rq import Queue, SimpleWorker, Worker
from rq.serializers import JSONSerializer

from engines import registry
from runtime.context import Context
from workers import sweeper

WORKER_CLASSES = {"simple": SimpleWorker, "fork": Worker}


def run(
    ctx: Context,
    *,
    burst: bool = False,
    with_scheduler: bool = True,
    with_sweeper: bool = True,
    worker_class: str = "simple",
    name: str | None = None,
) -> bool:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # A forking worker copies this process while the sweeper thread may hold a lock, and a
    # work horse born with a lock held waits for it until the job times out.  So the engines
    # are imported now, before any thread (their registry loads under a lock), and the
    # sweeper has connections and a game cache of its own.
    registry.names()
    stop = sweeper.start_thread(Context(ctx.settings)) if with_sweeper and not burst else None
    # RQ gets a connection of its own: it raises that one's socket timeout to minutes for its blocking pops.
    connection = ctx.rq_connection()
    queue = Queue(ctx.settings.queue_name, connection=connection, serializer=JSONSerializer)
    worker = WORKER_CLASSES[worker_class]([queue], connection=connection, serializer=JSONSerializer, name=name)
    try:
        return worker.work(burst=burst, with_scheduler=with_scheduler, logging_level="INFO")
    finally:
        if stop is not None:
            stop.set()
