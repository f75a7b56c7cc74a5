"""Canonical JSON: the one byte form used for hashes, snapshots and comparisons.

Sorted keys (by code point), no spaces, UTF-8, only ``"``, backslash and U+0000-U+001F escaped: what orjson
writes with sorted keys.  Only plain JSON data has that form: objects with exactly-str keys, arrays (lists or
tuples), exactly str, exactly int within 64 bits (orjson's range), bool and None.  Floats are refused, because
float formatting is the one thing that could make the same event hash differently on another machine; so are
subclasses, enums and other objects, whose bytes would depend on how they choose to be written.
"""
from __future__ import annotations

import gc
import hashlib
import operator
from itertools import compress, repeat
from typing import Any

import orjson


class NotCanonical(TypeError):
    """Raised for data that has no canonical form (floats, non-str keys, subclasses, ints past 64 bits, objects)."""


# orjson refuses non-str keys, ints past 64 bits, invalid UTF-8 and nesting past its limit by itself, and with these
# options subclasses of str, int, dict and list, dataclasses and dates; _refused finds what it would still write.
_CANONICAL = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
              | orjson.OPT_PASSTHROUGH_DATETIME)
_PLAIN_TYPES = frozenset({dict, list, tuple, str, int, bool, type(None)})


def canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 bytes of plain data (what is hashed); raises NotCanonical on anything else."""
    text = _written(value)
    refused = _refused(value)
    if refused is not None:
        raise NotCanonical(refused)
    return text


def _written(value: Any) -> bytes:
    """What orjson writes of ``value`` with sorted keys: its canonical bytes, if ``value`` is plain data."""
    try:
        return orjson.dumps(value, option=_CANONICAL)
    except orjson.JSONEncodeError as exc:
        raise NotCanonical(f"not canonical JSON data: {exc}") from None


def canonical_bytes_each(values: list[Any]) -> tuple[list[bytes], NotCanonical | None]:
    """``canonical_bytes`` of each value in turn, up to the first that has none: their bytes, and the error that one
    raises (None where all have).  The plainness walk is made once over them all, since its cost goes by the
    levels of nesting, not by the values (a log's events: half of checking a chain when walked one by one);
    only where it finds something are they walked one by one, to name the first."""
    written: list[bytes] = []
    error: NotCanonical | None = None
    for value in values:
        try:
            written.append(_written(value))
        except NotCanonical as exc:
            error = exc
            break
    if written and _refused(values[:len(written)]) is not None:
        for index, value in enumerate(values[:len(written)]):
            refused = _refused(value)
            if refused is not None:
                return written[:index], NotCanonical(refused)
    return written, error


def canonical_json(value: Any) -> str:
    """``canonical_bytes(value)`` as text."""
    return canonical_bytes(value).decode("utf-8")


def same_canonical(a: Any, b: Any) -> bool:
    """``canonical_bytes(a) == canonical_bytes(b)``, raising where that raises."""
    return canonical_bytes(a) == canonical_bytes(b)


def same_as_hashed(value: Any, hashed: Any) -> bool:
    """``same_canonical(value, hashed)`` where ``hashed`` is part of an event whose hash was just checked: its
    bytes were found canonical then (``canonical_bytes`` of the whole event), so it is not walked again (the
    audit compares every recomputed order, setup and outcome with the one recorded)."""
    return canonical_bytes(value) == _written(hashed)


def _refused(value: Any) -> str | None:
    """Why ``value`` (which orjson has written) is not plain data, or None: the one plainness walk.

    A level of nesting at a time: ``gc.get_referents`` gives every item of the level's lists and tuples and every
    value of its dicts (their keys too, unless all are exactly str, which orjson has made sure of), and nothing for
    a str, int, bool or None.  orjson has bounded the nesting, so the walk ends."""
    level = [value]
    while level:
        if not _PLAIN_TYPES.issuperset(map(type, level)):  # no set of the level's types is made where all are plain
            kinds = set(map(type, level)) - _PLAIN_TYPES
            if float in kinds:
                return "floats are not allowed in canonical data"
            return f"{min(kind.__name__ for kind in kinds)} is not JSON data"
        level = gc.get_referents(*level)
    return None


def sha256_hex(data: str | bytes) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def roundtrip(value: Any) -> Any:
    """The value as it comes back from storage: plain JSON with keys in sorted order, sharing nothing with ``value``.

    orjson refuses non-string keys, ints past 64 bits and objects it cannot write; floats are caught where it
    matters, by ``canonical_bytes`` when an event is hashed, and by the conformance suite for engine states.
    """
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))


def _replaced_keys(value: dict, base: dict) -> list[Any] | None:
    """The keys whose values ``value`` replaced, when it is ``dict(base)`` with values replaced (base's own
    key objects, so sorted and valid, in base's order: what a fold step makes); None when it is not."""
    if len(value) != len(base) or not all(map(operator.is_, value, base)):
        return None
    return list(compress(base, map(operator.is_not, value.values(), base.values())))


ORJSON_INTS = range(-(2**63), 2**64)  # what orjson can write; anything wider fails the round trip
_ORJSON_NESTING = 254  # containers within containers that orjson.dumps writes; one more fails
_MISSING = object()
_STR_ONLY = frozenset({str})  # ``set(map(type, items)) <= _STR_ONLY``: every item is exactly a str
_SMALL = 8  # a new dict of this many keys or fewer costs orjson less than a walk


def roundtrip_reusing(value: Any, base: Any) -> Any:
    """``roundtrip(value)``, taking every part of it that ``value`` shares with ``base`` from ``base``.

    ``base`` must be an earlier ``roundtrip`` result (or one of this function's) that nobody has
    changed since, or None: data is never mutated here, so an object of ``value`` that *is* the object at
    the same place in ``base`` is already in round-trip form.  A fold step shares almost all of
    the game with the record before it, so this costs what changed instead of the whole game (the
    fold's records cost 3-10 times less so, and the fold needs it for its floor: bench/README.md).

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
        changed = _replaced_keys(value, base)
        if changed is not None:
            # The usual step: copy base (in C) and redo only the values that are not base's.
            if len(changed) < len(base):
                out = dict(base)
                inner = depth + 1
                for key in changed:
                    item = value[key]  # most often a count or a score: kept as it is, without a call
                    out[key] = item if type(item) is int and item in ORJSON_INTS else _reuse(item, base[key], inner)
                return out
        elif len(value) > _SMALL and set(map(type, value)) <= _STR_ONLY and all(map(_utf8, value.keys() - base.keys())):
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

