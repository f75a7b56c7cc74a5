"""Hostile and broken orders for every action of every game type: wrong types,
out-of-range numbers, unknown cubes/cards/players, orders out of phase or out of turn,
oversized, invalid UTF-8 and deeply nested bodies.  Each gets a 4xx in the documented
shape with a message for a person, and the log is left exactly as it was."""
from __future__ import annotations

import json
import time
from typing import Any, Iterator

import pytest
from marshmallow import fields

from engines import registry
from service.context import Context
from tests.faults import figures
from tests.platform.conftest import Game
from tests.platform.helpers import Api
from tests.security.helpers import GAME_TYPES, awaiting, bot_order, seq, started

_counts: dict[str, int] = {}
_phase_codes: dict[str, set[str]] = {}
_accepted: list[str] = []
LEGAL_BARE = {"extreme-ways": ("pass",)}  # orders with no fields that are legal in the first phase


def _assert_refused(api: Api, game: Game, body: Any, token: str, allowed: set[int], why: str,
                    raw: bytes | None = None) -> dict:
    before = seq(api, game)
    status, answer = api.post(game.path("/actions"), None if raw is not None else body, token=token, raw=raw)
    assert status in allowed, (why, body if raw is None else raw[:80], status, answer)
    assert isinstance(answer, dict) and set(answer) == {"error"}, (why, answer)
    error = answer["error"]
    assert set(error) == {"code", "message", "details"} and isinstance(error["message"], str)
    assert len(error["message"]) > 10 and "Traceback" not in error["message"], (why, error)
    assert seq(api, game) == before, f"{why}: a refused order changed the log"
    return error


def _wrong_types(field: fields.Field) -> list[Any]:
    if isinstance(field, (fields.Integer, fields.Float, fields.Decimal)):
        return ["seven", 1.5, True, None, [3], {"n": 3}]
    if isinstance(field, fields.Boolean):
        return ["maybe", 2, None, []]
    if isinstance(field, fields.String):
        return [12345, True, ["x"], {"x": 1}]
    if isinstance(field, fields.List):
        return ["not a list", 7, {"x": 1}]
    if isinstance(field, (fields.Dict, fields.Nested)):
        return ["not an object", 7, [1, 2]]
    return []


def _hostile_values(field: fields.Field) -> list[Any]:
    if isinstance(field, fields.Integer):
        return [-1, -10**12, 10**12, 2**63]
    if isinstance(field, fields.String):
        return ["no-such-thing", "p99", "", "x" * 5000, "\u0000", "../../etc/passwd"]
    if isinstance(field, fields.List):
        return [[], [None], ["no-such-thing"] * 50, [[[]]], [10**12]]
    return []


def _cases(engine: Any, kind: str, valid: dict[str, Any] | None) -> Iterator[tuple[str, dict[str, Any]]]:
    spec = engine.actions[kind]
    schema = spec.schema()
    base = valid or {"type": kind}
    for name, field in schema.fields.items():
        for value in _wrong_types(field):
            yield f"{kind}.{name} wrong type {value!r}", {**base, name: value}
        for value in _hostile_values(field):
            yield f"{kind}.{name} = {str(value)[:30]!r}", {**base, name: value}
    yield f"{kind} with an unknown field", {**base, "cheat": True}
    for name, field in schema.fields.items():
        if field.required and valid:
            yield f"{kind} without {name}", {k: v for k, v in base.items() if k != name}


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_action_with_bad_fields_is_refused(api: Api, ctx: Context, game_type: str) -> None:
    game = started(api, game_type)
    engine = registry.latest(game_type)
    player = awaiting(api, game)[0]
    valid = bot_order(ctx, game, player)
    assert valid is not None
    token = game.tokens[player]
    count = 0
    for kind, spec in engine.actions.items():
        sender = game.gm if spec.actor == "gm" else token
        for why, body in _cases(engine, kind, valid if kind == valid["type"] else None):
            if spec.actor == "gm":
                body = {**body}
            status, answer = api.post(game.path("/actions"), body, token=sender)
            if status == 202:  # a hostile value that is in fact legal: note it for the report
                _accepted.append(f"{game_type}: {why}")
                continue
            before = seq(api, game)
            _assert_refused(api, game, body, sender, {403, 409, 422}, why)
            assert seq(api, game) == before
            count += 1
    _counts[game_type] = count
    figures.record(f"bad input {game_type}", refused_orders=count,
                   accepted=[a for a in _accepted if a.startswith(game_type)])


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_orders_out_of_phase_and_out_of_turn_are_409(api: Api, ctx: Context, game_type: str) -> None:
    engine = registry.latest(game_type)
    game = started(api, game_type)
    ready = awaiting(api, game)
    player = ready[0]
    order = bot_order(ctx, game, player)
    # out of turn: players the phase is not waiting for send an order of the kind it wants
    for other in [p for p in game.tokens if p not in ready]:
        error = _assert_refused(api, game, order, game.tokens[other], {409, 422}, f"{other} out of turn")
        assert error["code"] in ("not_now", "rule_violation"), error
    # out of phase: every other player order type is refused now
    for kind, spec in engine.actions.items():
        if spec.actor == "gm" or kind == order["type"]:
            continue
        if kind in LEGAL_BARE.get(game_type, ()):  # e.g. Extreme Ways' "pass" is an order of the bidding phase
            continue
        error = _assert_refused(api, game, {"type": kind}, game.tokens[player], {409, 422}, f"{kind} out of phase")
        _phase_codes.setdefault(game_type, set()).add(error["code"])
    figures.record(f"out of phase/turn {game_type}", codes=sorted(_phase_codes.get(game_type, set())))
    # and nothing is taken while the GM has paused the game
    waiting = started(api, game_type, seed="paused")
    status, _ = api.post(waiting.path("/actions"), {"type": "gm.pause", "reason": "stop"}, token=waiting.gm)
    assert status == 202
    _assert_refused(api, waiting, order, waiting.tokens[player], {409}, "order while paused")


