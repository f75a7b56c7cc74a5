"""Deadlines survive a dead scheduler and a wiped queue: the sweeper re-queues every
overdue phase from the log's deadline index, and resolution stays exactly-once."""
from __future__ import annotations

import time
from datetime import datetime

from redis import Redis

from eventlog import keys
from eventlog.store import EventStore
from eventlog import clock
from runtime.config import Settings
from tests.e2e.follow import Logs, outcomes
from tests.e2e.stack import Stack
from tests.faults import figures
from tests.faults.load import signed_up, start_all
from runtime import scheduling

SCHEDULER_LOCK = "rq:scheduler-lock:{queue}"
SPARES_THE_API = True  # workers, their scheduler and the queue are what these tests kill or wipe


def _first_outcomes(settings: Settings, games: list[tuple[str, str]], timeout: float,
                    due_at: datetime | None = None) -> dict[str, tuple[float, list]]:
    """Wait until phase 1 of every game is resolved; lateness (s) and phase numbers resolved, per game.
    Lateness is from the deadline the game started with, or from ``due_at`` (a deadline moved there)."""
    logs = Logs(settings.redis_url).wait([game_id for game_id, _ in games], lambda events: bool(outcomes(events)),
                                         timeout)
    found: dict[str, tuple[float, list]] = {}
    for game_id, events in logs.items():
        resolved = outcomes(events)
        due = due_at or clock.parse(next(e for e in events if e["type"] == "game.started")["data"]["phase"]["deadline"])
        late = (clock.parse(resolved[0]["at"]) - due).total_seconds()
        found[game_id] = (late, [e["data"]["number"] for e in resolved])
    return found


def _check_exactly_once(settings: Settings, games: list[tuple[str, str]]) -> None:
    """Each game's log holds one outcome of phase 1 and none twice (read from the store in one round trip, not
    through the API game by game)."""
    pipe = Redis.from_url(settings.redis_url).pipeline(transaction=False)
    for game_id, _gm in games:
        EventStore.queue_read(pipe, game_id)
    for (game_id, _gm), entries in zip(games, pipe.execute()):
        numbers = [e["data"]["number"] for e in outcomes(EventStore.decode(entries))]
        assert numbers.count(1) == 1 and len(numbers) == len(set(numbers)), (game_id, numbers)


def _batched(queue_redis: Redis, due: dict[str, datetime]) -> int:
    """How many of these games' first phases are in the batch of their deadline's second."""
    pipe = queue_redis.pipeline(transaction=False)
    for game_id, when in due.items():
        pipe.sismember(keys.batch(int(when.timestamp())), scheduling.member(game_id, 1))
    return sum(pipe.execute())


