"""Issue 18 item 5: a Redis Cluster that loses a primary.

With Redis's default ``cluster-require-full-coverage yes`` every command fails once the cluster sees the
primary down: every request answers 503 ``store_unavailable`` (never 500) and ``/v1/health`` says so.
With ``no``, the games on the other primaries are served and swept on, the lost primary's games answer
503, and health says ``degraded``.  A failover to a replica loses nothing.  Each test runs its own
cluster with a one-second node timeout, so that the cluster notices a dead node quickly."""
from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
import redis
from redis.cluster import RedisCluster
from rq import Worker

from eventlog import deadlines, keys
from runtime.config import Settings
from runtime.context import Context, use
from service.app import create_app
from tests.e2e.stack import Stack
from tests.eventlog import cluster
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api
from workers import sweeper

pytestmark = pytest.mark.skipif(shutil.which("redis-cli") is None, reason="redis-cli joins the nodes into a cluster")


def _start(directory: Path, primaries: int, replicas: int, full_coverage: bool) -> list[tuple[int, subprocess.Popen]]:
    started = cluster.start(directory, 60, primaries, replicas, full_coverage, node_timeout_ms=1000)
    return list(zip(started.ports, started.processes))


def _until(check, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except redis.RedisError:
            pass
        assert time.monotonic() < deadline, message
        time.sleep(0.1)


@pytest.fixture()
def outage(request: pytest.FixtureRequest, settings: Settings, tmp_path: Path) -> Iterator[tuple]:
    primaries, replicas, full_coverage = request.param
    nodes = _start(tmp_path, primaries, replicas, full_coverage)
    ctx = Context(dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{nodes[0][0]}/0", redis_cluster=True))
    use(ctx)
    try:
        yield ctx, nodes
    finally:
        use(None)
        for _, process in nodes:
            if process.poll() is None:
                process.kill()
            process.wait()


def _games_on_each_primary(api: Api, ctx: Context) -> dict[str, Game]:
    """Started games until every primary holds one: {primary's host:port: game}."""
    client: RedisCluster = ctx.redis  # type: ignore[assignment]
    homes: dict[str, Game] = {}
    while len(homes) < len(client.get_primaries()):
        game = new_game(api, players=2)
        homes.setdefault(client.get_node_from_key(keys.events(game.id)).name, game)
    return homes


def _kill_node(nodes: list, name: str) -> None:
    port = int(name.rsplit(":", 1)[1])
    process = next(p for n, p in nodes if n == port)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def _others_see(nodes: list, dead: str, state: str) -> None:
    """The nodes still up mark ``dead`` failed, and (with full coverage) report ``state``."""
    alive = [port for port, process in nodes if process.poll() is None and f"127.0.0.1:{port}" != dead]

    def failed(port: int) -> bool:
        flags = redis.Redis(port=port).cluster("nodes").get(dead, {}).get("flags", "")
        return "fail" in flags.split(",")

    _until(lambda: all(failed(p) and redis.Redis(port=p).cluster("info")["cluster_state"] == state for p in alive),
           30, f"the cluster never marked {dead} failed (state {state})")


@pytest.mark.parametrize("outage", [(3, 0, True)], indirect=True)
def test_full_coverage_a_dead_primary_is_503_everywhere_and_health_says_so(outage) -> None:
    ctx, nodes = outage
    api = Api(create_app(ctx).test_client())
    homes = _games_on_each_primary(api, ctx)
    status, health = api.get("/health")
    assert status == 200 and health["status"] == "ok" and set(health["store"]["cluster"]["primaries"].values()) == {
        "ok"}, health
    dead = sorted(homes)[0]
    _kill_node(nodes, dead)
    _others_see(nodes, dead, "fail")
    for home, game in homes.items():  # also the games on the primaries still up
        for status, body in (api.get(game.path()), api.post(game.path("/actions"), {"type": "bid", "amount": 1},
                                                              token=game.tokens["p1"])):
            assert status == 503 and body["error"]["code"] == "store_unavailable", (home, status, body)
    status, health = api.get("/health")
    assert status == 503 and health["error"]["code"] == "store_unavailable"
    assert health["error"]["details"]["cluster"]["primaries"][dead] == "unreachable"


@pytest.mark.parametrize("outage", [(3, 0, False)], indirect=True)
def test_partial_coverage_the_other_primaries_serve_and_are_swept(outage) -> None:
    ctx, nodes = outage
    client: RedisCluster = ctx.redis  # type: ignore[assignment]
    api = Api(create_app(ctx).test_client())
    homes = _games_on_each_primary(api, ctx)
    for game in homes.values():  # everyone bids: each phase is resolvable at once ...
        for player in ("p1", "p2"):
            assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens[player])[0] == 202
    ctx.queue_redis.flushdb()  # ... and its job is lost with the queue
    indexes = {client.get_node_from_key(keys.DEADLINES).name, client.get_node_from_key(keys.GAMES).name}
    dead = next(name for name in sorted(homes) if name not in indexes)
    _kill_node(nodes, dead)
    _others_see(nodes, dead, "ok")  # without full coverage the cluster stays "ok" for the slots it still serves
    for home, game in homes.items():
        status, body = api.get(game.path())
        if home == dead:
            assert status == 503 and body["error"]["code"] == "store_unavailable", body
        else:
            assert status == 200, (home, body)
    status, health = api.get("/health")
    assert status == 200 and health["status"] == "degraded" and not health["store"]["ok"], health
    assert health["store"]["cluster"]["primaries"][dead] == "unreachable"
    assert {state for name, state in health["store"]["cluster"]["primaries"].items() if name != dead} == {"ok"}
    for game in homes.values():  # long overdue, every one of them
        deadlines.set_due(client, game.id, 0)
    actions = dict(sweeper.sweep_once(ctx))  # the worker's sweeper, already connected
    assert actions[homes[dead].id] == "unreachable"
    assert all(actions[game.id] == "requeued" for home, game in homes.items() if home != dead), actions


@pytest.mark.parametrize("outage", [(3, 1, True)], indirect=True)
def test_a_failover_to_a_replica_loses_nothing(outage) -> None:
    ctx, nodes = outage
    api = Api(create_app(ctx).test_client())
    homes = _games_on_each_primary(api, ctx)
    for game in homes.values():
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=game.tokens["p1"])[0] == 202
    before = {game.id: api.get(game.path())[1]["seq"] for game in homes.values()}
    dead = sorted(homes)[0]
    primary = redis.Redis(port=int(dead.rsplit(":", 1)[1]))  # no socket timeout: WAIT blocks
    assert primary.execute_command("WAIT", 1, 5000) == 1  # the replica has every write (replication is asynchronous)
    _kill_node(nodes, dead)
    # the replica takes over: the cluster is whole again without the dead node
    _until(lambda: all(redis.Redis(port=p).cluster("info")["cluster_state"] == "ok"
                       for p, proc in nodes if proc.poll() is None), 30, "no failover")
    alive = next(port for port, process in nodes if process.poll() is None)
    fresh = Api(create_app(Context(dataclasses.replace(ctx.settings, redis_url=f"redis://127.0.0.1:{alive}/0")))
                .test_client())  # a process that never saw the old topology (seeded from a node that is up)
    for api_ in (api, fresh):
        _until(lambda api_=api_: all(api_.get(g.path())[0] == 200 for g in homes.values()), 30,
               "a game stayed unreadable after the failover")
        assert {g.id: api_.get(g.path())[1]["seq"] for g in homes.values()} == before
    game = homes[dead]
    assert api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p2"])[0] == 202


