"""Canonical JSON (docs/architecture.md): sorted keys, no spaces, UTF-8, and only plain JSON data; anything
else is refused with NotCanonical, never written some other way (the bytes are hashed)."""
from __future__ import annotations

import enum
import json
import random
import uuid
from typing import Any

import orjson
import pytest

from engines.canonical import (NotCanonical, canonical_bytes, canonical_json, roundtrip, roundtrip_reusing,
                               same_canonical)


# Values a tampered log or a careless engine could put where a step changes the state:
# each makes orjson fail in its own way, or comes back other than it went in.
AWKWARD: list[Any] = [
    1.5, float("nan"), 2**64, -(2**63) - 1, 2**64 - 1, -(2**63), "\ud800", "é", "", True, False, None, (1, "a"),
    {1: "int key"}, {"\udfff": 1}, {"b": 1, "a": [2, {"d": 3, "c": 4}]}, [], {},
]


def _deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def _tree(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice([rng.randint(-5, 300), f"s{rng.randint(0, 9)}", True, False, None, "ü", 2**64 - 1, -(2**63)])
    if roll < 0.7:
        keys = rng.sample(["a", "b", "c", "d", "e", "f", "ß", "Z", "", "\x00"], rng.randint(0, 6))
        return {key: _tree(rng, depth + 1) for key in keys}
    return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def _reference_json(value: Any) -> str:
    """The canonical text as the spec defines it for plain data (docs/architecture.md), the slow way."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Text(str):
    pass


class _Number(int):
    pass


class _Colour(enum.Enum):
    RED = "red"


class _Rank(enum.IntEnum):
    ACE = 1


NOT_CANONICAL: list[Any] = [
    1.5, float("nan"), {"a": 1.0}, [1, [2, [3, 0.5]]], 2**64, -(2**63) - 1, 2**70, {1: "int key"}, {_Text("key"): 1},
    {"k": _Text("subclass")}, _Text("top"), [_Number(3)], {"k": _Colour.RED}, [_Rank.ACE], {"k": uuid.UUID(int=1)},
    {"k": {1, 2}}, {"k": b"bytes"}, "\ud800", ["\ud800"], {"\udfff": 0}, _deep(300), {"k": object()},
]


@pytest.mark.parametrize("value", NOT_CANONICAL, ids=lambda v: type(v).__name__)
def test_what_is_not_plain_json_data_is_refused(value: Any) -> None:
    for write in (canonical_bytes, canonical_json, lambda v: same_canonical(v, v)):
        with pytest.raises(NotCanonical):
            write(value)


def test_a_refusal_says_what_it_found() -> None:
    with pytest.raises(NotCanonical, match="floats are not allowed"):
        canonical_bytes({"a": [1, {"b": 0.5}]})
    with pytest.raises(NotCanonical, match="_Colour is not JSON data"):
        canonical_bytes({"a": [_Colour.RED]})
    with pytest.raises(NotCanonical, match="64-bit"):
        canonical_bytes([2**64])


def test_the_edges_of_plain_data_are_written() -> None:
    assert canonical_bytes([2**64 - 1, -(2**63), True, None, (1, "a"), {}, []]) == \
        b'[18446744073709551615,-9223372036854775808,true,null,[1,"a"],{},[]]'
    assert canonical_bytes(_deep(250)) == b"[" * 250 + b"0" + b"]" * 250


def test_canonical_json_of_every_code_point_and_key_order_is_the_reference() -> None:
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    text = "".join(chars)
    assert canonical_json([text, {text: 1}]) == _reference_json([text, {text: 1}])
    # Every code point as a string of its own (orjson's short strings, not the long one above), in one array
    # rather than a million calls; a difference is then looked for one by one, to name it.
    if canonical_json(chars) != _reference_json(chars):
        wrong = next(c for c in chars if canonical_json(c) != _reference_json(c))
        pytest.fail(f"U+{ord(wrong):04X} alone is written other than the reference")
    rng = random.Random("keys")
    alphabet = [chr(c) for c in (*range(0, 300), *range(0xE000, 0xE100), *range(0x10FF00, 0x110000))]
    for _ in range(500):
        keys = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 8))}
        value = {key: rng.choice([0, "x", None, [True]]) for key in keys}
        assert canonical_json(value) == _reference_json(value)


def test_canonical_json_of_trees_is_the_reference_and_survives_the_round_trip() -> None:
    rng = random.Random("trees")
    for _ in range(500):
        value = _tree(rng)
        assert canonical_json(value) == _reference_json(value)
        assert canonical_bytes(value) == canonical_json(value).encode("utf-8")
        assert canonical_bytes(roundtrip(value)) == canonical_bytes(value)
        other = _tree(rng)
        assert same_canonical(value, other) == (_reference_json(value) == _reference_json(other))


def test_the_round_trip_sorts_keys_and_shares_nothing() -> None:
    inner = {"b": [1], "a": (2, 3)}
    back = roundtrip({"z": inner, "y": inner})
    assert list(back) == ["y", "z"] and list(back["z"]) == ["a", "b"] and back["z"]["a"] == [2, 3]
    assert back["y"] is not back["z"] and back["z"]["b"] is not inner["b"]


# -- the fold's one reuse: roundtrip_reusing is roundtrip, errors included (the fold trusts it with every record) --
def _twig(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice([rng.randint(-5, 300), f"s{rng.randint(0, 9)}", True, False, None, "ü"])
    if roll < 0.7:
        keys = rng.sample(["a", "b", "c", "d", "e", "f", "ß", "Z"], rng.randint(0, 6))
        return {key: _twig(rng, depth + 1) for key in keys}
    return [_twig(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def _changed(rng: random.Random, base: Any, awkward: bool) -> Any:
    """A new value that shares most of ``base``, the way a pure step builds one."""
    if not isinstance(base, (dict, list)) or rng.random() < 0.15:
        return rng.choice(AWKWARD) if awkward and rng.random() < 0.5 else _twig(rng)
    if isinstance(base, dict):
        new = dict(base)
        for key in rng.sample(list(base), min(len(base), rng.randint(0, 2))):
            if rng.random() < 0.2:
                del new[key]
            else:
                new[key] = _changed(rng, base[key], awkward)
        if rng.random() < 0.4:
            new[rng.choice(["new", "aa", "é", "\ud800" if awkward else "x"])] = _twig(rng)
        if awkward and rng.random() < 0.1:
            new[7] = "an int key"
        return {key: new[key] for key in reversed(list(new))} if rng.random() < 0.3 else new
    new_list = list(base)
    if new_list and rng.random() < 0.7:
        index = rng.randrange(len(new_list))
        new_list[index] = _changed(rng, new_list[index], awkward)
    if rng.random() < 0.4:
        new_list.append(_twig(rng))
    if new_list and rng.random() < 0.1:
        new_list.pop(0)
    return tuple(new_list) if awkward and rng.random() < 0.05 else new_list


def _outcome(function: Any, *args: Any) -> str:
    try:
        return "ok " + repr(function(*args))  # repr: types and key order, not just equality
    except Exception as exc:  # the same error, word for word, is part of the contract
        return "raised " + repr(exc)


@pytest.mark.parametrize("awkward", [False, True], ids=["plain", "awkward"])
def test_roundtrip_reusing_is_roundtrip_exactly(awkward: bool) -> None:
    rng = random.Random(f"reuse-{awkward}")
    for _ in range(400):
        base = roundtrip({"record": _twig(rng), "engine": {"x": _twig(rng), "y": [_twig(rng), _twig(rng)]}})
        value = base
        for _step in range(rng.randint(1, 4)):
            value = _changed(rng, value, awkward)
        assert _outcome(roundtrip_reusing, value, base) == _outcome(roundtrip, value)


def test_a_part_nested_past_orjsons_limit_fails_as_the_whole_round_trip_does() -> None:
    """orjson counts nesting from the top: a new part 250 deep fails under a state that holds it 6 deep."""
    base = roundtrip({"a": {"b": {"c": [1, 2]}}, "keep": [1]})
    for levels in (245, 249, 250, 251, 252, 260):
        value = {**base, "a": {**base["a"], "b": {**base["a"]["b"], "c": [1, _deep(levels)]}}}
        assert _outcome(roundtrip_reusing, value, base) == _outcome(roundtrip, value), levels
    assert _outcome(roundtrip, {**base, "a": {"b": {"c": [1, _deep(260)]}}}).startswith("raised")


def test_a_wide_new_part_is_round_tripped_once_and_exactly() -> None:
    """A new part of several kB (Golden Strider's runners each round) is judged within orjson's nesting limit
    by counting its containers; brackets inside strings only over-count, sending it the slow, exact way."""
    base = roundtrip({"a": {"b": {"c": [1, 2]}}, "keep": [1]})
    wide = [{"cards": [{"n": i, "s": "x" * 40}] * 5, "id": f"p{i}"} for i in range(10)]
    bracketed = ["[" * 200 + "{" * 100, *wide]
    for part in (wide, bracketed, [_deep(200), "[" * 200]):
        value = {**base, "a": {**base["a"], "b": {**base["a"]["b"], "c": part}}}
        assert len(orjson.dumps(part)) > 2 * 254
        assert repr(roundtrip_reusing(value, base)) == repr(roundtrip(value))


def test_what_is_shared_with_the_base_is_taken_from_it_and_the_rest_is_new() -> None:
    base = roundtrip({"big": [[i, str(i)] for i in range(50)], **{f"k{i}": {"n": i} for i in range(10)}})
    same_keys = {**base, "k3": {"n": -3}}
    new_keys = {"added": [1], **{key: item for key, item in base.items() if key != "k5"}}
    for value in (same_keys, new_keys):
        result = roundtrip_reusing(value, base)
        assert repr(result) == repr(roundtrip(value))
        assert result["big"] is base["big"] and result["k4"] is base["k4"]
    assert roundtrip_reusing(same_keys, base)["k3"] is not same_keys["k3"]


def test_items_appended_to_a_list_are_round_tripped_as_the_whole_list_would_be() -> None:
    """``roundtrip_reusing`` is ``roundtrip``: the items a step appends go through orjson in one call, as a list
    where the list sits, after the items it replaced (orjson's order): so the same nesting limit, the same
    first error."""
    base = roundtrip({"a": {"b": {"c": [1, 2], "d": 0}, "e": 0}, "keep": [1]})  # each level kept in part
    tails: list[list[Any]] = [[3], [3, {"z": 1, "y": [2, "é"]}], [2**64], [3, 2**64 - 1, "\ud800"], ["\ud800", 2**64],
                              [(1, 2), 1.5, float("nan")], [{1: "int key"}]]
    tails += [[_deep(levels)] for levels in (249, 250, 251, 252)]  # 251 deep: past the limit, there
    for tail in tails:
        for replaced in (2, 5, 2**64, "\udfff", _deep(249), _deep(251)):
            value = {**base, "a": {**base["a"], "b": {**base["a"]["b"], "c": [1, replaced, *tail]}}}
            assert _outcome(roundtrip_reusing, value, base) == _outcome(roundtrip, value), (tail, replaced)


def test_whole_numbers_replaced_in_a_dict_or_list_are_kept_only_within_orjsons_range() -> None:
    """``roundtrip_reusing`` is ``roundtrip``: a replaced int is taken as it is only where orjson writes it."""
    base = roundtrip({"scores": {f"p{i}": i for i in range(12)}, "rows": [0, 1, 2, 3]})
    for number in (7, 2**64 - 1, -(2**63), 2**64, -(2**63) - 1, True, 1.0):
        for value in ({**base, "scores": {**base["scores"], "p3": number}},
                      {**base, "rows": [0, number, 2, 3]}):
            assert _outcome(roundtrip_reusing, value, base) == _outcome(roundtrip, value), number
