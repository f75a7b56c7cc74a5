"""Hostile and broken orders for every action of every game type: wrong types,
out-of-range numbers, unknown cubes/cards/players, orders out of phase or out of turn,
oversized, invalid UTF-8 and deeply nested bodies.  Each gets a 4xx in the documented
shape with a message for a person, and the log is left exactly as it was.

Each hostile order is a legal order with one field changed: the rules accept the order
as it stands (checked with the engine before it is sent), so a refusal is about the
changed field, and the error must name it (schema errors) or the rule that refused it."""
from __future__ import annotations

import json
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import pytest
from marshmallow import fields, validate

from engines import registry
from engines.contract import GM
from runtime.context import Context
from service.schemas import GM_ACTIONS
from tests.faults import figures
from tests.platform.conftest import Game
from tests.platform.helpers import Api
from tests.security.helpers import GAME_TYPES, SCENARIOS, Legal, awaiting, bot_order, legal_orders, seq, started

# Hostile-looking values the rules make legal.  Anything else accepted fails the tests, and
# an entry here that is no longer accepted fails them too (the list must not rot).
LEGAL_AFTER_ALL: dict[tuple[str, str], str] = {
    ("extreme-ways", "move.options = [None]"):
        "one entry per bidding round, null leaves that round to chance (ruling 9); the scenario has one round",
    ("golden-strider", "play.move wrong type None"):
        "rule 17 (docs/games/golden-strider.md): give only `bank` and `move` is the rest of the card",
    ("golden-strider", "play.bank wrong type None"):
        "rule 17: give only `move` and `bank` is the rest of the card",
    ("sxyzm-cyclone", "turn.moves = []"):
        "an empty turn passes (docs/games/sxyzm-cyclone.md); legal while allow_unused_actions is on (default)",
}
KNOWN_BUGS: dict[tuple[str, str], str] = {}  # product bugs: accepted today, must not be
# Fields of which an order gives exactly one: each is changed only in a base order that gives it.
ONE_OF = {"gm.extend_deadline": {"seconds", "deadline"}}
REFUSED = {409, 422}  # what a hostile order may get from a valid token: not now, or invalid


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _post(api: Api, game: Game, body: Any, token: str | None, raw: bytes | None = None) -> tuple[int, Any]:
    """Post an order; a request that hangs fails after 30 s (a generous bound, not a speed check)."""
    answers: list[Any] = []

    def call() -> None:
        try:
            answers.append(api.post(game.path("/actions"), None if raw is not None else body, token=token, raw=raw))
        except BaseException as exc:  # handed to the test's thread below
            answers.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert answers, "no answer within 30 s"
    if isinstance(answers[0], BaseException):
        raise answers[0]
    return answers[0]


def _assert_refused(api: Api, game: Game, body: Any, token: str, allowed: set[int], why: str,
                    raw: bytes | None = None) -> dict:
    """The order is refused with one of ``allowed`` in the documented shape, and the log is unchanged."""
    before = seq(api, game)
    status, answer = _post(api, game, body, token, raw)
    assert status in allowed, (why, body if raw is None else raw[:80], status, answer)
    return _documented_refusal(api, game, answer, before, why)


def _documented_refusal(api: Api, game: Game, answer: Any, before: tuple[int, str], why: str) -> dict:
    assert isinstance(answer, dict) and set(answer) == {"error"}, (why, answer)
    error = answer["error"]
    assert set(error) == {"code", "message", "details"} and isinstance(error["message"], str)
    assert len(error["message"]) > 10 and "Traceback" not in error["message"], (why, error)
    assert seq(api, game) == before, f"{why}: a refused order changed the log"
    return error


def _names_the_cause(error: dict, kind: str, field: str, why: str) -> None:
    """Schema errors list the bad field in details (for exactly-one-of fields, one of the
    group: the schema files that error under `seconds`); rule errors name the rule."""
    if error["code"] == "invalid":
        assert ({field} | ONE_OF.get(kind, set())) & set(error["details"]), (why, "the error names no field", error)
    else:
        assert error["code"] in ("rule_violation", "not_now"), (why, error)
        assert isinstance(error["details"].get("rule"), str) and error["details"]["rule"], (why, error)


def _a_list(field: fields.Field) -> bool:
    """A list field: a List, or a Nested schema taken many times (a list of objects)."""
    return isinstance(field, fields.List) or isinstance(field, fields.Nested) and bool(field.many)


def _wrong_types(field: fields.Field) -> list[Any]:
    if isinstance(field, (fields.Integer, fields.Float, fields.Decimal)):
        return ["seven", 1.5, True, None, [3], {"n": 3}]
    if isinstance(field, fields.Boolean):
        return ["maybe", 2, None, []]
    if isinstance(field, (fields.String, fields.DateTime)):
        return [12345, True, ["x"], {"x": 1}]
    if _a_list(field):
        return ["not a list", 7, {"x": 1}]
    if isinstance(field, (fields.Dict, fields.Nested)):
        return ["not an object", 7, [1, 2]]
    return []


