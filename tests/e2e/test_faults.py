"""Workers killed for real, and many clients at once."""
from __future__ import annotations

import threading
import time

from redis import Redis

from service.config import Settings
from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack


def _resolved(stack: Stack, game_id: str, gm: str) -> list[dict]:
    status, body = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=gm)
    return [e for e in body["events"] if e["type"] == "phase.resolved"]


def test_a_worker_killed_mid_resolution_leaves_exactly_one_outcome(stack: Stack, settings: Settings) -> None:
    game_id, gm, tokens = create_and_join(stack, "extreme-ways", 4, seed="kill", deadlines={"bidding": 1})
    redis = Redis.from_url(settings.redis_url)
    doomed = stack.start_worker("doomed", ARBITER_FAULT_PAUSE_BEFORE_APPEND="30")
    marker = f"arbiter:{{{game_id}}}:fault"
    deadline = time.monotonic() + 30
    while not redis.exists(marker):
        assert time.monotonic() < deadline, "the worker never started resolving"
        time.sleep(0.05)
    stack.kill(doomed)  # SIGKILL to the worker and its scheduler, mid-resolution
    assert _resolved(stack, game_id, gm) == []
    restarted = time.monotonic()
    stack.start_worker("replacement")
    while not _resolved(stack, game_id, gm):
        assert time.monotonic() - restarted < 15, "not resolved within 15 s of the new worker starting"
        time.sleep(0.1)
    time.sleep(2)  # let any duplicate job run: it must find the phase already resolved
    outcomes = _resolved(stack, game_id, gm)
    assert [e["data"]["number"] for e in outcomes].count(1) == 1
    status, audit = stack.call("GET", f"/games/{game_id}/audit", token=gm)
    assert audit["ok"], audit


def test_thirty_two_clients_at_once_leave_a_gapless_log(stack: Stack, settings: Settings) -> None:
    game_id, gm, tokens = create_and_join(stack, "extreme-ways", 16, seed="crowd", deadlines={"bidding": 3600})
    results: list[tuple[int, dict]] = []
    barrier = threading.Barrier(32)

    def client(index: int) -> None:
        player = f"p{index % 16 + 1}"
        barrier.wait()
        results.append(stack.call("POST", f"/games/{game_id}/actions", {"type": "bid", "amount": 1 + index % 5},
                                  token=tokens[player]))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    accepted = [body["seq"] for status, body in results if status == 202]
    assert len(accepted) == 32, [r for r in results if r[0] != 202]
    status, body = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=gm)
    seqs = [e["seq"] for e in body["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    submitted = [e["seq"] for e in body["events"] if e["type"] == "action.submitted"]
    assert sorted(accepted) == submitted
