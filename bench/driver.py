"""Running the load generator from a benchmark: a subprocess per measurement."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bench.common import ROOT

QUICK_REQUESTS = 24  # a quick run's load run: no warm-up, at most this many requests (its numbers mean nothing)


def load(port: int, requests: list[dict[str, Any]], *, threads: int, duration: float, warmup: float = 1.0,
         idempotency_prefix: str | None = None, max_requests: int | None = None, once: bool = False,
         collect: bool = False, quick: bool = False) -> dict[str, Any]:
    """One load run (see bench/load.py); ``once``: each request exactly once, ``collect``: with its reply;
    ``quick``: a smoke run's, ``QUICK_REQUESTS`` at most and no warm-up (a throughput run saturates both
    cores for as long as it lasts: at full length these were most of a quick run's CPU)."""
    if quick and not once:
        warmup, max_requests = 0.0, min(max_requests or QUICK_REQUESTS, QUICK_REQUESTS)
    spec: dict[str, Any] = {"port": port, "requests": requests, "threads": threads, "duration": duration,
                            "warmup": warmup, "idempotency_prefix": idempotency_prefix, "once": once,
                            "collect": collect}
    if max_requests is not None:
        spec["max_requests"] = max_requests
    done = subprocess.run([sys.executable, "-m", "bench.load"], input=json.dumps(spec), capture_output=True,
                          text=True, cwd=ROOT, timeout=duration + warmup + 120)
    if done.returncode != 0:
        raise RuntimeError(f"load generator failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)
