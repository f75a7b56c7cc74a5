"""Recorded whole games (tests/fixtures/games) replayed on every change (18xx style).

Each must still verify against its seed with the engine version it was played under,
and fold to the same final result: a failure means rules changed by accident.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines import registry
from engines.canonical import canonical_json
from replays.audit import verify
from replays.fold import engine_for, fold

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "games").glob("*.json"))

# What a GM reading each game's log would rule, checked by hand against its events (not taken from the
# engine): a failure here with the replay above passing means the recorded result itself is wrong.
HAND_CHECKED = {
    # Two players tied last at distance 9 without a Token of Life; the holders voted p4 the EC.
    "recorded-ew-vote-8": {"elimination_candidate": "p4", "elimination_decided_by": "vote"},
    # p3 ejected in phase 2 (event 12): out of the standings; p2 and p5 hold every Token of Life and win;
    # the EC is the nearest to Odin of those without one (p1 at 7; p5 at 3 holds two tokens).
    "recorded-ew-ejection": {"ejected": ["p3"], "winners": ["p2", "p5"], "elimination_candidate": "p1"},
    # Tarnished: p4's runners scored 18, a wrong accusation costs 1: 17, the best of the four managers.
    "recorded-gs-tarnished": {"winner_score": ("p4", 17)},
    # Robot: the whole race run from the algorithms; r4 first past the line on square 62.
    "recorded-gs-robot": {"winners": ["p4"]},
    # p2 quit at turn 4 (event 12): their cubes stay as obstacles and they cannot win; yellow (p3) wins.
    "recorded-sx-quit": {"winners": ["p3"], "ended": "win"},
    # The final: p1 reached 30 first with 9 steps, p3 still on 28 held 16: the most steps wins.
    "recorded-sa": {"winners": ["p3"], "ended": "most steps"},
    # p2 quit (event 27) and p5 was ejected (event 126), each a suffice cycle; in the final p6 reached 30
    # with 1 step against p4's 8 on 29: p4 wins on steps.
    "recorded-sa-quit": {"winners": ["p4"], "ended": "most steps"},
    # Scoring: 5 each for the last team standing (fire: p3, p6), 3 for the last team out (p7 alone),
    # 2 for the second and third to last (p4, p5).
    "recorded-et": {"scores": {"p3": 5, "p6": 5, "p7": 3, "p4": 2, "p5": 2}},
    # p6 ejected (event 49), p3 quit (event 68); water (p8, p9) last standing, fire (p4, p7) last out.
    "recorded-et9": {"scores": {"p8": 5, "p9": 5, "p4": 3, "p7": 3}},
}


def _facts(name: str, result: dict) -> dict:
    if name == "recorded-gs-tarnished":
        best = max(result["managers"], key=lambda m: m["score"])
        return {"winner_score": (best["player"], best["score"])}
    if name.startswith("recorded-sa"):
        return {"winners": [s["id"] for s in result["standings"] if s["winner"]], "ended": result["ended"]}
    if name.startswith("recorded-et"):
        scores = {p["player_id"]: p["score"] for p in result["players"]}
        return {"scores": {player: scores[player] for player in HAND_CHECKED[name]["scores"]}}
    return {key: result[key] for key in HAND_CHECKED[name]}


def test_there_are_recorded_games_for_every_engine() -> None:
    types = {json.loads(path.read_text())["type"] for path in FIXTURES}
    assert set(registry.names()) - {name for name in registry.names() if name.startswith("test-")} <= types


def test_every_version_of_every_engine_has_a_recorded_game() -> None:
    """Each version a game can be created or replayed under is replayed here (engines/<game>/versions.py)."""
    recorded = {(json.loads(path.read_text())["type"], json.loads(path.read_text())["version"]) for path in FIXTURES}
    for name in registry.names():
        if not name.startswith("test-"):
            assert {(name, version) for version in registry.versions(name)} <= recorded, name


def test_every_ruling_path_has_a_recorded_game() -> None:
    """A GM ejection, a player's quit, the EC vote and every Golden Strider variant are replayed too."""
    kinds = set()
    for path in FIXTURES:
        document = json.loads(path.read_text())
        kinds |= {e["type"] for e in document["events"]}
        kinds |= {e["data"]["name"] for e in document["events"] if e["type"] == "phase.resolved"}
        kinds.add(document["events"][0]["data"]["options"].get("variant"))
    assert {"gm.eject", "player.quit", "ec_vote", "accusation", "robots", "steeplechase"} <= kinds


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_a_recorded_result_is_what_a_gm_rules_by_hand(name: str) -> None:
    document = json.loads((Path(__file__).parent / "fixtures" / "games" / f"{name}.json").read_text())
    assert _facts(name, document["events"][-1]["data"]["result"]) == HAND_CHECKED[name]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_recorded_game_still_verifies_and_ends_the_same(path: Path) -> None:
    document = json.loads(path.read_text())
    report = verify(document)
    assert report["ok"], report["divergences"][:3]
    started = next(i for i, e in enumerate(document["events"]) if e["type"] == "game.started")
    recomputed = [e for i, e in enumerate(document["events"]) if e["type"] in ("game.started", "phase.resolved")
                  or (i > started and e["type"] in ("player.joined", "player.quit", "gm.eject"))]
    assert report["outcomes"]["checked"] == len(recomputed)
    record = fold(document["events"])
    recorded = document["events"][-1]["data"]["result"]
    folded = engine_for(record).result(record["engine"])  # from the folded state, not the recorded event
    assert canonical_json(folded) == canonical_json(recorded)
    assert record["version"] == document["version"]
