"""The load generator: a separate process with one keep-alive HTTP connection per
thread, so it does not share a GIL with the server it measures.

Reads a spec (JSON) on stdin, writes its result (JSON) on stdout.  Bounded in time
and in count; the first ``warmup`` seconds are run but not counted.  Two modes:

- cycle (default): each thread goes round ``requests`` until time or ``max_requests``
  runs out (throughput runs);
- ``"once": true``: every request is sent exactly once, in any order, and with
  ``"collect": true`` each reply's status and body come back in the request's place
  (setting up games whose ids and tokens the next step needs).
"""
from __future__ import annotations

import http.client
import itertools
import json
import os
import sys
import threading
import time
from typing import Any


def run(spec: dict[str, Any]) -> dict[str, Any]:
    port = spec["port"]
    threads = spec["threads"]
    warmup = spec.get("warmup", 1.0)
    duration = spec["duration"]
    requests = spec["requests"]
    once = bool(spec.get("once"))
    collect = bool(spec.get("collect"))
    limit = len(requests) if once else spec.get("max_requests", 10**9)
    key_prefix = spec.get("idempotency_prefix")
    counter = itertools.count()
    started = time.monotonic()
    stop_at = started + warmup + duration
    results: list[list[tuple[float, float, int]]] = [[] for _ in range(threads)]
    replies: list[Any] = [None] * len(requests) if collect else []

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = results[index]
        k = 0
        while time.monotonic() < stop_at:
            n = next(counter)
            if n >= limit:
                break
            position = n if once else (index + k * threads) % len(requests)
            item = requests[position]
            k += 1
            headers = dict(item.get("headers") or {})
            if key_prefix is not None:
                headers["Idempotency-Key"] = f"{key_prefix}-{n}"
            body = item.get("body")
            if body is not None:
                headers["Content-Type"] = "application/json"
            began = time.monotonic()
            raw = b""
            try:
                connection.request(item["method"], item["path"], body=body, headers=headers)
                response = connection.getresponse()
                raw = response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                status = 0
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            ended = time.monotonic()
            mine.append((ended, ended - began, status))
            if collect:
                replies[position] = [status, raw.decode("utf-8", "replace")]
        connection.close()

    cpu_before = os.times()
    pool = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    cpu_after = os.times()
    finished = time.monotonic()
    window_start = started + warmup
    everything = [r for rs in results for r in rs]
    counted = [r for r in everything if r[0] >= window_start]
    window = max(1e-9, min(finished, stop_at) - window_start)
    statuses: dict[str, int] = {}
    for _, _, status in counted:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    latencies = sorted(r[1] for r in counted)

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    ok = sum(v for k, v in statuses.items() if k.startswith("2"))
    cpu = (cpu_after.user - cpu_before.user) + (cpu_after.system - cpu_before.system)
    result = {
        "requests": len(counted),
        "ok": ok,
        "statuses": statuses,
        "seconds": window,
        "rps": ok / window,
        "latency_ms": {"p50": pct(0.50), "p99": pct(0.99), "max": latencies[-1] * 1000 if latencies else None},
        # The whole run, warm-up included: what the server's CPU time is divided by.
        "all_requests": len(everything),
        "all_ok": sum(1 for r in everything if 200 <= r[2] < 300),
        "all_seconds": finished - started,
        "client_cpu_share": cpu / max(1e-9, finished - started),
    }
    if collect:
        result["replies"] = replies
    return result


def main() -> int:
    spec = json.load(sys.stdin)
    json.dump(run(spec), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
