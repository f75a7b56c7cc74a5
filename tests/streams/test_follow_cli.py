"""`arbiter follow`: a game's events on a terminal, from its NDJSON stream, until the end."""
from __future__ import annotations

import io
import threading

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
    lines = out.getvalue().splitlines()
    log = api.get(game.path("/events?limit=1000"))[1]["events"]
    assert result == [0]
    assert len(lines) == len(log) + 1 and lines[-1].startswith("-- the game is over")
    assert lines[0].startswith("#1 ") and "game.created" in lines[0]
    assert "game over" in lines[-2]
