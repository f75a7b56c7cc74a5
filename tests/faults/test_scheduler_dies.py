"""Issue 18 item 3: RQ's scheduler process dies with its worker, even when the worker alone is killed with -9.

A scheduler left behind keeps running the old code and holds the scheduler lock, so a new worker's
scheduler cannot start.  RQ forks it as a child of the worker; the worker has the kernel signal its
children when it dies (workers/runner.py)."""
from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

from redis import Redis

from tests.e2e.stack import Stack

SPARES_THE_API = True  # only a worker is killed


def _state(pid: int) -> str | None:
    """The process's state letter (Z for a zombie), or None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def _scheduler_pid(stack: Stack, name: str, timeout: float = 30) -> int:
    log = stack.logs / f"{name}.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"Scheduler for \S+ started with PID (\d+)", log.read_text() if log.exists() else "")
        if found:
            return int(found.group(1))
        time.sleep(0.2)
    raise AssertionError("the scheduler never started: " + (log.read_text() if log.exists() else ""))


def test_the_scheduler_dies_with_its_worker_killed_alone(stack: Stack) -> None:
    worker = stack.start_worker("doomed")
    scheduler = _scheduler_pid(stack, "doomed")
    assert _state(scheduler) not in (None, "Z")
    queue = Redis.from_url(stack.settings.queue_url)
    assert queue.exists(f"rq:scheduler-lock:{stack.settings.queue_name}")
    try:
        os.kill(worker.pid, signal.SIGKILL)  # the worker alone, not its process group
        worker.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _state(scheduler) not in (None, "Z"):
            assert time.monotonic() < deadline, "the scheduler outlived its worker"
            time.sleep(0.1)
        # it released the scheduler lock on its way out: a new worker's scheduler takes over at once
        deadline = time.monotonic() + 5
        while queue.exists(f"rq:scheduler-lock:{stack.settings.queue_name}"):
            assert time.monotonic() < deadline, "the dead scheduler's lock is still held"
            time.sleep(0.1)
        stack.start_worker("heir")
        assert _scheduler_pid(stack, "heir") != scheduler
    finally:
        try:
            os.killpg(worker.pid, signal.SIGKILL)  # whatever is left of the first worker's group
        except ProcessLookupError:
            pass
