"""The append notices (replays/notices.py): an API process hears the other processes' appends
and its cached records keep up, so that its next order goes out once instead of conflicting.
A notice is only ever a hint: a lost, foreign or broken one changes nothing but the cost.

"Two API processes" are two Flask apps, each with its own Context, over one Redis.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Iterator

import orjson
import pytest

from eventlog import keys
from eventlog.store import Conflict, EventStore
from replays import notices as notices_module
from replays.fold import fold
from service.app import create_app
from runtime.config import ConfigError, Settings
from runtime.context import Context, use
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs


@pytest.fixture()
def processes(ctx: Context) -> Iterator[tuple[Api, Api, Context, Context]]:
    """Two API processes that follow the notices, as ``service.wsgi`` sets them up."""
    contexts = Context(ctx.settings), Context(ctx.settings)
    for context in contexts:
        context.follow_appends()
    yield (Api(create_app(contexts[0]).test_client()), Api(create_app(contexts[1]).test_client()), *contexts)
    for context in contexts:
        assert context.notices is not None
        context.notices.close()
    use(ctx)


def _bid(api: Api, game: Game, player: str, amount: int) -> None:
    status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player])
    assert status == 202, body


def _head(context: Context, game: Game) -> int:
    return context.store.head(game.id)[0]


def _hear_up_to(context: Context, game: Game, seq: int) -> dict[str, Any]:
    """Drain until the cached record reaches ``seq`` (a notice is on its way within microseconds)."""
    assert context.notices is not None
    for _ in range(200):
        context.notices.catch_up()
        record = context.loader.cached(game.id)
        if record is not None and record["seq"] >= seq:
            return record
        time.sleep(0.005)
    raise AssertionError(f"never heard seq {seq}")


def _bid_cached(first: Api, context: Context) -> tuple[Game, dict[str, Any]]:
    """A game in which the first process sent p1's bid, and the record that process now caches."""
    game = new_game(first)
    _bid(first, game, "p1", 1)
    record = context.loader.cached(game.id)
    assert record is not None and context.notices is not None
    return game, record


def _drain_a_while(context: Context) -> None:
    """Long enough for any notice on its way to arrive and be read."""
    assert context.notices is not None
    for _ in range(20):
        context.notices.catch_up()
        time.sleep(0.005)


def _subscribed(context: Context, processes: int) -> None:
    for _ in range(200):
        assert context.notices is not None
        context.notices.catch_up()
        if dict(context.redis.pubsub_numsub(keys.APPENDED))[keys.APPENDED.encode()] == processes:
            return
        time.sleep(0.005)
    raise AssertionError("not subscribed")


