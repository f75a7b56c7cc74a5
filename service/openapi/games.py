"""Each game type's components (its options, sign-up body, orders and their union, view, result, hint, outcome,
and its Game and CreateGame), from what its engine declares, and the platform's orders every game shares."""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import Engine
from service import answers, schemas
from service.openapi.parts import clean, converter, lift, pascal, properties_of, ref


def options_json_schema(engine: Engine) -> dict[str, Any]:
    return clean(converter().schema2jsonschema(engine.options_schema))


def join_json_schema(engine: Engine) -> dict[str, Any]:
    """The body that joins a game of this type: a name plus the type's own sign-up fields (others get 422)."""
    body = converter().schema2jsonschema(engine.join_schema) if engine.join_schema else {
        "type": "object", "properties": {}, "additionalProperties": False}
    body["properties"] = {"name": {"type": "string", "minLength": 1, "maxLength": 60}, **body.get("properties", {})}
    body["required"] = ["name", *body.get("required", [])]
    for field in engine.gm_join_fields:
        body["properties"][field]["description"] = "Only the GM may set this (with the GM's token)."
    body["example"] = {"name": "Ann"}
    return clean(body)


def order_schema(engine: Engine | None, name: str, schema: Any, description: str, example: Any) -> dict[str, Any]:
    body = converter().schema2jsonschema(schema)
    body.setdefault("properties", {})["type"] = {"type": "string", "enum": [name]}
    body["required"] = sorted({"type", *body.get("required", [])})
    body["description"] = f"{engine.meta.title}: {description}".strip() if engine else description
    body["example"] = {"type": name, **dict(example)}
    return body


def gm_orders() -> dict[str, dict[str, Any]]:
    """The platform's orders, the same in every game: the GM's actions and a player's own ``quit``."""
    examples = {"gm.extend_deadline": {"seconds": 3600, "reason": "Holiday"}, "gm.eject": {
        "player_id": "p2", "reason": "Left the forum"}, schemas.QUIT: {}}
    out = {}
    for name, schema in [*schemas.GM_ACTIONS.items(), (schemas.QUIT, schemas.QuitSchema)]:
        what = "A player leaves the game (the game's rules say what follows)." if name == schemas.QUIT else (
            f"GM: {name[3:].replace('_', ' ')}.")
        out[pascal(name)] = order_schema(None, name, schema, what, examples.get(name, {"reason": "Forum vote"}))
    return out


