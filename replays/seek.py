"""The game as it stood just after any seq, folded from the nearest kept record at or below it.

A replay step (``replay?at=``, ``board.svg?at=``, a page of frames) folded from the first event: 1.4-2.5 s at
20,000 events, for anyone who asks.  Records are kept about every ``STEP`` events in one sorted set per game
(``keys.snapshots_at``, scored by seq), so a step folds at most about ``STEP`` events: the loader keeps one as it
snapshots a growing game (``passed``), and a replay keeps those it folds past that are missing.  Like every
snapshot they are a cache (``arbiter rebuild`` deletes them).  One is used only if the log still holds its last
event with its hash; one the log no longer fits (a rollback) is dropped with all the game's others.
"""
from __future__ import annotations

import orjson

from eventlog import keys
from eventlog.events import Event
from eventlog.store import EventStore
from replays.fold import Record, fold

STEP = 128  # events folded at most per step (about 12 ms); 20,000 events keep about 156 records


def state_at(store: EventStore, game_id: str, at: int) -> tuple[Record, Event]:
    """The record just after event ``at`` (which the log must hold), and that event."""
    found = store.redis.zrevrangebyscore(keys.snapshots_at(game_id), at, "-inf", start=0, num=1)
    base = orjson.loads(found[0]) if found else None
    after = base["seq"] if base is not None else 0
    events = store.read(game_id, after=max(after - 1, 0), limit=at - max(after - 1, 0))
    if base is not None:
        if not events or events[0]["seq"] != after or events[0]["hash"] != base["head_hash"]:
            store.redis.delete(keys.snapshots_at(game_id))  # the log went back, or on along another chain
            return state_at(store, game_id, at)
        if len(events) == 1:
            return base, events[0]  # kept at ``at`` itself
        events = events[1:]
    record: Record | None = base
    start = 0
    for index, event in enumerate(events):  # keeping the records at the multiples of STEP it folds past
        if event["seq"] % STEP == 0 and event["seq"] - after >= STEP:
            record = fold(events[start:index + 1], record)
            keep(store, game_id, record)
            start = index + 1
    if start < len(events):
        record = fold(events[start:], record)
    return record, events[-1]  # type: ignore[return-value]


def passed(store: EventStore, game_id: str, before: int, record: Record) -> None:
    """The loader snapshotted ``record``, its last snapshot being at ``before``: kept too if it is the first in a
    window of ``STEP`` events."""
    if record["seq"] // STEP > before // STEP:
        keep(store, game_id, record)


def keep(store: EventStore, game_id: str, record: Record) -> None:
    key = keys.snapshots_at(game_id)
    pipe = store.redis.pipeline(transaction=False)
    pipe.zremrangebyscore(key, record["seq"], record["seq"])
    pipe.zadd(key, {orjson.dumps(record): record["seq"]})
    pipe.execute()


def delete_all(store: EventStore) -> int:
    """Every game's kept records (``arbiter rebuild``)."""
    deleted = 0
    for key in store.redis.scan_iter(match=f"{keys.PREFIX}:{{*}}:snapshots-at", count=500):
        deleted += store.redis.delete(key)
    return deleted
