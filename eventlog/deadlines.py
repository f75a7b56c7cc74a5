"""The deadline index: which game's open phase is due when (a sorted set).

It only tells the sweeper where to look; the log says what is really due, so a
stale or missing entry costs a lookup, never a wrong resolution.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from redis import Redis

from eventlog import keys


def _score(when: datetime | float) -> float:
    return when.timestamp() if isinstance(when, datetime) else float(when)


def set_due(redis: Redis, game_id: str, when: datetime | float) -> None:
    redis.zadd(keys.DEADLINES, {game_id: _score(when)})


def set_many(redis: Redis, due: dict[str, datetime | float]) -> None:
    """``set_due`` for several games in one command."""
    redis.zadd(keys.DEADLINES, {game_id: _score(when) for game_id, when in due.items()})


def due_by(redis: Redis, game_id: str, when: datetime | float) -> None:
    """Have the sweeper look at this game no later than ``when``, keeping an earlier time.

    Written before an event that lets a phase resolve early (or opens the next one): if
    the job that should follow is lost, the sweeper still finds the game in seconds."""
    redis.zadd(keys.DEADLINES, {game_id: _score(when)}, lt=True)


def queue_score(client: Any, game_id: str) -> Any:
    """When the sweeper will look at this game (unix time; None: not indexed), on a client or
    queued on a pipeline: a read sent with the game's own, so it costs no round trip."""
    return client.zscore(keys.DEADLINES, game_id)


def clear(redis: Redis, game_id: str) -> None:
    redis.zrem(keys.DEADLINES, game_id)


def due(redis: Redis, before: float, limit: int = 500) -> list[str]:
    return [m.decode() for m in redis.zrangebyscore(keys.DEADLINES, "-inf", before, start=0, num=limit)]


def drop_index(redis: Redis) -> None:
    redis.delete(keys.DEADLINES)
