"""The OpenAPI document, generated from the same marshmallow schemas that validate, and from what each
registered engine declares (orders, sign-up fields, views, results, hints, outcomes), so a game type is
typed the day it is registered and nothing published can drift from the code that uses it.

Every game type gets its own tag and typed operations under ``/v1/game-types/{name}/games/...`` (read the
game with a typed state and result, join with its sign-up fields, send one of its orders: a union of its
order schemas discriminated by ``type``); the generic operations under ``/v1/games`` serve every type.
Operations a token is optional for declare no ``security`` (so a generated client calls them anonymously)
and say in their description that a bearer token shows more.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Iterator

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
    401: "A token is missing or unknown (the response carries WWW-Authenticate: Bearer).",
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
OPTIONAL_TOKEN = ("A bearer token is optional: without one the caller is the public; a player's token or the "
                  "GM's shows what that role may see.")

RESPONSE_SCHEMAS = ("ErrorBody", "Error", "CreatedGame", "Joined", "Receipt", "Accepted", "Event", "EventsPage",
                    "Audit", "Game", "Phase", "GamePlayer", "You", "Health", "Started", "Replay", "ReplayFrame",
                    "Export", "Report", "GameTypes", "GameType", "GameSummary", "GamesPage", "MyGames", "MyGame",
                    "RefusedToken", "Warning", "Started", "OpenedPhase", "ListedPhase", "PlayerCounts", "ByOption",
                    "ActionInfo")


def _link(operation_id: str, description: str, game: str, token: str | None = None) -> dict[str, Any]:
    parameters = {"path.game_id": game}
    if token is not None:
        parameters["header.Authorization"] = f"Bearer {{{token}}}"
    return {"operationId": operation_id, "parameters": parameters, "description": description}


_CREATED, _JOINED = "$response.body#/game_id", "$response.body#/game_id"
_GM, _PLAYER = "$response.body#/gm_token", "$response.body#/token"
# What a client does next with what an answer gave it (the game's id, the GM's or a player's token): OpenAPI links,
# which clients and testers (schemathesis's stateful phase) follow.
LINKS: dict[str, dict[str, dict[str, Any]]] = {
    "createGame": {"201": {
        "GetGame": _link("getGame", "Read the new game.", _CREATED),
        "JoinGame": _link("joinGame", "Sign a player up.", _CREATED),
        "RegisterPlayer": _link("joinGame", "The GM registers a player.", _CREATED, _GM),
        "StartGame": _link("startGame", "The GM starts it.", _CREATED, _GM),
        "GmAction": _link("submitAction", "A GM action (pause, extend a deadline ...).", _CREATED, _GM),
        "GmGame": _link("getGame", "The game as its GM sees it.", _CREATED, _GM),
        "Events": _link("listEvents", "Its log.", _CREATED),
        "Audit": _link("auditGame", "The GM's audit.", _CREATED, _GM),
        "Export": _link("exportGame", "The GM's export.", _CREATED, _GM),
        "Replay": _link("getReplay", "Its replay.", _CREATED)}},
    "joinGame": {"201": {
        "PlayerGame": _link("getGame", "The game as this player sees it.", _JOINED, _PLAYER),
        "Order": _link("submitAction", "This player's order.", _JOINED, _PLAYER),
        "PlayerEvents": _link("listEvents", "The log as this player sees it.", _JOINED, _PLAYER)}},
    "startGame": {"200": {"Game": _link("getGame", "The started game.", "$request.path.game_id")}},
    "submitAction": {"202": {"Events": _link("listEvents", "The log with the order.", "$request.path.game_id")}},
}


def _converter() -> OpenAPIConverter:
    return OpenAPIConverter(openapi_version="3.0.3", schema_name_resolver=lambda s: None, spec=APISpec(
        "x", "1", "3.0.3", plugins=[MarshmallowPlugin()]))


def options_json_schema(engine: Engine) -> dict[str, Any]:
    return _clean(_converter().schema2jsonschema(engine.options_schema))


def join_json_schema(engine: Engine) -> dict[str, Any]:
    """The body that joins a game of this type: a name plus the type's own sign-up fields (others get 422)."""
    body = _converter().schema2jsonschema(engine.join_schema) if engine.join_schema else {
        "type": "object", "properties": {}, "additionalProperties": False}
    body["properties"] = {"name": {"type": "string", "minLength": 1, "maxLength": 60}, **body.get("properties", {})}
    body["required"] = ["name", *body.get("required", [])]
    for field in engine.gm_join_fields:
        body["properties"][field]["description"] = "Only the GM may set this (with the GM's token)."
    body["example"] = {"name": "Ann"}
    return _clean(body)


