"""Snapshots are caches: reading with them equals a fresh fold; rebuild restores them."""
from __future__ import annotations

from engines.canonical import canonical_json
from eventlog import keys, snapshots
from replays import rebuild
from replays.fold import fold
from replays.loader import SNAPSHOT_EVERY, GameLoader
from cli import simulate
from runtime.context import Context


def _long_game(ctx: Context) -> str:
    report = simulate.run(ctx, "extreme-ways", 12, "snap", {}, echo=None)
    assert report["events"] > SNAPSHOT_EVERY
    return report["game_id"]


def test_a_snapshot_is_written_and_equals_a_fresh_fold(ctx: Context) -> None:
    game_id = _long_game(ctx)
    GameLoader(ctx.store).load(game_id)
    snap = snapshots.get(ctx.redis, game_id)
    assert snap is not None and snap["seq"] >= SNAPSHOT_EVERY
    fresh = fold(ctx.store.read(game_id, limit=snap["seq"]))
    assert canonical_json(snap) == canonical_json(fresh)
    cold = GameLoader(ctx.store).load(game_id)  # starts from the snapshot, folds the tail
    assert canonical_json(cold) == canonical_json(fold(ctx.store.read(game_id)))


def test_a_stale_snapshot_is_ignored(ctx: Context) -> None:
    game_id = _long_game(ctx)
    wrong = fold(ctx.store.read(game_id, limit=10))
    wrong["head_hash"] = "f" * 64
    snapshots.put(ctx.redis, game_id, wrong)
    loaded = GameLoader(ctx.store).load(game_id)
    assert canonical_json(loaded) == canonical_json(fold(ctx.store.read(game_id)))


def test_rebuild_restores_snapshots_and_indexes_from_the_streams(ctx: Context) -> None:
    game_id = _long_game(ctx)
    ctx.redis.delete(keys.GAMES, keys.DEADLINES)
    snapshots.delete_all(ctx.redis)
    counts = rebuild.rebuild(ctx)
    assert counts["games rebuilt"] == 1
    assert ctx.redis.zscore(keys.GAMES, game_id) is not None
    assert snapshots.get(ctx.redis, game_id)["seq"] == ctx.store.head(game_id)[0]


def test_simulate_plays_a_whole_game_and_audits_it(ctx: Context) -> None:
    lines: list[str] = []
    report = simulate.run(ctx, "extreme-ways", 5, "sim", {}, echo=lines.append)
    assert report["audit_ok"] and report["result"]["winners"]
    assert any("audit ok" in line for line in lines)
