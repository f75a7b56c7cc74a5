"""Orders from a token and game the API process remembers go out in one round trip
(service.commands.Sender): the append script checks the token's role, the Idempotency-Key
and the head in its atomic step.  These tests pin down that taking the
caller and the record from memory weakens nothing: every refusal the full path gives is
still given, and a stale memory never moves or misplaces an order.

"Two API processes" are two Flask apps, each with its own Context (its own cache and
remembered tokens), over one Redis.
"""
from __future__ import annotations

from typing import Any, Iterator

import pytest
from redis.connection import Connection

from eventlog import keys
from service.app import create_app
from service.auth import BAD_TOKEN_LIMIT, Caller, KnownTokens, digest, token_field
from runtime.context import Context, use
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api, run_queued_jobs


@pytest.fixture()
def contexts(ctx: Context) -> Iterator[tuple[Context, Context]]:
    yield Context(ctx.settings), Context(ctx.settings)
    use(ctx)


@pytest.fixture()
def two(contexts: tuple[Context, Context]) -> tuple[Api, Api, Context]:
    """Two API processes; the first one's Context is returned for inspection."""
    return Api(create_app(contexts[0]).test_client()), Api(create_app(contexts[1]).test_client()), contexts[0]


def _order(api: Api, game: Game, player: str, amount: int, key: str | None = None) -> tuple[int, Any]:
    headers = {"Idempotency-Key": key} if key else None
    return api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=game.tokens[player],
                    headers=headers)


def _tokens(api: Api) -> KnownTokens:
    """The tokens that API process remembers (kept by its Flask app)."""
    return api.client.application.config["ARBITER_TOKENS"]


def _actions(context: Context, game: Game) -> list[dict]:
    return [e for e in context.store.read(game.id) if e["type"] == "action.submitted"]