@pytest.mark.parametrize("outage", [(3, 0, False)], indirect=True)
def test_a_worker_resolves_on_when_the_node_its_redis_url_names_is_lost(outage, tmp_path: Path) -> None:
    """Issue 28 item 7: a worker's jobs made their cluster connection lazily from the one node REDIS_URL names,
    so losing that node stopped every resolution, also of games on the primaries still up.  The worker learns
    the cluster's nodes at startup and connects through any of them."""
    ctx, nodes = outage
    client: RedisCluster = ctx.redis  # type: ignore[assignment]
    api = Api(create_app(ctx).test_client())
    indexes = {client.get_node_from_key(keys.DEADLINES).name, client.get_node_from_key(keys.GAMES).name}
    named = next(node.name for node in client.get_primaries() if node.name not in indexes)
    settings = dataclasses.replace(ctx.settings, redis_url=f"redis://{named}/0")
    stack = Stack(settings, tmp_path)
    try:
        stack.start_worker("clustered", ARBITER_REDIS_CLUSTER="1")
        _until(lambda: Worker.all(connection=ctx.queue_redis), 30, "the worker never registered")
        games = []
        while len(games) < 3:  # games on the primaries that stay up
            game = new_game(api, players=2, start=False, deadlines={"bidding": 1})
            if client.get_node_from_key(keys.events(game.id)).name != named:
                games.append(game)
        _kill_node(nodes, named)
        _others_see(nodes, named, "ok")
        for game in games:
            assert api.post(game.path("/start"), token=game.gm)[0] == 200
        _until(lambda: all(any(e["type"] == "phase.resolved" for e in ctx.store.read(g.id)) for g in games), 30,
               "no phase was resolved after the node REDIS_URL names was lost: "
               + (tmp_path / "clustered.log").read_text()[-3000:])
        # A process started now, with REDIS_URL naming the lost node and one that is up, starts from the latter.
        alive = next(node.name for node in client.get_primaries() if node.name != named)
        fresh = Context(dataclasses.replace(ctx.settings, redis_url=f"redis://{named},{alive}/0"))
        assert [e["seq"] for e in fresh.store.read(games[0].id)] == [e["seq"] for e in ctx.store.read(games[0].id)]
    finally:
        stack.stop()
