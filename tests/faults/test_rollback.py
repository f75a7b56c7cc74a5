"""Issue 18 item 1: a log that went back (a Redis rollback) is never served as if it still held its lost events.

Reproduced as the issue says: DUMP a game's stream, send orders, RESTORE the dump over it.  Every
read path (the API's cached record, a cold API process's snapshot, the worker's loader) must fold
the log afresh at once, the game's next event must say the log went back from seq X to Y, and so
must /v1/health."""
from __future__ import annotations

import pytest
from redis import Redis

from eventlog import keys, snapshots
from replays.audit import audit, export
from runtime.context import Context
from service.app import create_app
from tests.platform.conftest import new_game
from tests.platform.helpers import Api


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


def _bid(api: Api, game, player: str, amount: int) -> int:
    return api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])[0]


def test_a_rolled_back_log_is_folded_afresh_and_said_so(api: Api, ctx: Context) -> None:
    game = new_game(api)
    redis = Redis.from_url(ctx.settings.redis_url)
    stream = keys.events(game.id)
    kept = redis.dump(stream)
    kept_seq = api.get(game.path())[1]["seq"]
    worker = Context(ctx.settings)  # another process: a worker with its own loader
    for player in ("p1", "p2", "p3"):
        assert _bid(api, game, player, 1) == 202
    lost_to = api.get(game.path())[1]["seq"]
    assert lost_to == kept_seq + 3
    assert worker.loader.load(game.id)["seq"] == lost_to  # the worker has it cached too
    snapshots.put(redis, game.id, ctx.loader.load(game.id))  # a snapshot ahead of the log must not come back

    redis.restore(stream, 0, kept, replace=True)  # Redis lost the last writes

    status, view = api.get(game.path(), token=game.tokens["p1"])
    assert status == 200
    assert view["seq"] == kept_seq + 1  # what the log kept, and the notice
    assert "p1" in view["phase"]["awaiting"]  # the lost bid is not shown as sent
    status, page = api.get(game.path(f"/events?after={kept_seq}"))
    assert [e["type"] for e in page["events"]] == ["log.rolled_back"]
    assert page["events"][0]["data"] == {"from_seq": lost_to, "to_seq": kept_seq}
    status, health = api.get("/health")
    assert status == 200
    assert [(r["game_id"], r["from_seq"], r["to_seq"]) for r in health["log_rollbacks"]] == [
        (game.id, lost_to, kept_seq)]
    assert f"went back from seq {lost_to} to {kept_seq}" in health["log_rollbacks"][0]["message"]

    # the worker's cached record is not trusted either, and it does not say it twice
    assert worker.loader.load(game.id)["seq"] == kept_seq + 1
    # a cold API process starting from the snapshot
    cold = Api(create_app(Context(ctx.settings)).test_client())
    assert cold.get(game.path())[1]["seq"] == kept_seq + 1
    assert len(api.get("/health")[1]["log_rollbacks"]) == 1

    # the player re-sends; the log is whole and its audit holds
    assert _bid(api, game, "p1", 1) == 202
    events = ctx.store.read(game.id)
    assert [e["seq"] for e in events] == list(range(1, kept_seq + 3))
    assert audit(events, ctx.store.private_field(game.id, "seed"))["ok"]
    assert export(ctx.loader.load(game.id), events)["head_hash"] == events[-1]["hash"]


def test_an_append_on_a_record_ahead_of_its_log_refolds_at_once(api: Api, ctx: Context) -> None:
    game = new_game(api)
    redis = Redis.from_url(ctx.settings.redis_url)
    kept = redis.dump(keys.events(game.id))
    kept_seq = api.get(game.path())[1]["seq"]
    assert _bid(api, game, "p1", 1) == 202
    assert _bid(api, game, "p2", 1) == 202
    redis.restore(keys.events(game.id), 0, kept, replace=True)
    # the next order (the one-trip path, on the cached record) lands after the notice, not on the lost events
    assert _bid(api, game, "p2", 2) == 202
    types = [e["type"] for e in ctx.store.read(game.id, after=kept_seq)]
    assert types == ["log.rolled_back", "action.submitted"]