def game_schemas(engine: Engine, game: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One game type's components: its options, sign-up body, orders and their union, view, result, hint,
    outcome and its Game (the generic Game with a typed state and result)."""
    p = pascal(engine.meta.name)
    out: dict[str, dict[str, Any]] = {f"{p}Options": options_json_schema(engine), f"{p}Join": join_json_schema(engine)}
    mapping = {}
    for action in engine.actions.values():
        body = order_schema(engine, action.name, action.schema, action.description, action.example)
        if action.actor == "player":
            body["properties"]["on_behalf_of"] = {"type": "string", "nullable": True, "description": "GM only: the "
                                                  "player whose order this is (null or left out: the sender's own)."}
        out[f"{p}{pascal(action.name)}"] = clean(body)
        mapping[action.name] = f"#/components/schemas/{p}{pascal(action.name)}"
    mapping.update({name: f"#/components/schemas/{pascal(name)}" for name in [*schemas.GM_ACTIONS, schemas.QUIT]})
    out[f"{p}Action"] = {"oneOf": [{"$ref": target} for target in mapping.values()], "description": f"Any order of "
                         f"{engine.meta.title}, by its type.", "discriminator": {"propertyName": "type",
                                                                                 "mapping": mapping}}
    declared = {"View": engine.view_schema, "Result": engine.result_schema, "Hint": engine.hint_schema,
                "Outcome": engine.outcome_schema}
    for kind, schema in declared.items():
        out[f"{p}{kind}"] = copy.deepcopy(dict(schema)) if schema is not None else {
            "type": "object", "description": f"{engine.meta.title} declares no {kind.lower()} schema yet."}
    if engine.view_schema is not None:  # the hint and result the view embeds are named, not inlined twice
        out[f"{p}View"] = lift(engine.view_schema, {id(engine.hint_schema): f"{p}Hint",
                                                      id(engine.result_schema): f"{p}Result"})
    if engine.secret_options:
        out[shown_options(engine)] = _shown_options(engine, out[f"{p}Options"])
    typed = copy.deepcopy(game)
    player = clean(converter().schema2jsonschema(answers.GamePlayerSchema))
    player.pop("additionalProperties", None)  # an answer, which may grow new fields
    player["properties"]["fields"] = join_fields(engine)
    typed["properties"]["players"] = {"type": "array", "items": player}
    typed["properties"]["options"] = {"allOf": [ref(shown_options(engine))], "description": game["properties"][
        "options"]["description"]}
    typed["properties"]["state"] = {"allOf": [ref(f"{p}View")], "nullable": True, "description": "The game's "
                                    "state as the caller may see it; null before the start."}
    typed["properties"]["result"] = {"allOf": [ref(f"{p}Result")], "nullable": True, "description": "Once the "
                                     "game is finished."}
    out[f"{p}Game"] = typed
    out[f"{p}CreateGame"] = typed_create(engine, p)
    return out


def join_fields(engine: Engine) -> dict[str, Any]:
    """A game type's sign-up fields as games and logs show them: none required (private ones are cut for others)."""
    if engine.join_schema is None:
        return {"type": "object", "properties": {}, "description": f"{engine.meta.title} has no sign-up fields."}
    return {"type": "object", "properties": properties_of(engine.join_schema), "description": "The sign-up fields of "
            f"{engine.meta.title}; private ones only to that player, the GM, and everyone once the game is over."}


def shown_options(engine: Engine) -> str:
    """The component of a game type's options as games and their logs show them: its Options, or where some
    options fix secret draws (``Engine.secret_options``), ShownOptions, in which those may read "hidden"."""
    return f"{pascal(engine.meta.name)}{'ShownOptions' if engine.secret_options else 'Options'}"


def _shown_options(engine: Engine, options: dict[str, Any]) -> dict[str, Any]:
    shown = copy.deepcopy(options)
    shown.pop("additionalProperties", None)  # an answer, which may grow new fields
    for name in sorted(engine.secret_options):
        shown["properties"][name] = {"anyOf": [shown["properties"][name], {"type": "string", "enum": ["hidden"]}],
                                     "description": "\"hidden\" until the game is over, except to the GM."}
    shown["description"] = f"{engine.meta.title}'s options as shown: " + ", ".join(sorted(engine.secret_options)) + (
        " fix secret draws and read \"hidden\" until the game is over, except to the GM.")
    return shown


def typed_create(engine: Engine, p: str) -> dict[str, Any]:
    """The body that creates a game of this type: the generic one without ``type`` (the path says it), with the
    type's options and its phases' deadlines."""
    body = clean(converter().schema2jsonschema(schemas.CreateGameSchema))
    body["properties"].pop("type")
    body["required"] = [r for r in body.get("required", []) if r != "type"]
    if not body["required"]:
        del body["required"]
    body["properties"]["options"] = {"allOf": [ref(f"{p}Options")], "description": "This game type's options."}
    seconds = body["properties"]["deadlines"]["additionalProperties"]
    body["properties"]["deadlines"] = {
        "type": "object", "additionalProperties": False, "description": "Seconds per phase (the defaults: "
        + ", ".join(f"{name} {value}" for name, value in engine.default_deadlines.items()) + ").",
        "properties": {name: dict(seconds) for name in engine.default_deadlines}}
    body["example"] = {"name": "Friday game", "deadlines": dict(list(engine.default_deadlines.items())[:1])}
    return body
