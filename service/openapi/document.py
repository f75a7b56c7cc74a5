"""The document assembled: the platform's schemas (from the marshmallow schemas that validate), every registered
game type's components and operations, the events and following games live; and ``GET /v1/game-types``'s
description of a game type, from the same declarations."""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import orjson
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask

from engines import registry
from engines.contract import Engine
from service import answers, schemas
from service.http import reply
from service.openapi.enums import share_enums
from service.openapi.events import event_schemas
from service.openapi.games import game_schemas, gm_orders, join_json_schema
from service.openapi.live import follow_live, with_stream_server
from service.openapi.parts import NO_STORE, clean, conditional, error_responses, nullable_ref, pascal, ref
from service.openapi.paths import LINKS, paths


RESPONSE_SCHEMAS = ("ErrorBody", "Error", "CreatedGame", "Joined", "Receipt", "Accepted", "Event", "EventsPage",
                    "Audit", "Game", "Phase", "GamePlayer", "You", "Health", "Started", "Replay", "ReplayFrame",
                    "Export", "Report", "GameTypes", "GameType", "GameSummary", "GamesPage", "MyGames", "MyGame",
                    "RefusedToken", "Warning", "Started", "OpenedPhase", "ListedPhase", "PlayerCounts", "ByOption",
                    "ActionInfo", "Divergence", "Difference", "HashChain", "AuditOutcomes", "AuditFinal",
                    "Signed", "SignedNote", "Keys", "Key", "Checkpoint")


def _platform_schemas(spec: APISpec) -> None:
    for name in ("Error", "CreateGame", "CreatedGame", "Joined", "Accepted", "Event", "EventsPage", "Audit", "Game",
                 "Health", "Started", "Replay", "ReplayFrame", "Export", "Report", "GameTypes", "GameSummary",
                 "GamesPage", "MyGamesRequest", "MyGames", "Keys", "Checkpoint"):
        if name not in spec.components.schemas:  # registered already as a nested schema of one before it
            spec.components.schema(name, schema=getattr(answers, f"{name}Schema", None) or getattr(
                schemas, f"{name}Schema"))


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
    for name, body in gm_orders().items():
        spec.components.schema(name, clean(body))
    game = spec.to_dict()["components"]["schemas"]["Game"]
    game.pop("additionalProperties", None)
    for prop in game["properties"].values():
        nullable_ref(prop)
    for engine in engines:
        for name, body in game_schemas(engine, game).items():
            spec.components.schema(name, body)
    spec.components.schema("Action", {"anyOf": [ref(f"{pascal(e.meta.name)}Action") for e in engines],
                                      "description": "An order of any game type (the game's type decides)."})
    spec.components.schema("ExportFile", {"type": "object", "additionalProperties": True, "description": "A file "
                                          "from exportGame (an Export), taken as it is: whatever is wrong with it "
                                          "is what the audit reports (422 only for what is no export at all). "
                                          "Beside it, optionally, notes: the signed receipts and checkpoints you hold "
                                          "(notes, or objects holding one as note), and vkeys: the verifier keys you "
                                          "trust (default: this server's).", "properties": {
                                              "notes": {"type": "array", "items": {}},
                                              "vkeys": {"type": "array", "items": {"type": "string"}}}})
    spec.components.schema("BoardPicture", {"type": "object", "required": ["game_id", "seq", "svg"], "properties": {
        "game_id": {"type": "string"}, "seq": {"type": "integer", "description": "The event the board is drawn at."},
        "svg": {"type": "string", "description": "The SVG document, as image/svg+xml would give it."}}})
    spec.components.schema("Join", {"anyOf": [ref(f"{pascal(e.meta.name)}Join") for e in engines],
                                    "description": "A name plus the game type's own sign-up fields."})
    for path, operations in paths(engines):
        for method, operation in operations.items():
            for code, links in LINKS.get(operation["operationId"], {}).items():
                operation["responses"][code]["links"] = links
            # Any token is checked against the throttle; anything that reads the store can find it unreachable; any
            # request line or headers can be too long.
            extra = ([429] if "401" in operation["responses"] else []) + ([503] if path not in NO_STORE else [])
            operation["responses"].update(error_responses(*extra, 414, 431))
            conditional(path, method, operation)
        spec.path(path=path, operations=operations)
    document = clean(spec.to_dict())
    # Responses may grow new fields (the API promises to extend freely): only request
    # bodies are closed to unknown properties.
    for name in RESPONSE_SCHEMAS:
        document["components"]["schemas"][name].pop("additionalProperties", None)
        for prop in document["components"]["schemas"][name].get("properties", {}).values():
            nullable_ref(prop)
    components = document["components"]["schemas"]
    components["CreateGame"]["properties"]["type"]["enum"] = [e.meta.name for e in engines]
    components.update(event_schemas(components, engines))
    share_enums(components, engines)
    document["tags"] = [{"name": "Service"}, {"name": "Game types"}, {"name": "Games", "description": "Every game "
                        "type"}, *({"name": e.meta.title, "description": e.meta.summary} for e in engines)]
    follow_live(document)
    return renamed(document, RENAMED)


# Components named after one of their own properties (Error.error): a generated client's model keeps its instance in a
# local variable named after its class, which the property's variable then shadows (openapi-python-client's
# ``error = cls(error=error)``, 8 errors under mypy 2).  Only the names change, never a body on the wire; the new
# names are the classes the client guide's config once gave them.
RENAMED = {"Error": "ErrorResponse", "Report": "TurnReport", "GameTypes": "GameTypeList", "Keys": "KeyList"}


def renamed(document: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """``document`` with these components renamed, and every reference to them (``$ref``, discriminator mappings)."""
    text = orjson.dumps(document).decode()
    for old, new in names.items():
        text = text.replace(f'"#/components/schemas/{old}"', f'"#/components/schemas/{new}"')
    out = orjson.loads(text)
    schemas = out["components"]["schemas"]
    out["components"]["schemas"] = {names.get(name, name): body for name, body in schemas.items()}
    return out


def register_openapi(app: Flask) -> None:
    """``/v1/openapi.json``, its live paths naming this server's stream process (``ARBITER_STREAM_URL``) if set."""
    served = with_stream_server(document(), app.config["ARBITER_SETTINGS"].stream_url)
    app.add_url_rule("/v1/openapi.json", "openapi", lambda: reply(served))


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


