"""Building blocks of the OpenAPI 3.0 schemas an engine declares for what it sends out (view, result, hint,
outcome): one copy for every game, so the documents they make read alike."""
from __future__ import annotations

from typing import Any

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}


def obj(required: dict[str, Any], optional: dict[str, Any] | None = None, description: str = "") -> dict[str, Any]:
    """An object with these properties, ``required`` ones listed as such."""
    out: dict[str, Any] = {"type": "object", "properties": {**required, **(optional or {})}}
    if required:
        out["required"] = sorted(required)
    if description:
        out["description"] = description
    return out


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def by(keys: str, values: dict[str, Any]) -> dict[str, Any]:
    """An object keyed by ``keys`` (player ids, runner ids ...), each value a ``values``."""
    return {"type": "object", "additionalProperties": values, "description": f"By {keys}."}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "nullable": True}


def enum(*values: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}
