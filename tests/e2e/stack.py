"""A live stack for end-to-end tests: gunicorn serving the API and `arbiter worker`
processes, all on 127.0.0.1 against the test session's redis-server."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from redis import Redis

from runtime.config import Settings
from cli.processes import stop_group
from cli.embedded_redis import free_port


def stack_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(REDIS_URL=settings.redis_url, ARBITER_QUEUE_URL=settings.queue_url, ARBITER_QUEUE=settings.queue_name,
               ARBITER_SWEEP_EVERY=str(settings.sweep_every), ARBITER_SWEEP_GRACE=str(settings.sweep_grace),
               ARBITER_SWEEP_RETRY=str(settings.sweep_retry), PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


@dataclass
class Stack:
    settings: Settings
    logs: Path
    port: int = 0
    api: subprocess.Popen | None = None
    workers: list[subprocess.Popen] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)  # a worker's pid: its RQ name

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def keyed(self, env: dict[str, str]) -> dict[str, str]:
        """The stack's processes sign with one key file (issue 29), in its folder unless the test names one: without
        it each process would sign with a key of its own."""
        return {"ARBITER_SIGNING_KEY": str(self.logs / "signing.key"), **env}

    def start_api(self, port: int | None = None, **env: str) -> None:
        """Start gunicorn; pass ``port`` to restart it where clients already point."""
        self.port = port or free_port()
        self.api = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--workers", "2", "--worker-class", "gthread", "--threads", "8",
             "--bind", f"127.0.0.1:{self.port}", "service.wsgi:app"],
            env=stack_env(self.settings, **self.keyed(env)), stdout=open(self.logs / "api.log", "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError("the API did not come up; see api.log")

    def start_worker(self, name: str, queues: str = "resolutions", **env: str) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "worker", "--name", name, "--queues", queues],
            env=stack_env(self.settings, **self.keyed(env)), stdout=open(self.logs / f"{name}.log", "ab"),
            stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(process)
        self.names[process.pid] = name
        return process

    def wait_settled(self, timeout: float = 30) -> None:
        """Until the queue is empty and every live worker of this stack says it is idle, twice 0.2 s apart: what
        a killed worker, a sweeper or a late batch left on the queue has run (the event a fixed sleep guessed)."""
        redis = Redis.from_url(self.settings.queue_url)
        live = [self.names[p.pid] for p in self.workers if p.poll() is None]
        deadline, calm = time.monotonic() + timeout, 0
        while calm < 2:
            assert time.monotonic() < deadline, f"the queue did not settle within {timeout} s"
            pipe = redis.pipeline(transaction=False)
            pipe.llen(f"rq:queue:{self.settings.queue_name}")
            for name in live:
                pipe.hget(f"rq:worker:{name}", "state")
            queued, *states = pipe.execute()
            calm = calm + 1 if queued == 0 and all(state == b"idle" for state in states) else 0
            time.sleep(0.2)

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        """Kill a process and everything it started (RQ's scheduler runs as a child)."""
        stop_group(process, 20, sig)

    def stop(self) -> None:
        for process in [*self.workers, *([self.api] if self.api else [])]:
            if process.poll() is None:
                self.kill(process, signal.SIGTERM)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        response = requests.request(method, f"{self.url}{path}", json=body, headers=all_headers, timeout=30)
        return response.status_code, response.json()
