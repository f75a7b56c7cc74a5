"""Issue 18 item 6: the bad-token throttle holds back bad tokens, never a valid one, and says when it ends.

A forum bot serves many players from one address: one player's typos must not lock the others
out.  Bad tokens are counted per game and client address; past the limit they get 429 with
``Retry-After`` and the ``RateLimit`` fields, while every valid token from that address still works,
on the full path and the one-trip order path alike."""
from __future__ import annotations

import re

from service.auth import BAD_TOKEN_LIMIT, BAD_TOKEN_WINDOW
from tests.platform.conftest import Game
from tests.platform.helpers import Api

BOT = "203.0.113.9"


def _call(api: Api, method: str, path: str, token: str, body: dict | None = None):
    return api.client.open(f"/v1{path}", method=method, json=body, headers={"Authorization": f"Bearer {token}"},
                           environ_base={"REMOTE_ADDR": BOT})


def test_valid_tokens_from_a_throttled_address_still_work(api: Api, game: Game) -> None:
    for i in range(BAD_TOKEN_LIMIT + 3):
        _call(api, "GET", game.path(), f"typo-{i}")
    refused = _call(api, "GET", game.path(), "typo-again")
    assert refused.status_code == 429
    # every player and the GM, reading and ordering, from the same address
    for token in [game.gm, *game.tokens.values()]:
        assert _call(api, "GET", game.path(), token).status_code == 200
    for player, token in game.tokens.items():
        response = _call(api, "POST", game.path("/actions"), token, {"type": "bid", "amount": 1})
        assert response.status_code == 202, (player, response.get_json())
    assert _call(api, "POST", game.path("/actions"), "typo-x", {"type": "bid", "amount": 1}).status_code == 429


def test_the_throttle_says_when_it_ends(api: Api, game: Game) -> None:
    first = _call(api, "GET", game.path(), "typo-0")
    assert first.status_code == 401
    assert first.headers["RateLimit-Policy"] == f'"bad-tokens";q={BAD_TOKEN_LIMIT};w={BAD_TOKEN_WINDOW}'
    remaining, reset = map(int, re.fullmatch(r'"bad-tokens";r=(\d+);t=(\d+)', first.headers["RateLimit"]).groups())
    assert remaining == BAD_TOKEN_LIMIT - 1 and 0 < reset <= BAD_TOKEN_WINDOW
    for i in range(1, BAD_TOKEN_LIMIT):
        last = _call(api, "GET", game.path(), f"typo-{i}")
    assert last.status_code == 401 and last.headers["RateLimit"].startswith('"bad-tokens";r=0;')
    refused = _call(api, "GET", game.path(), "typo-more")
    assert refused.status_code == 429
    body = refused.get_json()["error"]
    assert body["code"] == "too_many_bad_tokens"
    wait = int(refused.headers["Retry-After"])
    assert 0 < wait <= BAD_TOKEN_WINDOW and body["details"]["retry_after"] == wait
    assert refused.headers["RateLimit"] == f'"bad-tokens";r=0;t={wait}'
    # a browser client may read them (CORS)
    exposed = {name.strip() for name in refused.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Retry-After", "RateLimit", "RateLimit-Policy"} <= exposed