def _round_trips(context: Context, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts writes to Redis connections: one per command or pipeline sent."""
    taken = [0]
    original = Connection.send_packed_command

    def counted(*args: Any, **kwargs: Any) -> Any:
        taken[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(Connection, "send_packed_command", counted)
    return taken


def test_a_remembered_token_sends_its_order_in_one_round_trip(two: tuple[Api, Api, Context],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    api, _, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202  # the full path: the token is now remembered
    taken = _round_trips(context, monkeypatch)
    status, body = _order(api, game, "p1", 2, key="k-1")
    assert status == 202, body
    assert taken[0] == 1
    assert [a["data"]["action"]["amount"] for a in _actions(context, game) if a["actor"] == "p1"] == [1, 2]


def test_a_token_whose_stored_role_changed_is_refused_and_nothing_is_recorded(two: tuple[Api, Api, Context]) -> None:
    api, _, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202
    context.redis.hdel(keys.private(game.id), token_field(digest(game.tokens["p1"])))
    status, body = _order(api, game, "p1", 2)
    assert status == 401, body
    assert len(_actions(context, game)) == 1
    assert _tokens(api).get(game.id, digest(game.tokens["p1"])) is None  # forgotten, not tried again


def test_a_throttled_client_is_not_refused_with_a_valid_remembered_token(two: tuple[Api, Api, Context]) -> None:
    """Issue 18: the bad-token throttle holds back bad tokens only, on either path."""
    api, _, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202
    context.redis.set(f"{keys.bad_tokens(game.id)}:127.0.0.1", BAD_TOKEN_LIMIT)
    status, body = _order(api, game, "p1", 2)
    assert status == 202, body
    assert len(_actions(context, game)) == 2


def test_an_order_after_another_process_moved_the_game_on_lands_in_the_current_phase(
        two: tuple[Api, Api, Context]) -> None:
    """The first process still remembers phase 1 when phase 2 is open: the order must be
    checked against phase 2 and recorded there, not refused as late for phase 1."""
    api, other, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202
    for player in ("p2", "p3", "p4"):
        assert _order(other, game, player, 1)[0] == 202
    run_queued_jobs(context)  # everyone bid: phase 1 resolves early, phase 2 opens
    assert context.loader.cached(game.id)["phase"]["number"] == 1  # the first process has not seen it
    status, body = _order(api, game, "p1", 2)
    assert status == 202, body
    last = _actions(context, game)[-1]
    assert (last["actor"], last["data"]["phase"], last["data"]["action"]["amount"]) == ("p1", 2, 2)


def test_a_retry_answers_the_original_reply_though_the_game_moved_on(two: tuple[Api, Api, Context]) -> None:
    api, other, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202
    first = _order(api, game, "p1", 2, key="retry-me")
    assert first[0] == 202
    for player in ("p2", "p3", "p4"):
        assert _order(other, game, player, 1)[0] == 202
    run_queued_jobs(context)
    assert _order(api, game, "p1", 2, key="retry-me") == first  # the script answers the key itself
    assert other.post(game.path("/actions"), {"type": "gm.pause", "reason": "tea"}, token=game.gm)[0] == 202
    api.get(game.path(), game.tokens["p1"])  # the first process now remembers the paused game
    assert _order(api, game, "p1", 2, key="retry-me") == first  # refused from memory: the full path answers it
    assert _order(api, game, "p1", 3, key="retry-me")[0] == 422  # same key, other body
    assert len([a for a in _actions(context, game) if a["actor"] == "p1"]) == 2


def test_a_refused_order_from_a_remembered_token_gets_the_full_paths_answer(
        two: tuple[Api, Api, Context], contexts: tuple[Context, Context]) -> None:
    """The same refusals, word for word, from a process that remembers the token and one that does not."""
    api, other, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202
    p1 = digest(game.tokens["p1"])
    refused = [({"type": "bid", "amount": -1}, None), ({"type": "bid", "amount": "x"}, None), ({"type": "fly"}, None),
               (None, b"{not json"), (None, b"[]"), ({"type": "bid", "amount": 1, "on_behalf_of": "p2"}, None),
               ({"type": "gm.pause", "reason": "mine"}, None), ({"type": [None, None]}, None),
               ({"type": {"a": 1}}, None),
               ({"amount": 1}, None)]
    for body, raw in refused:
        assert _tokens(api).get(game.id, p1) is not None
        remembered = api.call("POST", game.path("/actions"), body, token=game.tokens["p1"], raw=raw)
        _tokens(other).discard(game.id, p1)
        assert 400 <= remembered[0] < 500
        assert remembered == other.call("POST", game.path("/actions"), body, token=game.tokens["p1"], raw=raw)
    assert len(_actions(context, game)) == 1


def test_known_tokens_hold_at_most_their_size() -> None:
    known = KnownTokens(size=2)
    for n in range(3):
        known.add("g", Caller("player", f"p{n}", f"d{n}"), f"role{n}")
    assert known.get("g", "d0") is None
    assert known.get("g", "d2") == (Caller("player", "p2", "d2"), "role2")


def test_an_order_that_loses_a_race_with_the_phase_is_refused_not_moved(
        two: tuple[Api, Api, Context], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the script has answered (here: a conflict that brought phase 2), the order is checked
    against phase 2; if phase 2 then closes before it lands, it is refused (409), as on the full
    path, and not sent the full way again, which would record it in phase 3."""
    api, other, context = two
    game = new_game(api)
    assert _order(api, game, "p1", 1)[0] == 202

    def close_the_phase() -> None:
        for player in ("p2", "p3", "p4", "p1")[: 4 if _phase(context, game) > 1 else 3]:
            assert _order(other, game, player, 1)[0] == 202
        run_queued_jobs(context)

    close_the_phase()  # phase 2 is open; the first process still remembers phase 1
    original = context.store.append
    calls = [0]

    def racing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2:  # p1's order, checked against phase 2, is on its way: phase 2 closes first
            close_the_phase()
        return original(*args, **kwargs)

    monkeypatch.setattr(context.store, "append", racing)
    status, body = _order(api, game, "p1", 2)
    assert status == 409 and body["error"]["code"] == "deadline_passed", body
    assert _phase(context, game) == 3
    assert not [a for a in _actions(context, game) if a["data"]["phase"] == 3]


def _phase(context: Context, game: Game) -> int:
    return Context(context.settings).loader.load(game.id)["phase"]["number"]
