"""Snapshots of folded records, so reading a game folds only its newest events.

A snapshot is a cache: deleting every one loses nothing (``arbiter rebuild``).
"""
from __future__ import annotations

from typing import Any

import orjson
from redis import Redis

from eventlog import keys


def get(redis: Redis, game_id: str) -> dict[str, Any] | None:
    raw = redis.get(keys.snapshot(game_id))
    return None if raw is None else orjson.loads(raw)


def put(redis: Redis, game_id: str, record: dict[str, Any]) -> None:
    redis.set(keys.snapshot(game_id), orjson.dumps(record))


def delete_all(redis: Redis) -> int:
    deleted = 0
    for key in redis.scan_iter(match=f"{keys.PREFIX}:{{*}}:snapshot", count=500):
        deleted += redis.delete(key)
    return deleted
