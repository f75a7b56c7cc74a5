"""Engine versions: new games get the latest rules, and a game recorded under 1.0.0 replays with 1.0.0's rulings
(versions.py), so the rulings of issue 30 never rewrite a recorded game."""
from __future__ import annotations

from engines import registry
from engines.canonical import roundtrip
from engines.driver import load_action, player_list, run_phase, start, submit
from engines.rng import Rng
from engines.strategic_aspect.engine import ENGINE, ENGINES
from engines.strategic_aspect.versions import VERSIONS
from tests.engines.strategic_aspect.helpers import ceremony, with_

V1_0 = ENGINES[0]


def test_every_version_is_registered_and_new_games_get_the_latest() -> None:
    assert registry.versions("strategic-aspect") == [r.version for r in VERSIONS] == ["1.0.0", "1.1.0"]
    assert registry.latest("strategic-aspect") is ENGINE and registry.get("strategic-aspect", "1.0.0") is V1_0


def test_version_1_0_0_lists_an_eliminated_quitter_as_departed() -> None:
    state = start(V1_0, {}, player_list(4), "rules").final
    state = with_(state, cyclists=["p1", "p2", "p4"], eliminated={"p3": {"cycle": 1, "steps": 30}})
    change = {"kind": "quit", "player": {"id": "p3", "name": "p3", "fields": {}}}
    outcome = roundtrip(V1_0.change_members(state, change, Rng("members", "members", 0)))
    assert [e["do"] for e in outcome["public"]["effects"]] == ["leave"]
    assert "p3" in V1_0.apply_members(state, change, outcome)["departed"]


def test_version_1_0_0_lists_missed_votes_under_self_as_abstained() -> None:
    state = start(V1_0, {"missed_vote": "self"}, player_list(4), "rules").final
    state = ceremony(state)
    state = roundtrip(submit(V1_0, state, "p1", load_action(V1_0, {"type": "vote", "against": "p1"})))
    outcome, _ = run_phase(V1_0, state, "rules", 2)
    tally = next(e for e in outcome["public"]["effects"] if e["do"] == "ceremony")
    assert tally["abstained"] == ["p2", "p3", "p4"] and tally["automatic"] == []
