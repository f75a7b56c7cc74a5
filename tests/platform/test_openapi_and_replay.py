"""The OpenAPI document and the replay endpoint."""
from __future__ import annotations

import re

from flask import Flask

from engines import registry
from service.app import create_app
from runtime.context import Context
from tests.platform.conftest import Game
from tests.platform.helpers import Api


def _operations(item: dict) -> list[dict]:
    """A path item's operations (not its servers or parameters)."""
    return [op for method, op in item.items() if method in ("get", "put", "post", "delete", "patch", "head", "options")]


def test_openapi_lists_every_route_the_app_serves(api: Api, ctx: Context) -> None:
    status, doc = api.get("/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    app: Flask = create_app(ctx)
    rules = {rule.rule for rule in app.url_map.iter_rules()
             if rule.rule.startswith("/v1/") and rule.rule != "/v1/openapi.json"}
    # Each game type's typed operations are one route with the type in the path.
    served = {re.sub(r"<(\w+)>", r"{\1}", path.replace("<game_type>", name)) for path in rules
              for name in registry.names()}
    # The stream process's operations (tag Live) are in the document too, with its own servers: not the API's routes.
    live = {path for path, item in doc["paths"].items()
            if all("Live" in op.get("tags", ()) for op in _operations(item))}
    assert live and all(item.get("servers") or all(op.get("servers") for op in _operations(item))
                        for path, item in doc["paths"].items() if path in live)
    assert served == set(doc["paths"]) - live
    actions = doc["components"]["schemas"]["ExtremeWaysAction"]
    refs = {a["$ref"].rsplit("/", 1)[1] for a in actions["oneOf"]}
    assert {"ExtremeWaysBid", "GmPause", "GmEject", "Quit"} <= refs
    assert actions["discriminator"]["mapping"]["bid"].endswith("/ExtremeWaysBid")
    bid = doc["components"]["schemas"]["ExtremeWaysBid"]
    assert "amount" in bid["properties"] and "type" in bid["required"]


def test_every_error_response_is_documented_with_the_error_schema(api: Api) -> None:
    doc = api.get("/openapi.json")[1]
    for path, operations in doc["paths"].items():
        for operation in _operations(operations):
            for code, response in operation["responses"].items():
                if code.startswith("4"):
                    schema = response["content"]["application/json"]["schema"]["$ref"]
                    assert schema.endswith("/ErrorResponse"), (path, code)


def test_replay_gives_the_callers_view_after_each_event(api: Api, game: Game) -> None:
    api.post(game.path("/actions"), {"type": "bid", "amount": 9}, token=game.tokens["p2"])
    status, body = api.get(game.path("/replay"), game.tokens["p1"])
    assert status == 200
    assert [f["seq"] for f in body["frames"]] == list(range(1, 8))
    assert body["frames"][0]["view"]["status"] == "signup"
    assert body["frames"][-1]["event"]["data"]["sealed"] is True
    status, one = api.get(game.path("/replay?at=6"), game.tokens["p1"])
    assert status == 200 and one["seq"] == 6 and one["view"]["status"] == "running"
    status, mine = api.get(game.path("/replay?at=7"), game.tokens["p2"])
    assert mine["event"]["data"]["action"]["amount"] == 9


def test_browser_clients_get_cors_headers(api: Api, game: Game) -> None:
    preflight = api.client.options(f"/v1{game.path('/actions')}", headers={
        "Origin": "https://client.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, Idempotency-Key"})
    assert preflight.status_code in (200, 204)
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Idempotency-Key" in preflight.headers["Access-Control-Allow-Headers"]
    assert api.client.get(f"/v1{game.path()}").headers["Access-Control-Allow-Origin"] == "*"
