"""Canonical JSON: the one byte form used for hashes, snapshots and comparisons.

Sorted keys, no spaces, UTF-8, and no floats, because float formatting is the one
thing that could make the same event hash differently on another machine.
"""
from __future__ import annotations

import hashlib
import json
import operator
from typing import Any

import orjson


class NotCanonical(TypeError):
    """Raised for data that has no stable canonical form (floats, non-str keys, objects)."""


def _check(value: Any, path: str = "$") -> None:
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, int):
        return
    if isinstance(value, float):
        raise NotCanonical(f"{path}: floats are not allowed in canonical data")
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonical(f"{path}: object keys must be strings, got {key!r}")
            _check(item, f"{path}.{key}")
        return
    raise NotCanonical(f"{path}: {type(value).__name__} is not JSON data")


def canonical_json(value: Any) -> str:
    """Serialise plain data to its canonical text; raises NotCanonical on anything else."""
    _check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def sha256_hex(data: str | bytes) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def roundtrip(value: Any) -> Any:
    """The value as it comes back from storage: plain JSON with keys in sorted order.

    Uses orjson for speed (it refuses non-string keys and objects); floats are caught
    where it matters, by ``canonical_json`` when an event is hashed, and by the
    conformance suite for engine states.
    """
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))


_ORJSON_INTS = range(-(2**63), 2**64)  # what orjson can write; anything wider fails the round trip
_MISSING = object()
_STR = {str}


def roundtrip_reusing(value: Any, base: Any) -> Any:
    """``roundtrip(value)``, taking every part of it that ``value`` shares with ``base`` from ``base``.

    ``base`` must be an earlier ``roundtrip`` result (or one of this function's) that nobody has
    changed since: data is never mutated here, so an object of ``value`` that *is* the object at
    the same place in ``base`` is already in round-trip form.  A fold step shares almost all of
    the game with the record before it, so this costs what changed instead of the whole game.

    The result equals ``roundtrip(value)`` exactly (types, key order), and where that raises,
    this raises the same error: the parts not taken from ``base`` go through orjson at the
    depth they sit at (its nesting limit counts from the top), in the order orjson visits them.
    """
    return _reuse(value, base, 0)


def _reuse(value: Any, base: Any, depth: int) -> Any:
    if value is base:
        return value
    kind = type(value)
    if kind is str:
        return value if value.isascii() or _utf8(value) else _roundtrip_at(value, depth)
    if kind is int:
        return value if value in _ORJSON_INTS else _roundtrip_at(value, depth)
    if kind is bool or value is None:
        return value
    if kind is dict and type(base) is dict and _walkable_keys(value, base) and _shares_a_child(value, base):
        out = {}
        depth += 1
        for key in sorted(value):
            item, old = value[key], base.get(key, _MISSING)
            out[key] = item if item is old else _reuse(item, old, depth)
        return out
    if kind is list and type(base) is list and any(map(operator.is_, value, base)):
        size, depth = len(base), depth + 1
        return [item if i < size and item is base[i] else _reuse(item, base[i] if i < size else _MISSING, depth)
                for i, item in enumerate(value)]
    return _roundtrip_at(value, depth)  # new, not a container both have, or a float, tuple ...: orjson itself


def _walkable_keys(value: dict[Any, Any], base: dict[Any, Any]) -> bool:
    """Keys that orjson takes as they are: exactly str, valid UTF-8 (base's keys are already)."""
    return set(map(type, value)) <= _STR and all(map(_utf8, value.keys() - base.keys()))


def _shares_a_child(value: dict[str, Any], base: dict[str, Any]) -> bool:
    """Worth walking: a dict none of whose values come from ``base`` is cheaper for orjson whole."""
    return any(map(operator.is_, value.values(), map(base.get, value)))


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _roundtrip_at(value: Any, depth: int) -> Any:
    """``value`` round-tripped as if ``depth`` containers held it, which orjson's nesting limit counts."""
    for _ in range(depth):
        value = [value]
    value = orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
    for _ in range(depth):
        value = value[0]
    return value
