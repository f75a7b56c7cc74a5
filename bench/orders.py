"""Benchmark 1: submitting sealed orders through the full path, against a bare
marshmallow + XADD endpoint in the same gunicorn config; then again with Redis on
``appendfsync always``."""
from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

from bench.common import Stack, say, spread
from bench.driver import load
from bench.games import bot_orders, make_game
from bench.report import row

TARGET = 0.7
WARM_S = 2.0  # an uncounted load run against each fresh server before it is measured

def _requests(ctx: Any, games: int) -> list[dict[str, Any]]:
    """Valid sealed bids over many Extreme Ways games.  Three of four players bid (and
    keep replacing their bid, as the rules allow); the fourth never does, so the phase
    stays open with early resolution on, the default."""
    items = []
    for _ in range(games):
        game = make_game(ctx, "extreme-ways", 4)
        orders = bot_orders(ctx, game)
        bidders = [p for p in sorted(game.tokens) if p in orders and orders[p]["type"] == "bid"][:3]
        if not bidders:
            continue
        for player in bidders:
            items.append({"method": "POST", "path": f"/v1/games/{game.game_id}/actions",
                          "body": json.dumps(orders[player]),
                          "headers": {"Authorization": f"Bearer {game.tokens[player]}"}})
    random.Random(5).shuffle(items)
    return items


def _redis_cpu(stack: Stack) -> float:
    info = stack.client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def _redis_usec(stack: Stack) -> dict[str, int]:
    """Microseconds Redis has spent in each command so far (INFO commandstats; a script's inner
    calls are counted both on their own and inside its EVALSHA), the INFO calls themselves left out."""
    stats = stack.client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(figures["usec"]) for name, figures in stats.items()
            if not name.startswith("cmdstat_info")}


def _measured(stack: Stack, api: Any, items: list[dict[str, Any]], threads: int, duration: float,
              tag: str) -> dict[str, Any]:
    """One load run, with the CPU time the API processes and Redis spent on it: the load
    generator shares the two cores and takes more of them from the faster side, so
    requests per API CPU second is the fairer comparison of the work each side does.
    Redis's time per request in each command is reported too (where its share goes)."""
    api_before, redis_before, usec_before = api.cpu_seconds(), _redis_cpu(stack), _redis_usec(stack)
    result = load(api.port, items, threads=threads, duration=duration, warmup=min(1.0, duration / 2),
                  idempotency_prefix=tag, quick=stack.quick)
    api_cpu, redis_cpu = api.cpu_seconds() - api_before, _redis_cpu(stack) - redis_before
    requests = max(1, result["all_requests"])
    usec = {name: (total - usec_before.get(name, 0)) / requests for name, total in _redis_usec(stack).items()
            if total != usec_before.get(name, 0)}
    result.update(api_cpu_s=api_cpu, redis_cpu_s=redis_cpu,
                  per_api_cpu_s=result["all_ok"] / max(1e-9, api_cpu),
                  redis_cpu_ms_per_request=1000 * redis_cpu / requests,
                  redis_command_us_per_request=usec)
    return result


Side = tuple[Any, list[dict[str, Any]]]  # a server, and the requests sent to it


def _warm(stack: Stack, sides: dict[str, Side], threads: int, duration: float) -> None:
    """Not counted: the first load run against a fresh server ran at 40-85% of the later ones' rate on the
    baseline side (its 1 s warm-up was not enough), which made that round's ratio the highest.  None in a quick
    run, whose numbers mean nothing."""
    for name, (api, items) in {} if stack.quick else sides.items():
        load(api.port, items, threads=threads, duration=min(WARM_S, duration), idempotency_prefix=f"warm-{name}")


