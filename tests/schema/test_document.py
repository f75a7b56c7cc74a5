"""What /v1/openapi.json must say for a generated client to be typed end to end (issue 19), checked on the
document itself: ids, tags, examples, real 200 schemas, security, and each game type's own typed parts,
assembled from what its engine declares (a game declaring nothing still gets a valid, loosely typed part)."""
from __future__ import annotations

import json
from typing import Any, Iterator

from engines import registry
from service.openapi import document, pascal
from service.openapi.games import game_schemas
from tests.coin import Coin
from runtime.context import Context
from service.app import create_app
from tests.platform.helpers import Api

OPTIONAL_TOKEN = {"getGame", "joinGame", "listEvents", "getReplay", "auditGame", "exportGame", "getReport"}


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if method != "servers":  # the live paths name the stream process
                yield path, method, operation


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def test_every_operation_has_a_unique_id_a_tag_and_a_real_success_schema() -> None:
    ids = [op["operationId"] for _, _, op in _operations()]
    assert len(ids) == len(set(ids))
    assert {"createGame", "submitAction", "listGames", "listMyGames", "getExtremeWaysGame", "createGoldenStriderGame",
            "submitSxyzmCycloneAction", "joinGoldenStriderGame", "listGameTypes"} <= set(ids)
    for path, method, operation in _operations():
        assert operation["tags"], (path, method)
        ok = next(code for code in operation["responses"] if code.startswith("2"))
        content = operation["responses"][ok]["content"]  # JSON, or the stream's lines (NDJSON) of Event or StreamEnd
        assert "$ref" in json.dumps(content.get("application/json", content.get("application/x-ndjson"))), path
        if "requestBody" in operation:
            assert "example" in operation["requestBody"]["content"]["application/json"], (path, method)
    assert "Any" not in document()["components"]["schemas"]


def test_optional_tokens_leave_anonymous_calls_possible_and_401s_say_how_to_authenticate() -> None:
    for path, _method, operation in _operations():
        typed_read = operation["operationId"].startswith(("get", "join", "list")) and "{game_id}" in path and (
            "Live" not in operation["tags"])  # a token's webhooks and tickets need the token
        if operation["operationId"] in OPTIONAL_TOKEN or typed_read:
            assert "security" not in operation and "optional" in operation.get("description", ""), path
        if operation["operationId"] in ("startGame", "submitAction") or operation["operationId"].startswith("submit"):
            assert operation["security"] == [{"bearer": []}], path
        if "401" in operation["responses"]:
            assert "WWW-Authenticate" in operation["responses"]["401"]["headers"], path
    start = document()["paths"]["/v1/games/{game_id}/start"]["post"]
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in start["parameters"])


def test_formats_enums_and_no_null_in_any_enum() -> None:
    schemas = document()["components"]["schemas"]
    events = [schemas[target.rsplit("/", 1)[1]] for target in schemas["Event"]["discriminator"]["mapping"].values()]
    assert all(e["properties"]["at"]["format"] == "date-time" and "salt" in e["properties"] for e in events)
    assert schemas["Game"]["properties"]["created_at"]["format"] == "date-time"
    assert "game.started" in schemas["Event"]["discriminator"]["mapping"]
    assert set(schemas["CreateGame"]["properties"]["type"]["enum"]) == set(registry.names())
    for node in _walk(document()):
        assert None not in node.get("enum", []), node


def test_each_game_type_has_its_orders_discriminated_and_its_state_typed() -> None:
    schemas = document()["components"]["schemas"]
    for name in registry.names():
        engine = registry.latest(name)
        p = pascal(name)
        union = schemas[f"{p}Action"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) >= set(engine.actions) | {"gm.pause", "quit"}
        for kind, ref in union["discriminator"]["mapping"].items():
            assert schemas[ref.rsplit("/", 1)[1]]["properties"]["type"]["enum"] == [kind]
        assert schemas[f"{p}Game"]["properties"]["state"]["allOf"] == [{"$ref": f"#/components/schemas/{p}View"}]
        join = schemas[f"{p}Join"]
        assert join["additionalProperties"] is False and "name" in join["required"]
        if engine.join_schema is not None:
            assert set(engine.join_schema().fields) <= set(join["properties"])
    assert set(schemas["ExtremeWaysJoin"]["properties"]) == {"name", "garnets"}
    assert {"runner", "runners"} <= set(schemas["GoldenStriderJoin"]["properties"])
    assert "colour" in schemas["SxyzmCycloneJoin"]["properties"]
    assert schemas["ExtremeWaysView"]["properties"]["you"]["properties"]["legal_actions"] == {
        "$ref": "#/components/schemas/ExtremeWaysHint"}  # the hint the view embeds is named once


