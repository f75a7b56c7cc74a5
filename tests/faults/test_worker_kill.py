"""Workers killed for real (SIGKILL) in the middle of a resolution, again and again.

The fault hook ARBITER_FAULT_PAUSE_BEFORE_APPEND (workers/resolution.py) marks the game
and stalls after the outcome is computed and before it is appended: the worst moment.
Every phase has an hour-long deadline (the deadline-triggered rounds have theirs moved
to a second or two ahead by the GM), so recovery can come only from the sweeper noticing the
lost resolution, never from a short deadline passing.
"""
from __future__ import annotations

import signal
import time

from redis import Redis

from eventlog import clock, keys
from runtime.config import Settings
from tests.e2e.follow import Logs, outcomes
from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack
from tests.faults import figures

TRIGGERS = ("deadline", "early", "gm")  # how the doomed resolution was started, round by round
RESTART_BUDGET = 15.0  # seconds from the next worker starting to the phase being resolved
SPARES_THE_API = True  # only workers are killed


def resolved(stack: Stack, game_id: str, gm: str) -> list[dict]:
    status, body = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=gm)
    assert status == 200, body
    return [e for e in body["events"] if e["type"] == "phase.resolved"]


def test_workers_killed_mid_resolution_leave_exactly_one_outcome(stack: Stack, settings: Settings,
                                                                 soak: bool) -> None:
    rounds = 100 if soak else 2 * len(TRIGGERS)  # each way of starting the doomed resolution, twice
    redis = Redis.from_url(settings.redis_url)
    logs = Logs(settings.redis_url)
    recoveries: list[float] = []
    games: list[tuple[str, str]] = []
    for index in range(rounds):
        doomed = stack.start_worker(f"doomed-{index}", ARBITER_FAULT_PAUSE_BEFORE_APPEND="60")
        game_id, gm, tokens = create_and_join(stack, "extreme-ways", 3, seed=f"kill-{index}",
                                              deadlines={"bidding": 3600})
        games.append((game_id, gm))
        trigger = TRIGGERS[index % len(TRIGGERS)]
        if trigger == "deadline":
            soon = clock.after(1)  # a whole second, one or two from now
            status, body = stack.call("POST", f"/games/{game_id}/actions",
                                      {"type": "gm.extend_deadline", "deadline": soon, "reason": "short round"},
                                      token=gm)
            assert status == 202, body
        elif trigger == "early":  # everyone has bid: the resolution is queued at once
            for token in tokens.values():
                status, body = stack.call("POST", f"/games/{game_id}/actions", {"type": "bid", "amount": 1},
                                          token=token)
                assert status == 202, body
        elif trigger == "gm":
            status, body = stack.call("POST", f"/games/{game_id}/actions", {"type": "gm.resolve_now", "reason": "now"},
                                      token=gm)
            assert status == 202, body
        marker = keys.fault(game_id)
        waited = time.monotonic() + 30
        while not redis.exists(marker):
            assert time.monotonic() < waited, f"round {index}: the worker never started resolving"
            assert doomed.poll() is None, f"round {index}: the doomed worker exited early"
            time.sleep(0.05)
        stack.kill(doomed)  # SIGKILL to the worker and its scheduler, between outcome and append
        redis.delete(marker)
        assert resolved(stack, game_id, gm) == [], f"round {index}: the killed worker recorded an outcome"
        started = time.monotonic()
        replacement = stack.start_worker(f"replacement-{index}")
        logs.wait([game_id], lambda events: bool(outcomes(events)), RESTART_BUDGET)
        recoveries.append(time.monotonic() - started)
        # Park the game so nothing of it competes with the next round's kill.
        status, body = stack.call("POST", f"/games/{game_id}/actions", {"type": "gm.pause", "reason": "parked"},
                                  token=gm)
        assert status in (202, 409), body
        stack.kill(replacement, signal.SIGTERM)
    # Any job left behind by a killed worker (started registry, sweeper re-queues) may run
    # again now: it must find every phase already resolved.
    stack.start_worker("cleanup")
    stack.wait_settled()
    for game_id, gm in games:
        numbers = [e["data"]["number"] for e in resolved(stack, game_id, gm)]
        assert numbers.count(1) == 1 and len(numbers) == len(set(numbers)), (game_id, numbers)
        status, audit = stack.call("GET", f"/games/{game_id}/audit", token=gm)
        assert status == 200 and audit["ok"], audit
    figures.record("worker SIGKILL mid-resolution", kills=rounds, outcomes_per_phase=1,
                   recovery_p50_s=round(figures.percentile(recoveries, 50), 2),
                   recovery_max_s=round(max(recoveries), 2), budget_s=RESTART_BUDGET)
