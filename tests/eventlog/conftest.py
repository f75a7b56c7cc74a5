"""Store fixtures: the contract suite runs on a plain Redis and on a real Redis Cluster."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest
from redis.cluster import RedisCluster

from runtime.config import Settings
from runtime.context import Context, use
from tests.eventlog import cluster


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cluster.LocalCluster]:
    if cluster.redis_cli() is None:
        pytest.skip("redis-cli is not on PATH: it is what joins the nodes into a cluster")
    running = cluster.start(Path(tmp_path_factory.mktemp("redis-cluster")))
    yield running
    running.stop()


@pytest.fixture()
def cluster_settings(settings: Settings, redis_cluster: cluster.LocalCluster) -> Settings:
    """The store on the cluster (emptied), the queue on the session's plain Redis as ARBITER_QUEUE_URL."""
    client = RedisCluster.from_url(redis_cluster.url)
    client.flushall()  # every primary
    client.close()
    return dataclasses.replace(settings, redis_url=redis_cluster.url, redis_cluster=True)


@pytest.fixture()
def cluster_ctx(cluster_settings: Settings) -> Iterator[Context]:
    context = Context(cluster_settings)
    use(context)
    yield context
    use(None)


@pytest.fixture(params=["plain", "cluster"])
def ctx(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Context]:
    """Every store test runs against both deployments the service supports."""
    if request.param == "cluster":
        settings = request.getfixturevalue("cluster_settings")
    context = Context(settings)
    use(context)
    yield context
    use(None)
