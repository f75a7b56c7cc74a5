"""Starting and stopping ``arbiter up`` as a person at a terminal does: in a session of its own (so a test can send
its group the terminal's Ctrl-C), with an embedded Redis on a free port; ``arbiter_up``, a fixture of one running."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

import pytest
import redis
import requests

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


@pytest.fixture()
def arbiter_up(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``arbiter up`` as a newcomer starts it, its output in ``up.log``, once its API answers: (API URL, process)."""
    up = start_up(tmp_path / "data", stdout=open(tmp_path / "up.log", "w"), cwd=tmp_path)
    api = f"http://127.0.0.1:{up.port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert up.process.poll() is None, (tmp_path / "up.log").read_text()
            assert time.monotonic() < deadline, "arbiter up did not come up"
            time.sleep(0.2)
        yield api, up.process
    finally:
        stop_up(up.process, up.redis_port)
