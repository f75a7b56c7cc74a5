"""Webhooks: every event delivered, signed, once and in order per hook, as the hook's viewer may see it; retried
with backoff while the receiver is down; refused for addresses a server should not call; a delivery log for the
GM; and a receiver that hangs costs the other hooks one short timeout, not one per event."""
from __future__ import annotations

import time
from typing import Callable, Iterator

import pytest
from rq.registry import ScheduledJobRegistry

from eventlog import keys
from runtime import webhooks as hooks
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import Api, run_queued_jobs
from tests.streams.conftest import StreamServer
from bench.receiver import Receiver
from workers import webhooks as delivery


@pytest.fixture()
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv("ARBITER_WEBHOOKS_ALLOW_PRIVATE", "1")  # the receiver is on 127.0.0.1
    server = Receiver()
    yield server
    server.stop()


def _register(live: StreamServer, game: Game, url: str, token: str, **body: object) -> dict:
    status, hook = live.call("POST", game.path("/webhooks"), {"url": url, **body}, token)
    assert status == 201, hook
    return hook


def _until(ctx: Context, done: Callable[[], bool], seconds: float = 10) -> None:
    """Run the queued jobs (the stream process queues them as it hears appends) until ``done``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "not delivered in time"
        run_queued_jobs(ctx)
        time.sleep(0.05)


def _events(api: Api, game: Game, token: str | None) -> list[dict]:
    return api.get(game.path("/events?limit=1000"), token)[1]["events"]


def _public_events(api: Api, game: Game, count: int) -> None:
    for _ in range(count):
        kind = "gm.resume" if api.get(game.path())[1]["status"] == "paused" else "gm.pause"
        status, body = api.post(game.path("/actions"), {"type": kind, "reason": "hook"}, token=game.gm)
        assert status == 202, body


def test_every_event_is_delivered_once_signed_and_in_order(api: Api, ctx: Context, game: Game, receiver: Receiver,
                                                          kicking_streams: StreamServer) -> None:
    hook = _register(kicking_streams, game, receiver.url, game.gm, after=0)
    receiver.secret = hook["secret"]
    assert hook["secret"].startswith("whsec_") and hook["viewer"] is None
    status, _ = api.post(game.path("/actions"), {"type": "bid", "amount": 7}, token=game.tokens["p1"])
    _public_events(api, game, 4)
    head = _events(api, game, game.gm)[-1]["seq"]
    _until(ctx, lambda: len(receiver.accepted) >= head)
    time.sleep(0.3)
    run_queued_jobs(ctx)
    assert receiver.seqs() == list(range(1, head + 1)), "each event once, in seq order"
    assert [d["event"] for d in receiver.accepted] == _events(api, game, None), "the public view, as /events"
    assert receiver.accepted[-1]["_delivery"] == f"{hook['id']}:{receiver.accepted[-1]['event']['hash']}"
    assert receiver.refused == 0
    status, shown = kicking_streams.call("GET", game.path(f"/webhooks/{hook['id']}"), token=game.gm)
    assert status == 200 and "secret" not in shown
    assert shown["delivered"] == head and shown["status"] == "ok"
    assert [d["seq"] for d in shown["deliveries"]] == list(range(head, 0, -1))
    assert all(d["status"] == 204 and d["error"] is None for d in shown["deliveries"])


def test_a_players_hook_gets_the_players_view(api: Api, ctx: Context, game: Game, receiver: Receiver,
                                              kicking_streams: StreamServer) -> None:
    hook = _register(kicking_streams, game, receiver.url, game.tokens["p2"])
    receiver.secret = hook["secret"]
    for player, amount in (("p1", 11), ("p2", 22)):
        status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])
        assert status == 202, body
    _until(ctx, lambda: len(receiver.accepted) >= 2)
    theirs, own = (d["event"] for d in receiver.accepted)
    assert theirs["data"] == {"phase": 1, "sealed": True} and own["data"]["action"]["amount"] == 22
    assert [d["event"] for d in receiver.accepted] == _events(api, game, game.tokens["p2"])[-2:]
    path = game.path(f"/webhooks/{hook['id']}")
    assert kicking_streams.call("GET", path, token=game.tokens["p1"])[0] == 404, "not p1's hook"
    assert kicking_streams.call("GET", path, token=game.gm)[0] == 200, "the GM reads every hook's log"


def test_signatures(receiver: Receiver) -> None:
    body, now = b'{"event": 1}', int(time.time())
    header = hooks.sign("whsec_k", now, body)
    assert hooks.verify("whsec_k", header, body)
    assert not hooks.verify("whsec_k", header, body + b" "), "another body"
    assert not hooks.verify("whsec_other", header, body), "another secret"
    assert not hooks.verify("whsec_k", hooks.sign("whsec_k", now - 600, body), body), "too old: a replay"
    assert not hooks.verify("whsec_k", "t=x,v1=y", body) and not hooks.verify("whsec_k", "", body)


def test_a_delivery_whose_signature_does_not_verify_is_refused_and_retried(
        api: Api, ctx: Context, game: Game, receiver: Receiver, kicking_streams: StreamServer) -> None:
    hook = _register(kicking_streams, game, receiver.url, game.gm)
    receiver.secret = "whsec_not_the_hooks"
    _public_events(api, game, 1)
    _until(ctx, lambda: receiver.refused >= 1)
    status, shown = kicking_streams.call("GET", game.path(f"/webhooks/{hook['id']}"), token=game.gm)
    assert shown["status"] == "retrying" and shown["attempts"] == 1 and shown["last_error"] == "answered 401"
    assert shown["delivered"] < _events(api, game, None)[-1]["seq"] and receiver.accepted == []
    scheduled = ScheduledJobRegistry(queue=ctx.webhook_queue).get_job_ids()
    assert any(job.startswith(f"hook-{game.id}-{hook['id']}-retry-") for job in scheduled)


def test_a_receiver_that_was_down_gets_everything_in_order_after_it_returns(
        api: Api, ctx: Context, game: Game, receiver: Receiver, kicking_streams: StreamServer) -> None:
    """Attempts back off 1 s, 2 s, 4 s ...; later events wait behind the failing one; then all arrive in order."""
    hook = _register(kicking_streams, game, receiver.url, game.gm)
    receiver.secret, receiver.mode = hook["secret"], "down"
    _public_events(api, game, 3)
    first = delivery.run(ctx, game.id, hook["id"])
    waits = []
    for _ in range(3):
        state = hooks.state(ctx.redis, game.id, hook["id"])
        waits.append(state["next_attempt_at"] - int(time.time()))
        assert delivery.run(ctx, game.id, hook["id"]) == "backing off", "a kick does not hammer a failing receiver"
        assert delivery.run(ctx, game.id, hook["id"], retry=True) == "failed"
    assert first == "failed" and waits[1] - waits[0] >= 1 and waits[2] - waits[1] >= 2, waits
    receiver.mode = "up"
    assert delivery.run(ctx, game.id, hook["id"], retry=True) == "up to date"
    head = _events(api, game, None)[-1]["seq"]
    assert receiver.seqs() == list(range(head - 2, head + 1))
    shown = kicking_streams.call("GET", game.path(f"/webhooks/{hook['id']}"), token=game.gm)[1]
    assert shown["status"] == "ok" and shown["attempts"] == 0 and shown["last_error"] is None
    s = head - 2
    assert [(d["seq"], d["attempt"], d["error"]) for d in shown["deliveries"]] == [
        (s + 2, 1, None), (s + 1, 1, None), (s, 5, None), *((s, n, "answered 503") for n in (4, 3, 2, 1))]


def test_a_hanging_receiver_does_not_hold_up_the_other_hooks(
        api: Api, ctx: Context, game: Game, receiver: Receiver, monkeypatch: pytest.MonkeyPatch,
        kicking_streams: StreamServer) -> None:
    monkeypatch.setattr(delivery, "TIMEOUT_S", 0.3)
    monkeypatch.setattr(hooks, "BACKOFF_S", (5, 10))  # the test's second round falls within the first backoff
    hanging = Receiver()
    try:
        hanging.mode, hanging.hang_s = "hang", 3
        slow = _register(kicking_streams, game, hanging.url, game.gm)
        fine = _register(kicking_streams, game, receiver.url, game.gm)
        receiver.secret = fine["secret"]
        time.sleep(1.2)  # the stream process learns which games have hooks once a second
        _public_events(api, game, 1)
        started = time.monotonic()
        _until(ctx, lambda: len(receiver.accepted) >= 1)
        assert time.monotonic() - started < 2.5, "one short timeout behind the hanging receiver, not its 3 s"
        assert hooks.state(ctx.redis, game.id, slow["id"])["last_error"].startswith("TimeoutError")
        _public_events(api, game, 3)  # the hanging hook backs off: the jobs these queue leave its receiver alone
        _until(ctx, lambda: len(receiver.accepted) >= 4)
        assert hanging.requests == 1, "no attempt at the hanging receiver before its backoff is over"
        assert receiver.seqs() == sorted(receiver.seqs())
    finally:
        hanging.stop()


@pytest.mark.parametrize("url", ["http://127.0.0.1/hook", "http://localhost:8000/", "http://10.1.2.3/",
                                 "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data", "http://[::1]/",
                                 "http://0.0.0.0/", "ftp://example.com/", "file:///etc/passwd",
                                 "http://user:pw@example.com/", "http://100.64.0.1/", "http://[::ffff:127.0.0.1]/"])
def test_urls_a_server_must_not_call_are_refused(game: Game, streams: StreamServer, url: str) -> None:
    status, body = streams.call("POST", game.path("/webhooks"), {"url": url}, game.gm)
    assert status == 422 and "url" in body["error"]["details"], body
    assert streams.call("GET", game.path("/webhooks"), token=game.gm)[1]["webhooks"] == []


def test_who_may_keep_hooks(game: Game, receiver: Receiver, kicking_streams: StreamServer) -> None:
    live = kicking_streams
    status, body = live.call("POST", game.path("/webhooks"), {"url": receiver.url})
    assert status == 401 and body["error"]["code"] == "unauthorized"
    status, body = live.call("POST", game.path("/webhooks"), {"url": receiver.url, "view": "gm"}, game.tokens["p1"])
    assert status == 422 and "view" in body["error"]["details"]
    assert live.call("POST", game.path("/webhooks"), {"url": receiver.url, "colour": 1}, game.gm)[0] == 422
    assert live.call("POST", game.path("/webhooks"), [1], game.gm)[0] == 400
    assert live.call("POST", "/games/g-none/webhooks", {"url": receiver.url}, game.gm)[0] == 404
    assert live.call("POST", game.path("/webhooks"), {"url": receiver.url}, "not-a-token")[0] == 401
    gm_hook = _register(live, game, receiver.url, game.gm, view="gm")
    own = _register(live, game, receiver.url, game.tokens["p1"])
    assert gm_hook["viewer"] == "gm" and own["viewer"] == "p1"
    assert [h["id"] for h in live.call("GET", game.path("/webhooks"), token=game.tokens["p1"])[1]["webhooks"]] == [
        own["id"]]
    assert len(live.call("GET", game.path("/webhooks"), token=game.gm)[1]["webhooks"]) == 2
    assert live.call("DELETE", game.path(f"/webhooks/{gm_hook['id']}"), token=game.tokens["p1"])[0] == 404
    assert live.call("DELETE", game.path(f"/webhooks/{own['id']}"), token=game.gm)[0] == 200
    assert [h["id"] for h in live.call("GET", game.path("/webhooks"), token=game.gm)[1]["webhooks"]] == [
        gm_hook["id"]]


def test_a_drain_that_waited_for_the_lock_starts_from_the_cursor_the_holder_left(
        api: Api, ctx: Context, game: Game, receiver: Receiver, kicking_streams: StreamServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two deliveries of one hook at once (two kicks on two threads): the second takes the lock only once the first
    has delivered everything and let go, and must start where the first left the cursor, not where it stood when the
    second began; else events went out again, and out of order (the fan-out bench saw 162, 163, 162, 163)."""
    hook = _register(kicking_streams, game, receiver.url, game.gm)
    receiver.secret = hook["secret"]
    _public_events(api, game, 3)
    lock, take = keys.webhook_lock(game.id, hook["id"]), ctx.redis.set
    first: list[str] = []

    def set_then(name: object, *args: object, **kw: object) -> object:
        if not first and name == lock:  # the second delivery is about to take the lock: the first runs now
            first.append("running")
            first[0] = delivery.run(ctx, game.id, hook["id"])
        return take(name, *args, **kw)

    monkeypatch.setattr(ctx.redis, "set", set_then)
    assert delivery.run(ctx, game.id, hook["id"]) == "up to date"
    head = _events(api, game, None)[-1]["seq"]
    assert first == ["up to date"] and receiver.seqs() == list(range(head - 2, head + 1)), receiver.seqs()