def test_a_game_type_that_declares_nothing_yet_still_gets_a_valid_loose_part() -> None:
    class Bare(Coin):
        view_schema = result_schema = hint_schema = outcome_schema = None

    game = document()["components"]["schemas"]["Game"]
    parts = game_schemas(Bare(), game)
    assert parts["TestCoinView"]["type"] == "object" and "declares no view" in parts["TestCoinView"]["description"]
    assert parts["TestCoinAction"]["discriminator"]["mapping"]["call"].endswith("/TestCoinCall")


def test_game_types_lists_sign_up_fields_and_true_player_counts(ctx: Context) -> None:
    status, body = Api(create_app(ctx).test_client()).get("/game-types")
    assert status == 200
    types = {t["name"]: t for t in body["game_types"]}
    strider = types["golden-strider"]
    assert strider["players"] == {"min": 6, "max": 10, "by_option": [
        {"option": "variant", "value": "tarnished", "min": 3, "max": 5}]}
    assert {"runner", "runners"} <= set(strider["join_schema"]["properties"])
    assert types["extreme-ways"]["gm_join_fields"] == ["garnets"] == types["extreme-ways"]["private_join_fields"]
    assert types["extreme-ways"]["actions"][0]["schema"] == "ExtremeWaysBid"


def test_no_component_holds_a_property_of_its_own_name() -> None:
    """A generated model keeps its instance in a local variable named after its class: a property of that name
    shadows it (``error = cls(error=error)``; mypy 2 refuses it).  Error, Report, GameTypes and Keys were renamed
    (ErrorResponse, TurnReport, GameTypeList, KeyList), and every reference with them."""
    from openapi_python_client.strings import snake_case

    schemas = document()["components"]["schemas"]
    clashes = [name for name, body in schemas.items() if snake_case(name) in body.get("properties", {})]
    assert clashes == []
    assert {"ErrorResponse", "TurnReport", "GameTypeList", "KeyList"} <= set(schemas)
    text = json.dumps(document())
    for old in ("Error", "Report", "GameTypes", "Keys"):
        assert old not in schemas and f'"#/components/schemas/{old}"' not in text


def test_order_enums_are_components_and_every_equal_enum_of_the_game_type_refers_to_them() -> None:
    """A bot sends back what its hint offered, with no conversion: the hints' values are the orders' enums (one class
    in a generated client, not one per place)."""
    schemas = document()["components"]["schemas"]
    assert schemas["StrategicAspectHint"]["properties"]["spaces"]["items"] == {
        "$ref": "#/components/schemas/StrategicAspectMoveSpaces"}
    assert schemas["ElementalTagHint"]["properties"]["move"]["properties"]["directions"]["items"] == {
        "$ref": "#/components/schemas/ElementalTagMoveDirection"}
    assert schemas["ExtremeWaysHint"]["properties"]["move"]["properties"]["options"]["items"] == {
        "$ref": "#/components/schemas/ExtremeWaysMoveOptions"}
    for engine in registry.all_latest():
        p = pascal(engine.meta.name)
        shared = {name: tuple(body["enum"]) for name, body in schemas.items()
                  if name.startswith(p) and set(body) == {"type", "enum"}}
        for name, body in schemas.items():
            if not name.startswith(p) or name in shared:
                continue
            inline = [tuple(v for v in node["enum"] if v is not None) for node in _walk(body) if "enum" in node]
            assert not set(inline) & set(shared.values()), (name, set(inline) & set(shared.values()))
