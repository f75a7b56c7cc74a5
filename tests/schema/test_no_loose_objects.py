"""No game type publishes a free-form object (issue 19: "typed end to end").

Every component a game type adds to /v1/openapi.json (its view, hint, result, outcome records, options, orders,
events) types each of its objects: declared ``properties``, or ``additionalProperties`` with a schema for a map
keyed by player, team or phase.  A free-form ``{"type": "object"}`` would reach a generated client as an untyped
dict, which is what the issue found wrong.  The generic components (``Event``, ``ExportFile`` ...) may stay open
where the game type decides the shape: each game type's own union types it."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from engines import registry
from service.openapi import document, pascal


def loose_objects(schema: Any, path: str) -> Iterator[str]:
    """The paths of objects in ``schema`` that say nothing of their members."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from loose_objects(item, f"{path}/{index}")
        return
    if not isinstance(schema, dict):
        return
    composed = any(key in schema for key in ("$ref", "oneOf", "anyOf", "allOf"))
    if schema.get("type") == "object" and not composed and "properties" not in schema and not isinstance(
            schema.get("additionalProperties"), dict):
        yield path
    for key, value in schema.items():
        if key not in ("example", "examples", "default"):
            yield from loose_objects(value, f"{path}/{key}")


def test_the_check_finds_a_free_object_and_passes_typed_ones() -> None:
    assert list(loose_objects({"type": "object"}, "X")) == ["X"]
    assert list(loose_objects({"type": "object", "properties": {"a": {"type": "object"}}}, "X")) == [
        "X/properties/a"]
    assert list(loose_objects({"type": "array", "items": {"type": "object", "additionalProperties": True}}, "X")) == [
        "X/items"]
    assert not list(loose_objects({"type": "object", "additionalProperties": {"type": "integer"}}, "X"))
    assert not list(loose_objects({"allOf": [{"$ref": "#/components/schemas/Y"}], "nullable": True}, "X"))


@pytest.mark.parametrize("name", registry.names())
def test_no_component_of_a_game_type_is_a_free_object(name: str) -> None:
    prefix = pascal(name)
    components = {key: value for key, value in document()["components"]["schemas"].items()
                  if key.startswith(prefix)}
    assert components, f"{name} publishes no components of its own"
    loose = [found for key, value in components.items() for found in loose_objects(value, key)]
    assert not loose, f"{name}: free-form objects in its published schemas: {loose}"
