"""Checks shared by every command: schema loading, who may act, whether the game runs."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError

from engines.gate import instance
from service.auth import Caller
from service.errors import forbidden, invalid, unauthorized


def fields_of(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "type"}


def load(schema: type[Schema] | Schema, data: Any) -> dict[str, Any]:
    """``schema``: a class (its one shared instance is used) or an instance."""
    if isinstance(schema, type):
        schema = instance(schema)
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise invalid("The request has invalid fields.", exc.messages if isinstance(exc.messages, dict)
                      else {"_schema": exc.messages}) from exc


def require_gm(caller: Caller, what: str) -> None:
    if caller.role == "public":
        raise unauthorized(f"Only the GM may {what}: send the GM token.")
    if not caller.is_gm:
        raise forbidden(f"Only the GM may {what}.")
