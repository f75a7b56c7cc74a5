"""Benchmark 4: a deadline storm.  Many games whose phase deadlines fall in the same
second, resolved by two real ``arbiter worker`` processes through RQ's scheduler;
baseline: as many no-op jobs scheduled the same way on the same worker class."""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rq import Worker

from bench.common import Stack, quantile, say
from bench.games import Game, bot_orders, gm_caller, make_game
from bench.report import row
from eventlog import keys
from service import clock, commands
from service.auth import Caller, digest
from workers.scheduling import FAILURE_TTL, JOB_TIMEOUT, RESULT_TTL

TARGET_RATIO = 0.5
TARGET_P99 = 3.0
WORKERS = 2


def _start_workers(stack: Stack, worker_class: str, settle: float = 2.0) -> list[Any]:
    processes = [stack.worker(f"storm-{worker_class}-{i}", worker_class) for i in range(WORKERS)]
    queue_redis = stack.context().queue_redis
    deadline = time.monotonic() + 60
    while len(Worker.all(connection=queue_redis)) < WORKERS:
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            raise RuntimeError(f"{worker_class} workers did not start; see {stack.workdir}")
        time.sleep(0.2)
    time.sleep(settle)  # one of them takes the scheduler lock and starts its first poll
    return processes


def _stats(due: float, done: list[float]) -> dict[str, Any]:
    lateness = [t - due for t in done]
    span = max(done) - min(done) if len(done) > 1 else float("nan")
    return {
        "count": len(done),
        "per_second": len(done) / span if span and span > 0 else float("nan"),
        "makespan_s": max(done) - due,
        "lateness_s": {"p50": quantile(lateness, 0.5), "p99": quantile(lateness, 0.99), "max": max(lateness),
                       "min": min(lateness)},
        "early": sum(1 for x in lateness if x < 0),
        "samples": lateness,
    }


def noop_storm(stack: Stack, count: int, tag: str) -> dict[str, Any]:
    ctx = stack.context()
    key = f"bench:noop:{tag}"
    due = math.floor(time.time()) + 2 + math.ceil(0.002 * count)
    when = datetime.fromtimestamp(due, timezone.utc)
    for index in range(count):
        ctx.queue.enqueue_at(when, "bench.jobs.noop", key, index, job_id=f"noop-{tag}-{index}", unique=True,
                             result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL, job_timeout=JOB_TIMEOUT)
    if time.time() >= due:
        raise RuntimeError("scheduling the no-op jobs took longer than the margin before their deadline")
    limit = time.monotonic() + 120
    while ctx.queue_redis.hlen(key) < count:
        if time.monotonic() > limit:
            raise RuntimeError(f"only {ctx.queue_redis.hlen(key)} of {count} no-op jobs ran within 120 s")
        time.sleep(0.2)
    done = [float(v) for v in ctx.queue_redis.hvals(key)]
    return _stats(due, done)


def _setup_game(stack: Stack) -> tuple[Game, int]:
    ctx = stack.context()
    game = make_game(ctx, "extreme-ways", 4)
    orders = bot_orders(ctx, game)
    for player in ("p1", "p2"):  # two players bid, two miss the deadline and get the default
        if player in orders:
            commands.act(ctx, game.game_id, Caller("player", player, digest(game.tokens[player])), orders[player])
    return game, ctx.store.head(game.game_id)[0]


