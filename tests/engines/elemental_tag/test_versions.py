"""Engine versions: new games get the latest rules, and a game recorded under 1.0.0 replays with 1.0.0's rulings
(versions.py), so the fixes of issue 30 never rewrite a recorded game."""
from __future__ import annotations

import pytest

from engines import registry
from engines.contract import RuleError
from engines.driver import change_members, player_list, run_phase, start
from engines.elemental_tag.board import resolve_moves
from engines.elemental_tag.engine import ENGINE, ENGINES
from engines.elemental_tag.versions import VERSIONS
from tests.engines.elemental_tag.helpers import FIRE3_WATER2_ALONE2, members, points

V1_0 = ENGINES[0]


def test_every_version_is_registered_and_new_games_get_the_latest() -> None:
    assert registry.versions("elemental-tag") == [r.version for r in VERSIONS] == ["1.0.0", "1.1.0"]
    assert registry.latest("elemental-tag") is ENGINE and ENGINE.meta.version == "1.1.0"
    assert registry.get("elemental-tag", "1.0.0") is V1_0 and V1_0.rulings is VERSIONS[0]


def test_version_1_0_0_misses_a_crossing_one_above_the_other() -> None:
    start_squares = {"A": (5, 6), "B": (5, 7)}
    targets = {"A": (6, 7), "B": (6, 6)}
    assert resolve_moves(start_squares, targets, VERSIONS[0]) == ({"A": (6, 7), "B": (6, 6)}, [])
    assert resolve_moves(start_squares, targets)[1][0]["kind"] == 3


def test_version_1_0_0_counts_a_player_stopped_in_the_same_pass_as_still() -> None:
    squares = {"Z": (2, 3), "O": (4, 3), "I": (5, 3), "X": (4, 4)}
    targets = {"Z": (3, 3), "O": (3, 3), "I": (4, 3), "X": (4, 3)}
    _, collisions = resolve_moves(squares, targets, VERSIONS[0])
    assert [(c["players"], c["into"]) for c in collisions] == [(["O", "Z"], None), (["I", "O", "X"], "O")]


def test_version_1_0_0_announces_each_bid() -> None:
    state = start(V1_0, {}, player_list(7, FIRE3_WATER2_ALONE2), "rules").final
    orders = {p: {"type": "bid", "amount": a} for p, a in {"p1": 5, "p2": 3, "p3": 4, "p4": 2, "p5": 6,
                                                            "p6": 1, "p7": 7}.items()}
    outcome, _ = run_phase(V1_0, {**state, "orders": orders}, "rules", 1)
    assert [c["points"] for c in outcome["public"]["changes"]] == [-5, -3, -4, -2, -6, -7]


def test_version_1_0_0_joins_a_sign_up_during_the_bids_as_at_the_start() -> None:
    """Without round_one_signups it still asked that six players remain, then joined the team all the same."""
    played = start(V1_0, {"round_one_signups": False}, player_list(7, FIRE3_WATER2_ALONE2), "late")
    change_members(V1_0, played, "join", {"id": "p8", "name": "Hal", "fields": {"element": "fire"}})
    assert members(played.final, "p8") == ["p1", "p2", "p3", "p8"] and points(played.final, "p8") == 45
    few = start(V1_0, {"round_one_signups": False}, player_list(3, [{}, {}, {"element": "air"}]), "late")
    with pytest.raises(RuleError, match="at least 6 players"):
        change_members(V1_0, few, "join", {"id": "p4", "name": "Dee", "fields": {"element": "air"}})
    house = start(V1_0, {"round_one_signups": True}, player_list(3, [{}, {}, {"element": "air"}]), "late")
    change_members(V1_0, house, "join", {"id": "p4", "name": "Dee", "fields": {"element": "air"}})
    assert members(house.final, "p4") == ["p3", "p4"]


def test_a_1_0_0_log_without_round_one_signups_keeps_its_default_true() -> None:
    """An option's default is the version's: 1.0.0 logs read the house rule they were played under."""
    players, setup = player_list(3, [{}, {}, {}]), {"public": {}, "private": {}, "secret": {}}
    assert V1_0.initial_state({}, players, setup)["options"]["round_one_signups"] is True
    assert ENGINE.initial_state({}, players, setup)["options"]["round_one_signups"] is False
