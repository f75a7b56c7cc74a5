"""Bearer tokens: random enough, never stored or sent to Redis in the clear, compared in
constant time, and guessing them is throttled per game and client address."""
from __future__ import annotations

import base64
import threading
from typing import Any

import pytest
from redis import Redis

from service import auth
from service.auth import BAD_TOKEN_LIMIT, digest
from runtime.context import Context
from tests.faults import figures
from tests.platform.conftest import Game
from tests.platform.helpers import Api
from tests.security.helpers import started


def _issue(api: Api, count: int) -> tuple[list[Game], list[str]]:
    games = [started(api, "extreme-ways", players=4, seed=f"tokens-{i}") for i in range(count)]
    tokens = [t for g in games for t in (g.gm, *g.tokens.values())]
    return games, tokens


def _everything_in(redis: Redis) -> bytes:
    """A dump of every value of every key in every database, as bytes."""
    chunks: list[bytes] = []
    for db in range(16):
        client = Redis(host=redis.connection_pool.connection_kwargs["host"],
                       port=redis.connection_pool.connection_kwargs["port"], db=db)
        for key in client.scan_iter(count=1000):
            kind = client.type(key).decode()
            value: Any
            if kind == "string":
                value = client.get(key)
            elif kind == "hash":
                value = client.hgetall(key)
            elif kind == "list":
                value = client.lrange(key, 0, -1)
            elif kind == "set":
                value = client.smembers(key)
            elif kind == "zset":
                value = client.zrange(key, 0, -1, withscores=True)
            elif kind == "stream":
                value = client.xrange(key)
            else:
                value = client.dump(key)
            chunks.append(key + b"=" + repr(value).encode())
        client.close()
    return b"\n".join(chunks)


def test_tokens_carry_at_least_128_random_bits(api: Api) -> None:
    _, tokens = _issue(api, 10)
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) * 8 >= 128, token
    # no shared structure: every position of the token varies across tokens
    assert all(len({t[i] for t in tokens}) > 5 for i in range(min(len(t) for t in tokens)))
    figures.record("tokens", bits=len(base64.urlsafe_b64decode(tokens[0] + "=")) * 8, sampled=len(tokens),
                   distinct=len(set(tokens)))


def test_a_dump_of_redis_holds_digests_and_no_raw_token(api: Api, ctx: Context) -> None:
    games, tokens = _issue(api, 3)
    for game in games:  # use the tokens: orders with idempotency keys, reads, a bad token
        for pid, token in game.tokens.items():
            api.post(game.path("/actions"), {"type": "bid", "amount": 1}, token=token,
                     headers={"Idempotency-Key": f"k-{pid}"})
            api.get(game.path("/events"), token)
        api.get(game.path(), "not-a-token")
    dump = _everything_in(ctx.redis)
    assert len(dump) > 10_000
    leaked = [t for t in tokens if t.encode() in dump]
    assert leaked == [], f"{len(leaked)} raw tokens found in Redis"
    assert all(digest(t).encode() in dump for t in tokens), "tokens should be kept as SHA-256 digests"


def test_no_raw_token_is_ever_sent_to_redis(api: Api, ctx: Context) -> None:
    """MONITOR shows every command Redis receives: a raw token must never be among them."""
    seen: list[str] = []
    ready = threading.Event()
    stop = threading.Event()

    def monitor() -> None:
        with ctx.redis.monitor() as m:
            ready.set()
            for command in m.listen():
                seen.append(command["command"])
                if stop.is_set() and "STOP-MONITOR" in command["command"]:
                    return

    thread = threading.Thread(target=monitor, daemon=True)
    thread.start()
    ready.wait(5)
    games, tokens = _issue(api, 2)
    for game in games:
        for token in game.tokens.values():
            api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=token)
            api.get(game.path(), token)
    stop.set()
    ctx.redis.get("STOP-MONITOR")
    thread.join(10)
    text = "\n".join(seen)
    assert len(seen) > 100
    assert [t for t in tokens if t in text] == []
    assert all(digest(t) in text for t in tokens)


def test_the_stored_digest_is_compared_in_constant_time(api: Api, game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, Any]] = []
    original = auth.hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return original(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    assert api.get(game.path(), game.tokens["p1"])[0] == 200
    assert (digest(game.tokens["p1"]), digest(game.tokens["p1"])) in calls
    # The lookup itself is by SHA-256 digest, so how long it takes says nothing about the raw token.


def _get(api: Api, game: Game, token: str | None, address: str) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.client.get(f"/v1{game.path()}", headers=headers, environ_base={"REMOTE_ADDR": address}).status_code


def test_repeated_bad_tokens_are_rate_limited_per_address(api: Api, game: Game) -> None:
    guesses = [_get(api, game, f"guess-{i}", "192.0.2.66") for i in range(BAD_TOKEN_LIMIT + 5)]
    assert guesses[:BAD_TOKEN_LIMIT] == [401] * BAD_TOKEN_LIMIT
    assert set(guesses[BAD_TOKEN_LIMIT:]) == {429}
    response = api.client.get(f"/v1{game.path()}", headers={"Authorization": "Bearer guess-x"},
                              environ_base={"REMOTE_ADDR": "192.0.2.66"})
    assert response.status_code == 429 and response.get_json()["error"]["code"] == "too_many_bad_tokens"
    # a real token from the guesser's address still works (issue 18: one typo must not lock out a forum bot's
    # other users; tests/security/test_throttle.py), the players elsewhere are not locked out, the public view open
    assert _get(api, game, game.tokens["p1"], "192.0.2.66") == 200
    assert _get(api, game, game.tokens["p1"], "198.51.100.7") == 200
    assert _get(api, game, "guess-y", "198.51.100.7") == 401
    assert _get(api, game, None, "192.0.2.66") == 200
    figures.record("bad-token throttle", limit_per_minute=BAD_TOKEN_LIMIT, scope="game x client address")