def game_storm(stack: Stack, count: int) -> dict[str, Any]:
    ctx = stack.context()
    began = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        games = list(pool.map(lambda _i: _setup_game(stack), range(count)))
    setup_s = time.monotonic() - began
    due = math.floor(time.time()) + 2 + math.ceil(0.004 * count)
    deadline = clock.iso(datetime.fromtimestamp(due, timezone.utc))

    def extend(item: tuple[Game, int]) -> None:
        game, _seq = item
        commands.act(ctx, game.game_id, gm_caller(game),
                     {"type": "gm.extend_deadline", "deadline": deadline, "reason": "bench: deadline storm"})

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(extend, games))
    if time.time() >= due:
        raise RuntimeError("moving the deadlines took longer than the margin before the storm")
    say(f"  {count} games set up in {setup_s:.1f}s; all deadlines at {deadline}")
    expected = {game.game_id: seq + 2 for game, seq in games}  # the extension, then the outcome
    limit = time.monotonic() + 180
    while True:
        pipe = ctx.redis.pipeline(transaction=False)
        for game_id in expected:
            pipe.xlen(keys.events(game_id))
        lengths = pipe.execute()
        waiting = sum(1 for (game_id, want), have in zip(expected.items(), lengths) if have < want)
        if not waiting:
            break
        if time.monotonic() > limit:
            raise RuntimeError(f"{waiting} of {count} phases were not resolved within 180 s of the storm")
        time.sleep(0.25)
    time.sleep(1.0)  # let a duplicate resolution, if the platform made one, land before we count
    done, duplicates, wrong = [], 0, 0
    for game_id, want in expected.items():
        resolved = [e for e in ctx.store.read(game_id, after=want - 2) if e["type"] == "phase.resolved"]
        first = [e for e in resolved if e["data"]["number"] == 1]
        duplicates += max(0, len(first) - 1)
        if not first or first[0]["seq"] != want or first[0]["data"]["trigger"] != "deadline":
            wrong += 1
            continue
        done.append(clock.parse(first[0]["at"]).timestamp())
    result = _stats(due, done)
    result.update(setup_s=setup_s, duplicates=duplicates, not_as_expected=wrong)
    return result


def _requeued(stack: Stack, worker_class: str) -> int:
    count = 0
    for log in Path(stack.workdir).glob(f"storm-{worker_class}-*.log"):
        count += log.read_text(errors="replace").count("re-queued")
    return count


def run(stack: Stack, quick: bool) -> dict[str, Any]:
    count = 10 if quick else 1000
    classes = ["simple"] if quick else ["simple", "fork"]
    result: dict[str, Any] = {"games": count, "workers": WORKERS, "classes": {}, "lateness_samples": {}}
    for worker_class in classes:
        processes = _start_workers(stack, worker_class, settle=0.5 if quick else 2.0)
        say(f"storm ({worker_class} workers): {count} no-op jobs, then {count} games, deadlines in one second")
        noop = noop_storm(stack, count, worker_class)
        say(f"  no-op: {noop['per_second']:.0f} jobs/s, lateness p50 {noop['lateness_s']['p50']:.2f}s "
            f"p99 {noop['lateness_s']['p99']:.2f}s")
        games = game_storm(stack, count)
        say(f"  games: {games['per_second']:.0f} resolutions/s, lateness p50 {games['lateness_s']['p50']:.2f}s "
            f"p99 {games['lateness_s']['p99']:.2f}s max {games['lateness_s']['max']:.2f}s, early {games['early']}")
        games["sweeper_requeues"] = _requeued(stack, worker_class)
        for process in processes:
            stack.stop(process)
        result["lateness_samples"][f"{worker_class}: resolutions"] = games.pop("samples")
        result["lateness_samples"][f"{worker_class}: no-op jobs"] = noop.pop("samples")
        if games["not_as_expected"] or games["duplicates"]:
            raise RuntimeError(f"{worker_class}: {games['not_as_expected']} phases not resolved as expected, "
                               f"{games['duplicates']} resolved twice")
        result["classes"][worker_class] = {"noop": noop, "games": games,
                                           "ratio": games["per_second"] / noop["per_second"]}
    main = result["classes"]["simple"]
    g, n = main["games"], main["noop"]
    result["summary"] = [
        row("storm: resolutions/s (simple)", g["per_second"], "per s", n["per_second"], main["ratio"],
            f">= {TARGET_RATIO}", main["ratio"] >= TARGET_RATIO),
        row("storm: lateness p50 (simple)", g["lateness_s"]["p50"], "s", n["lateness_s"]["p50"]),
        row("storm: lateness p99 (simple)", g["lateness_s"]["p99"], "s", n["lateness_s"]["p99"], None,
            f"< {TARGET_P99}", g["lateness_s"]["p99"] < TARGET_P99),
        row("storm: lateness max (simple)", g["lateness_s"]["max"], "s", n["lateness_s"]["max"]),
        row("storm: resolved before deadline", float(g["early"]), "phases", None, None, "= 0", g["early"] == 0),
    ]
    if "fork" in result["classes"]:
        fork = result["classes"]["fork"]
        result["summary"].append(row("storm: resolutions/s (fork)", fork["games"]["per_second"], "per s",
                                     fork["noop"]["per_second"], fork["ratio"], "report", None,
                                     f"p99 lateness {fork['games']['lateness_s']['p99']:.1f}s"))
    return result
