"""Many clients at once, over HTTP against gunicorn's worker processes."""
from __future__ import annotations

import threading

import requests

from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack
from tests.faults import figures

SPARES_THE_API = True  # the API is only sent concurrent requests


def _events(stack: Stack, game_id: str, gm: str) -> list[dict]:
    status, body = stack.call("GET", f"/games/{game_id}/events?limit=1000", token=gm)
    assert status == 200
    return body["events"]


def _all_at_once(count: int, client) -> list:
    results: list = [None] * count
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        barrier.wait()
        results[index] = client(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_thirty_two_clients_at_once_leave_a_gapless_log(stack: Stack, soak: bool) -> None:
    clients = 128 if soak else 32
    game_id, gm, tokens = create_and_join(stack, "extreme-ways", 16, seed="crowd", deadlines={"bidding": 3600})

    def client(index: int) -> tuple[int, dict]:
        player = f"p{index % 16 + 1}"
        return stack.call("POST", f"/games/{game_id}/actions", {"type": "bid", "amount": 1 + index % 5},
                          token=tokens[player])

    results = _all_at_once(clients, client)
    accepted = [body["seq"] for status, body in results if status == 202]
    assert len(accepted) == clients, [r for r in results if r[0] != 202]
    events = _events(stack, game_id, gm)
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    submitted = [e["seq"] for e in events if e["type"] == "action.submitted"]
    assert sorted(accepted) == submitted  # each accepted action exactly once, nothing else
    receipts = {body["seq"]: body["hash"] for status, body in results}
    assert all(e["hash"] == receipts[e["seq"]] for e in events if e["type"] == "action.submitted")
    figures.record("concurrent clients on one game", clients=clients, accepted=len(accepted), gaps=0)


def test_concurrent_duplicates_across_api_processes_make_one_event(stack: Stack) -> None:
    """The same Idempotency-Key sent by 16 clients at once, spread over gunicorn's processes."""
    game_id, gm, tokens = create_and_join(stack, "extreme-ways", 4, seed="dupes", deadlines={"bidding": 3600})
    url = f"{stack.url}/games/{game_id}/actions"
    headers = {"Authorization": f"Bearer {tokens['p2']}", "Idempotency-Key": "same-order"}

    def client(index: int) -> tuple[int, bytes]:
        response = requests.post(url, json={"type": "bid", "amount": 9}, headers=headers, timeout=30)
        return response.status_code, response.content

    results = _all_at_once(16, client)
    assert {status for status, _ in results} == {202}
    assert len({body for _, body in results}) == 1  # byte for byte the same answer
    submitted = [e for e in _events(stack, game_id, gm) if e["type"] == "action.submitted"]
    assert len(submitted) == 1
    status = requests.post(url, json={"type": "bid", "amount": 10}, headers=headers, timeout=30)
    assert status.status_code == 422 and status.json()["error"]["code"] == "idempotency_key_reused"
    assert len([e for e in _events(stack, game_id, gm) if e["type"] == "action.submitted"]) == 1
