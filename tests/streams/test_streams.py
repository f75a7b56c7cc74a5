"""The stream process: each follower gets its own view of every event, once, in order, live and on resume."""
from __future__ import annotations

import pytest
import requests

from runtime.context import Context
from streams import hub as hubs
from streams import server as stream_server
from tests.platform.conftest import Game
from tests.platform.helpers import Api
from tests.security.helpers import GAME_TYPES, advance, finished, started
from tests.streams.client import Stream
from tests.streams.conftest import StreamServer


def _events(api: Api, game: Game, token: str | None) -> list[dict]:
    status, body = api.get(game.path("/events?limit=1000"), token)
    assert status == 200, body
    return body["events"]


def _pause_resume(api: Api, game: Game, times: int) -> None:
    """``times`` public events: the GM pauses the game, or resumes it if it is paused."""
    for i in range(times):
        kind = "gm.resume" if api.get(game.path())[1]["status"] == "paused" else "gm.pause"
        status, body = api.post(game.path("/actions"), {"type": kind, "reason": f"step {i}"}, token=game.gm)
        assert status == 202, body


@pytest.mark.parametrize("fmt", ["sse", "ndjson"])
def test_a_follower_gets_the_log_then_live_events(api: Api, game: Game, streams: StreamServer, fmt: str) -> None:
    stream = Stream(streams.url, game.id, game.tokens["p1"], fmt=fmt)
    assert stream.status == 200
    assert stream.response.headers["Content-Type"].startswith("text/event-stream" if fmt == "sse"
                                                              else "application/x-ndjson")
    backlog = stream.events(len(_events(api, game, None)))
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 3}, token=game.tokens["p1"])
    assert status == 202, body
    live = stream.events(1)
    stream.close()
    assert [e["seq"] for e in backlog + live] == list(range(1, body["seq"] + 1))
    assert live[0]["data"]["action"] == {"type": "bid", "amount": 3}, "a player's own sealed order, whole"


def test_a_follower_that_resumes_with_last_event_id_gets_every_event_exactly_once(
        api: Api, game: Game, streams: StreamServer) -> None:
    first = Stream(streams.url, game.id, game.tokens["p2"], fmt="sse")
    seen = first.events(3)
    first.close()
    _pause_resume(api, game, 3)  # appended while nobody follows
    second = Stream(streams.url, game.id, game.tokens["p2"], fmt="sse", last_event_id=seen[-1]["seq"])
    head = _events(api, game, None)[-1]["seq"]
    seen += second.events(head - seen[-1]["seq"])
    _pause_resume(api, game, 2)  # and live, after the switch from the log to the feed
    seen += second.events(2)
    second.close()
    assert [e["seq"] for e in seen] == list(range(1, head + 3))
    assert seen == _events(api, game, game.tokens["p2"]), "the stream shows what /events shows p2"


def test_after_skips_what_the_follower_has(api: Api, game: Game, streams: StreamServer) -> None:
    stream = Stream(streams.url, game.id, None, after=4)
    got = stream.events(2)
    stream.close()
    assert [e["seq"] for e in got] == [5, 6]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_viewers_stream_is_what_events_shows_them(api: Api, ctx: Context, streams: StreamServer,
                                                        game_type: str) -> None:
    """Public, each player and the GM follow a game while bots play a few phases (sealed orders included): each
    stream carries exactly the events /events shows that viewer, redacted the same (so no other player's sealed
    order); and the GM's stream does carry every order whole."""
    game = started(api, game_type, seed="streams")
    viewers = {"public": None, "gm": game.gm, **game.tokens}
    followers = {who: Stream(streams.url, game.id, token) for who, token in viewers.items()}
    try:
        for phase in range(3):
            if not advance(api, ctx, game, f"stream-{phase}"):
                break
        head = _events(api, game, game.gm)[-1]["seq"]
        for who, token in viewers.items():
            assert followers[who].events(head) == _events(api, game, token), f"{game_type}: {who}'s stream"
    finally:
        for stream in followers.values():
            stream.close()
    gm_orders = [e for e in _events(api, game, game.gm) if e["type"] == "action.submitted"]
    assert gm_orders and all("action" in e["data"] for e in gm_orders)


def test_a_follower_of_a_finished_game_gets_the_whole_log_and_an_end(api: Api, ctx: Context,
                                                                     streams: StreamServer) -> None:
    game = finished(api, ctx, "extreme-ways")
    log = _events(api, game, None)
    for fmt in ("ndjson", "sse"):
        events, end = Stream(streams.url, game.id, None, fmt=fmt).until_end()
        assert events == log, "after the end everything is open, as in /events"
        assert end == {"reason": "finished", "seq": log[-1]["seq"]}
    # An EventSource that reconnects after the end is told to stop (204), not fed the end again and again.
    assert Stream(streams.url, game.id, None, fmt="sse", last_event_id=log[-1]["seq"]).status == 204


def test_the_stream_ends_after_the_games_final_event(api: Api, ctx: Context, streams: StreamServer) -> None:
    game = started(api, "extreme-ways", seed="ends", options={"bidding_rounds": 1})
    stream = Stream(streams.url, game.id, game.tokens["p1"])
    for phase in range(60):
        if not advance(api, ctx, game, f"end-{phase}"):
            break
    events, end = stream.until_end()
    assert end is not None and events[-1]["seq"] == end["seq"]
    assert events[-1]["data"]["next"] is None and "seed" in events[-1]["data"]


