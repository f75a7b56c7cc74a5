"""Starting and stopping ``arbiter up`` as a person at a terminal does: in a session of its own (so a test can send
its group the terminal's Ctrl-C), with an embedded Redis on a free port."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import redis

from cli.embedded_redis import free_port


@dataclass
class Up:
    process: subprocess.Popen
    port: int
    redis_port: int
    stream_port: int


def start_up(data: Path, stdout: int | IO[Any] = subprocess.PIPE, cwd: Path | None = None,
             stream_port: int | None = None) -> Up:
    """``arbiter up`` on free ports (or this ``stream_port``), its data in ``data``; without REDIS_URL, so it embeds
    its own Redis."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARBITER_QUEUE_URL")}
    port, redis_port, stream_port = free_port(), free_port(), stream_port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "up", "--port", str(port), "--redis-port", str(redis_port),
         "--stream-port", str(stream_port), "--data", str(data)],
        env=env, cwd=cwd, stdout=stdout, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    return Up(process, port, redis_port, stream_port)


def stop_up(process: subprocess.Popen, redis_port: int) -> None:
    """Stop an ``arbiter up`` and its Redis, whatever state they are in (its Redis is in a group of its own: never
    left behind by a failed run)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    try:
        redis.Redis(host="127.0.0.1", port=redis_port, socket_timeout=2).shutdown(nosave=True)
    except redis.RedisError:
        pass