def pascal(name: str) -> str:
    """``extreme-ways`` -> ``ExtremeWays``, ``gm.set_garnets`` -> ``GmSetGarnets``: component names."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace(".", "-").replace("_", "-").split("-"))


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(schema)}}


def _body(schema: str, example: Any) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(schema), "example": example}}}


def _responses(ok: int, schema: str, *errors: int) -> dict[str, Any]:
    return {str(ok): {"description": "Success", "content": _json(schema)}, **_errors(*errors)}


def _errors(*codes: int) -> dict[str, Any]:
    out = {}
    for code in codes:
        out[str(code)] = {"description": ERRORS[code], "content": _json("Error")}
        if code == 401:
            out[str(code)]["headers"] = {"WWW-Authenticate": {
                "description": "Bearer, as RFC 6750 asks.", "schema": {"type": "string"}}}
    return out


def _game_id() -> dict[str, Any]:
    return {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"},
            "example": "g0123456789abcdef"}


def _query(name: str, description: str, minimum: int = 0, maximum: int = 2**53) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": {"type": "integer", "minimum": minimum, "maximum": maximum}}


def _idempotency() -> dict[str, Any]:
    return {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"},
            "description": "A retry with the same key (per token, at least 24 "
            "hours) gets the first answer again instead of acting twice."}


def _order(engine: Engine | None, name: str, schema: Any, description: str, example: Any) -> dict[str, Any]:
    body = _converter().schema2jsonschema(schema)
    body.setdefault("properties", {})["type"] = {"type": "string", "enum": [name]}
    body["required"] = sorted({"type", *body.get("required", [])})
    body["description"] = f"{engine.meta.title}: {description}".strip() if engine else description
    body["example"] = {"type": name, **dict(example)}
    return body


def _gm_orders() -> dict[str, dict[str, Any]]:
    """The platform's orders, the same in every game: the GM's actions and a player's own ``quit``."""
    examples = {"gm.extend_deadline": {"seconds": 3600, "reason": "Holiday"}, "gm.eject": {
        "player_id": "p2", "reason": "Left the forum"}, schemas.QUIT: {}}
    out = {}
    for name, schema in [*schemas.GM_ACTIONS.items(), (schemas.QUIT, schemas.QuitSchema)]:
        what = "A player leaves the game (the game's rules say what follows)." if name == schemas.QUIT else (
            f"GM: {name[3:].replace('_', ' ')}.")
        out[pascal(name)] = _order(None, name, schema, what, examples.get(name, {"reason": "Forum vote"}))
    return out