def test_a_stream_ticket_is_good_once_for_its_token(api: Api, game: Game, streams: StreamServer) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": 9}, token=game.tokens["p3"])
    assert status == 202
    status, ticket = streams.call("POST", game.path("/stream-tickets"), token=game.tokens["p3"])
    assert status == 201 and ticket["expires_in"] == 60
    assert ticket["stream"] == f"/v1/games/{game.id}/stream?ticket={ticket['ticket']}"
    stream = Stream(streams.url, game.id, fmt="sse", ticket=ticket["ticket"], after=body["seq"] - 1)
    assert stream.events(1)[0]["data"]["action"]["amount"] == 9, "the ticket stands for p3"
    stream.close()
    again = Stream(streams.url, game.id, fmt="sse", ticket=ticket["ticket"])
    assert again.status == 401 and again.response.json()["error"]["code"] == "unauthorized"
    assert streams.call("POST", game.path("/stream-tickets"))[0] == 401, "the public needs no ticket"
    assert streams.call("POST", "/games/g-none/stream-tickets", token=game.gm)[0] == 404
    p1_ticket = streams.call("POST", game.path("/stream-tickets"), token=game.tokens["p1"])[1]["ticket"]
    other = Stream(streams.url, game.id, fmt="sse", ticket=p1_ticket, after=body["seq"] - 1)
    assert other.events(1)[0]["data"] == {"phase": 1, "sealed": True}, "p1's ticket shows p1's view"
    other.close()


def test_refusals(api: Api, game: Game, streams: StreamServer) -> None:
    assert Stream(streams.url, "g-no-such-game").status == 404
    assert Stream(streams.url, game.id, "not-a-token").status == 401
    response = requests.get(f"{streams.url}/games/{game.id}/stream?after=x", timeout=5)
    assert response.status_code == 422 and response.json()["error"]["details"] == {"after": ["Must be a whole "
                                                                                              "number."]}
    assert requests.get(f"{streams.url}/games/{game.id}/stream?format=xml", timeout=5).status_code == 422


def test_heartbeats_keep_an_idle_stream_open(api: Api, game: Game, streams: StreamServer,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_server, "HEARTBEAT_S", 0.1)
    head = _events(api, game, None)[-1]["seq"]
    for fmt in ("ndjson", "sse"):
        stream = Stream(streams.url, game.id, None, fmt=fmt, after=head)
        assert next(stream.items()) == {"heartbeat": True}
        stream.close()


def test_a_follower_too_far_behind_is_dropped_with_its_memory_freed() -> None:
    slow = hubs.Follower(None)
    for seq in range(1, hubs.MAX_BEHIND + 1):
        slow.offer((seq, b"{}"))
    assert not slow.dropped
    slow.offer((hubs.MAX_BEHIND + 1, b"{}"))
    assert slow.dropped and slow.queue.qsize() == 1 and slow.queue.get_nowait() is hubs.DROPPED
    slow.offer((hubs.MAX_BEHIND + 2, b"{}"))
    assert slow.queue.empty(), "nothing more is kept for it"


def test_one_slow_follower_does_not_hold_up_the_others(api: Api, game: Game, streams: StreamServer) -> None:
    """A client that never reads: the others get every event at once; the slow one is let go when its queue fills."""
    stuck = Stream(streams.url, game.id, None, after=100_000)  # never read from
    brisk = Stream(streams.url, game.id, None, after=_events(api, game, None)[-1]["seq"])
    try:
        _pause_resume(api, game, 20)
        assert len(brisk.events(20)) == 20
        assert streams.hub.followers == 2
    finally:
        stuck.close()
        brisk.close()


def test_one_subscription_serves_every_follower(api: Api, game: Game, streams: StreamServer) -> None:
    clients = streams.hub.context.redis.pubsub_numsub("arbiter:appended")[0][1]
    followers = [Stream(streams.url, game.id, token) for token in [None, *game.tokens.values()]]
    try:
        assert all(f.events(1) for f in followers)
        assert streams.hub.context.redis.pubsub_numsub("arbiter:appended")[0][1] == clients
    finally:
        for stream in followers:
            stream.close()


def test_a_feed_that_fails_lets_its_followers_go_and_the_others_go_on(
        api: Api, game: Game, streams: StreamServer, monkeypatch: pytest.MonkeyPatch) -> None:
    other = started(api, "extreme-ways", seed="other")
    real = hubs.shown

    def broken(record: dict, event: dict, viewer: object) -> bytes:
        if record["game_id"] == game.id:
            raise RuntimeError("a bug in a view")
        return real(record, event, viewer)

    failing = Stream(streams.url, game.id, None, after=_events(api, game, None)[-1]["seq"])
    fine = Stream(streams.url, other.id, None, after=_events(api, other, None)[-1]["seq"])
    monkeypatch.setattr(hubs, "shown", broken)
    _pause_resume(api, game, 1)
    _pause_resume(api, other, 1)
    assert fine.events(1)[0]["type"] == "gm.pause", "the subscription lives on"
    assert list(failing.items()) == [], "the stream ends: its client resumes with after"
    fine.close()


def test_a_store_that_cannot_be_reached_is_a_503_to_retry(game: Game, streams: StreamServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    def down(*_: object) -> None:
        raise RedisConnectionError("Redis is down")

    monkeypatch.setattr(streams.hub.context.loader, "load", down)
    stream = Stream(streams.url, game.id, None)
    assert stream.status == 503 and stream.response.headers["Retry-After"] == "1"
    assert stream.response.json()["error"]["code"] == "store_unavailable"
    status, body = streams.call("POST", game.path("/stream-tickets"), token=game.gm)
    assert status == 503 and body["error"]["code"] == "store_unavailable"
