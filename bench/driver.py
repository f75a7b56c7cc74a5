"""Running the load generator from a benchmark: a subprocess per measurement."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bench.common import ROOT


def load(port: int, requests: list[dict[str, Any]], *, threads: int, duration: float, warmup: float = 1.0,
         idempotency_prefix: str | None = None, max_requests: int | None = None, once: bool = False,
         collect: bool = False) -> dict[str, Any]:
    """One load run (see bench/load.py); ``once``: each request exactly once, ``collect``: with its reply."""
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
