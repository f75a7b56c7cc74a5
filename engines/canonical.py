"""Canonical JSON: the one byte form used for hashes, snapshots and comparisons.

Sorted keys, no spaces, UTF-8, and no floats, because float formatting is the one
thing that could make the same event hash differently on another machine.
"""
from __future__ import annotations

import hashlib
import json
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
