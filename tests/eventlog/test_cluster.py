"""The event store on a real three-primary Redis Cluster (ARBITER_REDIS_CLUSTER=1), the RQ
queue on a separate plain Redis: keys spread over every primary, whole games play,
audit and rebuild work, and a queue pointed at the cluster is refused at startup."""
from __future__ import annotations

import pytest
from redis.cluster import RedisCluster

from engines import registry
from engines.rng import Rng
from eventlog import deadlines, keys, snapshots
from eventlog.events import GENESIS, seal
from replays import rebuild
from replays.fold import fold
from service.app import create_app
from runtime.config import ConfigError, Settings
from runtime.context import Context
from tests.eventlog import cluster
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from workers import sweeper


def _primary_of(client: RedisCluster, key: str) -> str:
    return client.get_node_from_key(key).name


def test_games_spread_over_every_primary_and_scans_find_them_all(cluster_ctx: Context) -> None:
    client = cluster_ctx.redis
    assert isinstance(client, RedisCluster) and len(client.get_primaries()) == cluster.PRIMARIES
    ids = [f"g{n}" for n in range(24)]
    for game_id in ids:
        cluster_ctx.store.append(game_id, seal(1, GENESIS, "game.created", "anyone", {"game_id": game_id}))
        snapshots.put(client, game_id, {"seq": 1})
    homes = {_primary_of(client, keys.events(game_id)) for game_id in ids}
    assert len(homes) == cluster.PRIMARIES, "24 games should land on every primary; the scans below prove nothing"
    assert sorted(cluster_ctx.store.game_ids()) == sorted(ids)
    assert snapshots.delete_all(client) == len(ids)
    assert all(snapshots.get(client, game_id) is None for game_id in ids)


def _play_to_the_end(api: Api, ctx: Context, game: Game, max_phases: int = 60) -> dict:
    """Bots post every awaited order over HTTP; the GM forces a phase a bot cannot finish;
    a real RQ worker (on the plain Redis) resolves each phase."""
    for _ in range(max_phases):
        status, body = api.get(game.path(), token=game.gm)
        assert status == 200, body
        if body["status"] == "finished":
            return body
        number = body["phase"]["number"]
        engine = registry.get(body["type"], body["version"])
        for player in body["phase"]["awaiting"]:
            action = engine.bot_action(ctx.loader.load(game.id)["engine"], player, Rng("cluster", number, player))
            if action is not None:
                status, answer = api.post(game.path("/actions"), action, token=game.tokens.get(player, game.gm))
                assert status == 202, (action, answer)
        run_queued_jobs(ctx)
        after = api.get(game.path(), token=game.gm)[1]
        if after["status"] == "running" and after["phase"]["number"] == number:
            api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "bots are done"}, token=game.gm)
            run_queued_jobs(ctx)
        sweeper.sweep_once(ctx)
    raise AssertionError(f"game {game.id} did not finish in {max_phases} phases")


