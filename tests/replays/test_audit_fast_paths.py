"""The audit's shortcuts are only speed: each must answer as the long way does, and a tampered
event must still fail through it."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engines import registry
from engines.contract import Engine
from engines.driver import play_bots, player_list
from eventlog.events import event_hash
from replays.audit import verify

ENGINES = registry.all_latest()
FIXTURES = Path(__file__).parent.parent / "fixtures" / "games"
RECORDED = {"extreme-ways": "recorded-ew.json", "golden-strider": "recorded-gs.json",
            "sxyzm-cyclone": "recorded-sx.json"}


def _rehashed(events: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """The chain re-sealed from ``events[start]`` on, as a forger who rewrites history would."""
    for i in range(start, len(events)):
        body = {k: v for k, v in events[i].items() if k != "hash"}
        body["prev_hash"] = events[i - 1]["hash"] if i else "0" * 64
        events[i] = {**body, "hash": event_hash(body["prev_hash"], body)}
    return events


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.meta.name)
def test_phase_name_is_the_name_of_phase_in_every_state_of_bot_played_games(engine: Engine) -> None:
    seen = set()
    for case in engine.simulation_cases:
        played = play_bots(engine, case.get("options"), player_list(case["players"], case.get("fields")), "names")
        for state in played.states:
            phase = engine.phase(state)
            assert engine.phase_name(state) == (None if phase is None else phase.name)
            seen.add(engine.phase_name(state))
    assert None in seen and len(seen) > 1


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_reforged_next_phase_is_caught_where_it_is_named(name: str) -> None:
    document = json.loads((FIXTURES / RECORDED[name]).read_text())
    assert verify(copy.deepcopy(document))["ok"]
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved" and e["data"]["next"] is not None)
    events[index]["data"]["next"]["name"] += "-forged"
    document["events"] = _rehashed(events, index)
    document["head_hash"] = events[-1]["hash"]
    report = verify(document)
    assert not report["ok"]
    assert report["hash_chain"]["ok"]
    assert {"seq": index + 1, "check": "recompute",
            "problem": f"the phase after {events[index]['data']['number']} differs from the rules"} \
        in report["divergences"]


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_game_forged_to_end_early_is_caught(name: str) -> None:
    document = json.loads((FIXTURES / RECORDED[name]).read_text())
    events = document["events"]
    index = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved" and e["data"]["next"] is not None)
    final = events[-1]["data"]
    events[index]["data"].update(next=None, result=final["result"], seed=final["seed"])
    document["events"] = _rehashed(events, index)
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
