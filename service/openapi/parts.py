"""Building blocks of the OpenAPI document: component references, responses and errors, parameters, and the
clean-up that turns apispec's output and the engines' declarations into OpenAPI 3.0 a generator reads well."""
from __future__ import annotations

from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter


ERRORS = {
    400: "The body is not JSON or not an object.",
    401: "A token is missing or unknown (the response carries WWW-Authenticate: Bearer).",
    403: "The token may not do this.",
    404: "Unknown game or resource.",
    409: "Not allowed now (phase closed, deadline passed, not your turn, game not running).",
    413: "The body is too large.",
    414: "uri_too_long: the request line is over the server's limit (4 KiB).",
    431: "headers_too_large: the headers are over the server's limit (8 KiB).",
    422: "Well-formed but invalid: schema error or a rule of the game.",
    429: "too_many_bad_tokens: too many invalid tokens for this game from this address; retry in a minute.",
    503: "Retry later: store_unavailable (the event store is unreachable; Retry-After says when), busy (too "
         "many writers at once), or corrupt_log (the game's log cannot be folded at details.seq; retrying will "
         "not help, its GM can read the audit and the export).",
}


NO_STORE = {"/v1/game-types", "/v1/replays/verify", "/v1/keys"}  # answered without the event store
OPTIONAL_TOKEN = ("A bearer token is optional: without one the caller is the public; a player's token or the "
                  "GM's shows what that role may see.")


def converter() -> OpenAPIConverter:
    return OpenAPIConverter(openapi_version="3.0.3", schema_name_resolver=lambda s: None, spec=APISpec(
        "x", "1", "3.0.3", plugins=[MarshmallowPlugin()]))


def properties_of(schema: Any) -> dict[str, Any]:
    """The properties of a marshmallow schema as the document spells them, without defaults (for answers)."""
    properties = clean(converter().schema2jsonschema(schema))["properties"]
    return {name: {k: v for k, v in prop.items() if k != "default"} for name, prop in properties.items()}


def pascal(name: str) -> str:
    """``extreme-ways`` -> ``ExtremeWays``, ``gm.set_garnets`` -> ``GmSetGarnets``: component names."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace(".", "-").replace("_", "-").split("-"))


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_content(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": ref(schema)}}


def request_body(schema: str, example: Any) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": ref(schema), "example": example}}}


def responses(ok: int, schema: str, *errors: int) -> dict[str, Any]:
    return {str(ok): {"description": "Success", "content": json_content(schema)}, **error_responses(*errors)}


def error_responses(*codes: int) -> dict[str, Any]:
    out = {}
    for code in codes:
        out[str(code)] = {"description": ERRORS[code], "content": json_content("Error")}
        if code == 401:
            out[str(code)]["headers"] = {"WWW-Authenticate": {
                "description": "Bearer, as RFC 6750 asks.", "schema": {"type": "string"}}}
    return out


def game_id_param() -> dict[str, Any]:
    return {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"},
            "example": "g0123456789abcdef"}


def query_param(name: str, description: str, minimum: int = 0, maximum: int = 2**53) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": {"type": "integer", "minimum": minimum, "maximum": maximum}}


def idempotency_header() -> dict[str, Any]:
    return {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"},
            "description": "A retry with the same key (per token, at least 24 "
            "hours) gets the first answer again instead of acting twice."}


def lift(schema: Any, names: dict[int, str]) -> Any:
    """A copy of ``schema`` with each sub-schema that *is* one of ``names`` (the same object) as a $ref."""
    if id(schema) in names:
        return ref(names[id(schema)])
    if isinstance(schema, dict):
        return {k: lift(v, names) for k, v in schema.items()}
    if isinstance(schema, list):
        return [lift(v, names) for v in schema]
    return schema


def clean(schema: Any) -> Any:
    """apispec's output and the engines' declarations made OpenAPI 3.0 a generator reads well: a field defaulting
    to null takes null; JSON Schema's ``type: [..., "null"]`` is spelled ``nullable``, an array has its ``items``;
    and a nullable enum keeps
    its values one level in (``nullable`` + ``anyOf: [{enum}]``), because in OpenAPI 3.0.3 an enum refuses null
    unless it lists it, and listing it (``enum: [..., null]``) makes generators build two enums of one."""
    if isinstance(schema, list):
        return [clean(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: clean(v) for k, v in schema.items()}
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


def nullable_ref(prop: dict[str, Any]) -> None:
    """apispec writes a nullable Nested as anyOf [$ref, {type: object, nullable}] (in either order), which any
    object matches; OpenAPI 3.0's idiom is allOf [$ref] with nullable, which only the referenced shape (or null)
    matches."""
    options = prop.get("anyOf")
    if not isinstance(options, list) or len(options) != 2:
        return
    refs = [o for o in options if "$ref" in o]
    if len(refs) == 1 and any(o.get("nullable") and "$ref" not in o for o in options):
        del prop["anyOf"]
        prop.update(allOf=refs, nullable=True)


CONDITIONAL = ("/{game_id}", "/events", "/replay", "/report", "/board.svg")  # reads answering ETag and 304


def conditional(path: str, method: str, operation: dict[str, Any]) -> None:
    """A read of a game answers an ``ETag``, and ``304`` with no body to a client whose ``If-None-Match`` holds it."""
    if method != "get" or not path.endswith(CONDITIONAL):
        return
    operation["parameters"] = [*operation.get("parameters", []), {  # a new list: operations share theirs
        "name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
        "description": "The ETag of the answer you hold: 304 with no body while nothing new is recorded for you."}]
    operation["responses"]["200"]["headers"] = {"ETag": {"schema": {"type": "string"}, "description": "This answer's "
                                                         "tag (it starts with the game's head seq): send it back as "
                                                         "If-None-Match."}}
    operation["responses"]["304"] = {"description": "Not Modified: the answer you hold (If-None-Match) is current; "
                                     "no body.", "headers": {"ETag": {"schema": {"type": "string"}}}}
