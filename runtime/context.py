"""The process-wide connections: event store, loader and queue, built once per process."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from typing import Any
from urllib.parse import unquote, urlsplit

from redis import Redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError, RedisClusterException
from redis.retry import Retry
from rq import Queue
from rq.serializers import JSONSerializer

from eventlog.store import EventStore
from replays.loader import GameLoader
from replays.notices import AppendNotices
from runtime.config import ConfigError, Settings, address, check_cluster_queue, nodes
from runtime.signing import Keys, Witness, witness_path

# Every node of a cluster that a client of this process has seen, by REDIS_URL: a client made later (a job's,
# the sweeper's) starts from all of them, not only from the node(s) REDIS_URL names, which may be gone by then.
_cluster_nodes: dict[str, list[tuple[str, int]]] = {}


@dataclass
class Context:
    settings: Settings
    notices: AppendNotices | None = field(default=None, init=False)  # set by ``follow_appends``
    _keys: Keys | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.settings.redis_cluster:
            check_cluster_queue(self.settings.redis_url, self.settings.queue_url)
            try:
                _ = self.queue_redis  # refuse a queue on a cluster node at startup, not at the first job
            except RedisConnectionError:
                pass  # not up yet: checked again on first use
            try:
                _ = self.redis  # learn the cluster's nodes now, while a node REDIS_URL names is up
            except (RedisConnectionError, RedisClusterException):
                pass  # none is: tried again on first use

    def timeouts(self) -> dict[str, Any]:
        """Every connection of the process is bounded: a frozen or partitioned Redis answers a request with
        503 ``store_unavailable`` after ``redis_timeout`` seconds instead of hanging it.  A timed-out
        command is not retried (the server is not answering: a retry only doubles the wait, and a
        timed-out append's fate is unknown; the client retries with its Idempotency-Key); a dropped
        connection is retried once, at once, so a restarted Redis costs no request."""
        seconds = self.settings.redis_timeout
        return {"socket_timeout": seconds, "socket_connect_timeout": seconds,
                "retry": Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))}

    @cached_property
    def redis(self) -> Redis | RedisCluster:
        """The event store's connection: a plain Redis, or a Redis Cluster (ARBITER_REDIS_CLUSTER)."""
        if self.settings.redis_cluster:
            return self._cluster()
        return Redis.from_url(self.settings.redis_url, **self.timeouts())

    def _cluster(self) -> RedisCluster:
        """A cluster client that starts from any node the process knows: those REDIS_URL names and every one a
        client of this process has seen.  redis-py then follows the cluster's changes itself."""
        url, seconds = self.settings.redis_url, self.settings.redis_timeout
        known = list(dict.fromkeys([*nodes(url), *_cluster_nodes.get(url, [])]))
        parts = urlsplit(url)
        client = RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in known],
                              username=unquote(parts.username) if parts.username else None,
                              password=unquote(parts.password) if parts.password else None,
                              ssl=parts.scheme == "rediss", socket_timeout=seconds, socket_connect_timeout=seconds)
        seen = [(node.host, node.port) for node in client.get_nodes()]
        _cluster_nodes[url] = list(dict.fromkeys([*_cluster_nodes.get(url, []), *seen]))
        return client

    @cached_property
    def queue_redis(self) -> Redis:
        """The queue's Redis, for putting jobs on it and for the sweeper's bookkeeping (bounded like the store's).
        Never RQ's worker loop, which blocks on it for minutes: that gets ``rq_connection``."""
        client = Redis.from_url(self.settings.queue_url, **self.timeouts())
        if self.settings.redis_cluster and client.info("cluster").get("cluster_enabled"):
            raise ConfigError(f"ARBITER_QUEUE_URL ({address(self.settings.queue_url)}) is a Redis Cluster node; "
                              "RQ cannot run on Redis Cluster: give the queue a separate, plain Redis.")
        return client

    def rq_connection(self) -> Redis:
        """A connection of its own for an RQ worker: RQ raises its socket timeout above the minutes its
        blocking pops wait (``Worker._set_connection``), which must not reach the connections above."""
        return Redis.from_url(self.settings.queue_url, socket_connect_timeout=self.settings.redis_timeout)

    @cached_property
    def store(self) -> EventStore:
        return EventStore(self.redis)

    @cached_property
    def loader(self) -> GameLoader:
        return GameLoader(self.store)

    @property
    def keys(self) -> Keys:
        """The keys that sign receipts and checkpoints (ARBITER_SIGNING_KEY): made once, under a lock, since a process
        without a key file makes a key of its own, and two would sign receipts no listing shows."""
        if self._keys is None:
            with _KEYS_LOCK:
                if self._keys is None:
                    path = Path(self.settings.signing_key) if self.settings.signing_key else None
                    self._keys = Keys(path, self.settings.origin)
        return self._keys

    @cached_property
    def witness(self) -> Witness | None:
        """Each game's latest signed checkpoint, kept beside the key file (None without one)."""
        return Witness(witness_path(Path(self.settings.signing_key))) if self.settings.signing_key else None

    def follow_appends(self) -> AppendNotices | None:
        """Have every request first bring this process's cached records up to date with other processes'
        appends (``replays.notices``, registered by ``create_app``): for the API's processes.  Not on a
        cluster, where appends are not announced, nor with ``ARBITER_APPEND_NOTICES=0``."""
        if self.notices is None and self.settings.append_notices and not self.settings.redis_cluster:
            self.notices = AppendNotices(self.redis, self.loader)
        return self.notices

    @cached_property
    def queue(self) -> Queue:
        return Queue(self.settings.queue_name, connection=self.queue_redis, serializer=JSONSerializer)

    @cached_property
    def webhook_queue(self) -> Queue:
        """Webhook deliveries: a queue of their own, drained by a worker of their own (``arbiter worker
        --queues webhooks``), so a receiver that hangs never holds up a deadline."""
        return Queue(webhook_queue_name(self.settings.queue_name), connection=self.queue_redis,
                     serializer=JSONSerializer)


def webhook_queue_name(queue_name: str) -> str:
    return f"{queue_name}-webhooks"


_KEYS_LOCK = threading.Lock()
_current: Context | None = None


def current() -> Context:
    """The context for this process, from the environment on first use."""
    global _current
    if _current is None:
        _current = Context(Settings.from_env())
    return _current


def use(context: Context | None) -> None:
    """Install a context (tests, the CLI) or clear it."""
    global _current
    _current = context


@contextmanager
def using(context: Context) -> Iterator[Context]:
    """Install ``context`` for a while (``arbiter simulate`` on a queue of its own), then put back what was there."""
    global _current
    before, _current = _current, context
    try:
        yield context
    finally:
        _current = before
