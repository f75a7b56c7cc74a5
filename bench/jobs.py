"""Jobs for the deadline-storm baseline: run by the real ``arbiter worker`` processes."""
from __future__ import annotations

import time

from rq import get_current_job


def noop(key: str, index: int) -> None:
    """Do nothing but record when it ran: one HSET, as a resolution records one event."""
    job = get_current_job()
    job.connection.hset(key, str(index), repr(time.time()))
