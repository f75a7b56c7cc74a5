"""``arbiter rebuild`` (as a process, against the test Redis) repairs what is derived from the streams for a
RUNNING game: a wrong snapshot that the loader would trust, and a lost deadline index entry."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from engines.canonical import canonical_json
from eventlog import deadlines, keys, snapshots
from eventlog.events import seal
from replays.fold import fold
from replays.loader import GameLoader
from eventlog import clock
from runtime.config import Settings
from runtime.context import Context
from tests.e2e.stack import stack_env
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

ARBITER = Path(sys.executable).parent / "arbiter"


def _rebuild(settings: Settings) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ARBITER), "rebuild"], env=stack_env(settings), capture_output=True, text=True,
                          timeout=120)


def _fresh(ctx: Context, game: Game) -> str:
    return canonical_json(fold(ctx.store.read(game.id)))


def test_rebuild_repairs_a_stale_snapshot_and_a_lost_deadline_of_a_running_game(api: Api, ctx: Context,
                                                                                settings: Settings) -> None:
    game = new_game(api)
    assert api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p1"])[0] == 202
    record = fold(ctx.store.read(game.id))
    assert record["status"] == "running"
    # A wrong snapshot at the head's own seq and hash: nothing in the log tells the loader it is wrong.
    wrong = {**record, "status": "finished", "phase": None, "result": {"winners": ["p4"]}}
    snapshots.put(ctx.redis, game.id, wrong)
    deadlines.clear(ctx.redis, game.id)
    ctx.redis.zrem(keys.GAMES, game.id)
    assert GameLoader(ctx.store).load(game.id)["status"] == "finished"  # the damage is real before the rebuild

    done = _rebuild(settings)
    assert done.returncode == 0, done.stderr
    assert "games rebuilt: 1" in done.stdout and "deadlines indexed: 1" in done.stdout, done.stdout
    assert canonical_json(snapshots.get(ctx.redis, game.id)) == _fresh(ctx, game)
    assert canonical_json(GameLoader(ctx.store).load(game.id)) == _fresh(ctx, game)
    assert ctx.redis.zscore(keys.DEADLINES, game.id) == clock.parse(record["phase"]["deadline"]).timestamp()
    assert ctx.redis.zscore(keys.GAMES, game.id) is not None
    status, body = api.get(game.path())
    assert status == 200 and body["status"] == "running"


def test_a_phase_that_may_resolve_already_is_indexed_as_due_now(api: Api, ctx: Context, settings: Settings) -> None:
    """Everyone has acted, and the early-resolution job is lost with the queue: the sweeper must look at once,
    not at the deadline a day away."""
    game = new_game(api)
    for token in game.tokens.values():
        assert api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token)[0] == 202
    ctx.queue_redis.flushdb()
    deadlines.clear(ctx.redis, game.id)
    before = time.time()
    done = _rebuild(settings)
    assert done.returncode == 0, done.stderr
    due = ctx.redis.zscore(keys.DEADLINES, game.id)
    deadline = clock.parse(api.get(game.path())[1]["phase"]["deadline"]).timestamp()
    assert before - 1 <= due <= time.time() + 1 < deadline - 3600


def test_a_game_that_cannot_be_folded_is_reported_and_the_others_are_rebuilt(api: Api, ctx: Context,
                                                                             settings: Settings) -> None:
    broken, healthy = new_game(api), new_game(api)
    seq, head = ctx.store.head(broken.id)
    ctx.store.append(broken.id, seal(seq + 1, head, "player.vanished", "p1", {}))
    done = _rebuild(settings)
    assert done.returncode == 1
    assert f"cannot fold game {broken.id} (seq {seq + 1}:" in done.stderr and "Traceback" not in done.stderr
    assert "games rebuilt: 1" in done.stdout
    assert canonical_json(snapshots.get(ctx.redis, healthy.id)) == _fresh(ctx, healthy)
    assert ctx.redis.zscore(keys.DEADLINES, healthy.id) is not None
    assert snapshots.get(ctx.redis, broken.id) is None and ctx.redis.zscore(keys.DEADLINES, broken.id) is None
