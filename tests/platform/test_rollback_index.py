"""A log that went back (a Redis rollback) is filed again under the status it went back to, so a filtered game list
shows the game where its log says it is, not where the lost events had taken it."""
from __future__ import annotations

from eventlog import keys
from runtime.context import Context
from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def _filed(ctx: Context, game_id: str) -> list[str]:
    return [status for status in ("signup", "running", "paused", "finished")
            if ctx.redis.zscore(keys.games_with_status(status), game_id) is not None]


def test_a_rollback_files_the_game_under_the_status_its_log_went_back_to(api: Api, ctx: Context) -> None:
    game = new_game(api)
    status, body = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "holiday"}, token=game.gm)
    assert status == 202, body
    assert _filed(ctx, game.id) == ["paused"]
    kept = [e for e in ctx.store.read(game.id) if e["seq"] < body["seq"]]
    ctx.redis.delete(keys.events(game.id))  # the store comes back without the pause (a failover to a lagging replica)
    for event in kept:
        ctx.store.append(game.id, event)
    assert api.get(game.path())[1]["status"] == "running"  # the loader finds the log went back, and says so
    assert _filed(ctx, game.id) == ["running"]