@pytest.mark.parametrize("raw,status,why", [
    (b'{"type": "bid", "amount": "\xff\xfe"}', 400, "invalid UTF-8 inside a string"),
    (b"\xef\xbb\xbf\x00\x00{}", 400, "BOM and NULs"),
    (b'{"type": "bid", "amount": NaN}', 400, "NaN"),
    (b'{"type": "bid", "amount": 1e999}', 400, "an infinite number"),
    (b'{"type": "bid", "amount": 123456789012345678901234567890}', 422, "an integer beyond 64 bits"),
    (b'{"type": "bid", "amount": 1', 400, "truncated"),
    (b'{"type": "bid"} {"type": "bid"}', 400, "two documents"),
    (b'"bid"', 400, "a string, not an object"),
    (b"null", 400, "null"),
    (b'{"type": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 413, "nested 100,000 deep (and over 64 KiB)"),
    (b'{"type": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", 400, "nested 5,000 deep"),
    (b'{"type": "bid", "amount": 1, "pad": "' + b"x" * 70_000 + b'"}', 413, "over 64 KiB"),
])
def test_malformed_bodies_on_every_game_type(api: Api, raw: bytes, status: int, why: str) -> None:
    for game_type in GAME_TYPES:
        game = started(api, game_type)
        player = next(iter(game.tokens))
        started_at = time.monotonic()
        _assert_refused(api, game, None, game.tokens[player], {status}, f"{game_type}: {why}", raw=raw)
        assert time.monotonic() - started_at < 2, f"{why} took too long to refuse"


def test_deep_but_parseable_nesting_is_a_422(api: Api, ctx: Context) -> None:
    for game_type in GAME_TYPES:
        game = started(api, game_type)
        player = awaiting(api, game)[0]
        order = bot_order(ctx, game, player)
        nested: Any = 1
        for _ in range(500):
            nested = [nested]
        for name in [k for k in order if k != "type"] or ["extra"]:
            raw = json.dumps({**order, name: nested}).encode()
            _assert_refused(api, game, None, game.tokens[player], {422}, f"{game_type}.{name} nested 500 deep",
                            raw=raw)


def _orders_of_later_phases(api: Api, ctx: Context, game_type: str, phases: int = 8) -> list[tuple[int, str, dict]]:
    """Bots play a game for a few phases; every order they send, with its phase number and player."""
    from tests.platform.helpers import run_queued_jobs

    game = started(api, game_type, seed="later")
    orders: list[tuple[int, str, dict]] = []
    for _ in range(phases):
        status, body = api.get(game.path(), game.gm)
        if body["status"] != "running":
            break
        number = body["phase"]["number"]
        for player in body["phase"]["awaiting"]:
            order = bot_order(ctx, game, player, f"later-{number}")
            if order is None or player not in game.tokens:
                continue
            if api.post(game.path("/actions"), order, token=game.tokens[player])[0] == 202:
                orders.append((number, player, order))
        api.post(game.path("/actions"), {"type": "gm.resolve_now", "reason": "next"}, token=game.gm)
        run_queued_jobs(ctx)
        phase = api.get(game.path(), game.gm)[1]["phase"]
        if phase is None or phase["number"] == number:
            break
    return orders


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_well_formed_orders_from_later_phases_are_refused_now(api: Api, ctx: Context, game_type: str) -> None:
    """Schema-valid orders that belong to another phase reach the rules, and the rules refuse them."""
    orders = _orders_of_later_phases(api, ctx, game_type)
    first_types = {order["type"] for number, _, order in orders if number == 1} | set(LEGAL_BARE.get(game_type, ()))
    later = [(player, order) for number, player, order in orders if number > 1 and order["type"] not in first_types]
    if not later:
        pytest.skip(f"{game_type}: every order type seen is legal in the first phase")
    game = started(api, game_type, seed="later")
    codes = set()
    for player, order in later:
        error = _assert_refused(api, game, order, game.tokens[player], {409, 422}, f"{order['type']} in phase 1")
        codes.add(error["code"])
    figures.record(f"later-phase orders in phase 1 {game_type}", refused=len(later), codes=sorted(codes))
