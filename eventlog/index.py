"""Reading the index of every game (``keys.GAMES``: game ids scored by creation time), newest first, and keeping
one per status (``keys.games_with_status``), so that a list filtered by status reads only its own games.

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


STATUSES = ("signup", "running", "paused", "finished")


def move(redis: Any, game_id: str, status: str) -> None:
    """File the game under ``status`` alone, with its score in ``keys.GAMES`` (its creation time)."""
    score = created(redis, game_id)
    if score is None:
        return
    pipe = redis.pipeline(transaction=False)
    for other in STATUSES:
        if other != status:
            pipe.zrem(keys.games_with_status(other), game_id)
    pipe.zadd(keys.games_with_status(status), {game_id: score})
    pipe.execute()


def moved(redis: Any, game_id: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    """After an append: file the game anew if the event changed its status (``before``, ``after``: its records)."""
    if after is not None and (before is None or before.get("status") != after.get("status")):
        move(redis, game_id, after["status"])


def newest_first(redis: Any, after: str | None, count: int, status: str | None = None) -> list[str]:
    """Up to ``count`` game ids, newest first, after the game ``after`` (from the newest when None); only the games
    in ``status`` if given.

    ``after`` must be indexed (``created``): the caller checks it, so a cursor never silently restarts."""
    index = keys.GAMES if status is None else keys.games_with_status(status)
    if after is None:
        return [_text(m) for m in redis.zrevrange(index, 0, count - 1)]
    score = created(redis, after)
    if score is None:
        return []
    found: list[str] = []
    offset = 0
    while len(found) < count:
        # Games with the cursor's own score sort by id, descending: skip the cursor and those before it.
        chunk = redis.zrevrangebyscore(index, score, "-inf", start=offset, num=count + 1, withscores=True)
        offset += len(chunk)
        found += [_text(m) for m, s in chunk if s < score or _text(m) < after]
        if len(chunk) < count + 1:
            break
    return found[:count]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
