"""Issue 28 item 3: webhooks through a rollback.

A receiver that de-duplicates on ``Arbiter-Delivery``, as docs/clients.md advises, used to diverge after a
rollback: the id was ``<hook>:<seq>``, which the lost event and the one that took its seq share, and the hook's
cursor stood past the events that replaced the lost ones, so neither they nor the ``log.rolled_back`` notice were
delivered.  Now the id names the event (its hash), and a cursor whose event the log no longer holds goes back to
where the log parts from what the receiver got."""
from __future__ import annotations

import time
from typing import Callable, Iterator

import pytest
from redis import Redis

from bench.receiver import Receiver
from eventlog import keys
from runtime.context import Context
from service.app import create_app
from tests.faults import figures
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs
from tests.streams.conftest import StreamServer


@pytest.fixture()
def api(ctx: Context) -> Api:
    return Api(create_app(ctx).test_client())


@pytest.fixture()
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv("ARBITER_WEBHOOKS_ALLOW_PRIVATE", "1")  # the receiver is on 127.0.0.1
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture()
def kicking(ctx: Context) -> Iterator[StreamServer]:
    server = StreamServer(Context(ctx.settings), webhooks=True)
    server.start()
    yield server
    server.stop()


def _until(ctx: Context, done: Callable[[], bool], seconds: float = 15) -> float:
    started = time.monotonic()
    while not done():
        assert time.monotonic() - started < seconds, "not delivered in time"
        run_queued_jobs(ctx)
        time.sleep(0.05)
    return time.monotonic() - started


def _bid(api: Api, game: Game, player: str, amount: int) -> dict:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])
    assert status == 202, body
    return body


def _deduplicated(receiver: Receiver) -> list[dict]:
    """What a receiver that drops a delivery whose Arbiter-Delivery it has seen keeps, in arrival order."""
    seen: set[str] = set()
    kept = []
    for delivery in receiver.accepted:
        if delivery["_delivery"] not in seen:
            seen.add(delivery["_delivery"])
            kept.append(delivery["event"])
    return kept


def test_a_deduplicating_receiver_gets_the_rollback_and_the_events_that_replace_the_lost_ones(
        api: Api, ctx: Context, receiver: Receiver, kicking: StreamServer) -> None:
    game = new_game(api)
    redis = Redis.from_url(ctx.settings.redis_url)
    status, hook = kicking.call("POST", game.path("/webhooks"), {"url": receiver.url}, game.gm)
    assert status == 201, hook
    receiver.secret = hook["secret"]
    time.sleep(1.2)  # the stream process learns which games have hooks once a second
    head = api.get(game.path())[1]["seq"]
    kept = redis.dump(keys.events(game.id))
    lost = [_bid(api, game, p, 1)["hash"] for p in ("p1", "p2", "p3")]
    _until(ctx, lambda: len(receiver.accepted) >= 3)
    assert [d["event"]["hash"] for d in receiver.accepted] == lost
    assert receiver.accepted[0]["_delivery"] == f"{hook['id']}:{lost[0]}", "the delivery id names the event"
    redis.restore(keys.events(game.id), 0, kept, replace=True)  # Redis lost the three bids

    assert api.get(game.path())[1]["seq"] == head + 1  # the API reads the game and announces the loss
    again = [_bid(api, game, p, 2)["hash"] for p in ("p1", "p2", "p3")]
    waited = _until(ctx, lambda: len(_deduplicated(receiver)) >= 7)
    time.sleep(0.3)
    run_queued_jobs(ctx)
    public = api.get(game.path(f"/events?after={head}"))[1]["events"]
    assert [e["type"] for e in public] == ["log.rolled_back"] + ["action.submitted"] * 3
    assert [e["hash"] for e in public[1:]] == again
    assert _deduplicated(receiver) == [d["event"] for d in receiver.accepted[:3]] + public, (
        "the lost bids, then the notice and every event after it: none dropped as a repeat, none twice")
    state = kicking.call("GET", game.path(f"/webhooks/{hook['id']}"), token=game.gm)[1]
    assert state["delivered"] == head + 4 and state["status"] == "ok"
    figures.record("webhook rollback", lost=3, delivered_after=4, dropped_as_repeats=0,
                   seconds_to_deliver=round(waited, 2))