def _rounds(stack: Stack, sides: dict[str, Side], rounds: tuple[int, int], duration: float, threads: int,
            tag: str, reserve: float = 0.0) -> dict[str, Any]:
    """``sides``: "baseline" and "full", and optionally "unheard" (the full path without the append
    notices, on games of its own), each measured once a round, in an order that reverses every round.
    ``rounds``: at least the first, at most the second, as many as the benchmark's share of the budget
    has room for, keeping ``reserve`` rounds' worth of time for what follows."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    index, each = 0, 0.0
    while stack.budget.more(index, rounds[0], rounds[1], each * (1 + reserve)):
        began = time.monotonic()
        for name in (list(sides) if index % 2 == 0 else list(reversed(sides))):
            api, items = sides[name]
            result = _measured(stack, api, items, threads, duration, f"{tag}-{name}-{index}")
            say(f"  orders/{tag} round {index + 1} {name}: {result['rps']:.0f} req/s, "
                f"{result['per_api_cpu_s']:.0f} per API CPU s, p99 {result['latency_ms']['p99']:.1f} ms, "
                f"load generator {result['client_cpu_share']:.2f} core, statuses {result['statuses']}")
            runs[name].append(result)
        index, each = index + 1, max(each, time.monotonic() - began)
    for name, results in runs.items():
        for result in results:
            bad = result["requests"] - result["ok"]
            if result["ok"] == 0 or bad > 0.01 * result["requests"]:
                raise RuntimeError(f"orders/{tag} {name}: {bad} of {result['requests']} requests failed: "
                                   f"{result['statuses']}")
    ratios = [f["rps"] / b["rps"] for f, b in zip(runs["full"], runs["baseline"])]
    cpu_ratios = [f["per_api_cpu_s"] / b["per_api_cpu_s"] for f, b in zip(runs["full"], runs["baseline"])]
    unheard = {}
    if "unheard" in runs:
        unheard = {
            "unheard_rps": spread([r["rps"] for r in runs["unheard"]]),
            "unheard_ratio": spread([u["rps"] / b["rps"] for u, b in zip(runs["unheard"], runs["baseline"])]),
            "full_vs_unheard": spread([f["rps"] / u["rps"] for f, u in zip(runs["full"], runs["unheard"])]),
        }
    return {
        **unheard,
        "full_rps": spread([r["rps"] for r in runs["full"]]),
        "baseline_rps": spread([r["rps"] for r in runs["baseline"]]),
        "ratio": spread(ratios),
        "full_per_api_cpu_s": spread([r["per_api_cpu_s"] for r in runs["full"]]),
        "baseline_per_api_cpu_s": spread([r["per_api_cpu_s"] for r in runs["baseline"]]),
        "cpu_ratio": spread(cpu_ratios),
        "client_cpu_share_full": spread([r["client_cpu_share"] for r in runs["full"]]),
        "client_cpu_share_baseline": spread([r["client_cpu_share"] for r in runs["baseline"]]),
        "redis_cpu_ms_per_request_full": statistics.median(r["redis_cpu_ms_per_request"] for r in runs["full"]),
        "redis_cpu_ms_per_request_baseline": statistics.median(r["redis_cpu_ms_per_request"]
                                                               for r in runs["baseline"]),
        "redis_command_us_per_request_full": _median_by_name([r["redis_command_us_per_request"]
                                                              for r in runs["full"]]),
        "redis_command_us_per_request_baseline": _median_by_name([r["redis_command_us_per_request"]
                                                                  for r in runs["baseline"]]),
        "full_p99_ms": statistics.median(r["latency_ms"]["p99"] for r in runs["full"]),
        "baseline_p99_ms": statistics.median(r["latency_ms"]["p99"] for r in runs["baseline"]),
        "runs": runs,
    }


def _median_by_name(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each name's median over the runs (0 in a run that did not have it)."""
    names = sorted({name for run in runs for name in run})
    return {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    games = 4 if quick else 200
    rounds = (1, 1) if quick else (2, 3)
    duration = 0.6 if quick else stack.budget.sized(3.0, 2.0)
    threads = 4 if quick else 16
    ctx = stack.context()
    # The servers start while the games are set up (each takes seconds on a loaded machine).
    real = stack.api("service.wsgi:app", name="api-orders", wait=False)
    base = stack.api("bench.baseline_app:app", name="api-baseline", wait=False)
    # The same path without the append notices (replays/notices.py), on games of its own so that neither
    # full path's appends make the other's records stale: what the notices buy, measured in the same rounds.
    unheard = stack.api("service.wsgi:app", name="api-orders-unheard", env={"ARBITER_APPEND_NOTICES": "0"},
                        wait=False)
    items = _requests(ctx, games)
    # Half as many games of its own: a report row, and setting up games is a fifth of this benchmark's time.
    sides = {"baseline": (base.ready(), items), "full": (real.ready(), items),
             "unheard": (unheard.ready(), _requests(ctx, max(4, games // 2)))}
    say(f"orders: {len(items)} bidders in {games} games, {threads} client threads, {rounds[0]}-{rounds[1]} rounds "
        f"of {duration}s each side")
    _warm(stack, sides, threads, duration)
    result.update(games=games, bidders=len(items), threads=threads, seconds_per_run=duration)
    # Each everysec round beyond the least keeps room for the "always" rounds (two sides, not three).
    result["everysec"] = _rounds(stack, sides, rounds, duration, threads, "everysec", reserve=rounds[0] * 2 / 3)
    stack.stop(unheard.process)
    del sides["unheard"]
    for side in ("full", "baseline"):
        usec = result["everysec"][f"redis_command_us_per_request_{side}"]
        say(f"  orders: Redis time per request ({side}, median of rounds): "
            + ", ".join(f"{name} {value:.1f} us" for name, value in sorted(usec.items(), key=lambda kv: -kv[1])[:6]))
    result["summary"] = _summary(result)
    stack.client.config_set("appendfsync", "always")
    try:
        result["always"] = _rounds(stack, sides, rounds, duration, threads, "always")
    finally:
        stack.client.config_set("appendfsync", "everysec")
    result["summary"] = _summary(result)
    stack.stop(real.process, base.process)


def _summary(result: dict[str, Any]) -> list[dict[str, Any]]:
    every = result["everysec"]
    lines = [
        row("POST actions, AOF everysec (opt-in)", every["full_rps"]["median"], "req/s",
            every["baseline_rps"]["median"], every["ratio"]["median"], f">= {TARGET}",
            every["ratio"]["median"] >= TARGET,
            f"ratio range {every['ratio']['min']:.2f}-{every['ratio']['max']:.2f}"),
        row("POST actions per API CPU second", every["full_per_api_cpu_s"]["median"], "req/cpu-s",
            every["baseline_per_api_cpu_s"]["median"], every["cpu_ratio"]["median"], "report", None,
            f"ratio range {every['cpu_ratio']['min']:.2f}-{every['cpu_ratio']['max']:.2f}; load generator "
            f"{every['client_cpu_share_full']['median']:.2f} vs {every['client_cpu_share_baseline']['median']:.2f}"
            " core"),
        row("POST actions p99 latency", every["full_p99_ms"], "ms", every["baseline_p99_ms"],
            every["full_p99_ms"] / every["baseline_p99_ms"]),
    ]
    if "unheard_rps" in every:
        lines.insert(1, row("POST actions without append notices", every["unheard_rps"]["median"], "req/s",
                            every["baseline_rps"]["median"], every["unheard_ratio"]["median"], "report", None,
                            f"full path / this, per round: {every['full_vs_unheard']['min']:.2f}-"
                            f"{every['full_vs_unheard']['max']:.2f} (median {every['full_vs_unheard']['median']:.2f})"))
    if "always" in result:
        always = result["always"]
        lines.insert(1, row("POST actions, AOF always (arbiter up's)", always["full_rps"]["median"], "req/s",
                            always["baseline_rps"]["median"], always["ratio"]["median"], f">= {TARGET}",
                            always["ratio"]["median"] >= TARGET,
                            f"ratio range {always['ratio']['min']:.2f}-{always['ratio']['max']:.2f}; the baseline on "
                            "the same Redis, also fsyncing every write"))
    return lines