def _game_schemas(engine: Engine, game: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One game type's components: its options, sign-up body, orders and their union, view, result, hint,
    outcome and its Game (the generic Game with a typed state and result)."""
    p = pascal(engine.meta.name)
    out: dict[str, dict[str, Any]] = {f"{p}Options": options_json_schema(engine), f"{p}Join": join_json_schema(engine)}
    mapping = {}
    for action in engine.actions.values():
        body = _order(engine, action.name, action.schema, action.description, action.example)
        if action.actor == "player":
            body["properties"]["on_behalf_of"] = {"type": "string", "description": "GM only: the player whose "
                                                  "order this is."}
        out[f"{p}{pascal(action.name)}"] = _clean(body)
        mapping[action.name] = f"#/components/schemas/{p}{pascal(action.name)}"
    mapping.update({name: f"#/components/schemas/{pascal(name)}" for name in [*schemas.GM_ACTIONS, schemas.QUIT]})
    out[f"{p}Action"] = {"oneOf": [{"$ref": ref} for ref in mapping.values()], "description": f"Any order of "
                         f"{engine.meta.title}, by its type.", "discriminator": {"propertyName": "type",
                                                                                 "mapping": mapping}}
    declared = {"View": engine.view_schema, "Result": engine.result_schema, "Hint": engine.hint_schema,
                "Outcome": engine.outcome_schema}
    for kind, schema in declared.items():
        out[f"{p}{kind}"] = copy.deepcopy(dict(schema)) if schema is not None else {
            "type": "object", "description": f"{engine.meta.title} declares no {kind.lower()} schema yet."}
    if engine.view_schema is not None:  # the hint and result the view embeds are named, not inlined twice
        out[f"{p}View"] = _lift(engine.view_schema, {id(engine.hint_schema): f"{p}Hint",
                                                      id(engine.result_schema): f"{p}Result"})
    typed = copy.deepcopy(game)
    typed["properties"]["state"] = {"allOf": [_ref(f"{p}View")], "nullable": True, "description": "The game's "
                                    "state as the caller may see it; null before the start."}
    typed["properties"]["result"] = {"allOf": [_ref(f"{p}Result")], "nullable": True, "description": "Once the "
                                     "game is finished."}
    out[f"{p}Game"] = typed
    out[f"{p}CreateGame"] = _typed_create(engine, p)
    return out


def _typed_create(engine: Engine, p: str) -> dict[str, Any]:
    """The body that creates a game of this type: the generic one without ``type`` (the path says it), with the
    type's options and its phases' deadlines."""
    body = _clean(_converter().schema2jsonschema(schemas.CreateGameSchema))
    body["properties"].pop("type")
    body["required"] = [r for r in body.get("required", []) if r != "type"]
    if not body["required"]:
        del body["required"]
    body["properties"]["options"] = {"allOf": [_ref(f"{p}Options")], "description": "This game type's options."}
    seconds = body["properties"]["deadlines"]["additionalProperties"]
    body["properties"]["deadlines"] = {
        "type": "object", "additionalProperties": False, "description": "Seconds per phase (the defaults: "
        + ", ".join(f"{name} {value}" for name, value in engine.default_deadlines.items()) + ").",
        "properties": {name: dict(seconds) for name in engine.default_deadlines}}
    body["example"] = {"name": "Friday game", "deadlines": dict(list(engine.default_deadlines.items())[:1])}
    return body


def _lift(schema: Any, names: dict[int, str]) -> Any:
    """A copy of ``schema`` with each sub-schema that *is* one of ``names`` (the same object) as a $ref."""
    if id(schema) in names:
        return _ref(names[id(schema)])
    if isinstance(schema, dict):
        return {k: _lift(v, names) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_lift(v, names) for v in schema]
    return schema


def _clean(schema: Any) -> Any:
    """apispec's output and the engines' declarations made OpenAPI 3.0 a generator reads well: a field defaulting
    to null takes null; JSON Schema's ``type: [..., "null"]`` is spelled ``nullable``, an array has its ``items``;
    and a nullable enum keeps
    its values one level in (``nullable`` + ``anyOf: [{enum}]``), because in OpenAPI 3.0.3 an enum refuses null
    unless it lists it, and listing it (``enum: [..., null]``) makes generators build two enums of one."""
    if isinstance(schema, list):
        return [_clean(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _clean(v) for k, v in schema.items()}
    if "default" in out and out["default"] is None:
        out["nullable"] = True  # marshmallow lets a field whose load_default is None take null
    if isinstance(out.get("type"), list):
        types = [t for t in out.pop("type") if t != "null"]
        out["nullable"] = out.get("nullable", False) or len(types) < len(schema["type"])
        if len(types) == 1:
            out["type"] = types[0]
        else:
            out["anyOf"] = [{"type": t} for t in types]
    if isinstance(out.get("enum"), list) and (out.get("nullable") or None in out["enum"]):
        values = {"type": out.pop("type", "string"), "enum": [v for v in out.pop("enum") if v is not None]}
        out.update(anyOf=[values], nullable=True)
    if out.get("type") == "array" and "items" not in out:
        out["items"] = {}  # OpenAPI 3.0 requires items; a declaration without them means any
    _spare_the_parsers_local(out)
    return out


def _spare_the_parsers_local(schema: dict[str, Any]) -> None:
    """openapi-python-client parses every model into a local named ``d``, so a property ``D`` (Extreme Ways'
    option D of a GM-fixed round) breaks the code it generates.  Such a property of a closed object is published
    as its ``additionalProperties`` instead (still required, the same schema; other unknown names still get 422)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or schema.get("additionalProperties", False) not in (False, {}):
        return
    for name in [n for n in properties if n.lower() == "d"][:1]:
        schema["additionalProperties"] = properties.pop(name)
        schema["description"] = (schema.get("description", "") + f" {name}: under additionalProperties (a name "
                                 "generated clients use for a variable of their own).").strip()


def _platform_schemas(spec: APISpec) -> None:
    for name in ("Error", "CreateGame", "CreatedGame", "Joined", "Accepted", "Event", "EventsPage", "Audit", "Game",
                 "Health", "Started", "Replay", "ReplayFrame", "Export", "Report", "GameTypes", "GameSummary",
                 "GamesPage", "MyGamesRequest", "MyGames"):
        if name not in spec.components.schemas:  # registered already as a nested schema of one before it
            spec.components.schema(name, schema=getattr(schemas, f"{name}Schema"))


def _paths(engines: list[Engine]) -> Iterator[tuple[str, dict[str, Any]]]:
    gid = [_game_id()]
    token = [{"bearer": []}]
    first = registry.names()[0] if registry.names() else "extreme-ways"
    yield "/v1/health", {"get": {"operationId": "getHealth", "tags": ["Service"], "summary": "Service and store "
                                 "health", "responses": _responses(200, "Health")}}
    yield "/v1/game-types", {"get": {"operationId": "listGameTypes", "tags": ["Game types"], "summary": "Every "
                                     "game type with its options, sign-up fields, player counts and orders",
                                     "responses": _responses(200, "GameTypes")}}
    yield "/v1/games", {
        "post": {"operationId": "createGame", "tags": ["Games"], "summary": "Create a game (with the admin token "
                 "if the server has one)", "requestBody": _body("CreateGame", {"type": first, "name": "Friday "
                                                                                "game", "deadlines": {}}),
                 "responses": _responses(201, "CreatedGame", 400, 401, 413, 422)},
        "get": {"operationId": "listGames", "tags": ["Games"], "summary": "Games, newest first, public fields "
                "only; filter by type and status, page with after=next_after", "parameters": [
                    {"name": "type", "in": "query", "required": False, "schema": {
                        "type": "string", "enum": [e.meta.name for e in engines]}},
                    {"name": "status", "in": "query", "required": False, "schema": {
                        "type": "string", "enum": ["signup", "running", "paused", "finished"]}},
                    {"name": "after", "in": "query", "required": False, "schema": {"type": "string"},
                     "description": "The next_after of the previous page."},
                    _query("limit", "At most this many (1-100, default 20)", 1, 100)],
                "responses": _responses(200, "GamesPage", 422)}}
    yield "/v1/me/games", {"post": {
        "operationId": "listMyGames", "tags": ["Games"], "summary": "The games of many tokens at once (a bot "
        "recovering after a restart)", "description": "Each token is given with its game (tokens belong to one "
        "game each) in the body, never in a URL; up to 100. Tokens that are not valid are listed under refused "
        "and count toward that game's throttle like any bad token.",
        "requestBody": _body("MyGamesRequest", {"tokens": [{"game_id": "g0123456789abcdef", "token": "..."}]}),
        "responses": _responses(200, "MyGames", 400, 413, 422)}}
    yield "/v1/games/{game_id}", {"get": {"operationId": "getGame", "tags": ["Games"], "summary": "The game as the "
                                          "caller may see it (any type; see the typed getters per game type)",
                                          "description": OPTIONAL_TOKEN, "parameters": gid,
                                          "responses": _responses(200, "Game", 401, 404)}}
    yield "/v1/games/{game_id}/players", {"post": {
        "operationId": "joinGame", "tags": ["Games"], "summary": "Join a game (the GM may register players and set "
        "GM-only fields)", "description": "The body is the type's own (see the typed join per game type); unknown "
        "fields get 422. " + OPTIONAL_TOKEN, "parameters": gid, "requestBody": _body("Join", {"name": "Ann"}),
        "responses": _responses(201, "Joined", 400, 401, 403, 404, 409, 413, 422)}}
    yield "/v1/games/{game_id}/start", {"post": {
        "operationId": "startGame", "tags": ["Games"], "summary": "Close sign-up and open the first phase (GM)",
        "parameters": gid + [_idempotency()], "security": token,
        "responses": _responses(200, "Started", 400, 401, 403, 404, 409, 413)}}
    yield "/v1/games/{game_id}/actions", {"post": {
        "operationId": "submitAction", "tags": ["Games"], "summary": "Send an order (players) or a GM action, of "
        "any game type (see the typed operation per game type)", "parameters": gid + [_idempotency()],
        "security": token, "requestBody": _body("Action", {"type": "gm.pause", "reason": "Holiday"}),
        "responses": _responses(202, "Accepted", 400, 401, 403, 404, 409, 413, 422)}}
    yield "/v1/games/{game_id}/events", {"get": {
        "operationId": "listEvents", "tags": ["Games"], "summary": "The log, redacted for the caller",
        "description": OPTIONAL_TOKEN, "parameters": gid + [
            _query("after", "Only events with a larger seq (0-2^53; past the end: an empty page)"),
            _query("limit", "At most this many (1-1000)", 1, 1000)],
        "responses": _responses(200, "EventsPage", 401, 404, 422)}}
    yield "/v1/games/{game_id}/replay", {"get": {
        "operationId": "getReplay", "tags": ["Games"], "summary": "The caller's view after each event, or at one seq",
        "description": "With at: one frame (seq, event, view); at beyond the log's last seq is 422. Otherwise the "
        "frames after `after`, whose rules are those of /events: past the end, an empty page. " + OPTIONAL_TOKEN,
        "parameters": gid + [
            _query("at", "One seq (422 beyond the log)", 1),
            _query("after", "Only frames with a larger seq (0-2^53; past the end: an empty page)"),
            _query("limit", "Frames (1-500)", 1, 500)],
        "responses": _responses(200, "Replay", 401, 404, 422)}}
    for part, op, schema, summary in [("audit", "auditGame", "Audit", "Re-fold and check everything"),
                                      ("export", "exportGame", "Export", "The whole log, self-contained")]:
        yield f"/v1/games/{{game_id}}/{part}", {"get": {
            "operationId": op, "tags": ["Games"], "summary": f"{summary} (GM, or anyone once finished)",
            "description": "A token is optional once the game is finished; before that only the GM's "
            "is accepted (none: 401, a player's: 403).", "parameters": gid,
            "responses": _responses(200, schema, 401, 403, 404)}}
    yield "/v1/games/{game_id}/report", {"get": {
        "operationId": "getReport", "tags": ["Games"], "summary": "The turn report, for games that have one",
        "description": OPTIONAL_TOKEN, "parameters": gid + [
            _query("round", "Round number (default: latest)", 1, 10_000),
            {"name": "format", "in": "query", "required": False,
             "schema": {"type": "string", "enum": ["json", "text", "markdown", "bbcode"]}}],
        "responses": _responses(200, "Report", 401, 404, 409, 422)}}
    yield "/v1/games/{game_id}/board.svg", {"get": {
        "operationId": "getBoardSvg", "tags": ["Games"], "summary": "The board as SVG, drawn from the caller's view",
        "description": "What the caller's view of the game shows, as a picture a forum post can embed; 409 before "
        "the start. " + OPTIONAL_TOKEN, "parameters": gid,
        "responses": {"200": {"description": "Success: the SVG itself, or with Accept: application/json the SVG "
                              "as a string and the seq it was drawn at", "content": {
                                  "image/svg+xml": {"schema": {"type": "string"}}, **_json("BoardPicture")}},
                      **_errors(401, 404, 409)}}}
    yield "/v1/replays/verify", {"post": {"operationId": "verifyExport", "tags": ["Games"], "summary": "Verify an "
                                          "exported log offline", "requestBody": _body("ExportFile", {
                                              "format": "arbiter-export/1", "game_id": "g0123456789abcdef",
                                              "events": []}),
                                          "responses": _responses(200, "Audit", 400, 413, 422)}}
    for engine in engines:
        yield from _typed_paths(engine, gid, token)


def _typed_paths(engine: Engine, gid: list[dict[str, Any]], token: list[dict[str, Any]]) -> Iterator[
        tuple[str, dict[str, Any]]]:
    """A game type's own operations: the same routes as the generic ones, typed; a game of another type is 404."""
    p, title, base = pascal(engine.meta.name), engine.meta.title, f"/v1/game-types/{engine.meta.name}/games"
    example = next((a for a in engine.actions.values() if a.actor == "player"), None)
    created = _responses(201, "CreatedGame", 400, 401, 404, 413, 422)
    created["201"]["links"] = {
        "GetGame": _link(f"get{p}Game", "Read the new game.", _CREATED),
        "JoinGame": _link(f"join{p}Game", "Sign a player up.", _CREATED),
        "StartGame": _link("startGame", "The GM starts it.", _CREATED, _GM),
        "GmAction": _link(f"submit{p}Action", "A GM action.", _CREATED, _GM),
        "GmGame": _link(f"get{p}Game", "The game as its GM sees it.", _CREATED, _GM)}
    yield base, {"post": {
        "operationId": f"create{p}Game", "tags": [title], "summary": f"Create a {title} game (with the admin token "
        "if the server has one)", "requestBody": _body(f"{p}CreateGame", _typed_create(engine, p)["example"]),
        "responses": created}}
    yield f"{base}/{{game_id}}", {"get": {
        "operationId": f"get{p}Game", "tags": [title], "summary": f"A {title} game as the caller may see it",
        "description": OPTIONAL_TOKEN, "parameters": gid, "responses": _responses(200, f"{p}Game", 401, 404)}}
    yield f"{base}/{{game_id}}/players", {"post": {
        "operationId": f"join{p}Game", "tags": [title], "summary": f"Join a {title} game",
        "description": OPTIONAL_TOKEN, "parameters": gid, "requestBody": _body(f"{p}Join", {"name": "Ann"}),
        "responses": _responses(201, "Joined", 400, 401, 403, 404, 409, 413, 422)}}
    yield f"{base}/{{game_id}}/actions", {"post": {
        "operationId": f"submit{p}Action", "tags": [title], "summary": f"Send a {title} order or a GM action",
        "parameters": gid + [_idempotency()], "security": token,
        "requestBody": _body(f"{p}Action", {"type": example.name, **dict(example.example)} if example else {
            "type": "gm.pause", "reason": "Holiday"}),
        "responses": _responses(202, "Accepted", 400, 401, 403, 404, 409, 413, 422)}}


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    spec = APISpec(
        title="Arbiter",
        version="1.0.0",
        openapi_version="3.0.3",
        info={"description": "An automated game master for deadline-driven play-by-post games."},
        plugins=[MarshmallowPlugin()],
    )
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer", "description": "A game's "
                                               "GM or player token (or the server's admin token to create games)."})
    _platform_schemas(spec)
    engines = registry.all_latest()
    for name, body in _gm_orders().items():
        spec.components.schema(name, _clean(body))
    game = spec.to_dict()["components"]["schemas"]["Game"]
    game.pop("additionalProperties", None)
    for prop in game["properties"].values():
        _nullable_ref(prop)
    for engine in engines:
        for name, body in _game_schemas(engine, game).items():
            spec.components.schema(name, body)
    spec.components.schema("Action", {"anyOf": [_ref(f"{pascal(e.meta.name)}Action") for e in engines],
                                      "description": "An order of any game type (the game's type decides)."})
    spec.components.schema("ExportFile", {"type": "object", "additionalProperties": True, "description": "A file "
                                          "from exportGame (an Export), taken as it is: whatever is wrong with it "
                                          "is what the audit reports (422 only for what is no export at all)."})
    spec.components.schema("BoardPicture", {"type": "object", "required": ["game_id", "seq", "svg"], "properties": {
        "game_id": {"type": "string"}, "seq": {"type": "integer", "description": "The event the board is drawn at."},
        "svg": {"type": "string", "description": "The SVG document, as image/svg+xml would give it."}}})
    spec.components.schema("Join", {"anyOf": [_ref(f"{pascal(e.meta.name)}Join") for e in engines],
                                    "description": "A name plus the game type's own sign-up fields."})
    for path, operations in _paths(engines):
        for operation in operations.values():
            for code, links in LINKS.get(operation["operationId"], {}).items():
                operation["responses"][code]["links"] = links
            # Any token is checked against the throttle; anything that reads the store can find it unreachable.
            extra = ([429] if "401" in operation["responses"] else []) + ([503] if path not in NO_STORE else [])
            operation["responses"].update(_errors(*extra))
        spec.path(path=path, operations=operations)
    document = _clean(spec.to_dict())
    # Responses may grow new fields (the API promises to extend freely): only request
    # bodies are closed to unknown properties.
    for name in RESPONSE_SCHEMAS:
        document["components"]["schemas"][name].pop("additionalProperties", None)
        for prop in document["components"]["schemas"][name].get("properties", {}).values():
            _nullable_ref(prop)
    document["components"]["schemas"]["CreateGame"]["properties"]["type"]["enum"] = [e.meta.name for e in engines]
    document["tags"] = [{"name": "Service"}, {"name": "Game types"}, {"name": "Games", "description": "Every game "
                        "type"}, *({"name": e.meta.title, "description": e.meta.summary} for e in engines)]
    _follow_live(document)
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


