"""The audit's byte comparisons are only speed: each must answer as the long way does, and a tampered
event must still fail through them."""
from __future__ import annotations

import copy
import enum
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from engines import canonical, registry
from engines.driver import play_bots, player_list
from eventlog.events import check_chain
from replays.audit import verify
from tests.forgery import rehashed

ENGINES = registry.all_latest()
FIXTURES = Path(__file__).parent.parent / "fixtures" / "games"
# One recorded game of every game type (its plain one, the shortest name): forgeries of each are caught.
RECORDED = {}
for _path in sorted(FIXTURES.glob("*.json"), key=lambda p: (len(p.name), p.name)):
    RECORDED.setdefault(json.loads(_path.read_text())["type"], _path.name)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_reforged_next_phase_is_caught_where_it_is_named(name: str) -> None:
    document = json.loads((FIXTURES / RECORDED[name]).read_text())
    assert verify(copy.deepcopy(document))["ok"]
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved" and e["data"]["next"] is not None)
    events[index]["data"]["next"]["name"] += "-forged"
    document["events"] = rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"]
    assert report["hash_chain"]["ok"]
    forged = events[index]["data"]["next"]["name"]
    assert {"seq": index + 1, "check": "recompute",
            "problem": f"the phase after {events[index]['data']['number']} differs from the rules",
            "differences": [{"path": "/next/name", "recorded": forged, "recomputed": forged[:-len("-forged")],
                             "missing": None}], "differences_total": 1} in report["divergences"]


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_game_forged_to_end_early_is_caught(name: str) -> None:
    document = json.loads((FIXTURES / RECORDED[name]).read_text())
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved" and e["data"]["next"] is not None)
    final = events[-1]["data"]
    events[index]["data"].update(next=None, result=final["result"], seed=final["seed"])
    document["events"] = rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"]
    assert report["divergences"][0]["seq"] == index + 1
    assert report["divergences"][0]["problem"] == \
        f"the phase after {events[index]['data']['number']} differs from the rules"


def test_extreme_ways_views_and_results_are_the_json_copies_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    from engines.contract import GM, PUBLIC
    from engines.extreme_ways import views

    engine = registry.latest("extreme-ways")
    assert engine is not None
    seen = []
    for case in engine.simulation_cases:
        played = play_bots(engine, case.get("options"), player_list(case["players"], case.get("fields")), "copies")
        for state in played.states[::7] + [played.final]:
            for viewer in [PUBLIC, GM, *state["players"][:2]]:
                seen.append((engine.view(state, viewer), engine.result(state)))
    with monkeypatch.context() as patch:
        patch.setattr(views, "_detached", lambda data: json.loads(json.dumps(data)))
        index = 0
        for case in engine.simulation_cases:
            played = play_bots(engine, case.get("options"), player_list(case["players"], case.get("fields")),
                               "copies")
            for state in played.states[::7] + [played.final]:
                for viewer in [PUBLIC, GM, *state["players"][:2]]:
                    view, result = seen[index]
                    index += 1
                    assert json.dumps(view) == json.dumps(engine.view(state, viewer))  # key order too
                    assert json.dumps(result) == json.dumps(engine.result(state))
    assert views._detached({"a": [1, {"b": None}], 2: (True,)}) == {"a": [1, {"b": None}], "2": [True]}


class _Text(str):
    pass


class _Colour(enum.Enum):
    RED = "red"


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([0, 1, -7, 2**63 - 1, "a", "é", "", True, False, None, None, 7, "x", "yz",
                           1.0, float("nan"), _Text("a"), _Colour.RED])
    if roll < 0.65:
        return {rng.choice(["a", "b", "cé", "d", "e", "f"]): _value(rng, depth + 1) for _ in range(rng.randint(0, 9))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 12))] if roll < 0.9 else \
        tuple(_value(rng, depth + 1) for _ in range(rng.randint(0, 4)))


def test_the_wide_plainness_check_answers_as_the_item_by_item_one() -> None:
    rng = random.Random("wide")
    answers = set()
    for _ in range(3000):
        value = _value(rng)
        if rng.random() < 0.5:  # mostly plain, so that both answers are common
            value = json.loads(json.dumps(value, default=str).replace("NaN", "null"))
        try:
            orjson.dumps(value, option=canonical._ORJSON_CANONICAL)
        except TypeError:
            continue  # never asked: _fast_canonical has already given up
        answers.add(canonical._plain(value))
        assert canonical._plain_wide(value) == canonical._plain(value)
    assert answers == {True, False}
    shared = [1, "a"]
    deep: Any = ["bottom"]
    for _ in range(250):
        deep = [deep, {"k": shared}]
    for value in ({"a": shared, "b": shared}, deep, {"k": (1, [None, True])}, [[]] * 3, {"x": {"y": 1.5}},
                  {_Text("k"): 1}, [{"a": 1}, _Colour.RED], {"a": [float("inf")]}):
        try:
            orjson.dumps(value, option=canonical._ORJSON_CANONICAL)
        except TypeError:
            continue
        assert canonical._plain_wide(value) == canonical._plain(value)


@pytest.mark.parametrize("odd", [1.5, float("nan"), _Colour.RED], ids=["float", "nan", "enum"])
def test_a_large_event_forged_with_orjsons_bytes_of_what_is_not_json_data_still_fails(odd: Any) -> None:
    """A forger who hashes orjson's bytes (a float as text, NaN as null, an enum as its value) instead of
    canonical JSON: the chain check must still say the event is not canonical, through the wide check."""
    events = json.loads((FIXTURES / RECORDED["extreme-ways"]).read_text())["events"]
    index = max(range(len(events)), key=lambda i: len(orjson.dumps(events[i])))
    assert len(orjson.dumps(events[index])) > canonical._WIDE
    assert check_chain(events) == (None, len(events))
    body = {k: v for k, v in events[index].items() if k != "hash"}
    body["data"] = {**body["data"], "outcome": {**body["data"]["outcome"], "extra": [odd]}}
    text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    events[index] = {**body, "hash": hashlib.sha256(body["prev_hash"].encode() + text).hexdigest()}
    broken, plain = check_chain(events)
    assert broken is not None and broken["seq"] == index + 1 and "not canonical" in broken["problem"]
    assert plain == index
