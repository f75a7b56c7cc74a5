"""Exploratory, run last: the full order path under other gunicorn settings than ``arbiter up``'s,
round-robin so noise hits all alike.  Rows reported, no target: they chose the default."""
from __future__ import annotations

import time
from typing import Any

from bench.common import Stack, say, spread
from bench.driver import load
from bench.orders import _requests, _warm
from bench.report import row

# The settings compared (the first is what `arbiter up` runs).
CONFIGS = {
    "gthread 2 workers x 4 threads": ["--workers", "2", "--worker-class", "gthread", "--threads", "4"],
    "gthread 4 workers x 2 threads": ["--workers", "4", "--worker-class", "gthread", "--threads", "2"],
    "gthread 3 workers x 4 threads": ["--workers", "3", "--worker-class", "gthread", "--threads", "4"],
    "sync 4 workers": ["--workers", "4", "--worker-class", "sync"],
}
# A quick run's (a smoke test of this code, numbers meaning nothing): ``arbiter up``'s worker class and the other,
# one worker each (a worker's start costs ~0.7 s of CPU, importing the app; the four settings above start 13).
QUICK_CONFIGS = {
    "gthread 1 worker x 4 threads": ["--workers", "1", "--worker-class", "gthread", "--threads", "4"],
    "sync 1 worker": ["--workers", "1", "--worker-class", "sync"],
}


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    from cli.main import GUNICORN_DEFAULTS

    games, threads = (4, 4) if quick else (100, 16)
    duration = 0.6 if quick else stack.budget.sized(2.5, 1.0)
    least, most = (1, 1) if quick else (1, 3)
    timeout = GUNICORN_DEFAULTS[GUNICORN_DEFAULTS.index("--timeout"):][:2]
    configs = QUICK_CONFIGS if quick else CONFIGS
    apis = {name: stack.api("service.wsgi:app", gunicorn=[*args, *timeout], name=f"api-{index}", wait=False)
            for index, (name, args) in enumerate(configs.items())}
    rps: dict[str, list[float]] = {name: [] for name in configs}
    result.update(games=games, threads=threads, seconds_per_run=duration, configs={})
    try:
        items = _requests(stack.context(), games)  # while the servers start
        for api in apis.values():
            api.ready()
        _warm(stack, {name: (api, items) for name, api in apis.items()}, threads, 1.0)
        index, each = 0, 0.0
        while stack.budget.more(index, least, most, each):
            began = time.monotonic()
            for name in list(configs) if index % 2 == 0 else list(reversed(configs)):
                measured = load(apis[name].port, items, threads=threads, duration=duration,
                                idempotency_prefix=f"config-{index}-{name}", quick=quick)
                if measured["ok"] < 0.99 * measured["requests"]:
                    raise RuntimeError(f"orders under {name}: {measured['statuses']}")
                rps[name].append(measured["rps"])
                say(f"  orders under {name}: {measured['rps']:.0f} req/s")
            index, each = index + 1, time.monotonic() - began
            result["configs"] = {name: {"args": configs[name], "rps": spread(values)}
                                 for name, values in rps.items()}
            result["summary"] = _summary(result)
    finally:
        stack.stop(*(api.process for api in apis.values()))


def _summary(result: dict[str, Any]) -> list[dict[str, Any]]:
    configs = result["configs"]
    first = next(iter(configs.values()))["rps"]["median"]
    return [row(f"gunicorn {name}", figures["rps"]["median"], "req/s", first, figures["rps"]["median"] / first,
                "report", None,
                f"baseline: the first setting (arbiter up's in a full run); {len(figures['rps']['runs'])} rounds")
            for name, figures in configs.items()]
