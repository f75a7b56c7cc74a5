"""Idempotency-Key: a retried POST lands once and gets the same answer, byte for byte."""
from __future__ import annotations

import threading

from tests.platform.conftest import Game
from tests.platform.helpers import Api


def _post(api: Api, game: Game, body: dict, key: str, token: str) -> tuple[int, bytes]:
    response = api.client.post(f"/v1{game.path('/actions')}", json=body,
                               headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})
    return response.status_code, response.data


def _actions(api: Api, game: Game) -> list[dict]:
    return [e for e in api.get(game.path("/events"), game.gm)[1]["events"] if e["type"] == "action.submitted"]


def test_same_key_same_body_returns_the_original_response(api: Api, game: Game) -> None:
    first = _post(api, game, {"type": "bid", "amount": 3}, "key-1", game.tokens["p1"])
    again = _post(api, game, {"type": "bid", "amount": 3}, "key-1", game.tokens["p1"])
    assert first[0] == again[0] == 202
    assert first[1] == again[1]
    assert len(_actions(api, game)) == 1


def test_same_key_different_body_is_422_and_records_nothing(api: Api, game: Game) -> None:
    _post(api, game, {"type": "bid", "amount": 3}, "key-1", game.tokens["p1"])
    status, body = _post(api, game, {"type": "bid", "amount": 4}, "key-1", game.tokens["p1"])
    assert status == 422 and b"idempotency_key_reused" in body
    assert len(_actions(api, game)) == 1


def test_keys_are_scoped_per_token(api: Api, game: Game) -> None:
    _post(api, game, {"type": "bid", "amount": 3}, "shared", game.tokens["p1"])
    status, _ = _post(api, game, {"type": "bid", "amount": 3}, "shared", game.tokens["p2"])
    assert status == 202
    assert len(_actions(api, game)) == 2


def test_concurrent_duplicates_make_one_event(api: Api, game: Game) -> None:
    results: list[tuple[int, bytes]] = []

    def send() -> None:
        results.append(_post(api, game, {"type": "bid", "amount": 7}, "race", game.tokens["p3"]))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {status for status, _ in results} == {202}
    assert len({body for _, body in results}) == 1
    assert len(_actions(api, game)) == 1
