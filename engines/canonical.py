"""Canonical JSON: the one byte form used for hashes, snapshots and comparisons.

Sorted keys, no spaces, UTF-8, and no floats, because float formatting is the one
thing that could make the same event hash differently on another machine.
"""
from __future__ import annotations

import gc
import hashlib
import json
import operator
from itertools import compress, repeat
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
    fast = _fast_canonical(value)
    if fast is not None:
        return fast.decode("utf-8")
    _check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(value: Any) -> bytes:
    """``canonical_json(value)`` as UTF-8 (what is hashed)."""
    fast = _fast_canonical(value)
    if fast is not None:
        return fast
    return canonical_json(value).encode("utf-8")


def plain_canonical_bytes(value: Any) -> bytes | None:
    """``canonical_bytes(value)`` for plain data (the usual case), None where only the slow path can tell
    (what it gives, or which error it raises)."""
    return _fast_canonical(value)


def plain_canonical_bytes_each(values: list[Any]) -> tuple[list[bytes | None], int]:
    """``[plain_canonical_bytes(value) for value in values]``, with one plainness walk for them all (a level of
    nesting at a time, as ``_plain_wide``) when orjson takes every one: a log's events, whose many small
    walks cost more than one wide one.  orjson having taken them all bounds that walk by its bytes.
    Also how many values from the first are JSON data (plain, without a tuple: only the types
    ``orjson.loads`` gives), which the same walk tells."""
    texts = list(map(_orjson_bytes, values))
    if None not in texts:
        kinds = _kinds_wide(values)
        if kinds is _JSON_TYPES:
            return texts, len(values)
        if kinds is not None:
            return texts, _leading_json(values, texts)
    each = [text if text is not None and _plain_sized(value, len(text)) else None for value, text in zip(values, texts)]
    return each, _leading_json(values, each)


def _leading_json(values: list[Any], texts: list[bytes | None]) -> int:
    """How many of ``values`` from the first are JSON data, given orjson's bytes of each (None where refused)."""
    count = 0
    for value, text in zip(values, texts):
        if text is None or not _plain_wide(value, _JSON_TYPES):
            break
        count += 1
    return count


def same_canonical(a: Any, b: Any) -> bool:
    """``canonical_json(a) == canonical_json(b)``, raising where that raises."""
    fast_a = _fast_canonical(a)
    fast_b = _fast_canonical(b) if fast_a is not None else None
    if fast_b is not None:
        return fast_a == fast_b
    return canonical_json(a) == canonical_json(b)


# orjson writes exactly the bytes of the canonical text for the plain JSON types -- the same
# escapes (only '"', backslash and U+0000-U+001F), the same key order (code points), the same
# separators; tested over every code point in tests/engines/test_canonical.py -- at several times
# the speed.  It is used only where that holds: data made of exactly dict, list, tuple, str, int,
# bool and None (no float, no subclass), that orjson takes (64-bit ints, valid UTF-8, nesting
# within its limit).  Anything else takes the json.dumps path, with its checks and errors.
_ORJSON_CANONICAL = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                     | orjson.OPT_PASSTHROUGH_DATETIME)


def _fast_canonical(value: Any) -> bytes | None:
    """The canonical bytes from orjson, or None where they might differ (then the json path decides)."""
    text = _orjson_bytes(value)
    return text if text is not None and _plain_sized(value, len(text)) else None


