"""Benchmark 5: what storing events costs in Redis, against the raw size of their
payloads; and the API worker's resident memory once many games exist."""
from __future__ import annotations

import statistics
import time
from typing import Any

import orjson

from bench.common import Stack, memory_kib, say, spread
from bench.driver import load
from bench.fold import pick_case
from bench.reads import stream_bytes
from bench.report import row
from engines import registry
from cli import simulate

TARGET = 3.0
STARTED_EVERY = 10  # one game in ten is joined by four players and started; the rest stay in sign-up
PLAYERS = 4
RSS_REPEATS = 3   # at most: the figure moved between 47 and 124 MiB from run to run: repeat it and show the spread
SEEDS = 1         # bot-played games of each engine (three before the full run had to fit in ten minutes)


def memory_per_event(stack: Stack, quick: bool) -> dict[str, Any]:
    ctx = stack.context()
    redis = ctx.redis
    redis.config_set("appendonly", "no")  # AOF rewrite buffers would blur used_memory
    before = redis.info("memory")["used_memory"]
    played = []
    for engine in registry.all_latest()[:1] if quick else registry.all_latest():
        for seed in range(SEEDS):
            case = pick_case(engine, quick=True)  # the shortest case: bytes per event hardly depend on length
            report = simulate.run(ctx, engine.meta.name, case["players"], f"storage-{seed}",
                                  dict(case.get("options", {})), echo=None)
            played.append(report["game_id"])
    ctx.queue_redis.flushdb()  # the queue's leftovers are not event storage
    after = redis.info("memory")["used_memory"]
    mixed = stream_bytes(redis, played)
    mixed["used_memory_per_event"] = (after - before) / mixed["events"]  # snapshots, tokens, indexes too
    return {"bot_played": mixed}


def _ok(result: dict[str, Any], what: str, expected: int) -> None:
    if result["all_ok"] != expected:
        raise RuntimeError(f"{what}: {result['all_ok']} of {expected} succeeded: {result['statuses']}")


def _memory(api: Any) -> list[dict[str, int]]:
    return [memory_kib(pid) for pid in api.worker_pids()]


def api_memory_once(stack: Stack, games: int, index: int) -> dict[str, Any]:
    """A fresh API (``arbiter up``'s gunicorn settings) over an empty database: create
    ``games`` games through it, join and start one in ``STARTED_EVERY``, read every game
    once (a player's view where there are players), and note its workers' memory after
    each step."""
    stack.budget.check(f"API memory, repeat {index + 1}")
    stack.client.flushdb()
    stack.context().queue_redis.flushdb()  # started games schedule their deadlines there
    api = stack.api("service.wsgi:app", name=f"api-storage-{index}")
    try:
        api.call("GET", "/v1/game-types")
        steps = {"started_up": _memory(api)}
        began = time.monotonic()
        create = [{"method": "POST", "path": "/v1/games", "body": '{"type": "extreme-ways"}'}] * games
        created = load(api.port, create, threads=8, duration=300, warmup=0, once=True, collect=True)
        _ok(created, "creating games", games)
        made = [orjson.loads(body) for _status, body in created["replies"]]
        steps["created"] = _memory(api)
        chosen = made[::STARTED_EVERY]
        join = [{"method": "POST", "path": f"/v1/games/{game['game_id']}/players",
                 "body": orjson.dumps({"name": f"Bench {seat + 1}"}).decode()}
                for game in chosen for seat in range(PLAYERS)]
        joined = load(api.port, join, threads=8, duration=300, warmup=0, once=True, collect=True)
        _ok(joined, "joining games", len(join))
        tokens = {game["game_id"]: orjson.loads(joined["replies"][i * PLAYERS][1])["token"]
                  for i, game in enumerate(chosen)}
        start = [{"method": "POST", "path": f"/v1/games/{game['game_id']}/start",
                  "headers": {"Authorization": f"Bearer {game['gm_token']}"}} for game in chosen]
        _ok(load(api.port, start, threads=8, duration=300, warmup=0, once=True), "starting games", len(start))
        steps["joined_and_started"] = _memory(api)
        read = [{"method": "GET", "path": f"/v1/games/{game['game_id']}",
                 "headers": {"Authorization": f"Bearer {tokens[game['game_id']]}"}
                 if game["game_id"] in tokens else {}} for game in made]
        reads = load(api.port, read, threads=8, duration=300, warmup=0, once=True)
        _ok(reads, "reading games", len(read))
        steps["read_once"] = _memory(api)
        seconds = time.monotonic() - began
    finally:
        stack.stop(api.process)
    rss = [m["VmRSS"] for m in steps["read_once"]]
    say(f"  repeat {index + 1}: {games} games ({len(chosen)} started) in {seconds:.1f}s; worker RSS "
        f"{[m['VmRSS'] // 1024 for m in steps['started_up']]} -> {[r // 1024 for r in rss]} MiB "
        f"(peak {[m['VmHWM'] // 1024 for m in steps['read_once']]})")
    return {"games": games, "started": len(chosen), "seconds": seconds, "steps_kib": steps,
            "rss_kib_before": [m["VmRSS"] for m in steps["started_up"]], "rss_kib_after": rss,
            "create_rps": created["all_ok"] / created["all_seconds"],
            "read_rps": reads["all_ok"] / reads["all_seconds"]}


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    result["memory"] = memory_per_event(stack, quick)
    mixed = result["memory"]["bot_played"]
    result["summary"] = [
        row(f"Redis bytes/event, bot-played ({mixed['events']} events)", mixed["stream_bytes_per_event"], "bytes",
            mixed["payload_bytes_per_event"], mixed["ratio"], f"<= {TARGET}", mixed["ratio"] <= TARGET,
            f"all keys: {mixed['used_memory_per_event']:.0f} bytes/event; one 100,000-event log: see reads"),
    ]
    games = 20 if quick else int(round(stack.budget.sized(10_000, 2_000), -2))
    result["api"] = {"games": games, "started_every": STARTED_EVERY, "repeats": []}
    summary = list(result["summary"])
    index, each = 0, 0.0
    while stack.budget.more(index, 1, 1 if quick else RSS_REPEATS, each):
        began = time.monotonic()
        result["api"]["repeats"].append(api_memory_once(stack, games, index))
        index, each = index + 1, time.monotonic() - began
        repeats = result["api"]["repeats"]
        after = [max(r["rss_kib_after"]) / 1024 for r in repeats]
        before = [max(r["rss_kib_before"]) / 1024 for r in repeats]
        every = [kib / 1024 for r in repeats for kib in r["rss_kib_after"]]
        result["api"]["largest_worker_rss_mib"] = spread(after)
        result["summary"] = summary + [
            row(f"API worker RSS after {games:,} games (largest)", statistics.median(after), "MiB",
                statistics.median(before), statistics.median(after) / statistics.median(before), "report", None,
                f"{len(repeats)} fresh APIs: {min(after):.0f}-{max(after):.0f} MiB; every worker "
                f"{min(every):.0f}-{max(every):.0f}; baseline: after start-up"),
        ]
