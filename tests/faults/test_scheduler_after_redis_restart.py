"""Issue 28 item 1: a Redis restart kills RQ's scheduler (a ``ConnectionError`` in its heartbeat); the worker
starts it again as soon as Redis is back, not at RQ's 10-minute maintenance.

Target: after Redis comes back the scheduler lock exists again within 30 s, and a deadline that falls after the
restart resolves less than 3 s late (the sweeper alone takes its 5 s grace and a sweep)."""
from __future__ import annotations

import re
import signal
import time
from pathlib import Path

from redis import Redis

from cli import embedded_redis
from runtime.config import Settings
from runtime.context import webhook_queue_name
from tests.e2e.stack import Stack
from tests.faults import figures
from tests.faults.load import signed_up, start_all
from tests.faults.test_deadlines import SCHEDULER_LOCK, _first_outcomes, _lateness
from tests.faults.test_scheduler_dies import _state


def _scheduler_pids(log: Path) -> list[int]:
    return [int(pid) for pid in re.findall(r"Scheduler for \S+ started with PID (\d+)", log.read_text())]


def _wait(condition, timeout: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, what
        time.sleep(0.1)
    return time.monotonic() - start


def test_the_worker_restarts_its_scheduler_when_redis_comes_back(tmp_path: Path) -> None:
    server = embedded_redis.start(tmp_path / "redis", aof=True)
    servers = [server]
    url = server.url
    settings = Settings(redis_url=url, queue_url=url.rsplit("/", 1)[0] + "/1", queue_name="arbiter-restart",
                        admin_token=None, max_body_bytes=64 * 1024)
    stack = Stack(settings, tmp_path)
    lock = SCHEDULER_LOCK.format(queue=settings.queue_name)
    try:
        stack.start_api()
        stack.start_worker("keeper")
        stack.start_worker("hooks", queues="webhooks")  # webhook retries wait in its scheduler: their backstop
        log, hooks_log = stack.logs / "keeper.log", stack.logs / "hooks.log"
        _wait(lambda: log.exists() and _scheduler_pids(log), 90, "the scheduler never started")
        _wait(lambda: hooks_log.exists() and _scheduler_pids(hooks_log), 90, "the webhooks' scheduler never started")
        first, first_hooks = _scheduler_pids(log)[0], _scheduler_pids(hooks_log)[0]
        queue = Redis.from_url(settings.queue_url, socket_timeout=2)
        hooks_lock = SCHEDULER_LOCK.format(queue=webhook_queue_name(settings.queue_name))
        _wait(lambda: queue.exists(lock) and queue.exists(hooks_lock), 90, "the schedulers never took their locks")
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(10)
        # The premise: the outage kills RQ's scheduler (its heartbeat meets a ConnectionError).
        _wait(lambda: _state(first) in (None, "Z") and _state(first_hooks) in (None, "Z"), 60,
              "a scheduler outlived the Redis outage")
        server = embedded_redis.start(server.directory, server.port, aof=True)
        servers.append(server)
        # The lock may have outlived the outage in the AOF (a minute's TTL): what counts is a live scheduler
        # holding it, refreshing it every second.
        back = _wait(lambda: all(_state(_scheduler_pids(path)[-1]) not in (None, "Z") and queue.ttl(key) > 58
                                 for path, key in ((log, lock), (hooks_log, hooks_lock))), 30,
                     "no live scheduler held each lock within 30 s of Redis's return: "
                     + "\n".join(path.read_text()[-6000:] for path in (log, hooks_log)))
        games = signed_up(stack, 5, deadlines={"bidding": 4})
        start_all(stack, games)
        lateness = _lateness(_first_outcomes(settings, games, timeout=60))
        assert lateness["min_s"] >= 0, "a phase was resolved before its deadline"
        assert lateness["max_s"] < 3, lateness
    finally:
        stack.stop()
        servers[-1].stop()
    figures.record("redis restarted under a worker: its RQ scheduler back", lock_back_s=round(back, 2),
                   deadlines=len(games), **{f"lateness_{k}": v for k, v in lateness.items()})
