"""Idempotency-Key on creating and joining (docs/api.md): a retry with the key gets the same game or player and the
same token, sealed at rest so that a reader of the store cannot take it."""
from __future__ import annotations

import uuid

from eventlog import keys
from runtime.context import Context
from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def test_a_join_retried_with_its_key_gets_the_same_player_and_token(api: Api, ctx: Context) -> None:
    game = new_game(api, players=0, start=False)
    key = str(uuid.uuid4())
    first = api.post(game.path("/players"), {"name": "Ann"}, headers={"Idempotency-Key": key})
    again = api.post(game.path("/players"), {"name": "Ann"}, headers={"Idempotency-Key": key})
    assert first[0] == again[0] == 201 and first[1] == again[1]
    assert [e["data"]["name"] for e in ctx.store.read(game.id) if e["type"] == "player.joined"] == ["Ann"]
    stored = [ctx.redis.get(k) for k in ctx.redis.scan_iter(match=keys.idempotency(game.id, "*", "*"))]
    assert stored and all(first[1]["token"].encode() not in value for value in stored)  # sealed at rest
    status, body = api.post(game.path("/players"), {"name": "Bob"}, headers={"Idempotency-Key": key})
    assert status == 422 and body["error"]["code"] == "idempotency_key_reused"


def test_a_short_key_on_a_join_or_a_creation_is_refused_and_records_nothing(api: Api, ctx: Context) -> None:
    game = new_game(api, players=0, start=False)
    status, body = api.post(game.path("/players"), {"name": "Ann"}, headers={"Idempotency-Key": "k1"})
    assert status == 422 and "Idempotency-Key" in body["error"]["details"]
    assert ctx.store.head(game.id)[0] == 1
    status, body = api.post("/games", {"type": "extreme-ways"}, headers={"Idempotency-Key": "k1"})
    assert status == 422 and "Idempotency-Key" in body["error"]["details"]


def test_a_creation_retried_with_its_key_is_the_same_game(api: Api, ctx: Context) -> None:
    key = str(uuid.uuid4())
    first = api.post("/games", {"type": "extreme-ways", "seed": "s"}, headers={"Idempotency-Key": key})
    again = api.post("/games", {"type": "extreme-ways", "seed": "s"}, headers={"Idempotency-Key": key})
    assert first[0] == again[0] == 201
    shown = [{k: v for k, v in answer.items() if k != "warnings"} for _status, answer in (first, again)]
    assert shown[0] == shown[1]
    assert ctx.store.head(first[1]["game_id"])[0] == 1
