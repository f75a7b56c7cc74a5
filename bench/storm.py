"""Benchmark 4: a deadline storm.  Many games whose phase deadlines fall in the same
second, resolved by two real ``arbiter worker`` processes through RQ's scheduler;
baseline: as many no-op jobs scheduled the same way on the same worker class.

Every part has a time box (and the run's budget caps it); each worker class's figures
are stored before anything can raise, so a failure in one never loses the other's.
"""
from __future__ import annotations

import math
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rq import Worker

from bench.common import OutOfTime, Stack, best_of, children, quantile, say
from bench.games import Game, bot_orders, make_game
from bench.report import row
from eventlog import keys
from eventlog import clock
from service import commands
from runtime.scheduling import FAILURE_TTL, JOB_TIMEOUT, RESULT_TTL

TARGET_RATIO = 0.5
TARGET_P99 = 3.0
WORKERS = 2
NOOP_BOX = 60.0     # 1,000 no-op jobs have taken 3-28 s here (on simple workers)
FORK_COUNT = 250    # the fork workers' storm and no-op baseline (a report row): at 22 no-op jobs/s on a loaded
                    # host 1,000 took 46 s of the run's ten minutes
GAMES_BOX = 150.0   # 1,000 resolutions: 5-80 s when nothing hangs; JOB_TIMEOUT (120 s) is what a hang costs
STALL = 30.0        # a work horse alive this long is stuck (a resolution takes 20-150 ms); this long
                    # without one job or phase done, the storm has stalled and waiting on only burns the budget


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


class HorseWatch:
    """Watches the workers' child processes: a fork worker's work horse that lives for
    ``STALL`` seconds is stuck, not slow.  Only watches; the platform's own job timeout
    (``JOB_TIMEOUT``) decides what happens to it, so the storm measures what ships."""

    def __init__(self, processes: list[Any]) -> None:
        self.workers = {p.pid: p for p in processes}
        self.baseline = {c for pid in self.workers for c in children(pid)}  # RQ's scheduler process
        self.first_seen: dict[int, tuple[int, float]] = {}
        self.last_seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="horse-watch", daemon=True)

    def start(self) -> "HorseWatch":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            now = time.monotonic()
            for worker in self.workers:
                for pid in children(worker):
                    if pid not in self.baseline:
                        self.first_seen.setdefault(pid, (worker, now))
                        self.last_seen[pid] = now

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join(timeout=5)
        ages = {pid: self.last_seen[pid] - began for pid, (_worker, began) in self.first_seen.items()}
        stuck = [{"pid": pid, "worker_pid": self.first_seen[pid][0], "alive_s": round(age, 1)}
                 for pid, age in sorted(ages.items()) if age >= STALL]
        return {"horses_seen": len(ages), "longest_horse_s": round(max(ages.values(), default=0.0), 1),
                "stuck_horses": stuck}


