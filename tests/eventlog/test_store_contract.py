"""The event store contract: what any store implementation must guarantee."""
from __future__ import annotations

import threading

import pytest

from eventlog import keys
from eventlog.events import GENESIS, chain_break, seal
from eventlog.store import Conflict, EventStore, IdempotencyRecord
from runtime.context import Context


def _first(game_id: str = "gtest") -> dict:
    return seal(1, GENESIS, "game.created", "anyone", {"game_id": game_id})


def test_append_then_read_back_in_order(ctx: Context) -> None:
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    second = seal(2, first["hash"], "note", "gm", {"n": 2})
    store.append("gtest", second)
    assert store.read("gtest") == [first, second]
    assert store.read("gtest", after=1) == [second]
    assert store.read_one("gtest", 2) == second
    assert store.head("gtest") == (2, second["hash"])
    assert chain_break(store.read("gtest")) is None


def test_empty_log_has_genesis_head(ctx: Context) -> None:
    assert ctx.store.head("nothing") == (0, GENESIS)
    assert ctx.store.read("nothing") == []
    assert not ctx.store.exists("nothing")


def test_append_at_a_taken_seq_is_a_conflict_and_writes_nothing(ctx: Context) -> None:
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    with pytest.raises(Conflict) as caught:
        store.append("gtest", seal(1, GENESIS, "game.created", "anyone", {"again": True}))
    assert caught.value.seq == 1
    assert store.read("gtest") == [first]


def test_append_with_a_stale_prev_hash_is_a_conflict(ctx: Context) -> None:
    store = ctx.store
    store.append("gtest", _first())
    with pytest.raises(Conflict):
        store.append("gtest", seal(2, "f" * 64, "note", "gm", {}))
    assert store.head("gtest")[0] == 1


def test_skipping_a_seq_is_a_conflict(ctx: Context) -> None:
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    with pytest.raises(Conflict):
        store.append("gtest", seal(3, first["hash"], "note", "gm", {}))


def test_idempotency_key_answers_the_first_response_and_appends_once(ctx: Context) -> None:
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    record = IdempotencyRecord("scope", "k" * 64, "body", 202, {"seq": 2})
    store.append("gtest", seal(2, first["hash"], "note", "p1", {}), idempotency=record)
    again = store.append("gtest", seal(3, store.head("gtest")[1], "note", "p1", {}), idempotency=record)
    assert again.event is None
    assert again.replay == {"body": "body", "status": 202, "response": {"seq": 2}}
    assert store.head("gtest")[0] == 2
    ttl = ctx.redis.ttl(keys.idempotency("gtest", "scope", "k" * 64))
    assert ttl > 24 * 3600


def test_private_fields_are_written_with_the_event(ctx: Context) -> None:
    ctx.store.append("gtest", _first(), private={"seed": "s3cret"})
    assert ctx.store.private_field("gtest", "seed") == "s3cret"
    assert b"s3cret" not in b"".join(f[b"e"] for _id, f in ctx.redis.xrange(keys.events("gtest")))


def test_keys_of_one_game_share_a_hash_slot(ctx: Context) -> None:
    from redis.crc import key_slot

    game_keys = [keys.events("g1"), keys.private("g1"), keys.snapshot("g1"), keys.idempotency("g1", "s", "k"),
                 keys.no_idempotency("g1"), keys.bad_tokens("g1")]
    assert len({key_slot(k.encode()) for k in game_keys}) == 1


def test_concurrent_writers_leave_a_gapless_chain(ctx: Context) -> None:
    store = ctx.store
    store.append("gtest", _first())
    accepted: list[int] = []

    def writer(n: int) -> None:
        local = EventStore(ctx.redis)
        for _ in range(200):
            seq, head = local.head("gtest")
            try:
                local.append("gtest", seal(seq + 1, head, "note", f"w{n}", {"n": n}))
                accepted.append(n)
                return
            except Conflict:
                continue

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.read("gtest")
    assert len(events) == 1 + len(accepted) == 17
    assert [e["seq"] for e in events] == list(range(1, 18))
    assert chain_break(events) is None


def test_game_ids_come_from_the_streams(ctx: Context) -> None:
    ctx.store.append("ga", _first("ga"))
    ctx.store.append("gb", _first("gb"))
    assert sorted(ctx.store.game_ids()) == ["ga", "gb"]
