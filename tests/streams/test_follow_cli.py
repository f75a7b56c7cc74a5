"""`arbiter follow`: a game's events on a terminal, from its NDJSON stream, until the end."""
from __future__ import annotations

import io
import threading

from runtime.checkpoints import closes_phase
from runtime.context import Context
from streams import follow as follow_cli
from tests.platform.helpers import Api
from tests.security.helpers import finished
from tests.streams.conftest import StreamServer


def test_arbiter_follow_prints_the_game_until_its_end(api: Api, ctx: Context, streams: StreamServer) -> None:
    game = finished(api, ctx, "extreme-ways")
    out = io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(follow_cli.follow(streams.url, game.id, game.gm, 0,
                                                                             out=out)))
    thread.start()
    thread.join(20)
    printed = out.getvalue().splitlines()
    lines = [line for line in printed if not line.startswith("-- signed checkpoint:")]
    log = api.get(game.path("/events?limit=1000"))[1]["events"]
    assert result == [0]
    assert len(printed) - len(lines) == sum(closes_phase(e) for e in log) > 0, "a checkpoint after each phase"
    assert len(lines) == len(log) + 1 and lines[-1].startswith("-- the game is over")
    assert lines[0].startswith("#1 ") and "game.created" in lines[0]
    assert "game over" in lines[-2]