def test_a_whole_game_through_the_api_with_audit_and_rebuild(cluster_ctx: Context) -> None:
    api = Api(create_app(cluster_ctx).test_client())
    status, health = api.get("/health")
    assert status == 200 and health["store"]["ok"]
    game = new_game(api, players=4)
    waiting = new_game(api, players=4)  # left running: rebuild must index its deadline

    # Idempotent retry, and the bad-token throttle's pipelines, on the cluster.
    first = api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p1"],
                     headers={"Idempotency-Key": "cluster-bid-1"})
    again = api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p1"],
                     headers={"Idempotency-Key": "cluster-bid-1"})
    assert first[0] == 202 and again == first
    assert api.get(game.path(), token="not-a-token")[0] == 401
    assert cluster_ctx.redis.get(f"{keys.bad_tokens(game.id)}:127.0.0.1") == b"1"

    final = _play_to_the_end(api, cluster_ctx, game)
    assert final["result"] and final["seed"] == "fixed-seed"
    status, audit = api.get(game.path("/audit"))
    assert status == 200 and audit["ok"], audit
    status, exported = api.get(game.path("/export"))
    assert status == 200
    status, verified = api.post("/replays/verify", exported)
    assert status == 200 and verified["ok"], verified
    # The queue never touched the cluster, and the finished game left the deadline index.
    assert not [k for k in cluster_ctx.redis.scan_iter(match="rq:*")]
    assert cluster_ctx.queue_redis.keys("rq:*")
    assert cluster_ctx.redis.zscore(keys.DEADLINES, game.id) is None

    before = {g.id: api.get(g.path(), token=g.gm)[1] for g in (game, waiting)}
    due = cluster_ctx.redis.zscore(keys.DEADLINES, waiting.id)
    for g in (game, waiting):  # stale snapshots, which rebuild must replace
        snapshots.put(cluster_ctx.redis, g.id, fold(cluster_ctx.store.read(g.id, limit=3)))
    cluster_ctx.redis.delete(keys.GAMES)
    cluster_ctx.redis.zadd(keys.DEADLINES, {"gone": 1.0})
    assert rebuild.rebuild(cluster_ctx) == {"snapshots deleted": 2, "games rebuilt": 2, "deadlines indexed": 1}
    assert cluster_ctx.redis.zscore(keys.DEADLINES, waiting.id) == due
    assert deadlines.due(cluster_ctx.redis, due + 1) == [waiting.id]
    assert {m.decode() for m in cluster_ctx.redis.zrange(keys.GAMES, 0, -1)} == {game.id, waiting.id}
    for g in (game, waiting):
        assert snapshots.get(cluster_ctx.redis, g.id)["seq"] == cluster_ctx.store.head(g.id)[0]
    fresh = Api(create_app(Context(cluster_ctx.settings)).test_client())
    assert {g.id: fresh.get(g.path(), token=g.gm)[1] for g in (game, waiting)} == before
    assert fresh.get(game.path("/audit"))[1]["ok"]


def test_the_cluster_setting_needs_a_separate_plain_queue(
        monkeypatch: pytest.MonkeyPatch, cluster_settings: Settings, redis_cluster: cluster.LocalCluster) -> None:
    monkeypatch.setenv("ARBITER_REDIS_CLUSTER", "1")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("ARBITER_QUEUE_URL", raising=False)
    with pytest.raises(ConfigError, match="REDIS_URL"):
        Settings.from_env()
    monkeypatch.setenv("REDIS_URL", redis_cluster.url)
    with pytest.raises(ConfigError, match="needs ARBITER_QUEUE_URL"):
        Settings.from_env()
    monkeypatch.setenv("ARBITER_QUEUE_URL", redis_cluster.url.replace("/0", "/1"))
    with pytest.raises(ConfigError, match="points at the event store's cluster node"):
        Settings.from_env()
    # Another node of the same cluster has another address: its server says what it is.
    monkeypatch.setenv("ARBITER_QUEUE_URL", f"redis://127.0.0.1:{redis_cluster.ports[1]}/0")
    with pytest.raises(ConfigError, match="is a Redis Cluster node"):
        Context(Settings.from_env())
    monkeypatch.setenv("ARBITER_QUEUE_URL", cluster_settings.queue_url)
    settings = Settings.from_env()
    assert settings.redis_cluster and settings.queue_url == cluster_settings.queue_url
    context = Context(settings)
    assert isinstance(context.redis, RedisCluster) and not isinstance(context.queue_redis, RedisCluster)
    monkeypatch.setenv("ARBITER_REDIS_CLUSTER", "maybe")
    with pytest.raises(ConfigError, match="must be 1 or 0"):
        Settings.from_env()


def test_without_the_setting_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ARBITER_REDIS_CLUSTER", "REDIS_URL", "ARBITER_QUEUE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert not settings.redis_cluster and settings.queue_url == settings.redis_url