def _conflicts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    append = EventStore.append

    def counted(self: EventStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return append(self, *args, **kwargs)
        except Conflict as exc:
            seen.append(exc.seq)
            raise

    monkeypatch.setattr(EventStore, "append", counted)
    return seen


def test_an_order_after_another_processes_append_goes_out_without_a_conflict(
        processes: tuple[Api, Api, Context, Context], monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, one, _two = processes
    game = new_game(first)
    _bid(first, game, "p1", 1)   # the first process has the game cached and p1's token remembered
    _bid(second, game, "p2", 1)  # ... which this append makes stale
    _hear_up_to(one, game, _head(one, game))
    conflicts = _conflicts(monkeypatch)
    _bid(first, game, "p1", 2)
    assert conflicts == []


def test_without_the_notices_the_same_order_conflicts_once(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the test above: the same steps with processes that do not follow the notices."""
    first, second = (Api(create_app(Context(ctx.settings)).test_client()) for _ in range(2))
    use(ctx)
    game = new_game(first)
    _bid(first, game, "p1", 1)
    _bid(second, game, "p2", 1)
    conflicts = _conflicts(monkeypatch)
    _bid(first, game, "p1", 2)
    assert len(conflicts) == 1


def test_a_heard_record_is_the_record_folded_from_the_log(processes: tuple[Api, Api, Context, Context]) -> None:
    first, second, one, two = processes
    game = new_game(first)
    for player, api in (("p1", first), ("p2", second), ("p3", first), ("p4", second)):
        _bid(api, game, player, 1)
    run_queued_jobs(one)  # everyone has bid: the phase resolves early, in a worker (another process)
    head = _head(one, game)
    assert one.store.read_one(game.id, head)["type"] == "phase.resolved"
    heard = [_hear_up_to(context, game, head) for context in (one, two)]
    assert heard[0] == heard[1] == fold(one.store.read(game.id))


def test_a_notice_for_a_game_not_cached_reads_nothing(processes: tuple[Api, Api, Context, Context],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, one, _two = processes
    first.get("/health")  # subscribed
    game = new_game(second)
    _bid(second, game, "p1", 1)
    monkeypatch.setattr(EventStore, "read", lambda *a, **k: pytest.fail("a notice made a read"))
    _drain_a_while(one)
    assert one.loader.cached(game.id) is None


def test_a_notice_that_does_not_follow_the_record_is_ignored(processes: tuple[Api, Api, Context, Context],
                                                             caplog: pytest.LogCaptureFixture) -> None:
    first, _second, one, _two = processes
    game, before = _bid_cached(first, one)
    sealed_text = "SEALED-ORDER-TEXT"
    forged = {**one.store.read_one(game.id, before["seq"]), "seq": before["seq"] + 1, "prev_hash": "0" * 64,
              "data": {"phase": 1, "action": {"type": "bid", "amount": 3, "note": sealed_text}}}
    channel = keys.APPENDED
    with caplog.at_level(logging.WARNING, logger="arbiter.notices"):
        one.redis.publish(channel, f"{before['seq'] + 1} {game.id} ".encode() + orjson.dumps(forged))   # another chain
        one.redis.publish(channel, f"{before['seq'] + 1} {game.id} {{{sealed_text}".encode())          # not JSON
        one.redis.publish(channel, f"{before['seq'] + 5} {game.id} ".encode() + orjson.dumps(forged))   # too far on
        one.redis.publish(channel, b"no notice at all")
        _drain_a_while(one)
    assert one.loader.cached(game.id) is before
    assert caplog.records, "the broken notices are reported"
    assert all(sealed_text not in record.getMessage() for record in caplog.records)
    _bid(first, game, "p1", 2)  # and the process goes on


def test_a_lost_subscription_costs_a_retry_and_is_made_again(processes: tuple[Api, Api, Context, Context],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notices_module, "RETRY_S", 0.0)
    first, second, one, _two = processes
    game = new_game(first)
    _bid(first, game, "p1", 1)
    one.redis.client_kill_filter(_type="pubsub")
    _bid(second, game, "p2", 1)   # unheard
    conflicts = _conflicts(monkeypatch)
    _bid(first, game, "p1", 2)    # finds the subscription gone, and the record stale: one retry
    assert len(conflicts) == 1
    _subscribed(one, 2)           # the next request subscribes again
    _bid(second, game, "p2", 2)   # heard
    _hear_up_to(one, game, _head(one, game))
    _bid(first, game, "p1", 3)
    assert len(conflicts) == 1
    assert [e["data"]["action"]["amount"] for e in one.store.read(game.id) if e["type"] == "action.submitted"] == [
        1, 1, 2, 2, 3]


def test_an_idle_subscription_is_dropped_unread(processes: tuple[Api, Api, Context, Context],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, one, _two = processes
    game, before = _bid_cached(first, one)
    _bid(second, game, "p2", 1)
    monkeypatch.setattr(notices_module, "IDLE_S", -1.0)  # as if the last drain were long ago
    assert one.notices is not None
    one.notices.catch_up()
    assert one.loader.cached(game.id) is before  # the backlog was not read
    monkeypatch.setattr(notices_module, "IDLE_S", 10.0)
    _subscribed(one, 2)
    conflicts = _conflicts(monkeypatch)
    _bid(first, game, "p1", 2)  # the record missed p2's bid: one retry, as without the notices
    assert len(conflicts) == 1


def test_the_notices_are_on_unless_switched_off(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", settings.redis_url)
    monkeypatch.delenv("ARBITER_APPEND_NOTICES", raising=False)
    assert Settings.from_env().append_notices
    assert Context(Settings.from_env()).follow_appends() is not None
    monkeypatch.setenv("ARBITER_APPEND_NOTICES", "0")
    assert Context(Settings.from_env()).follow_appends() is None
    monkeypatch.setenv("ARBITER_APPEND_NOTICES", "sometimes")
    with pytest.raises(ConfigError, match="ARBITER_APPEND_NOTICES must be 1 or 0"):
        Settings.from_env()
