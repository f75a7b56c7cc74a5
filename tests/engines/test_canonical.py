"""``roundtrip_reusing`` must be ``roundtrip`` exactly, only cheaper: the fold trusts it with every record."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engines.canonical import roundtrip, roundtrip_reusing

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
        return rng.choice([rng.randint(-5, 300), f"s{rng.randint(0, 9)}", True, False, None, "ü"])
    if roll < 0.7:
        keys = rng.sample(["a", "b", "c", "d", "e", "f", "ß", "Z"], rng.randint(0, 6))
        return {key: _tree(rng, depth + 1) for key in keys}
    return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def _changed(rng: random.Random, base: Any, awkward: bool) -> Any:
    """A new value that shares most of ``base``, the way a pure step builds one."""
    if not isinstance(base, (dict, list)) or rng.random() < 0.15:
        return rng.choice(AWKWARD) if awkward and rng.random() < 0.5 else _tree(rng)
    if isinstance(base, dict):
        new = dict(base)
        for key in rng.sample(list(base), min(len(base), rng.randint(0, 2))):
            if rng.random() < 0.2:
                del new[key]
            else:
                new[key] = _changed(rng, base[key], awkward)
        if rng.random() < 0.4:
            new[rng.choice(["new", "aa", "é", "\ud800" if awkward else "x"])] = _tree(rng)
        if awkward and rng.random() < 0.1:
            new[7] = "an int key"
        return {key: new[key] for key in reversed(list(new))} if rng.random() < 0.3 else new
    new_list = list(base)
    if new_list and rng.random() < 0.7:
        index = rng.randrange(len(new_list))
        new_list[index] = _changed(rng, new_list[index], awkward)
    if rng.random() < 0.4:
        new_list.append(_tree(rng))
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
        base = roundtrip({"record": _tree(rng), "engine": {"x": _tree(rng), "y": [_tree(rng), _tree(rng)]}})
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


def test_what_is_shared_with_the_base_is_taken_from_it_and_the_rest_is_new() -> None:
    base = roundtrip({"big": [[i, str(i)] for i in range(50)], "small": {"n": 1}})
    value = {"small": {"n": 2}, "big": base["big"]}
    result = roundtrip_reusing(value, base)
    assert result["big"] is base["big"]
    assert result["small"] is not value["small"] and result == {"big": base["big"], "small": {"n": 2}}
    assert list(result) == ["big", "small"]
