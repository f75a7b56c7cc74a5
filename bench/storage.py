"""Benchmark 5: what storing events costs in Redis, against the raw size of their
payloads; and the API worker's resident memory once many games exist."""
from __future__ import annotations

import time
from typing import Any

from bench.common import Stack, rss_kib, say
from bench.driver import load
from bench.fold import pick_case
from bench.games import make_game
from bench.reads import pad
from bench.report import row
from engines import registry
from eventlog import keys
from service import simulate

TARGET = 3.0


def _streams(redis: Any, game_ids: list[str]) -> dict[str, float]:
    """Bytes Redis holds for these games' streams (MEMORY USAGE, exact), per event, and
    the raw size of the events' JSON payloads."""
    memory = events = payload = 0
    for game_id in game_ids:
        key = keys.events(game_id)
        memory += redis.memory_usage(key, samples=0)
        for _id, fields in redis.xrange(key):
            events += 1
            payload += len(fields[b"e"])
    return {"games": len(game_ids), "events": events, "stream_bytes_per_event": memory / events,
            "payload_bytes_per_event": payload / events, "ratio": memory / payload}


def memory_per_event(stack: Stack, quick: bool) -> dict[str, Any]:
    ctx = stack.context()
    redis = ctx.redis
    redis.config_set("appendonly", "no")  # AOF rewrite buffers would blur used_memory
    before = redis.info("memory")["used_memory"]
    played = []
    for engine in registry.all_latest()[:1] if quick else registry.all_latest():
        for seed in range(1 if quick else 3):
            case = pick_case(engine, quick)
            report = simulate.run(ctx, engine.meta.name, case["players"], f"storage-{seed}",
                                  dict(case.get("options", {})), echo=None)
            played.append(report["game_id"])
    ctx.queue_redis.flushdb()  # the queue's leftovers are not event storage
    after = redis.info("memory")["used_memory"]
    mixed = _streams(redis, played)
    mixed["used_memory_per_event"] = (after - before) / mixed["events"]  # snapshots, tokens, indexes too
    long_game = make_game(ctx, "extreme-ways", 4)
    pad(ctx.store, long_game.game_id, 2_000 if quick else 100_000)
    long = _streams(redis, [long_game.game_id])
    return {"bot_played": mixed, "long_game": long}


def api_memory(stack: Stack, quick: bool) -> dict[str, Any]:
    games = 100 if quick else 10_000
    api = stack.api("service.wsgi:app", name="api-storage")
    api.call("GET", "/v1/game-types")
    before = {pid: rss_kib(pid) for pid in api.worker_pids()}
    began = time.monotonic()
    created = load(api.port, [{"method": "POST", "path": "/v1/games", "body": '{"type": "extreme-ways"}'}],
                   threads=8, duration=300, warmup=0, max_requests=games)
    ids = [m.decode() for m in stack.client.zrange(keys.GAMES, 0, -1)]
    if created["ok"] != games or len(ids) < games:
        raise RuntimeError(f"creating {games} games: {created['statuses']}")
    read = load(api.port, [{"method": "GET", "path": f"/v1/games/{game_id}"} for game_id in ids], threads=8,
                duration=300, warmup=0, max_requests=len(ids))
    if read["ok"] != len(ids):
        raise RuntimeError(f"reading {len(ids)} games: {read['statuses']}")
    after = {pid: rss_kib(pid) for pid in api.worker_pids()}
    say(f"  {games} games created ({created['rps']:.0f}/s) and read once ({read['rps']:.0f}/s) in "
        f"{time.monotonic() - began:.1f}s; worker RSS {before} -> {after} KiB")
    stack.stop(api.process)
    return {"games": games, "rss_kib_before": list(before.values()), "rss_kib_after": list(after.values()),
            "create_rps": created["rps"], "read_rps": read["rps"]}


def run(stack: Stack, quick: bool) -> dict[str, Any]:
    result = {"memory": memory_per_event(stack, quick), "api": api_memory(stack, quick)}
    mixed, long = result["memory"]["bot_played"], result["memory"]["long_game"]
    api = result["api"]
    rss_before, rss_after = max(api["rss_kib_before"]) / 1024, max(api["rss_kib_after"]) / 1024
    result["summary"] = [
        row(f"Redis bytes/event, bot-played ({mixed['events']} events)", mixed["stream_bytes_per_event"], "bytes",
            mixed["payload_bytes_per_event"], mixed["ratio"], f"<= {TARGET}", mixed["ratio"] <= TARGET,
            f"all keys: {mixed['used_memory_per_event']:.0f} bytes/event"),
        row(f"Redis bytes/event, one {long['events']:,}-event log", long["stream_bytes_per_event"], "bytes",
            long["payload_bytes_per_event"], long["ratio"], f"<= {TARGET}", long["ratio"] <= TARGET),
        row(f"API worker RSS after {api['games']:,} games", rss_after, "MiB", rss_before, rss_after / rss_before,
            "report", None, "baseline: the same worker after start-up"),
    ]
    return result
