"""Issue 18 item 4: POST /v1/replays/verify cannot be used to run a server out of memory.

Each API process verifies at most VERIFY_AT_ONCE exports at a time (the rest get 503 busy, their body
unread), and each client address may start VERIFY_PER_MINUTE verifications of large exports a minute (429 with
Retry-After)."""
from __future__ import annotations

from service import api as routes
from tests.platform.helpers import Api


LARGE = {"format": "not-an-export", "padding": "x" * (routes.VERIFY_SMALL + 1)}


def _verify(api: Api, address: str, body: dict | None = None):
    return api.client.post("/v1/replays/verify", json=body or LARGE, environ_base={"REMOTE_ADDR": address})


def test_verifications_are_rate_limited_per_address(api: Api) -> None:
    answers = [_verify(api, "198.51.100.20").status_code for _ in range(routes.VERIFY_PER_MINUTE)]
    assert answers == [422] * routes.VERIFY_PER_MINUTE  # verified (and refused as not an export)
    refused = _verify(api, "198.51.100.20")
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "too_many_requests"
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["RateLimit"].startswith('"verify";r=0;')
    assert _verify(api, "198.51.100.21").status_code == 422  # another address is not held back
    assert _verify(api, "198.51.100.20", {"format": "small"}).status_code == 422  # a small export costs little


def test_at_most_a_few_verifications_run_at_once_per_process(api: Api) -> None:
    held = 0
    try:
        while routes._verifying.acquire(blocking=False):  # as many as are running now
            held += 1
        assert held == routes.VERIFY_AT_ONCE
        busy = _verify(api, "198.51.100.30")
        assert busy.status_code == 503 and busy.get_json()["error"]["code"] == "busy"
        assert busy.headers["Retry-After"] == "5"
    finally:
        for _ in range(held):
            routes._verifying.release()
    assert _verify(api, "198.51.100.30").status_code == 422  # free again
