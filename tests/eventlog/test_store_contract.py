"""The event store contract: what any store implementation must guarantee."""
from __future__ import annotations

import threading

import pytest

from eventlog import keys
from eventlog.events import GENESIS, chain_break, seal
from eventlog.requests import OWN_SCOPE, RequestId
from eventlog.store import Conflict, EventStore
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


def test_a_server_that_lost_the_script_gets_it_again(ctx: Context) -> None:
    """A Redis restarted (or failed over) without its script cache: the append loads the script and runs."""
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    ctx.redis.script_flush()
    second = seal(2, first["hash"], "note", "gm", {"n": 2})
    assert store.append("gtest", second).event == second
    assert store.read("gtest") == [first, second]


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
    request = RequestId.client("k" * 20, "scope", "body")
    answer = request.seal(202, {"seq": 2, "token": "t0k3n"})
    store.append("gtest", seal(2, first["hash"], "note", "p1", {}), request=request, answer=answer)
    again = store.append("gtest", seal(3, store.head("gtest")[1], "note", "p1", {}), request=request, answer=answer)
    assert again.event is None and again.replay is not None
    assert request.open(again.replay) == ("body", 202, {"seq": 2, "token": "t0k3n"})
    assert store.head("gtest")[0] == 2
    stored = ctx.redis.get(keys.idempotency("gtest", "scope", request.digest))
    assert stored is not None and b"t0k3n" not in stored  # sealed: only the key's holder reads it
    assert ctx.redis.ttl(keys.idempotency("gtest", "scope", request.digest)) > 24 * 3600


def test_an_answer_stored_by_an_earlier_release_still_opens() -> None:
    """Answers stored as JSON (the sealed bytes in hex; before that, not sealed) live for their key's 48 hours
    after an upgrade: a retry then still gets its first answer, and a reused key is still told apart."""
    import orjson

    request = RequestId.client("k" * 20, "scope", "body")
    sealed_hex = orjson.dumps({"body": "body", "status": 202,
                               "sealed": request._xor(orjson.dumps({"seq": 2, "token": "t0k3n"})).hex()})
    assert request.open(sealed_hex) == ("body", 202, {"seq": 2, "token": "t0k3n"})
    plain = orjson.dumps({"body": "other", "status": 201, "response": {"seq": 1}})
    assert request.open(plain) == ("other", 201, {"seq": 1})
    assert request.open(request.seal(202, {"seq": 2})) == ("body", 202, {"seq": 2})
    big = {"note": "x" * 600}
    as_hex = orjson.dumps({"body": "body", "status": 202, "sealed": request._xor(orjson.dumps(big)).hex()})
    assert len(request.seal(202, big)) < 0.6 * len(as_hex)  # the sealed bytes themselves, not their hex


def test_a_repeated_run_after_a_lost_reply_finds_its_first_append(ctx: Context) -> None:
    """Every append carries its request's id: running the same append again (redis-py's retry after a reply lost on
    the wire) answers the first one, never a conflict that a writer could take for a stale record."""
    store = ctx.store
    first = _first()
    store.append("gtest", first)
    request = RequestId.own()
    event = seal(2, first["hash"], "note", "p1", {})
    answer = request.seal(202, {"seq": 2})
    assert store.append("gtest", event, request=request, answer=answer).event == event
    again = store.append("gtest", event, request=request, answer=answer)
    assert again.event is None and request.open(again.replay or b"") == ("", 202, {"seq": 2})
    assert store.head("gtest")[0] == 2
    assert 0 < ctx.redis.ttl(keys.idempotency("gtest", OWN_SCOPE, request.digest)) <= 600


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
