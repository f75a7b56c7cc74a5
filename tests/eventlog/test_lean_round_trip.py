"""The store's lean round trip (``EventStore.execute`` and the append's EVALSHA) must answer
exactly as redis-py's own pipeline and ``Script`` do, and fall back to them when it cannot."""
from __future__ import annotations

import pytest
from redis.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from eventlog import keys
from eventlog.events import GENESIS, seal
from runtime.context import Context


def _queue(pipe, game_id: str) -> None:
    pipe.xrange(keys.events(game_id), min="2-0")
    pipe.get("absent")
    pipe.hget(keys.private(game_id), "seed")
    pipe.zscore("scores", "member")
    pipe.xrange(keys.events("nothing"), min="1-0")


def test_execute_gives_what_the_pipeline_gives(ctx: Context) -> None:
    store = ctx.store
    first = seal(1, GENESIS, "game.created", "anyone", {"game_id": "gl"})
    store.append("gl", first, private={"seed": "s"})
    store.append("gl", seal(2, first["hash"], "note", "gm", {"n": 2}))
    ctx.redis.zadd("scores", {"member": 1.5})
    lean, plain = ctx.redis.pipeline(transaction=False), ctx.redis.pipeline(transaction=False)
    _queue(lean, "gl")
    _queue(plain, "gl")
    assert store.execute(lean) == plain.execute()


def test_an_error_reply_raises_after_every_reply_was_read(ctx: Context) -> None:
    ctx.redis.set("text", "x")
    pipe = ctx.redis.pipeline(transaction=False)
    pipe.hget("text", "field")  # WRONGTYPE
    pipe.get("text")
    with pytest.raises(ResponseError):
        ctx.store.execute(pipe)
    for _ in range(5):  # the connection is still in step
        assert ctx.store.execute(ctx.redis.pipeline(transaction=False).get("text")) == [b"x"]


def test_append_loads_a_script_the_server_forgot(ctx: Context) -> None:
    first = seal(1, GENESIS, "game.created", "anyone", {"game_id": "gf"})
    ctx.redis.script_flush()
    ctx.store.append("gf", first)
    assert ctx.store.read("gf") == [first]


def test_a_failed_exchange_falls_back_to_redis_py(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    if not ctx.store._lean:
        pytest.skip("a cluster always goes through redis-py")
    store = ctx.store
    first = seal(1, GENESIS, "game.created", "anyone", {"game_id": "gd"})
    store.append("gd", first)
    send = Connection.send_packed_command
    failures = []

    def fail_once(self: Connection, *args: object, **kwargs: object) -> None:
        if len(failures) < 1:
            failures.append(1)
            raise RedisConnectionError("dropped")
        send(self, *args, **kwargs)

    monkeypatch.setattr(Connection, "send_packed_command", fail_once)
    assert store.execute(ctx.redis.pipeline(transaction=False).xrange(keys.events("gd"))) != []
    assert failures == [1]
    failures.clear()
    second = seal(2, first["hash"], "note", "gm", {"n": 2})
    store.append("gd", second)
    assert failures == [1]
    assert store.read("gd") == [first, second]
