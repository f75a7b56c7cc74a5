"""Forged logs, re-hashed so that every link holds: the audit still names the event a forger changed."""
from __future__ import annotations

import copy
import enum
import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from engines import registry
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


class _Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize("odd", [1.5, float("nan"), _Colour.RED], ids=["float", "nan", "enum"])
def test_a_large_event_forged_with_orjsons_bytes_of_what_is_not_json_data_still_fails(odd: Any) -> None:
    """A forger who hashes orjson's bytes (a float as text, NaN as null, an enum as its value) instead of
    canonical JSON: the chain check must still say the event is not canonical, naming its seq."""
    events = json.loads((FIXTURES / RECORDED["extreme-ways"]).read_text())["events"]
    index = max(range(len(events)), key=lambda i: len(orjson.dumps(events[i])))
    assert check_chain(events) is None
    body = {k: v for k, v in events[index].items() if k != "hash"}
    body["data"] = {**body["data"], "outcome": {**body["data"]["outcome"], "extra": [odd]}}
    text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    events[index] = {**body, "hash": hashlib.sha256(body["prev_hash"].encode() + text).hexdigest()}
    broken = check_chain(events)
    assert broken is not None and broken["seq"] == index + 1 and "not canonical" in broken["problem"]