class Progress:
    """When to stop waiting for a storm: everything done, its time box over, or nothing
    done for ``STALL`` seconds (a stall: the box would only measure how long it lasts)."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.waiting: int | None = None
        self.since = time.monotonic()
        self.stalled = False

    def stop(self, waiting: int) -> bool:
        now = time.monotonic()
        if waiting != self.waiting:
            self.waiting, self.since = waiting, now
        self.stalled = waiting > 0 and now - self.since >= STALL
        return waiting == 0 or self.stalled or now > self.limit


def _stats(due: float, done: list[float], expected: int) -> dict[str, Any]:
    """Throughput from the first completion to the last (so the scheduler's release delay
    is in the lateness, not in the rate), lateness quantiles, and the longest pause."""
    lateness = sorted(t - due for t in done)
    ordered = sorted(done)
    span = ordered[-1] - ordered[0] if len(ordered) > 1 else float("nan")
    gaps = [(b - a, a - due) for a, b in zip(ordered, ordered[1:])]
    gap, gap_at = max(gaps) if gaps else (float("nan"), float("nan"))
    return {
        "count": len(done),
        "unfinished": expected - len(done),
        "per_second": len(done) / span if span and span > 0 else float("nan"),
        "per_second_from_due": len(done) / (ordered[-1] - due) if ordered else float("nan"),
        "makespan_s": ordered[-1] - due if ordered else float("nan"),
        "lateness_s": {"min": lateness[0] if lateness else float("nan"), "p10": quantile(lateness, 0.1),
                       "p50": quantile(lateness, 0.5), "p90": quantile(lateness, 0.9),
                       "p99": quantile(lateness, 0.99), "max": lateness[-1] if lateness else float("nan")},
        "longest_pause_s": gap, "longest_pause_after_s": gap_at,
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
    progress = Progress(stack.budget.box(NOOP_BOX))
    while not progress.stop(count - ctx.queue_redis.hlen(key)):
        time.sleep(0.2)
    return {**_stats(due, [float(v) for v in ctx.queue_redis.hvals(key)], count), "stalled": progress.stalled}


def _setup_game(stack: Stack) -> tuple[Game, int]:
    ctx = stack.context()
    game = make_game(ctx, "extreme-ways", 4)
    orders = bot_orders(ctx, game)
    for player in ("p1", "p2"):  # two players bid, two miss the deadline and get the default
        if player in orders:
            commands.act(commands.sender(ctx, game.game_id, game.tokens[player], orders[player]))
    return game, ctx.store.head(game.game_id)[0]


def game_storm(stack: Stack, count: int) -> dict[str, Any]:
    ctx = stack.context()
    began = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        games = list(pool.map(lambda _i: _setup_game(stack), range(count)))
    setup_s = time.monotonic() - began
    stack.budget.check("storm: after setting up the games")
    # Moving a deadline is one command of the eight that set a game up: on a loaded machine
    # a fixed margin ran out before the last move (the API refuses a deadline in the past).
    due = math.floor(time.time()) + 2 + math.ceil(max(0.004 * count, setup_s / 3))
    deadline = clock.iso(datetime.fromtimestamp(due, timezone.utc))

    def extend(item: tuple[Game, int]) -> None:
        game, _seq = item
        move = {"type": "gm.extend_deadline", "deadline": deadline, "reason": "bench: deadline storm"}
        commands.act(commands.sender(ctx, game.game_id, game.gm_token, move))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(extend, games))
    if time.time() >= due:
        raise RuntimeError("moving the deadlines took longer than the margin before the storm")
    say(f"  {count} games set up in {setup_s:.1f}s; all deadlines at {deadline}")
    expected = {game.game_id: seq + 2 for game, seq in games}  # the extension, then the outcome
    progress = Progress(stack.budget.box(GAMES_BOX))
    pending = dict(expected)
    while True:  # only games not yet resolved are polled: the observer should not load the workers' cores
        pipe = ctx.redis.pipeline(transaction=False)
        for game_id in pending:
            pipe.xlen(keys.events(game_id))
        lengths = pipe.execute()
        pending = {game_id: want for (game_id, want), have in zip(pending.items(), lengths) if have < want}
        if progress.stop(len(pending)):
            break
        time.sleep(0.25)
    time.sleep(1.0)  # let a duplicate resolution, if the platform made one, land before we count
    done, duplicates, wrong = [], 0, 0
    for game_id, want in expected.items():
        resolved = [e for e in ctx.store.read(game_id, after=want - 2) if e["type"] == "phase.resolved"]
        first = [e for e in resolved if e["data"]["number"] == 1]
        duplicates += max(0, len(first) - 1)
        if not first:
            continue  # unfinished: counted by _stats
        if first[0]["seq"] != want or first[0]["data"]["trigger"] != "deadline":
            wrong += 1
            continue
        # ``at`` is stamped when the worker seals the event: after the engine resolved
        # the phase, just before the conditional append.
        done.append(clock.parse(first[0]["at"]).timestamp())
    result = _stats(due, done, count - wrong)
    # The platform batches deadlines per second (workers/scheduling.py): how many RQ jobs
    # this storm's second took, against the baseline's one per job.
    result.update(setup_s=setup_s, duplicates=duplicates, not_as_expected=wrong, box_s=GAMES_BOX,
                  stalled=progress.stalled, rq_jobs=ctx.queue_redis.scard(keys.batch_jobs(due)))
    return result


# RQ's two ways of logging a job that did not succeed: its work horse died (killed, or
# timed out by the fork worker), or the job raised (JobTimeoutException included); and a
# batch job's way of logging one of its phases that failed (the job itself goes on).
_FAILED_JOB = re.compile(r"job (\S+)(?: failed \(|: exception raised while executing)"
                         r"|game (\S+ phase \d+): resolution failed")


def _worker_logs(stack: Stack, worker_class: str) -> dict[str, Any]:
    """What the workers logged: sweeper re-queues, and jobs that failed or timed out."""
    requeues, failed, examples = 0, set(), []
    for log in sorted(Path(stack.workdir).glob(f"storm-{worker_class}-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            requeues += "re-queued" in line
            match = _FAILED_JOB.search(line)
            if match:
                failed.add(match.group(1) or match.group(2))
                if len(examples) < 3:
                    examples.append(line[:240])
    return {"sweeper_requeues": requeues, "failed_jobs": len(failed), "failed_examples": examples}


def serializer_cost(repeats: int = 3, n: int = 20_000) -> dict[str, float]:
    """What RQ's serializer costs per resolution job: the job's data (function name and
    ids) dumped on enqueue and loaded by the worker, and its result dumped and loaded.
    JSON is the platform's choice for safety (nothing on the queue is unpickled); this
    shows what that choice costs against pickle, per job."""
    from rq.serializers import DefaultSerializer, JSONSerializer

    payload = ("workers.jobs.resolve_phase", None, ["g0123456789abcdef", 1], {})
    outcome = "resolved (deadline)"

    def cycle(serializer: Any) -> None:
        for _ in range(n):
            serializer.loads(serializer.dumps(payload))
            serializer.loads(serializer.dumps(outcome))

    json_s, _ = best_of(repeats, lambda: cycle(JSONSerializer))
    pickle_s, _ = best_of(repeats, lambda: cycle(DefaultSerializer))
    return {"json_us_per_job": json_s / n * 1e6, "pickle_us_per_job": pickle_s / n * 1e6}


def _one_class(stack: Stack, worker_class: str, count: int, quick: bool, entry: dict[str, Any],
               samples: dict[str, list[float]]) -> None:
    """Both storms on one worker class; figures land in ``entry`` as soon as they exist."""
    stack.budget.check(f"storm ({worker_class})")
    # Each class starts from an empty database, as a fresh deployment would: the other
    # class's games (and the engines their phases made its workers import) must not
    # change what this one measures.
    stack.client.flushdb()
    stack.context().queue_redis.flushdb()
    processes = _start_workers(stack, worker_class, settle=0.5 if quick else 2.0)
    watch = HorseWatch(processes).start()
    try:
        say(f"storm ({worker_class} workers): {count} no-op jobs, then {count} games, deadlines in one second")
        noop = noop_storm(stack, count, worker_class)
        samples[f"{worker_class}: no-op jobs"] = noop.pop("samples")
        entry["noop"] = noop
        say(f"  no-op: {noop['per_second']:.0f} jobs/s, lateness p50 {noop['lateness_s']['p50']:.2f}s "
            f"p99 {noop['lateness_s']['p99']:.2f}s")
        if noop["unfinished"]:
            why = f"none ran for {STALL:.0f} s" if noop["stalled"] else f"{NOOP_BOX:.0f} s or the run's budget ran out"
            raise OutOfTime(f"{noop['unfinished']} no-op jobs had not run ({why})")
        games = game_storm(stack, count)
        samples[f"{worker_class}: resolutions"] = games.pop("samples")
        entry["games"] = games
        entry["ratio"] = games["per_second"] / noop["per_second"]
        say(f"  games: {games['per_second']:.0f} resolutions/s, lateness p50 {games['lateness_s']['p50']:.2f}s "
            f"p99 {games['lateness_s']['p99']:.2f}s max {games['lateness_s']['max']:.2f}s, early {games['early']}, "
            f"longest pause {games['longest_pause_s']:.1f}s, {games['rq_jobs']} RQ batch jobs")
    finally:
        entry["horses"] = watch.stop()
        stack.stop(*processes)
        entry["worker_logs"] = _worker_logs(stack, worker_class)
    problems = []
    if games["unfinished"]:
        why = (f"none for {STALL:.0f} s: stalled" if games["stalled"]
               else f"not within {GAMES_BOX:.0f} s or the run's budget")
        problems.append(f"{games['unfinished']} of {count} phases not resolved ({why})")
    if games["not_as_expected"] or games["duplicates"] or games["early"]:
        problems.append(f"{games['not_as_expected']} phases not resolved as expected, {games['duplicates']} "
                        f"resolved twice, {games['early']} before their deadline")
    if entry["worker_logs"]["failed_jobs"]:
        problems.append(f"{entry['worker_logs']['failed_jobs']} jobs failed or timed out in the workers: "
                        f"{entry['worker_logs']['failed_examples'][:1]}")
    if entry["horses"]["stuck_horses"]:
        problems.append(f"{len(entry['horses']['stuck_horses'])} work horses stuck for {STALL:.0f} s or more")
    if problems:
        raise RuntimeError(f"{worker_class}: " + "; ".join(problems))


def _over(value: float, baseline: float) -> float | None:
    """A lateness against the no-op jobs' (RQ's own release delay and queueing), where that is above zero."""
    return value / baseline if baseline > 0 else None


def _summary(result: dict[str, Any]) -> list[dict[str, Any]]:
    lines = []
    main = result["classes"].get("simple", {})
    if "games" in main:
        g, n = main["games"], main["noop"]
        lines += [
            row("storm: resolutions/s (simple)", g["per_second"], "per s", n["per_second"], main["ratio"],
                f">= {TARGET_RATIO}", main["ratio"] >= TARGET_RATIO, "first to last completion"),
            row("storm: lateness p50 (simple)", g["lateness_s"]["p50"], "s", n["lateness_s"]["p50"],
                _over(g["lateness_s"]["p50"], n["lateness_s"]["p50"])),
            row("storm: lateness p99 (simple)", g["lateness_s"]["p99"], "s", n["lateness_s"]["p99"],
                _over(g["lateness_s"]["p99"], n["lateness_s"]["p99"]),
                f"< {TARGET_P99}", g["lateness_s"]["p99"] < TARGET_P99),
            row("storm: lateness max (simple)", g["lateness_s"]["max"], "s", n["lateness_s"]["max"],
                _over(g["lateness_s"]["max"], n["lateness_s"]["max"])),
            row("storm: resolved before deadline", float(g["early"]), "phases", None, None, "= 0", g["early"] == 0),
            row("storm: phases unresolved (simple)", float(g["unfinished"]), "phases", None, None, "= 0",
                g["unfinished"] == 0),
        ]
    fork = result["classes"].get("fork", {})
    if "games" in fork:
        g, n = fork["games"], fork["noop"]
        stuck = len(fork.get("horses", {}).get("stuck_horses", []))
        how = "stalled" if g["stalled"] else "stopped"
        lines += [
            row("storm: resolutions/s (fork)", g["per_second"], "per s", n["per_second"], fork["ratio"], "report",
                None, f"{g['count']} of {result['counts']['fork']} resolved"
                + (f" before {how}" if g["unfinished"] else "")),
            row("storm: lateness p99 (fork)", None if g["unfinished"] else g["lateness_s"]["p99"], "s",
                n["lateness_s"]["p99"],
                None if g["unfinished"] else _over(g["lateness_s"]["p99"], n["lateness_s"]["p99"]), "report", None,
                f"longest pause {g['longest_pause_s']:.1f} s; longest work horse "
                f"{fork.get('horses', {}).get('longest_horse_s', 0):.1f} s"),
            row("storm: phases unresolved (fork)", float(g["unfinished"]), "phases", None, None, "= 0",
                g["unfinished"] == 0, f"{stuck} work horses stuck >= {STALL:.0f} s; "
                f"{fork.get('worker_logs', {}).get('failed_jobs', 0)} jobs failed or timed out"),
        ]
    if "serializer" in result:
        s = result["serializer"]
        lines.append(row("RQ serializer per job: JSON vs pickle", s["json_us_per_job"], "us",
                         s["pickle_us_per_job"], s["json_us_per_job"] / s["pickle_us_per_job"], "report", None,
                         "dumps+loads of a resolution job's data and result"))
    return lines


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    count = 10 if quick else 1000
    classes = ["simple"] if quick else ["simple", "fork"]
    result.update(games=count, workers=WORKERS, classes={}, lateness_samples={}, counts={})
    result["serializer"] = serializer_cost(repeats=1 if quick else 3, n=2_000 if quick else 20_000)
    errors = []
    for worker_class in classes:
        entry = result["classes"].setdefault(worker_class, {})
        size = result["counts"][worker_class] = min(count, FORK_COUNT) if worker_class == "fork" else count
        try:
            _one_class(stack, worker_class, size, quick, entry, result["lateness_samples"])
        except Exception as exc:  # the other class still runs, and this one's figures stay
            entry["error"] = f"{type(exc).__name__}: {exc}"
            errors.append(str(exc))
            say(f"  {worker_class}: {entry['error']}")
        result["summary"] = _summary(result)
    if errors:
        raise RuntimeError(" | ".join(errors))
