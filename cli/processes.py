"""Stopping the processes a command started, each with everything it forked (gunicorn's workers, RQ's scheduler
and work horse): a signal to the process group, a grace period, then SIGKILL to whatever is left."""
from __future__ import annotations

import os
import signal
import subprocess
import time


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def stop_group(process: subprocess.Popen, timeout: float = 15, sig: int = signal.SIGTERM) -> None:
    """``sig`` to one process's group; SIGKILL to it if it ignores that for ``timeout`` seconds (a worker stuck
    in a job)."""
    stop_all([process], timeout, sig)


def stop_all(processes: list[subprocess.Popen], timeout: float = 15, sig: int = signal.SIGTERM) -> None:
    """Several at once: all are asked together and share one grace period (a worker whose work horse hangs
    would otherwise cost its own, one after another); then whatever is left of each group is killed."""
    for process in processes:
        _signal_group(process, sig)
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for process in processes:
        _signal_group(process, signal.SIGKILL)  # whatever is left, a stuck work horse or a forked child included
        if process.poll() is None:
            process.wait(timeout=10)
