"""A first walk through the API with a real redis-server and a real RQ worker."""
from __future__ import annotations

from service.app import create_app
from runtime.context import Context
from tests.platform.helpers import Api, run_queued_jobs


def test_create_join_start_bid_resolve(ctx: Context) -> None:
    api = Api(create_app(ctx).test_client())
    status, created = api.post("/games", {"type": "extreme-ways", "seed": "smoke"})
    assert status == 201, created
    gid, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for name in ("Ann", "Bob", "Cat", "Dan"):
        status, joined = api.post(f"/games/{gid}/players", {"name": name})
        assert status == 201, joined
        tokens[joined["player_id"]] = joined["token"]
    status, started = api.post(f"/games/{gid}/start", token=gm)
    assert status == 200, started
    for i, token in enumerate(tokens.values()):
        status, accepted = api.post(f"/games/{gid}/actions", {"type": "bid", "amount": i + 1}, token=token)
        assert status == 202, accepted
    run_queued_jobs(ctx)
    status, game = api.get(f"/games/{gid}", token=tokens["p1"])
    assert status == 200
    assert game["phase"]["number"] == 2, game["phase"]
    status, audit = api.get(f"/games/{gid}/audit", token=gm)
    assert status == 200 and audit["ok"], audit
