"""The OpenAPI document, generated from the same marshmallow schemas that validate."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask import Flask

from engines import registry
from engines.contract import Engine
from service import schemas
from service.http import reply

ERRORS = {
    400: "The body is not JSON or not an object.",
    401: "A token is missing or unknown.",
    403: "The token may not do this.",
    404: "Unknown game or resource.",
    409: "Not allowed now (phase closed, deadline passed, not your turn, game not running).",
    413: "The body is too large.",
    422: "Well-formed but invalid: schema error or a rule of the game.",
    429: "too_many_bad_tokens: too many invalid tokens for this game from this address; retry in a minute.",
    503: "Retry later: store_unavailable (the event store is unreachable; Retry-After says when), busy (too "
         "many writers at once), or corrupt_log (the game's log cannot be folded at details.seq; retrying will "
         "not help, its GM can read the audit and the export).",
}


NO_STORE = {"/v1/game-types", "/v1/replays/verify"}  # answered without the event store

RESPONSE_SCHEMAS = ("ErrorBody", "Error", "CreatedGame", "Joined", "Receipt", "Accepted", "Event", "EventsPage",
                    "Audit", "Game", "Phase", "GamePlayer", "You", "Health")


def _converter() -> OpenAPIConverter:
    return OpenAPIConverter(openapi_version="3.0.3", schema_name_resolver=lambda s: None, spec=APISpec(
        "x", "1", "3.0.3", plugins=[MarshmallowPlugin()]))


def options_json_schema(engine: Engine) -> dict[str, Any]:
    return _converter().schema2jsonschema(engine.options_schema)


def _json(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _responses(ok: int, schema: str, *errors: int) -> dict[str, Any]:
    return {str(ok): {"description": "Success", "content": _json(schema)}, **_errors(*errors)}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(code): {"description": ERRORS[code], "content": _json("Error")} for code in codes}


def _game_id() -> dict[str, Any]:
    return {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _query(name: str, description: str, minimum: int = 0, maximum: int = 2**53) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": {"type": "integer", "minimum": minimum, "maximum": maximum}}


def _action_schemas(spec: APISpec) -> list[dict[str, Any]]:
    """Every order of every game, each a schema with its ``type`` constant."""
    converter = _converter()
    variants = []
    seen: set[str] = set()
    for name in registry.names():
        engine = registry.latest(name)
        for action in engine.actions.values():
            component = f"{name}.{action.name}"
            if component in seen:
                continue
            seen.add(component)
            body = converter.schema2jsonschema(action.schema)
            body.setdefault("properties", {})
            body["properties"]["type"] = {"type": "string", "enum": [action.name]}
            body["properties"]["on_behalf_of"] = {"type": "string", "nullable": True,
                                                  "description": "GM only: the player whose order this is."}
            body["required"] = sorted({"type", *body.get("required", [])})
            body["description"] = f"{engine.meta.title}: {action.description}".strip()
            spec.components.schema(component, body)
            variants.append({"$ref": f"#/components/schemas/{component}"})
    for gm_action, schema in schemas.GM_ACTIONS.items():
        body = converter.schema2jsonschema(schema)
        body.setdefault("properties", {})["type"] = {"type": "string", "enum": [gm_action]}
        body["required"] = sorted({"type", *body.get("required", [])})
        spec.components.schema(gm_action, body)
        variants.append({"$ref": f"#/components/schemas/{gm_action}"})
    return variants


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    spec = APISpec(
        title="Arbiter",
        version="1.0.0",
        openapi_version="3.0.3",
        info={"description": "An automated game master for deadline-driven play-by-post games."},
        plugins=[MarshmallowPlugin()],
    )
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for name in ("Error", "CreateGame", "CreatedGame", "Joined", "Accepted", "Event", "EventsPage", "Audit", "Game",
                 "Health"):
        spec.components.schema(name, schema=getattr(schemas, f"{name}Schema"))
    spec.components.schema("Action", {"oneOf": _action_schemas(spec)})
    spec.components.schema("Join", {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 60}}, "additionalProperties": True,
        "description": "A name plus the game type's own sign-up fields (see /v1/game-types)."})
    spec.components.schema("Any", {"type": "object", "additionalProperties": True})
    secured = [{}, {"bearer": []}]
    gid = [_game_id()]
    paths: list[tuple[str, dict[str, Any]]] = [
        ("/v1/health", {"get": {"summary": "Service and store health", "responses": _responses(200, "Health")}}),
        ("/v1/game-types", {"get": {"summary": "Every game type with its options and orders",
                                    "responses": _responses(200, "Any")}}),
        ("/v1/games", {"post": {"summary": "Create a game",
                                "requestBody": {"required": True, "content": _json("CreateGame")},
                                "responses": _responses(201, "CreatedGame", 400, 401, 413, 422)}}),
        ("/v1/games/{game_id}", {"get": {"summary": "The game as the caller may see it", "parameters": gid,
                                         "security": secured, "responses": _responses(200, "Game", 401, 404)}}),
        ("/v1/games/{game_id}/players", {"post": {
            "summary": "Join a game (the GM may register players and set GM-only fields)", "parameters": gid,
            "security": secured, "requestBody": {"required": True, "content": _json("Join")},
            "responses": _responses(201, "Joined", 400, 401, 403, 404, 409, 413, 422)}}),
        ("/v1/games/{game_id}/start", {"post": {"summary": "Close sign-up and open the first phase (GM)",
                                                "parameters": gid, "security": secured,
                                                "responses": _responses(200, "Any", 400, 401, 403, 404, 409, 413)}}),
        ("/v1/games/{game_id}/actions", {"post": {
            "summary": "Send an order (players) or a GM action", "parameters": gid + [
                {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"}}],
            "security": secured, "requestBody": {"required": True, "content": _json("Action")},
            "responses": _responses(202, "Accepted", 400, 401, 403, 404, 409, 413, 422)}}),
        ("/v1/games/{game_id}/events", {"get": {
            "summary": "The log, redacted for the caller", "parameters": gid + [
                _query("after", "Only events with a larger seq"),
                _query("limit", "At most this many (1-1000)", 1, 1000)],
            "security": secured, "responses": _responses(200, "EventsPage", 401, 404, 422)}}),
        ("/v1/games/{game_id}/replay", {"get": {
            "summary": "The caller's view after each event, or at one seq", "parameters": gid + [
                _query("at", "One seq (422 beyond the log)", 1), _query("after", "Frames after this seq"),
                _query("limit", "Frames (1-500)", 1, 500)],
            "security": secured, "responses": _responses(200, "Any", 401, 404, 422)}}),
        ("/v1/games/{game_id}/audit", {"get": {"summary": "Re-fold and check everything (GM, or anyone once finished)",
                                               "parameters": gid, "security": secured,
                                               "responses": _responses(200, "Audit", 401, 403, 404)}}),
        ("/v1/games/{game_id}/export", {"get": {"summary": "The whole log, self-contained",
                                                "parameters": gid, "security": secured,
                                                "responses": _responses(200, "Any", 401, 403, 404)}}),
        ("/v1/games/{game_id}/report", {"get": {
            "summary": "The turn report, for games that have one", "parameters": gid + [
                _query("round", "Round number (default: latest)", 1, 10_000),
                {"name": "format", "in": "query", "required": False,
                 "schema": {"type": "string", "enum": ["json", "text", "markdown", "bbcode"]}}],
            "security": secured, "responses": _responses(200, "Any", 401, 404, 409, 422)}}),
        ("/v1/replays/verify", {"post": {"summary": "Verify an exported log offline",
                                         "requestBody": {"required": True, "content": _json("Any")},
                                         "responses": _responses(200, "Audit", 400, 413, 422)}}),
    ]
    for path, operations in paths:
        for operation in operations.values():
            # Any token is checked against the throttle; anything that reads the store can find it unreachable.
            extra = ([429] if "security" in operation else []) + ([503] if path not in NO_STORE else [])
            operation["responses"].update(_errors(*extra))
        spec.path(path=path, operations=operations)
    document = spec.to_dict()
    # Responses may grow new fields (the API promises to extend freely): only request
    # bodies are closed to unknown properties.
    for name in RESPONSE_SCHEMAS:
        document["components"]["schemas"][name].pop("additionalProperties", None)
        for prop in document["components"]["schemas"][name].get("properties", {}).values():
            _nullable_ref(prop)
    return document


def _nullable_ref(prop: dict[str, Any]) -> None:
    """apispec writes a nullable Nested as anyOf [$ref, {type: object, nullable}], which any object matches;
    OpenAPI 3.0's idiom is allOf [$ref] with nullable, which only the referenced shape (or null) matches."""
    options = prop.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and "$ref" in options[0] and options[1].get("nullable"):
        del prop["anyOf"]
        prop.update(allOf=[options[0]], nullable=True)


def register_openapi(app: Flask) -> None:
    app.add_url_rule("/v1/openapi.json", "openapi", lambda: reply(document()))


def describe(engine: Engine) -> dict[str, Any]:
    """A game type as ``GET /v1/game-types`` lists it: its declared facts and its orders."""
    m = engine.meta
    return {
        "name": m.name,
        "title": m.title,
        "version": m.version,
        "summary": m.summary,
        "players": {"min": m.min_players, "max": m.max_players},
        "turn_based": m.turn_based,
        "hidden_information": m.hidden_information,
        "late_joins": m.late_joins,
        "default_deadlines": dict(engine.default_deadlines),
        "actions": [
            {
                "type": a.name,
                "actor": a.actor,
                "sealed": a.sealed,
                "team_sees": a.team_sees,
                "phases": list(a.phases),
                "description": a.description,
                "example": dict(a.example),
            }
            for a in engine.actions.values()
        ],
    }
