"""Benchmark 2: reading a game's state, for the same game type with short and very
long logs.  Snapshots and the process cache should make a read cost O(new events),
not O(log length)."""
from __future__ import annotations

import statistics
import time
from typing import Any

from bench.common import Stack, best_of, say, spread
from bench.driver import load
from bench.games import make_game
from bench.report import row
from eventlog import keys
from eventlog.events import seal
from eventlog.store import EventStore
from replays.fold import fold
from replays.loader import GameLoader

TARGET = 1.5
STORAGE_TARGET = 3.0  # benchmark 5's: a stream's bytes per event against its events' JSON
TAIL = 32  # events after the last snapshot: half the snapshot interval, the average a cold process folds


def stream_bytes(redis: Any, game_ids: list[str]) -> dict[str, float]:
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


def pad(store: EventStore, game_id: str, upto: int, batch: int = 1000) -> None:
    """Grow a running Extreme Ways game to ``upto`` events of replaced sealed bids, each
    a valid order appended through the store's own conditional-append script (pipelined)."""
    seq, head = store.head(game_id)
    bidders = ["p1", "p2", "p3"]
    while seq < upto:
        pipe = store.redis.pipeline(transaction=False)
        count = min(batch, upto - seq)
        for _ in range(count):
            seq += 1
            actor = bidders[seq % 3]
            event = seal(seq, head, "action.submitted", actor,
                         {"phase": 1, "action": {"type": "bid", "amount": seq % 7}})
            store.queue_append(pipe, game_id, event)
            head = event["hash"]
        replies = pipe.execute()
        if any(r[0] != b"ok" for r in replies):
            raise RuntimeError(f"padding {game_id}: an append was refused: {replies[0]}")
    if store.head(game_id) != (upto, head):
        raise RuntimeError(f"padding {game_id}: the log does not end where it should")


def build(stack: Stack, length: int, refold: bool = True) -> dict[str, Any]:
    """A running Extreme Ways game of ``length`` events, a snapshot ``TAIL`` events behind its head; with
    ``refold``, also timed: folding the whole log, and a new process's load (snapshot and tail)."""
    ctx = stack.context()
    game = make_game(ctx, "extreme-ways", 4)
    store = ctx.store
    began = time.perf_counter()
    pad(store, game.game_id, length - TAIL)
    # What the API's loader leaves behind for a long-lived game: a snapshot, then a tail.
    GameLoader(store).load(game.game_id)
    pad(store, game.game_id, length)
    say(f"  built a {length:,}-event game in {time.perf_counter() - began:.1f}s")
    built = {"events": length, "game_id": game.game_id, "token": game.tokens["p1"]}
    if not refold:
        return built
    refold_s, record = best_of(1 if length > 20_000 else 3, lambda: fold(store.read(game.game_id)))
    assert record["seq"] == length
    cold_s, cold = best_of(20, lambda: GameLoader(store).load(game.game_id))
    assert cold["head_hash"] == record["head_hash"]
    return {**built, "refold_ms": refold_s * 1000, "cold_load_ms": cold_s * 1000}


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    lengths = [100, 500] if quick else [100, 1_000, 10_000, 100_000]
    least, most = (1, 1) if quick else (2, 3)
    duration = 0.5 if quick else stack.budget.sized(2.0, 1.0)
    threads = 4
    games = [build(stack, n) for n in lengths]
    # Benchmark 5's figure for one long log, measured here where the log is built (building it takes 20 s).
    memory = stream_bytes(stack.client, [games[-1]["game_id"]])
    api = stack.api("service.wsgi:app", name="api-reads")
    samples: dict[int, list[dict[str, Any]]] = {g["events"]: [] for g in games}
    index, each = 0, 0.0
    while stack.budget.more(index, least, most, each):
        began = time.monotonic()
        for game in games if index % 2 == 0 else list(reversed(games)):
            request = {"method": "GET", "path": f"/v1/games/{game['game_id']}",
                       "headers": {"Authorization": f"Bearer {game['token']}"}}
            measured = load(api.port, [request], threads=threads, duration=duration,
                            warmup=min(0.5, duration), quick=quick)
            if measured["ok"] != measured["requests"] or not measured["ok"]:
                raise RuntimeError(f"reads of the {game['events']}-event game failed: {measured['statuses']}")
            say(f"  reads round {index + 1}, {game['events']:,} events: {measured['rps']:.0f} req/s, "
                f"p50 {measured['latency_ms']['p50']:.2f} ms")
            samples[game["events"]].append(measured)
        index, each = index + 1, time.monotonic() - began
    curve = []
    for game in games:
        runs = samples[game["events"]]
        rps = [r["rps"] for r in runs]
        curve.append({"events": game["events"], "rps": spread(rps),
                      "http_ms": 1000 / statistics.median(rps),  # server cost per read at saturation
                      "p50_ms": statistics.median(r["latency_ms"]["p50"] for r in runs),
                      "refold_ms": game["refold_ms"], "cold_load_ms": game["cold_load_ms"]})
    short, long = curve[0], curve[-1]
    ratios = [s["rps"] / lg["rps"] for s, lg in zip(samples[short["events"]], samples[long["events"]])]
    ratio = statistics.median(ratios)
    cold_ratio = long["cold_load_ms"] / short["cold_load_ms"]
    summary = [
        row(f"GET game, {long['events']:,} vs {short['events']} events", long["http_ms"], "ms/read (cost)",
            short["http_ms"], ratio, f"<= {TARGET}", ratio <= TARGET,
            f"{short['rps']['median']:.0f} vs {long['rps']['median']:.0f} req/s; range {min(ratios):.2f}-"
            f"{max(ratios):.2f}"),
        row("new process: snapshot + tail", long["cold_load_ms"], "ms", short["cold_load_ms"], cold_ratio,
            "report", None, f"tail of {TAIL} events"),
        row(f"without snapshots: fold {long['events']:,} events", long["refold_ms"], "ms", short["refold_ms"],
            long["refold_ms"] / short["refold_ms"], "report", None),
        row(f"Redis bytes/event, one {long['events']:,}-event log", memory["stream_bytes_per_event"], "bytes",
            memory["payload_bytes_per_event"], memory["ratio"], f"<= {STORAGE_TARGET}",
            memory["ratio"] <= STORAGE_TARGET, "benchmark 5's (storage) figure, on this benchmark's longest game"),
    ]
    result.update(curve=curve, ratio=ratio, ratios=ratios, target=TARGET, threads=threads, long_game_memory=memory,
                  tail_after_snapshot=TAIL, summary=summary)