def players(engine: Engine) -> dict[str, Any]:
    """The player counts a client can trust: the engine's own declaration where they depend on the options."""
    if engine.player_counts is not None:
        return copy.deepcopy(dict(engine.player_counts))
    return {"min": engine.meta.min_players, "max": engine.meta.max_players, "by_option": []}


def describe(engine: Engine) -> dict[str, Any]:
    """A game type as ``GET /v1/game-types`` lists it: its declared facts, sign-up fields and orders."""
    m = engine.meta
    return {
        "name": m.name,
        "title": m.title,
        "version": m.version,
        "summary": m.summary,
        "players": players(engine),
        "turn_based": m.turn_based,
        "hidden_information": m.hidden_information,
        "late_joins": m.late_joins,
        "default_deadlines": dict(engine.default_deadlines),
        "join_schema": join_json_schema(engine),
        "gm_join_fields": sorted(engine.gm_join_fields),
        "private_join_fields": sorted(engine.private_join_fields),
        "actions": [
            {
                "type": a.name,
                "actor": a.actor,
                "sealed": a.sealed,
                "team_sees": a.team_sees,
                "phases": list(a.phases),
                "description": a.description,
                "example": dict(a.example),
                "schema": f"{pascal(m.name)}{pascal(a.name)}",
            }
            for a in engine.actions.values()
        ],
    }


