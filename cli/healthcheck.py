"""Container health checks (docker-compose.yml): exit 0 when healthy, 1 with a reason on stderr when not.

``python -m cli.healthcheck api [URL]``: the API answers ``/v1/health`` with 200 (its store reachable).
``python -m cli.healthcheck worker``: an RQ worker of this host is registered on the queue's Redis with a
heartbeat within the last ``HEARTBEAT_S`` seconds (RQ beats at least every ``worker_ttl`` / 2 while idle,
and at every job).  Each check is bounded: a frozen Redis or API fails it, never hangs it.
"""
from __future__ import annotations

import socket
import sys
import urllib.request
from datetime import datetime, timezone

HEARTBEAT_S = 600  # RQ's default worker_ttl is 420 s; an idle worker beats once per dequeue timeout


def api(url: str = "http://127.0.0.1:8000/v1/health") -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=3) as answer:
            return None if answer.status == 200 else f"{url} answered {answer.status}"
    except OSError as exc:
        return f"{url}: {exc}"


def worker() -> str | None:
    from redis import Redis
    from rq import Worker

    from runtime.config import Settings

    settings = Settings.from_env()
    connection = Redis.from_url(settings.queue_url, socket_timeout=3, socket_connect_timeout=3)
    host = socket.gethostname()
    now = datetime.now(timezone.utc)
    for found in Worker.all(connection=connection):
        beat = found.last_heartbeat
        if found.hostname == host and beat is not None:
            beat = beat if beat.tzinfo else beat.replace(tzinfo=timezone.utc)
            if (now - beat).total_seconds() <= HEARTBEAT_S:
                return None
    return f"no RQ worker of host {host} with a heartbeat in the last {HEARTBEAT_S} s"


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("api", "worker"):
        print("usage: python -m cli.healthcheck api [URL] | worker", file=sys.stderr)
        return 2
    try:
        problem = api(*argv[1:2]) if argv[0] == "api" else worker()
    except Exception as exc:  # a health check answers, whatever went wrong
        problem = f"{type(exc).__name__}: {exc}"
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