def _lateness(found: dict[str, tuple[float, list]]) -> dict[str, float]:
    late = sorted(v[0] for v in found.values())
    return {"min_s": round(late[0], 2), "p50_s": round(late[len(late) // 2], 2), "max_s": round(late[-1], 2)}


def test_killing_the_scheduler_lock_holder_before_50_deadlines(stack: Stack, settings: Settings,
                                                               soak: bool) -> None:
    count = 200 if soak else 50
    queue_redis = Redis.from_url(settings.queue_url)
    lock = SCHEDULER_LOCK.format(queue=settings.queue_name)
    holder = stack.start_worker("lock-holder")
    waited = time.monotonic() + 30
    while not queue_redis.exists(lock):
        assert time.monotonic() < waited, "the first worker never took the scheduler lock"
        time.sleep(0.1)
    stack.start_worker("survivor")
    games = signed_up(stack, count, deadlines={"bidding": 4})
    start_all(stack, games)
    stack.kill(holder)  # SIGKILL, just before the deadlines: its lock lives on for a minute
    killed_at = clock.now()
    assert queue_redis.exists(lock), "the dead worker's scheduler lock should still be held"
    # The kill came before every deadline and every resolution: each deadline is still in its
    # second's batch, whose first job is still in RQ's scheduled set (none was released), the
    # earliest deadline is after the kill, no log holds an outcome.
    store = EventStore(Redis.from_url(settings.redis_url))
    logs = {game_id: store.read(game_id) for game_id, _ in games}
    due = {game_id: clock.parse(next(e for e in log if e["type"] == "game.started")["data"]["phase"]["deadline"])
           for game_id, log in logs.items()}
    assert _batched(queue_redis, due) == count, "a deadline was not in its batch at the kill"
    scheduled = {j.decode() for j in queue_redis.zrange(f"rq:scheduled:{settings.queue_name}", 0, -1)}
    seconds = {int(when.timestamp()) for when in due.values()}
    assert {scheduling.batch_job_id(second, 0) for second in seconds} <= scheduled, "a batch was released early"
    first_due = min(due.values())
    assert killed_at < first_due, f"the kill came {(killed_at - first_due).total_seconds():.1f} s after a deadline"
    assert not [g for g, log in logs.items() if any(e["type"] == "phase.resolved" for e in log)], \
        "a phase was resolved before the kill"
    found = _first_outcomes(settings, games, timeout=90)
    stack.wait_settled()  # a duplicate left on the queue has run
    _check_exactly_once(settings, games)
    lateness = _lateness(found)
    assert lateness["min_s"] >= 0, "a phase was resolved before its deadline"
    assert lateness["max_s"] < 30, lateness
    figures.record("scheduler-lock holder SIGKILLed before deadlines", deadlines=count, missed=0,
                   resolved_twice=0, killed_before_first_deadline_s=round((first_due - killed_at).total_seconds(), 2),
                   **{f"lateness_{k}": v for k, v in lateness.items()})


def test_a_wiped_queue_loses_no_deadline(stack: Stack, settings: Settings, soak: bool) -> None:
    count = 300 if soak else 100
    stack.start_worker("worker")
    games = signed_up(stack, count, deadlines={"bidding": 4})
    start_all(stack, games)
    queue_redis = Redis.from_url(settings.queue_url)
    store = EventStore(Redis.from_url(settings.redis_url))
    due = {game_id: clock.parse(next(e for e in store.read(game_id) if e["type"] == "game.started")
                                ["data"]["phase"]["deadline"]) for game_id, _ in games}
    batched = _batched(queue_redis, due)
    assert batched == count, f"only {batched} of {count} deadlines were batched before the wipe"
    queue_redis.flushdb()  # every scheduled job, the worker's registrations, the scheduler lock: gone
    found = _first_outcomes(settings, games, timeout=120)
    stack.wait_settled()  # a duplicate left on the queue has run
    _check_exactly_once(settings, games)
    lateness = _lateness(found)
    assert lateness["min_s"] >= 0, "a phase was resolved before its deadline"
    figures.record("queue database wiped with phases pending", pending=count, lost=0, resolved_twice=0,
                   **{f"lateness_{k}": v for k, v in lateness.items()})


def test_a_worker_killed_mid_batch_leaves_its_phases_to_the_sweeper(stack: Stack, settings: Settings) -> None:
    """40 deadlines in one second, two workers: one stalls on its first resolution (the
    fault hook) holding the members it popped, and is SIGKILLed.  The other drains the
    rest of the batch; the sweeper resolves what the dead one held; each phase has one
    outcome and none is early."""
    count = 40  # more than SPLIT[1]: two batch jobs, one for each worker
    queue_redis = Redis.from_url(settings.queue_url)
    redis = Redis.from_url(settings.redis_url)
    lock = SCHEDULER_LOCK.format(queue=settings.queue_name)
    healthy = stack.start_worker("healthy")
    waited = time.monotonic() + 30
    while not queue_redis.exists(lock):  # the healthy one schedules: killing the other loses no release
        assert time.monotonic() < waited, "the first worker never took the scheduler lock"
        time.sleep(0.1)
    doomed = stack.start_worker("doomed", ARBITER_FAULT_PAUSE_BEFORE_APPEND="60")
    while len(queue_redis.smembers(f"rq:workers:{settings.queue_name}")) < 2:
        assert time.monotonic() < waited + 30, "the second worker never started"
        time.sleep(0.1)
    games = signed_up(stack, count, deadlines={"bidding": 3600})
    start_all(stack, games)
    when = clock.parse(clock.after(5))

    def move(game: tuple[str, str]) -> None:
        status, body = stack.call("POST", f"/games/{game[0]}/actions", {
            "type": "gm.extend_deadline", "deadline": clock.iso(when), "reason": "one second for all"}, token=game[1])
        assert status == 202, body

    for game in games:
        move(game)
    assert _batched(queue_redis, {game_id: when for game_id, _ in games}) == count
    waited = time.monotonic() + 30
    while not redis.keys("arbiter:{*}:fault"):
        assert time.monotonic() < waited, "the doomed worker never started resolving"
        assert doomed.poll() is None and healthy.poll() is None, "a worker exited"
        time.sleep(0.05)
    stack.kill(doomed)
    found = _first_outcomes(settings, games, timeout=60, due_at=when)
    stack.wait_settled()  # a duplicate left on the queue has run
    _check_exactly_once(settings, games)
    lateness = _lateness(found)
    assert lateness["min_s"] >= 0, "a phase was resolved before its deadline"
    assert lateness["max_s"] < 15, lateness
    assert "re-queued" in (stack.logs / "healthy.log").read_text(errors="replace"), "the sweeper had nothing to do"
    figures.record("worker SIGKILLed mid-batch (40 deadlines in one second)", deadlines=count, missed=0,
                   resolved_twice=0, **{f"lateness_{k}": v for k, v in lateness.items()})


def test_a_poisoned_game_does_not_stall_the_others(stack: Stack, settings: Settings) -> None:
    """One game's log holds an order its engine cannot fold (corrupt data written straight
    into Redis): its resolution fails, loudly and again and again, while every other game's
    deadlines are kept and the worker lives on."""
    from eventlog.events import seal

    games = signed_up(stack, 4, deadlines={"bidding": 3})
    start_all(stack, games)
    poisoned, healthy = games[0], games[1:]
    store = EventStore(Redis.from_url(settings.redis_url))
    seq, head = store.head(poisoned[0])
    store.append(poisoned[0], seal(seq + 1, head, "action.submitted", "p1",
                                   {"phase": 1, "action": {"type": "bid", "amount": {"not": "a number"}}}))
    worker = stack.start_worker("worker")
    found = _first_outcomes(settings, healthy, timeout=30)
    assert len(found) == len(healthy)
    assert worker.poll() is None, "the worker died on the poisoned game"
    status, body = stack.call("GET", f"/games/{poisoned[0]}/events?limit=1000", token=poisoned[1])
    assert not [e for e in body["events"] if e["type"] == "phase.resolved"]
    status, audit = stack.call("GET", f"/games/{poisoned[0]}/audit", token=poisoned[1])
    assert status == 200 and not audit["ok"] and audit["divergences"][0]["seq"] == seq + 1, audit  # on-call can see why
    # The poisoned game's deadline came with the others', but its failure may be logged after their outcomes (seen
    # once in a loaded run): the log is read until it says so, for as long as the healthy games were given.
    give_up = time.monotonic() + 30
    log = ""
    while time.monotonic() < give_up:
        log = (stack.logs / "worker.log").read_text(errors="replace")
        if poisoned[0] in log and ("Traceback" in log or "failed" in log.lower()):
            break
        time.sleep(0.2)
    assert poisoned[0] in log and ("Traceback" in log or "failed" in log.lower())
    figures.record("a poisoned game among healthy ones", healthy_resolved=len(found), worker_alive=True,
                   **{f"lateness_{k}": v for k, v in _lateness(found).items()})
