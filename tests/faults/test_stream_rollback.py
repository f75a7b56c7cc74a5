"""Issue 28 item 2: after a rollback the stream process goes on delivering the game.

A log that went back (DUMP a game's stream, send orders, RESTORE the dump) used to stall every follower at the old
head: the hub ignored notices for seqs it had passed, and catching up re-read an event whose ``prev_hash`` did not
fit, for ever.  Now followers get the ``log.rolled_back`` notice and every event after it; a new follower gets the
log as it is; one resuming past the head goes back to what the notice says the log kept.  Each stream process
here has a context (a loader) of its own, as a real one does."""
from __future__ import annotations

import time
from typing import Iterator

import pytest
from redis import Redis

from eventlog import keys
from runtime.context import Context
from tests.faults import figures
from service.app import create_app
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api
from tests.streams.client import Stream
from tests.streams.conftest import StreamServer


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


@pytest.fixture()
def game(api: Api) -> Game:
    return new_game(api)


@pytest.fixture()
def own_streams(ctx: Context) -> Iterator[StreamServer]:
    server = StreamServer(Context(ctx.settings))
    server.start()
    yield server
    server.stop()


def _bid(api: Api, game: Game, player: str, amount: int) -> dict:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])
    assert status == 202, body
    return body


def _log(api: Api, game: Game) -> list[dict]:
    return api.get(game.path("/events?limit=1000"))[1]["events"]


def test_followers_get_the_rollback_notice_and_every_event_after_it(api: Api, game: Game, ctx: Context,
                                                                     own_streams: StreamServer) -> None:
    redis = Redis.from_url(ctx.settings.redis_url)
    head = len(_log(api, game))
    follower = Stream(own_streams.url, game.id, fmt="sse")
    assert [e["seq"] for e in follower.events(head)] == list(range(1, head + 1))
    kept = redis.dump(keys.events(game.id))
    lost = [_bid(api, game, p, 1)["hash"] for p in ("p1", "p2", "p3")]
    assert [e["hash"] for e in follower.events(3)] == lost
    redis.restore(keys.events(game.id), 0, kept, replace=True)  # Redis lost the three bids

    started = time.monotonic()
    assert api.get(game.path())[1]["seq"] == head + 1  # the API reads the game and announces the loss
    notice = follower.events(1)
    noticed = time.monotonic() - started
    resumer = Stream(own_streams.url, game.id, fmt="sse", last_event_id=head + 3)  # saw the lost bids, then dropped
    again = [_bid(api, game, p, 2)["hash"] for p in ("p1", "p2", "p3")]
    log = _log(api, game)
    assert [e["type"] for e in log[head:]] == ["log.rolled_back", "action.submitted", "action.submitted",
                                               "action.submitted"]
    assert log[head]["data"] == {"from_seq": head + 3, "to_seq": head}
    assert notice + follower.events(3) == log[head:], "the notice, then every event after it, as /events shows them"
    assert [e["hash"] for e in log[head + 1:]] == again
    assert resumer.events(4) == log[head:], "a follower resuming past the head goes back to the notice"
    fresh = Stream(own_streams.url, game.id, fmt="ndjson")
    assert fresh.events(len(log)) == log, "a new follower gets the log as it is"
    late = Stream(own_streams.url, game.id, fmt="sse", last_event_id=head + 3)  # a lost seq, now taken again
    assert late.events(4) == log[head:], "a follower resuming inside the lost span goes back to the notice"
    after = _bid(api, game, "p4", 3)
    for stream in (follower, resumer, fresh, late):
        assert [e["hash"] for e in stream.events(1)] == [after["hash"]], "and goes on live"
        stream.close()
    figures.record("stream rollback announced by the API", followers=4, lost=3, events_after=4,
                   notice_s=round(noticed, 3))


def test_the_stream_process_finds_a_rollback_nobody_announced_and_says_so(api: Api, game: Game, ctx: Context,
                                                                          own_streams: StreamServer) -> None:
    """Redis restarted having lost writes: no API request has read the game since, and the stream process's
    subscription was cut.  When it subscribes again its feed finds the log short, announces the loss, and its
    followers get the notice."""
    redis = Redis.from_url(ctx.settings.redis_url)
    head = len(_log(api, game))
    follower = Stream(own_streams.url, game.id, fmt="ndjson", after=head)
    kept = redis.dump(keys.events(game.id))
    _bid(api, game, "p1", 1)
    _bid(api, game, "p2", 1)
    assert len(follower.events(2)) == 2
    redis.restore(keys.events(game.id), 0, kept, replace=True)
    started = time.monotonic()
    redis.client_kill_filter(_type="pubsub")  # the stream process loses its subscription, as on a restart
    notice = follower.events(1)[0]
    figures.record("stream rollback found by the stream process", lost=2, notice_s=round(time.monotonic() - started, 3))
    assert notice["type"] == "log.rolled_back" and notice["seq"] == head + 1
    assert notice["data"] == {"from_seq": head + 2, "to_seq": head}
    assert _bid(api, game, "p1", 2)["seq"] == head + 2
    assert follower.events(1)[0]["seq"] == head + 2
    follower.close()
