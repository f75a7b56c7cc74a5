"""The audit compares recomputed data with recorded data by orjson's bytes where that is the canonical
comparison, and trusts the hash chain's finding that an event is plain data.  Both are only speed:
every answer (and every error) must be the slow path's."""
from __future__ import annotations

import enum
import json
import random
from pathlib import Path
from typing import Any

from engines.canonical import plain_canonical_bytes, plain_canonical_bytes_each, same_canonical
from eventlog.events import check_chain, event_hash
from replays.audit import _same

FIXTURE = Path(__file__).parent / "fixtures" / "games" / "recorded-sx.json"


class _Text(str):
    pass


class _Colour(enum.Enum):
    RED = "red"


def _outcome(function: Any, *args: Any) -> str:
    try:
        return f"ok {function(*args)!r}"
    except Exception as exc:
        return f"raised {exc!r}"


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.4:
        return rng.choice([0, 1, -7, 2**63, 2**64, "a", "é", "", True, False, None, 1.0, 0.5, float("nan"), _Text("a"),
                           (1, 2), _Colour.RED])
    if roll < 0.7:
        return {rng.choice("abcé"): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _plain(value: Any) -> bool:
    if isinstance(value, dict):
        return type(value) is dict and all(type(k) is str and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return type(value) is list and all(map(_plain, value))
    return type(value) in (str, int, bool, type(None)) and not (type(value) is int and value >= 2**63)


def test_the_audits_comparisons_answer_as_canonical_json_does() -> None:
    rng = random.Random("same")
    compared = 0
    for _ in range(4000):
        recorded = _value(rng)
        value = recorded if rng.random() < 0.3 else _value(rng)
        plain = _plain(recorded)  # what check_chain would have found for the event holding it
        expected = _outcome(same_canonical, value, recorded)
        assert _outcome(_same, value, recorded, plain) == expected
        assert _outcome(_same, value, recorded) == expected
        compared += expected.startswith("ok")
    assert compared > 1000


def test_check_chain_counts_the_plain_events_from_the_first() -> None:
    events = json.loads(FIXTURE.read_text())["events"]
    assert check_chain(events) == (None, len(events))
    odd = [dict(event) for event in events]
    odd[4] = {**odd[4], "actor": _Text(odd[4]["actor"])}  # hashes as its text does, but is not plain
    odd[4]["hash"] = event_hash(odd[4]["prev_hash"], {k: v for k, v in odd[4].items() if k != "hash"})
    for i in range(5, len(odd)):
        odd[i] = {**odd[i], "prev_hash": odd[i - 1]["hash"]}
        odd[i]["hash"] = event_hash(odd[i]["prev_hash"], {k: v for k, v in odd[i].items() if k != "hash"})
    assert check_chain(odd) == (None, 4)
    floated = [dict(event) for event in events]
    floated[2] = {**floated[2], "data": {**floated[2]["data"], "x": 1.5}}
    broken, plain = check_chain(floated)
    assert broken is not None and broken["seq"] == 3 and "not canonical" in broken["problem"] and plain == 2


def _json_data(value: Any) -> bool:
    """Made only of what orjson.loads gives (no tuple, subclass or float), item by item."""
    if type(value) is dict:
        return all(type(k) is str and _json_data(v) for k, v in value.items())
    if type(value) is list:
        return all(map(_json_data, value))
    return type(value) in (str, int, bool, type(None))


def test_the_plain_bytes_of_a_whole_log_are_those_of_each_event() -> None:
    """One plainness walk for a log's events: any item that is not plain (a float, a subclass, an enum, a tuple
    deep inside one event) must give that item's own answer, and the others theirs; and the count of JSON
    data from the first stops at the first item that is not plain or holds a tuple."""
    rng = random.Random("each")
    answers, counts = set(), set()
    for _ in range(1500):
        values = [_value(rng) for _ in range(rng.randint(0, 6))]
        if rng.random() < 0.6:  # mostly plain logs, so that the one walk answers often
            values = json.loads(json.dumps(values, default=str).replace("NaN", "null"))
            if values and rng.random() < 0.5:
                values[rng.randrange(len(values))] = {"forged": [_value(rng)]}
        expected = [plain_canonical_bytes(value) for value in values]
        leading = next((i for i, (value, text) in enumerate(zip(values, expected))
                        if text is None or not _json_data(value)), len(values))
        assert plain_canonical_bytes_each(values) == (expected, leading)
        answers.add(None in expected)
        counts.add((leading == len(values), any(type(v) is tuple for v in values)))
    assert answers == {True, False}
    assert counts >= {(True, False), (False, False), (False, True)}


def test_check_chain_names_an_event_that_is_not_an_object_after_the_links_before_it() -> None:
    events = json.loads(FIXTURE.read_text())["events"]
    assert check_chain(events[:3] + [["not", "an", "event"]] + events[4:]) == (
        {"seq": 4, "problem": "event is not an object"}, 3)
    relinked = events[:2] + [{**events[2], "prev_hash": "0" * 64}, None]
    assert check_chain(relinked) == ({"seq": 3, "problem": "prev_hash does not match the previous event's hash"}, 2)
    assert check_chain([None]) == ({"seq": 1, "problem": "event is not an object"}, 0)