def _hostile_values(field: fields.Field) -> list[Any]:
    if isinstance(field, fields.Integer):
        return [-1, -10**12, 10**12, 2**63]
    if isinstance(field, fields.DateTime):
        return ["2000-01-01T00:00:00+00:00", "2999-01-01T00:00:00", "tomorrow", ""]  # past, naive, prose
    if isinstance(field, fields.String):
        length = next((v for v in field.validators if isinstance(v, validate.Length)), None)
        if length is not None and not any(isinstance(v, validate.OneOf) for v in field.validators):
            # free text (a GM's reason): any text within its bounds is legal, so only lengths outside
            return [v for v in ("x" * (length.min - 1) if length.min else None,
                                "x" * (length.max + 1) if length.max else None) if v is not None]
        return ["no-such-thing", "p99", "", "x" * 5000, "\u0000", "../../etc/passwd"]
    if _a_list(field):
        return [[], [None], ["no-such-thing"] * 50, [[[]]], [10**12]]
    if isinstance(field, fields.Nested):
        return [{}, {"no_such_field": 1}]
    return []


def _cases(kind: str, schema: Any, base: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(label, changed field, order): the base order with one field changed, added or removed."""
    others = ONE_OF.get(kind, set()) - set(base)
    for name, field in schema.fields.items():
        if name in others:
            continue
        for value in _wrong_types(field):
            yield f"{kind}.{name} wrong type {_short(value)}", name, {**base, name: value}
        for value in _hostile_values(field):
            yield f"{kind}.{name} = {_short(value)}", name, {**base, name: value}
    yield f"{kind} with an unknown field", "cheat", {**base, "cheat": True}
    for name, field in schema.fields.items():
        if name in base and (field.required or name in ONE_OF.get(kind, ())):
            yield f"{kind} without {name}", name, {k: v for k, v in base.items() if k != name}


def _attack(api: Api, game_type: str, game: Game, token: str, kind: str, schema: Any, base: dict[str, Any],
            accepted: list[str], refused: Counter[str]) -> None:
    """Send every one-field change of a legal order; count the refusals by error code (and rule)."""
    for why, field, body in _cases(kind, schema, base):
        if (game_type, why) in KNOWN_BUGS:
            continue
        before = seq(api, game)
        status, answer = _post(api, game, body, token)
        if status == 202:
            assert (game_type, why) in LEGAL_AFTER_ALL, f"{game_type}: {why} was accepted: {body}"
            assert seq(api, game)[0] == before[0] + 1
            accepted.append(why)
            continue
        assert status in REFUSED, (game_type, why, body, status, answer)
        error = _documented_refusal(api, game, answer, before, f"{game_type}: {why}")
        _names_the_cause(error, kind, field, why)
        refused[error["code"] + (f" ({error['details']['rule']})" if "rule" in error["details"] else "")] += 1


def _gm_bases() -> dict[str, list[dict[str, Any]]]:
    reason = {"reason": "bad input test"}
    later = (datetime.now(timezone.utc) + timedelta(days=30)).isoformat()
    return {
        "gm.extend_deadline": [{"seconds": 60, **reason}, {"deadline": later, **reason}],
        "gm.resolve_now": [reason],
        "gm.pause": [reason],
        "gm.resume": [reason],  # on a paused game
        "gm.eject": [{"player_id": "p2", **reason}],
    }


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_action_with_bad_fields_is_refused(api: Api, ctx: Context, game_type: str) -> None:
    engine = registry.latest(game_type)
    accepted: list[str] = []
    refused: Counter[str] = Counter()
    done: set[str] = set()
    for legal in legal_orders(api, ctx, game_type):
        kind = legal.order["type"]
        if kind in done:
            continue
        done.add(kind)
        base = {k: v for k, v in legal.order.items() if k != "type"}
        _attack(api, game_type, legal.game, legal.token, kind, engine.actions[kind].schema(), {"type": kind, **base},
                accepted, refused)
    assert done == set(engine.actions), f"{game_type}: no legal order reached for {set(engine.actions) - done}"
    # The platform's GM actions, from legal orders too: each base is first accepted on a twin game.
    for kind, bases in _gm_bases().items():
        for number, base in enumerate(bases):
            game, twin = (_gm_game(api, game_type, kind, f"gm-{kind}-{number}") for _ in range(2))
            status, answer = api.post(twin.path("/actions"), {"type": kind, **base}, token=twin.gm)
            assert status == 202, (kind, base, answer)
            _attack(api, game_type, game, game.gm, kind, GM_ACTIONS[kind](), {"type": kind, **base}, accepted, refused)
            done.add(kind)
    expected = {why for (name, why) in LEGAL_AFTER_ALL if name == game_type}
    assert set(accepted) == expected, f"{game_type}: accepted {sorted(accepted)}, listed {sorted(expected)}"
    figures.record(f"bad input {game_type}", order_types=len(done), refused_orders=sum(refused.values()),
                   refused_by=dict(sorted(refused.items())), accepted_as_legal=sorted(accepted))


def _gm_game(api: Api, game_type: str, kind: str, seed: str) -> Game:
    game = started(api, game_type, seed=seed)
    if kind == "gm.resume":
        status, answer = api.post(game.path("/actions"), {"type": "gm.pause", "reason": "to resume"}, token=game.gm)
        assert status == 202, answer
    return game


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_orders_out_of_turn_and_out_of_phase_are_409(api: Api, ctx: Context, game_type: str) -> None:
    """Legal orders sent by a player the phase is not waiting for, or in a phase of another
    stage, or while the game is paused: 409 naming the rule, nothing recorded."""
    engine = registry.latest(game_type)
    scenarios = SCENARIOS.get(game_type) or tuple(engine.simulation_cases)
    rules: set[str] = set()
    out_of_turn = 0
    later: list[Legal] = []
    for legal in legal_orders(api, ctx, game_type):
        if legal.actor == GM:
            continue
        later.append(legal)
        phase = engine.phase(ctx.loader.load(legal.game.id)["engine"])
        for other in [p for p in legal.game.tokens if p not in phase.actors]:
            error = _assert_refused(api, legal.game, legal.order, legal.game.tokens[other], {409},
                                    f"{legal.order['type']} from {other}, out of turn")
            assert error["code"] == "not_now" and error["details"].get("rule"), error
            rules.add(error["details"]["rule"])
            out_of_turn += 1
    if engine.meta.turn_based:
        assert out_of_turn, f"{game_type} is turn-based, yet no order was tried out of turn"
    # Out of phase: an order legal in another stage, sent in the first phase of a fresh game
    # (one per scenario: refused orders change nothing).
    out_of_phase = 0
    fresh: dict[int, Game] = {}
    for legal in later:
        if legal.scenario not in fresh:
            scenario = scenarios[legal.scenario]
            fresh[legal.scenario] = started(api, game_type, scenario.get("players"), f"phase-{legal.scenario}",
                                            scenario.get("options"), [dict(f) for f in scenario.get("fields", ())])
        game = fresh[legal.scenario]
        first = engine.phase(ctx.loader.load(game.id)["engine"]).name
        if legal.stage == first:
            continue
        error = _assert_refused(api, game, legal.order, game.tokens[legal.actor], {409},
                                f"{legal.order['type']} of the {legal.stage} phase in the {first} phase")
        assert error["code"] == "not_now" and error["details"].get("rule"), error
        rules.add(error["details"]["rule"])
        out_of_phase += 1
    figures.record(f"out of phase/turn {game_type}", out_of_turn=out_of_turn, out_of_phase=out_of_phase,
                   rules=sorted(rules))
    # and nothing is taken while the GM has paused the game
    waiting = started(api, game_type, seed="paused")
    player = awaiting(api, waiting)[0]
    order = bot_order(ctx, waiting, player)
    assert order is not None
    status, _ = api.post(waiting.path("/actions"), {"type": "gm.pause", "reason": "stop"}, token=waiting.gm)
    assert status == 202
    error = _assert_refused(api, waiting, order, waiting.tokens[player], {409}, "order while paused")
    assert error["code"] == "paused", error


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
        _assert_refused(api, game, None, game.tokens[player], {status}, f"{game_type}: {why}", raw=raw)


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
            error = _assert_refused(api, game, None, game.tokens[player], {422},
                                    f"{game_type}.{name} nested 500 deep", raw=raw)
            assert error["code"] == "invalid" and name in error["details"], error


def test_whatever_the_gm_sets_the_game_stays_readable(api: Api) -> None:
    """A GM's correction, and a player's order after it, either are refused (4xx) or leave a
    game every caller can still read: never a 500 for the rest of the game."""
    game = started(api, "extreme-ways", seed="garnets")
    huge = 2**63 - 1
    status, answer = api.post(game.path("/actions"), {"type": "gm.set_garnets", "player_id": "p1", "garnets": huge},
                              token=game.gm)
    assert status in (202, 422), answer
    status, answer = api.post(game.path("/actions"), {"type": "buy_gold", "garnets": huge}, token=game.tokens["p1"])
    assert status in (202, 409, 422), answer
    for token in (None, game.tokens["p1"], game.gm):
        status, answer = api.get(game.path(), token)
        assert status == 200, answer
