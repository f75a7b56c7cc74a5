"""Checking data against an engine's declared OpenAPI 3.0 schemas, closed: an object that declares its
properties takes no others, so a field the code adds without declaring it fails like one it drops."""
from __future__ import annotations

from typing import Any

import jsonschema_rs

from engines.contract import Engine

DECLARATIONS = ("view_schema", "result_schema", "hint_schema", "outcome_schema")


def missing(engine: Engine) -> list[str]:
    """The schema declarations ``engine`` does not make yet."""
    return [name for name in DECLARATIONS if getattr(engine, name) is None]


def closed(schema: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema (nullable becomes a union with null), every object with properties closed."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: closed(value) for key, value in schema.items() if key not in ("nullable", "example")}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if schema.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def validator(schema: Any) -> Any:
    return jsonschema_rs.Draft7Validator(closed(schema))


def problems(check: Any, value: Any, limit: int = 3) -> list[str]:
    return [f"{'/'.join(map(str, e.instance_path))}: {e.message[:300]}" for e in check.iter_errors(value)][:limit]


def published_validator(component: str) -> Any:
    """A component of /v1/openapi.json as served (its $refs to other components resolved), closed."""
    from service.openapi import document

    schemas = closed(document()["components"]["schemas"])
    return jsonschema_rs.Draft7Validator({"$ref": f"#/components/schemas/{component}",
                                          "components": {"schemas": schemas}})