def _orjson_bytes(value: Any) -> bytes | None:
    """orjson's sorted bytes of ``value``, or None where it refuses it."""
    try:
        return orjson.dumps(value, option=_ORJSON_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError
        return None


def _plain_sized(value: Any, size: int) -> bool:
    """``_plain(value)`` for what orjson has taken, by the cheaper walk for its size of JSON."""
    return _plain_wide(value) if size > _WIDE else _plain(value)


def _plain(value: Any) -> bool:
    """Made only of exactly dict, list, tuple, str, int, bool and None.  Only called on what orjson
    has taken, so its recursion is bounded by orjson's nesting limit (and keys are exactly str)."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind is str or kind is int or kind is bool or value is None
    for item in items:
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if not (kind is dict or kind is list or kind is tuple) or not _plain(item):
            return False
    return True


# From this size of JSON (bytes) on, _plain_wide's few C calls per level of nesting cost less than
# _plain's Python step per item (measured on the bench's games: half the time on 2-5 kB outcomes).
_WIDE = 1500
_PLAIN_TYPES = frozenset({dict, list, tuple, str, int, bool, type(None)})
_JSON_TYPES = _PLAIN_TYPES - {tuple}  # what orjson.loads gives


def _plain_wide(value: Any, types: frozenset[type] = _PLAIN_TYPES) -> bool:
    """``_plain``, a level of nesting at a time (``_kinds_wide``)."""
    return _kinds_wide(value, types) is not None


def _kinds_wide(value: Any, types: frozenset[type] = _PLAIN_TYPES) -> frozenset[type] | None:
    """``_JSON_TYPES`` if ``value`` is made only of them, else ``types`` if it is made only of those, else None;
    a level of nesting at a time: gc.get_referents gives every item of the level's lists and tuples and every
    value of its dicts (and the keys too, of a dict whose keys are not all exactly str), and nothing for a str,
    int, bool or None.  Stops at the first level holding anything else, so it never walks into what that is.
    Only called on what orjson has taken, so the nesting is within its limit."""
    level = [value]
    kinds = _JSON_TYPES
    for _ in range(_ORJSON_NESTING + 2):
        if not kinds.issuperset(map(type, level)):
            if kinds is types or not types.issuperset(map(type, level)):
                return None
            kinds = types
        level = gc.get_referents(*level)
        if not level:
            return kinds
    return None  # deeper than orjson goes: not for here


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


def roundtrip_sized(value: Any) -> tuple[Any, int]:
    """``roundtrip(value)`` and the size of its JSON in bytes."""
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    return orjson.loads(text), len(text)


def roundtrip_top(value: Any, base: Any) -> tuple[Any, int]:
    """``roundtrip_sized(value)``, taking from ``base`` the top-level values that ``value`` shares with it.

    For records too small for ``roundtrip_reusing``'s walk to pay: a fold step replaces a few of the
    record's top-level values (the engine state, the phase) and shares the rest (players, options,
    setup) with the last canonical record.  Those are taken from ``base`` (an earlier ``roundtrip``
    result nobody has changed since); the replaced ones go through orjson in one call, at the depth
    they sit at, in the order of the whole round trip, so the result and any error are the whole
    round trip's.  The size is that of the replaced values' JSON.  ``value`` with other keys than
    ``base`` (or not a dict) is round-tripped whole.
    """
    if type(value) is dict and type(base) is dict and (replaced := replaced_keys(value, base)) is not None:
        changed = {key: value[key] for key in replaced}
        text = orjson.dumps(changed, option=orjson.OPT_SORT_KEYS)
        out = dict(base)
        out.update(orjson.loads(text))
        return out, len(text)
    return roundtrip_sized(value)


def replaced_keys(value: dict, base: dict) -> list[Any] | None:
    """The keys whose values ``value`` replaced, when it is ``dict(base)`` with values replaced (base's own
    key objects, so sorted and valid, in base's order: what a fold step makes); None when it is not."""
    if len(value) != len(base) or not all(map(operator.is_, value, base)):
        return None
    return list(compress(base, map(operator.is_not, value.values(), base.values())))


ORJSON_INTS = range(-(2**63), 2**64)  # what orjson can write; anything wider fails the round trip
_ORJSON_NESTING = 254  # containers within containers that orjson.dumps writes; one more fails
_MISSING = object()
STR_ONLY = frozenset({str})  # ``set(map(type, items)) <= STR_ONLY``: every item is exactly a str
_SMALL = 8  # a new dict of this many keys or fewer costs orjson less than a walk


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
        return value if value in ORJSON_INTS else _roundtrip_at(value, depth)
    if kind is bool or value is None:
        return value
    if kind is dict and type(base) is dict:
        changed = replaced_keys(value, base)
        if changed is not None:
            # The usual step: copy base (in C) and redo only the values that are not base's.
            if len(changed) < len(base):
                out = dict(base)
                inner = depth + 1
                for key in changed:
                    item = value[key]  # most often a count or a score: kept as it is, without a call
                    out[key] = item if type(item) is int and item in ORJSON_INTS else _reuse(item, base[key], inner)
                return out
        elif len(value) > _SMALL and set(map(type, value)) <= STR_ONLY and all(map(_utf8, value.keys() - base.keys())):
            # Keys added or removed (exactly str and valid UTF-8, as orjson takes them): walk in sorted order.
            keys = sorted(value)
            items, olds, depth = map(value.__getitem__, keys), map(base.get, keys, repeat(_MISSING)), depth + 1
            return {key: item if item is old else _reuse(item, old, depth) for key, item, old in zip(keys, items, olds)}
    elif kind is list and type(base) is list:
        # The usual step: an item appended or replaced.  Items that are base's are taken as they are.
        changed = list(compress(range(len(value)), map(operator.is_not, value, base)))
        if len(changed) < min(len(value), len(base)):
            out = list(value)
            inner = depth + 1
            for index in changed:
                item = value[index]
                out[index] = item if type(item) is int and item in ORJSON_INTS else _reuse(item, base[index], inner)
            if len(value) > len(base):
                # The items appended, in one call: the list of them sits where this list does, so they sit
                # where they are, and come after every item above in orjson's order.
                out[len(base):] = _roundtrip_at(value[len(base):], depth)
            return out
    # New, not a container both have, a float, a tuple, or a container none of whose items come from
    # base (cheaper for orjson whole than walked): orjson itself.
    return _roundtrip_at(value, depth)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _roundtrip_at(value: Any, depth: int) -> Any:
    """``value`` round-tripped as if ``depth`` containers held it: orjson's nesting limit counts from the top."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        pass  # the error to raise is the one it gives where it sits: below
    else:
        # Within the limit: a level of nesting takes two bytes, and it never exceeds the containers opened
        # (a '[' or '{' inside a string only over-counts): two C passes where a second dump would cost more.
        room = _ORJSON_NESTING - depth
        if len(text) // 2 <= room or text.count(b"[") + text.count(b"{") <= room:
            return orjson.loads(text)
    for _ in range(depth):
        value = [value]
    value = orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
    for _ in range(depth):
        value = value[0]
    return value
