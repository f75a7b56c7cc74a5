"""Issue 18 item 2: a frozen Redis (SIGSTOP, or a network partition) never hangs a request.

Every request, ``/v1/health`` included, answers 503 ``store_unavailable`` within 2 s of the store
freezing, every time; the sweeper's round ends with an error within that time too; and the
service is whole again once Redis goes on."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest
import requests

from cli import embedded_redis
from runtime.config import Settings
from runtime.context import Context
from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack
from tests.faults import figures
from workers import sweeper

LIMIT_S = 2.0


@pytest.fixture()
def frozen(tmp_path: Path) -> Iterator[tuple[Stack, embedded_redis.EmbeddedRedis]]:
    server = embedded_redis.start(tmp_path / "redis", aof=False)
    settings = Settings(redis_url=server.url, queue_url=server.url.rsplit("/", 1)[0] + "/1",
                        queue_name="arbiter-frozen", admin_token=None, max_body_bytes=64 * 1024)
    stack = Stack(settings, tmp_path)
    try:
        stack.start_api()
        yield stack, server
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        stack.stop()
        server.stop()


def _timed(method: str, url: str, **kwargs: object) -> tuple[float, requests.Response]:
    began = time.monotonic()
    response = requests.request(method, url, timeout=15, **kwargs)
    return time.monotonic() - began, response


def test_every_request_answers_503_within_two_seconds_of_a_frozen_store(frozen) -> None:
    stack, server = frozen
    game_id, gm, tokens = create_and_join(stack, "extreme-ways", 2)
    token = tokens["p1"]
    base = stack.url
    requests_to_try = [
        ("GET", f"{base}/health", {}),
        ("GET", f"{base}/games/{game_id}", {"headers": {"Authorization": f"Bearer {token}"}}),
        ("POST", f"{base}/games/{game_id}/actions", {"json": {"type": "bid", "amount": 1},
                                                     "headers": {"Authorization": f"Bearer {token}"}}),
        ("GET", f"{base}/games/{game_id}/events", {}),
        ("POST", f"{base}/games/{game_id}/players", {"json": {"name": "Late"}}),
        ("POST", f"{base}/games", {"json": {"type": "extreme-ways"}}),
    ]
    os.kill(server.process.pid, signal.SIGSTOP)
    times: list[float] = []
    try:
        # Every time, not only on the first request of a connection: three rounds, each of every kind of request
        # at once (one after another, the rounds waited out the store's timeout eighteen times).
        with ThreadPoolExecutor(len(requests_to_try)) as pool:
            for _round in range(3):
                answers = pool.map(lambda request: (request, *_timed(request[0], request[1], **request[2])),
                                   requests_to_try)
                for (method, url, _kwargs), took, response in answers:
                    assert response.status_code == 503, (url, response.status_code, response.text)
                    assert response.json()["error"]["code"] == "store_unavailable", response.text
                    assert took < LIMIT_S, (method, url, took)
                    times.append(took)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    figures.record("frozen store (SIGSTOP)", requests=len(times), all_503=True,
                   slowest_s=round(max(times), 2), median_s=round(sorted(times)[len(times) // 2], 2), limit_s=LIMIT_S)
    took, response = _timed("GET", f"{base}/health")
    assert response.status_code == 200, response.text
    took, response = _timed("GET", f"{base}/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200 and response.json()["status"] == "running"


def test_the_sweeper_gives_up_a_round_within_two_seconds_of_a_frozen_store(frozen) -> None:
    stack, server = frozen
    create_and_join(stack, "extreme-ways", 2)
    ctx = Context(stack.settings)
    sweeper.sweep_once(ctx)  # connected, and working
    outcome: list[object] = []

    def sweep() -> None:
        try:
            outcome.append(sweeper.sweep_once(ctx))
        except Exception as exc:  # the error is what is expected here
            outcome.append(exc)

    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        thread = threading.Thread(target=sweep, daemon=True)
        began = time.monotonic()
        thread.start()
        thread.join(timeout=10)
        assert not thread.is_alive(), "the sweeper hung on a frozen store"
        assert time.monotonic() - began < LIMIT_S
        assert isinstance(outcome[0], Exception), outcome
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    assert sweeper.sweep_once(ctx) == []  # and works again once Redis goes on