# -- following games live (streams/, service/live.py): documented here, added where the document is assembled --

def _live_schemas() -> dict[str, dict[str, Any]]:
    nullable_int = {"type": "integer", "nullable": True}
    hook = {"type": "object", "required": ["id", "url", "viewer", "created_at", "delivered", "attempts", "status"],
            "properties": {
                "id": {"type": "string"}, "url": {"type": "string"},
                "viewer": {"type": "string", "nullable": True, "description": "Whose view the hook gets: null for the "
                           "public, gm, or the player id of a player's own hook."},
                "created_at": {"type": "integer", "description": "Unix seconds."},
                "delivered": {"type": "integer", "description": "The last seq the receiver acknowledged."},
                "attempts": {"type": "integer", "description": "Failed attempts at the next event, so far."},
                "status": {"type": "string", "enum": ["ok", "retrying", "failing"]},
                "last_error": {"type": "string", "nullable": True},
                "next_attempt_at": {**nullable_int, "description": "Unix seconds of the next retry, while retrying."},
                "secret": {"type": "string", "description": "Only in the answer that creates the hook: the key of "
                           "each delivery's Arbiter-Signature (HMAC-SHA256 over '<t>.' + body)."}}}
    delivery = {"type": "object", "required": ["seq", "at", "status", "error", "attempt", "ms"], "properties": {
        "seq": {"type": "integer"}, "at": {"type": "integer"}, "status": nullable_int,
        "error": {"type": "string", "nullable": True}, "attempt": {"type": "integer"}, "ms": {"type": "integer"}}}
    return {
        "StreamTicket": {"type": "object", "required": ["ticket", "expires_in", "stream"], "properties": {
            "ticket": {"type": "string"}, "expires_in": {"type": "integer", "example": 60},
            "stream": {"type": "string", "description": "The stream's path with the ticket, on the stream process."}}},
        "NewWebhook": {"type": "object", "required": ["url"], "additionalProperties": False, "properties": {
            "url": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "http(s), on a public "
                    "address (the server refuses loopback, private and link-local ones unless its admin allows)."},
            "view": {"type": "string", "enum": ["public", "gm", "own"], "description": "The GM's hooks: public "
                     "(default) or gm; a player's hook: own (their view), the only choice."},
            "after": {"type": "integer", "minimum": 0, "description": "Deliver the events after this seq (default: "
                      "only those to come)."}}},
        "Webhook": hook,
        "WebhookList": {"type": "object", "required": ["game_id", "webhooks"], "properties": {
            "game_id": {"type": "string"}, "webhooks": {"type": "array", "items": _ref("Webhook")}}},
        "WebhookDelivery": delivery,
        "WebhookLog": {"allOf": [_ref("Webhook"), {"type": "object", "required": ["deliveries"], "properties": {
            "deliveries": {"type": "array", "items": _ref("WebhookDelivery"), "description": "Newest first, the "
                           "last 100."}}}]},
        "WebhookDeleted": {"type": "object", "required": ["deleted"], "properties": {"deleted": {"type": "string"}}},
        "WebhookBody": {"type": "object", "required": ["hook_id", "game_id", "event"], "properties": {
            "hook_id": {"type": "string"}, "game_id": {"type": "string"}, "event": _ref("Event")}},
        "StreamEnd": {"type": "object", "required": ["end"], "properties": {"end": {
            "type": "object", "required": ["reason", "seq"], "properties": {
                "reason": {"type": "string", "enum": ["finished"]}, "seq": {"type": "integer"}}}}},
    }


