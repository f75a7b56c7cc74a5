"""The process-wide connections: event store, loader and queue, built once per process."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

from eventlog.store import EventStore
from replays.loader import GameLoader
from service.config import Settings


@dataclass
class Context:
    settings: Settings

    @cached_property
    def redis(self) -> Redis:
        return Redis.from_url(self.settings.redis_url)

    @cached_property
    def queue_redis(self) -> Redis:
        if self.settings.queue_url == self.settings.redis_url:
            return self.redis
        return Redis.from_url(self.settings.queue_url)

    @cached_property
    def store(self) -> EventStore:
        return EventStore(self.redis)

    @cached_property
    def loader(self) -> GameLoader:
        return GameLoader(self.store)

    @cached_property
    def queue(self) -> Queue:
        return Queue(self.settings.queue_name, connection=self.queue_redis, serializer=JSONSerializer)


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
