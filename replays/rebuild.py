"""Rebuilding everything derived from the streams: snapshots and the indexes.

Proves the log is the only truth: ``arbiter rebuild`` deletes every snapshot and
index entry, then folds each stream from scratch and writes them again.
"""
from __future__ import annotations

from eventlog import deadlines, keys, snapshots
from replays.fold import fold
from service import clock
from service.context import Context


def rebuild(ctx: Context) -> dict[str, int]:
    removed = snapshots.delete_all(ctx.redis)
    deadlines.drop_index(ctx.redis)
    ctx.redis.delete(keys.GAMES)
    ctx.loader.forget()
    games = running = 0
    for game_id in ctx.store.game_ids():
        record = fold(ctx.store.read(game_id))
        snapshots.put(ctx.redis, game_id, record)
        ctx.redis.zadd(keys.GAMES, {game_id: clock.parse(record["created_at"].split(".")[0] + "Z").timestamp()})
        games += 1
        if record["status"] == "running" and record["phase"] is not None:
            deadlines.set_due(ctx.redis, game_id, clock.parse(record["phase"]["deadline"]))
            running += 1
    return {"snapshots deleted": removed, "games rebuilt": games, "deadlines indexed": running}