STREAM = ("Served by the stream process (`arbiter stream`, port 8001 under `arbiter up`), not the API, as are "
          "the stream tickets and the webhooks below (x-live). `GET /v1/games/{game_id}/stream` sends the caller's "
          "view of every new event as it is recorded, redacted as /events redacts it. `Accept: text/event-stream` "
          "(SSE; `id:` is the seq, resume with Last-Event-ID; `event: end` after the final event) or "
          "`application/x-ndjson` (default; one Event per line, an empty line as heartbeat, a last StreamEnd line). "
          "`?after=SEQ` (or Last-Event-ID) first sends what was missed. Authenticate with `Authorization: Bearer`, "
          "or, from a browser EventSource, `?ticket=` from POST /v1/games/{game_id}/stream-tickets; none for the "
          "public view. 401 for a bad token or ticket, 404 for no such game, 422 for a bad after or format, 204 to "
          "an SSE client resuming after the end.")


def _live_paths() -> dict[str, dict[str, Any]]:
    gid, token = [_game_id()], [{"bearer": []}]
    hook_id = {"name": "hook_id", "in": "path", "required": True, "schema": {"type": "string"}, "example": "h0123"}
    delivery_headers = {"Arbiter-Signature": {"required": True, "description": "t=<unix seconds>,v1=<hex "
                                              "HMAC-SHA256 of '<t>.' + body, keyed with the hook's secret>",
                                              "schema": {"type": "string"}},
                        "Arbiter-Delivery": {"required": True, "description": "<hook>:<seq>: the same for a "
                                             "repeated delivery (at least once).", "schema": {"type": "string"}}}
    callback = {"{$request.body#/url}": {"post": {
        "summary": "One event, in seq order per hook; answer 2xx within 5 s or it is retried (1, 2, 4 ... 300 s)",
        "parameters": [{"name": name, "in": "header", **spec} for name, spec in delivery_headers.items()],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("WebhookBody")}}},
        "responses": {"2XX": {"description": "Received."}}}}}
    return {
        "/v1/games/{game_id}/stream-tickets": {"post": {
            "operationId": "createStreamTicket", "tags": ["Live"], "summary": "A one-time ticket to open the "
            "caller's stream from a browser EventSource (60 s, one connection)", "description": STREAM,
            "parameters": gid, "security": token,
            "responses": _responses(201, "StreamTicket", 401, 404)}},
        "/v1/games/{game_id}/webhooks": {
            "post": {"operationId": "addWebhook", "tags": ["Live"], "summary": "Register a URL that gets each new "
                     "event, signed (the GM's or a player's token; the secret is shown once)",
                     "parameters": gid, "security": token,
                     "requestBody": _body("NewWebhook", {"url": "https://bot.example.org/arbiter"}),
                     "callbacks": {"event": callback},
                     "responses": _responses(201, "Webhook", 400, 401, 404, 413, 422)},
            "get": {"operationId": "listWebhooks", "tags": ["Live"], "summary": "The caller's hooks with their "
                    "delivery state (the GM: every hook of the game)", "parameters": gid, "security": token,
                    "responses": _responses(200, "WebhookList", 401, 404)}},
        "/v1/games/{game_id}/webhooks/{hook_id}": {
            "get": {"operationId": "readWebhook", "tags": ["Live"], "summary": "A hook's state and its delivery "
                    "log (its owner, or the GM)", "parameters": [*gid, hook_id], "security": token,
                    "responses": _responses(200, "WebhookLog", 401, 404)},
            "delete": {"operationId": "deleteWebhook", "tags": ["Live"], "summary": "Remove a hook (its owner, or "
                       "the GM)", "parameters": [*gid, hook_id], "security": token,
                       "responses": _responses(200, "WebhookDeleted", 401, 404)}},
    }


def _follow_live(document: dict[str, Any]) -> None:
    """Add following games live to the assembled document.  The stream, the stream tickets and the webhooks are
    served by the stream process (``arbiter stream``), not by this API, so they are not among ``paths`` (whose
    operations all answer at this server): they are under ``x-live``, in the shape of ``paths`` (the webhook
    deliveries as a callback), with their schemas in the components and a Live tag."""
    document["components"]["schemas"].update(_live_schemas())
    paths = _live_paths()
    for operations in paths.values():
        for operation in operations.values():
            operation["responses"].update(_errors(429, 503))
    document["tags"].append({"name": "Live", "description": STREAM})
    document["x-live"] = {"server": "the stream process", "paths": paths, "stream": {
        "path": "/v1/games/{game_id}/stream", "server": "the stream process", "description": STREAM,
        "formats": {"application/x-ndjson": _ref("Event"), "text/event-stream": _ref("Event")},
        "end": _ref("StreamEnd")}}
