"""The append script announces each event it appends (``keys.APPENDED``): its seq, its game and
its JSON exactly as stored, so that a listener folds what the log holds.  An append that does not
happen announces nothing."""
from __future__ import annotations

from typing import Any

import pytest

from eventlog import keys
from eventlog.events import GENESIS, seal
from eventlog.requests import RequestId
from eventlog.store import Conflict, Guard, GuardFailed
from runtime.context import Context


def _notices(ctx: Context) -> Any:
    listener = ctx.redis.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(keys.APPENDED)
    assert listener.get_message(timeout=1) is None  # the subscription's confirmation, skipped
    return listener


def _heard(listener: Any) -> list[bytes]:
    heard = []
    while (message := listener.get_message(timeout=0.2)) is not None:
        heard.append(message["data"])
    return heard


def test_an_append_announces_its_seq_game_and_stored_json(ctx: Context) -> None:
    if ctx.settings.redis_cluster:
        pytest.skip("a cluster announces nothing: the test below")
    listener = _notices(ctx)
    first = seal(1, GENESIS, "game.created", "anyone", {"game_id": "gn"})
    second = seal(2, first["hash"], "note", "gm", {"n": 2})
    ctx.store.append("gn", first, private={"seed": "s"})
    ctx.store.append("gn", second)
    stored = [fields[b"e"] for _id, fields in ctx.redis.xrange(keys.events("gn"))]
    assert _heard(listener) == [b"1 gn " + stored[0], b"2 gn " + stored[1]]
    listener.close()


def test_an_append_that_does_not_happen_announces_nothing(ctx: Context) -> None:
    store = ctx.store
    first = seal(1, GENESIS, "game.created", "anyone", {"game_id": "gq"})
    idem = RequestId.client("k" * 20, "scope", "b" * 64)
    store.append("gq", first, request=idem, answer=idem.seal(202, {"seq": 1}), private={"role": "player"})
    listener = _notices(ctx)
    with pytest.raises(Conflict):
        store.append("gq", first)
    second = seal(2, first["hash"], "note", "gm", {})
    assert store.append("gq", second, request=idem, answer=idem.seal(202, {"seq": 2})).replay is not None
    with pytest.raises(GuardFailed):
        store.append("gq", second, guard=Guard("role", "gm"))
    assert _heard(listener) == []
    listener.close()


def test_a_cluster_announces_nothing_and_the_api_does_not_listen(ctx: Context) -> None:
    """A PUBLISH on a cluster goes to every node: the orders there go without notices, as before them."""
    if not ctx.settings.redis_cluster:
        pytest.skip("the plain store announces: the tests above")
    listener = _notices(ctx)
    ctx.store.append("gc", seal(1, GENESIS, "game.created", "anyone", {"game_id": "gc"}))
    assert _heard(listener) == []
    assert ctx.follow_appends() is None
    listener.close()
