"""Rebuilding everything derived from the streams: snapshots and the indexes.

Proves the log is the only truth: ``arbiter rebuild`` deletes every snapshot and
index entry, then folds each stream from scratch and writes them again.  A game whose
log cannot be folded is left without a snapshot or deadline and reported; the others
are rebuilt all the same.
"""
from __future__ import annotations

from typing import Any, Protocol

from eventlog import clock, deadlines, index, keys, snapshots
from eventlog.store import EventStore
from replays.fold import FoldError, engine_for, fold
from replays.loader import GameLoader
from replays import seek
from replays.phases import resolvable


class Context(Protocol):
    """What rebuilding needs of a process's connections (``runtime.context.Context`` has it)."""

    @property
    def redis(self) -> Any: ...

    @property
    def store(self) -> EventStore: ...

    @property
    def loader(self) -> GameLoader: ...


def rebuild(ctx: Context) -> dict[str, int]:
    """The counts of what was deleted and rebuilt."""
    return rebuild_report(ctx)[0]


def rebuild_report(ctx: Context) -> tuple[dict[str, int], dict[str, str]]:
    """The counts, and each game whose log cannot be folded with the reason (the CLI exits 1 for those)."""
    removed = snapshots.delete_all(ctx.redis)
    deadlines.drop_index(ctx.redis)
    ctx.redis.delete(keys.GAMES, *(keys.games_with_status(status) for status in index.STATUSES))
    removed += seek.delete_all(ctx.store)
    ctx.loader.forget()
    games = running = 0
    corrupt: dict[str, str] = {}
    for game_id in ctx.store.game_ids():
        try:
            record = fold(ctx.store.read(game_id))
        except FoldError as exc:
            corrupt[game_id] = str(exc)
            continue
        snapshots.put(ctx.redis, game_id, record)
        ctx.redis.zadd(keys.GAMES, {game_id: clock.parse(record["created_at"].split(".")[0] + "Z").timestamp()})
        index.move(ctx.redis, game_id, record["status"])
        games += 1
        if record["status"] == "running" and record["phase"] is not None:
            deadlines.set_due(ctx.redis, game_id, _due(record))
            running += 1
    return {"snapshots deleted": removed, "games rebuilt": games, "deadlines indexed": running}, corrupt


def _due(record: dict[str, Any]) -> float:
    """When the sweeper should look: at the deadline, or now for a phase that may already resolve (forced by the
    GM, or everyone has acted): its job may have been lost with whatever made rebuild necessary."""
    now = clock.now()
    if resolvable(record, engine_for(record), now) not in (None, "deadline"):
        return now.timestamp()
    return clock.parse(record["phase"]["deadline"]).timestamp()
