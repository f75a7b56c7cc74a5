"""The data folder of `arbiter up`: one `arbiter up` at a time, and never an older Redis than wrote it.

Redis cannot read data written by a newer major version (an AOF or RDB from Redis 7 is refused or
ignored by 6.2, and its games answer 404), and two servers on one AOF folder corrupt it.  So the
folder holds a lock, taken before Redis starts and kept while `arbiter up` runs, and a record of
the newest Redis version that opened it: an older server is refused with a message that says
which binary to use instead.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
from pathlib import Path
from typing import IO

LOCK = "arbiter-up.lock"
RECORD = "redis-server.json"


class DataFolderError(RuntimeError):
    """The data folder cannot be used: in use by another `arbiter up`, or written by a newer Redis."""


def lock(data: Path) -> IO[str]:
    """An exclusive lock on ``data`` for as long as the returned file stays open (the process's life)."""
    data.mkdir(parents=True, exist_ok=True)
    handle = open(data / LOCK, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise DataFolderError(f"{data} is in use by another `arbiter up` ({holder}); stop it first, or give this "
                              "one another --data folder.") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


def server_version(binary: str) -> str:
    """The version of a redis-server binary, from ``redis-server --version``."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    found = re.search(r"v=(\d+\.\d+\.\d+)", out)
    if not found:
        raise DataFolderError(f"cannot tell the version of {binary} (it said {out.strip()[:200]!r}).")
    return found.group(1)


def _parts(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def check_server(data: Path, binary: str) -> tuple[str, str]:
    """(binary, version), or DataFolderError if ``data`` was written by a newer Redis than ``binary``."""
    version = server_version(binary)
    recorded = recorded_server(data)
    if recorded is not None and _parts(version) < _parts(recorded["version"]):
        raise DataFolderError(
            f"{data} was written by Redis {recorded['version']} ({recorded['binary']}), and the redis-server found "
            f"now is {version} ({binary}), which cannot read newer data (its games would be missing). Put Redis "
            f"{recorded['version']} or newer first on PATH, or use another --data folder.")
    return binary, version


def recorded_server(data: Path) -> dict[str, str] | None:
    try:
        return json.loads((data / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def record_server(data: Path, binary: str, version: str) -> None:
    """Remember the newest Redis that opened ``data`` (only ever raised: a newer one may have rewritten it)."""
    recorded = recorded_server(data)
    if recorded is None or _parts(version) >= _parts(recorded["version"]):
        (data / RECORD).write_text(json.dumps({"binary": binary, "version": version}) + "\n", encoding="utf-8")
