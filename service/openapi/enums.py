"""Enums shared as components: every enum of a game type's orders is a component of its own, named as a generated
client would name the order's field (``StrategicAspectMoveSpaces``, ``ElementalTagMoveDirection``), and every other
enum of that game type with the same values (its hints, its view, its records) refers to it.  A bot then sends back
what a hint offered without converting it, and the same set of values is one class in a generated client, not one per
place it appears.  Enums of one value (an order's ``type``, a union's tag) stay where they are."""
from __future__ import annotations

from typing import Any, Iterator

from engines.contract import Engine
from service.openapi.parts import pascal, ref

Key = tuple[str, tuple[Any, ...]]


def _key(schema: dict[str, Any]) -> Key | None:
    """The identity of an inline enum of strings or integers with two values or more."""
    if "enum" in schema and schema.get("type") in ("string", "integer") and "$ref" not in schema:
        values = tuple(v for v in schema["enum"] if v is not None)
        return (schema["type"], values) if len(values) > 1 else None
    return None


def _referring(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """``schema``'s enum replaced by the component ``name``, what else it says kept beside it (allOf: OpenAPI 3.0
    ignores a $ref's siblings)."""
    rest = {k: v for k, v in schema.items() if k not in ("type", "enum")}
    return {"allOf": [ref(name)], **rest} if rest else ref(name)


def share_enums(components: dict[str, dict[str, Any]], engines: list[Engine]) -> None:
    """Hoist each game type's order enums into components and point that game type's equal enums at them."""
    for engine in engines:
        p = pascal(engine.meta.name)
        named: dict[Key, str] = {}
        for action in engine.actions.values():
            order = components.get(f"{p}{pascal(action.name)}", {})
            for place, where, schema, key, field in _enums_in(order, "type"):
                if field != "type":  # an order's own tag
                    name = named.setdefault(key, f"{p}{pascal(action.name)}{pascal(field)}")
                    components.setdefault(name, {"type": key[0], "enum": list(key[1])})
                    _replace(place, where, _referring(schema, name))
        for component, body in list(components.items()):
            if component.startswith(p) and component not in named.values():
                for place, where, schema, key, _field in _enums_in(body, ""):
                    if key in named:
                        _replace(place, where, _referring(schema, named[key]))


def _enums_in(body: dict[str, Any], field: str) -> list[tuple[dict[str, Any], tuple[str, Any], dict[str, Any], Key,
                                                                str]]:
    """Every inline enum under ``body``: where it sits (its parent and place there), its key, and the nearest
    property name above it (an array's items and a union's members are named by their property)."""
    found = []
    for where, schema in list(_children(body)):
        if not isinstance(schema, dict):
            continue
        name = where[1] if where[0] == "properties" else field
        key = _key(schema)
        if key is not None:
            found.append((body, where, schema, key, name))
        else:
            found += _enums_in(schema, name)
    return found


def _children(place: dict[str, Any]) -> Iterator[tuple[tuple[str, Any], dict[str, Any]]]:
    """The schemas directly under ``place``, each with where it sits: (("properties", name), ...), (("items",
    None), ...), (("additionalProperties", None), ...), (("oneOf", index), ...)."""
    for name, schema in (place.get("properties") or {}).items():
        yield ("properties", name), schema
    for single in ("items", "additionalProperties"):
        if isinstance(place.get(single), dict):
            yield (single, None), place[single]
    for union in ("oneOf", "anyOf", "allOf"):
        for index, schema in enumerate(place.get(union) or []):
            yield (union, index), schema


def _replace(place: dict[str, Any], where: tuple[str, Any], schema: dict[str, Any]) -> None:
    kind, name = where
    if kind == "properties":
        place["properties"][name] = schema
    elif name is None:
        place[kind] = schema
    else:
        place[kind][name] = schema
