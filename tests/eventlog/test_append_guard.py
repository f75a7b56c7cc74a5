"""The append script's guard and its conflict reply (eventlog/append.lua, EventStore.append)."""
from __future__ import annotations

import pytest

from engines.canonical import canonical_json
from eventlog import keys
from eventlog.events import GENESIS, seal
from eventlog.store import IDEMPOTENCY_TTL, Conflict, Guard, GuardFailed, IdempotencyRecord
from service.context import Context

COUNTER = keys.bad_tokens("gtest") + ":10.0.0.1"


def _log(ctx: Context, length: int) -> list[dict]:
    events, head = [], GENESIS
    for seq in range(1, length + 1):
        event = seal(seq, head, "note", "gm", {"n": seq})
        ctx.store.append("gtest", event)
        events.append(event)
        head = event["hash"]
    return events


def _guard(value: str = "role") -> Guard:
    return Guard("token:abc", value, COUNTER, 20)


def test_a_guard_that_holds_lets_the_event_in(ctx: Context) -> None:
    first = _log(ctx, 1)[0]
    ctx.redis.hset(keys.private("gtest"), "token:abc", "role")
    ctx.store.append("gtest", seal(2, first["hash"], "note", "p1", {}), guard=_guard())
    assert ctx.store.head("gtest")[0] == 2


@pytest.mark.parametrize("stored, count", [(None, None), ("another role", None), ("role", 20)])
def test_a_guard_that_fails_appends_nothing_and_is_checked_before_the_key(
        ctx: Context, stored: str | None, count: int | None) -> None:
    first = _log(ctx, 1)[0]
    if stored is not None:
        ctx.redis.hset(keys.private("gtest"), "token:abc", stored)
    if count is not None:
        ctx.redis.set(COUNTER, count)
    record = IdempotencyRecord("scope", "k" * 64, "body", 202, {"seq": 2})
    ctx.redis.set(keys.idempotency("gtest", "scope", "k" * 64), record.encode())  # a stored answer is not given out
    with pytest.raises(GuardFailed):
        ctx.store.append("gtest", seal(2, first["hash"], "note", "p1", {}), idempotency=record, guard=_guard(),
                         private={"token:new": "x"})
    assert ctx.store.head("gtest")[0] == 1
    assert ctx.store.private_field("gtest", "token:new") is None


def test_a_conflict_brings_the_events_after_the_expected_seq(ctx: Context) -> None:
    events = _log(ctx, 5)
    with pytest.raises(Conflict) as caught:
        ctx.store.append("gtest", seal(3, events[1]["hash"], "note", "p1", {}))
    assert (caught.value.seq, caught.value.head) == (5, events[4]["hash"])
    assert caught.value.events == events[2:]


def test_a_conflict_with_a_foreign_head_brings_no_events(ctx: Context) -> None:
    _log(ctx, 2)
    with pytest.raises(Conflict) as caught:
        ctx.store.append("gtest", seal(3, "f" * 64, "note", "p1", {}))
    assert caught.value.events == []


def test_the_script_still_takes_the_call_without_a_guard(ctx: Context) -> None:
    """Three keys and private pairs from ARGV[7], as callers of the script before the guard send it."""
    first = _log(ctx, 1)[0]
    event = seal(2, first["hash"], "note", "gm", {})
    reply = ctx.store._append(keys=[keys.events("gtest"), keys.no_idempotency("gtest"), keys.private("gtest")],
                              args=[2, first["hash"], canonical_json(event), event["hash"], "", IDEMPOTENCY_TTL,
                                    "seed", "s3cret"])
    assert reply[0] == b"ok"
    assert ctx.store.read_one("gtest", 2) == event
    assert ctx.store.private_field("gtest", "seed") == "s3cret"
