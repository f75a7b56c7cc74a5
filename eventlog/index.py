"""Reading the index of every game (``keys.GAMES``: game ids scored by creation time), newest first.

A page continues after a cursor, the id of the last game the previous page looked at: games created
meanwhile never shift a page (they sort before the cursor), and equal creation times are ordered by id
as Redis orders them.
"""
from __future__ import annotations

from typing import Any

from eventlog import keys


def created(redis: Any, game_id: str) -> float | None:
    """When the game was indexed (its score), or None for an id the index does not hold."""
    score = redis.zscore(keys.GAMES, game_id)
    return None if score is None else float(score)


def newest_first(redis: Any, after: str | None, count: int) -> list[str]:
    """Up to ``count`` game ids, newest first, after the game ``after`` (from the newest when None).

    ``after`` must be indexed (``created``): the caller checks it, so a cursor never silently restarts."""
    if after is None:
        return [_text(m) for m in redis.zrevrange(keys.GAMES, 0, count - 1)]
    score = created(redis, after)
    if score is None:
        return []
    found: list[str] = []
    offset = 0
    while len(found) < count:
        # Games with the cursor's own score sort by id, descending: skip the cursor and those before it.
        chunk = redis.zrevrangebyscore(keys.GAMES, score, "-inf", start=offset, num=count + 1, withscores=True)
        offset += len(chunk)
        found += [_text(m) for m, s in chunk if s < score or _text(m) < after]
        if len(chunk) < count + 1:
            break
    return found[:count]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
