"""Robot variant: declarative algorithms, validated on submission, run in one go."""
from __future__ import annotations

import copy

import pytest
from marshmallow import ValidationError

from engines.contract import GM, RuleError
from engines.driver import submit
from engines.golden_strider import ENGINE, robot

from .helpers import new_game, resolve

ROBOT = {"variant": "robot"}


def _send(state: dict, player: str, algorithm: dict) -> dict:
    return submit(ENGINE, state, player, {"type": "submit_robot", "algorithm": algorithm})


def test_robot_example_algorithm_is_expressible_and_runs() -> None:
    """5 * 6/0; rounds 1-5: 2 movement 4 bank (deduct overtakes from move); round 6:
    oldest card, 4 bank, rest movement; then the oldest card, all movement."""
    state = new_game(6, ROBOT)
    for p in state["players"]:
        state = _send(state, p["id"], robot.EXAMPLE)
    assert ENGINE.phase(state).awaiting == ()
    outcome, after = resolve(state)
    rounds = outcome["public"]["rounds"]
    first = [r for r in rounds[0]["rows"] if r["runner"] == "r1"][0]
    assert first["cards"][:5] == ["6/0"] * 5 and (first["M"], first["B"]) == (2, 4)
    for entry in rounds[:5]:
        assert all((r["M"], r["B"]) == (2, 4) for r in entry["rows"])  # level: no overtaking
    sixth = rounds[5]["rows"][0]
    assert sixth["B"] == 4 and sixth["M"] == int(sixth["cards"][sixth["played"]].split("/")[0]) - 4
    assert all(r["B"] == 0 for entry in rounds[6:] for r in entry["rows"])
    assert ENGINE.phase(after) is None and ENGINE.result(after)["winners"]
    assert ENGINE.report(after, 3, "json")["round"] == 3


def test_robot_overtaking_cost_deducted_from_the_named_number() -> None:
    algorithm = copy.deepcopy(robot.EXAMPLE)
    plan_state = copy.deepcopy(new_game(6, ROBOT))
    plan_state["round"] = 3
    runner = plan_state["runners"][0]
    hand = [{"value": 6, "turn": 0}] * 3 + [{"value": 8, "turn": 1}, {"value": 8, "turn": 2}]
    runner.update(cards=hand, owed=1)
    plan = robot.plan_for(algorithm, plan_state, runner)
    assert (plan["move"], plan["bank"], plan["deduct"]) == (2, 4, "move")
    from engines.golden_strider.race import resolve_round

    got = [r for r in resolve_round(plan_state, {"r1": plan})["public"]["rows"] if r["runner"] == "r1"][0]
    assert (got["D"], got["M"], got["B"]) == (1, 1, 4)


def test_robot_conditions_read_the_previous_report() -> None:
    rule = {"when": {"position": {"min": 4}, "to_finish": {"max": 10}}, "card": "highest", "move": "all"}
    seen = {"round": 9, "square": 52, "position": 5, "owed": 0, "to_finish": 8, "behind_leader": 3,
            "best_card": 9, "oldest_card": 2}
    assert robot.matches(rule["when"], seen)
    assert not robot.matches(rule["when"], {**seen, "position": 2})


def test_robot_conditions_see_the_starting_cards_in_round_one() -> None:
    """Round 1 is played from the starting cards, so best_card and oldest_card read them."""
    algorithm = {
        "cards": [10, 5, 5, 5, 5],
        "rules": [
            {"when": {"best_card": 10, "oldest_card": 5}, "card": "highest", "move": "all"},
            {"card": "oldest", "bank": "all"},
        ],
    }
    state = new_game(6, ROBOT)
    runner = state["runners"][0]
    seen = robot.measures(state, runner, robot.robot_hand(algorithm, runner))
    assert (seen["round"], seen["best_card"], seen["oldest_card"]) == (1, 10, 5)
    outcome, _ = resolve(_send(state, "p1", algorithm))
    first = [r for r in outcome["public"]["rounds"][0]["rows"] if r["runner"] == "r1"][0]
    assert first["cards"][first["played"]] == "10/0" and (first["M"], first["B"]) == (10, 0)


def test_robot_split_amounts() -> None:
    assert robot.split_amounts(6, 2, 4) == (2, 4)
    assert robot.split_amounts(8, 2, 4) == (4, 4)  # leftover goes to movement
    assert robot.split_amounts(3, "rest", 4) == (0, 3)
    assert robot.split_amounts(7, "all", "rest") == (7, 0)
    assert robot.split_amounts(7, "rest", "all") == (0, 7)


@pytest.mark.parametrize("bad", [
    {"cards": [6, 6, 6, 6, 6], "rules": [{"card": "best"}]},
    {"cards": [6, 6, 6, 6, 6], "rules": [{"move": "lots"}]},
    {"cards": [6, 6, 6, 6, 6], "rules": [{"when": {"weather": 3}}]},
    {"cards": [6, 6, 6, 6, 6], "rules": [{"when": {"round": {"from": 3}}}]},
    {"cards": [6, 6, 6, 6, 6], "rules": []},
    {"cards": [6, 6, 6, 6, 6], "rules": [{"code": "import os"}]},
    {"rules": [{}]},
])
def test_robot_algorithm_structure_is_validated(bad: dict) -> None:
    with pytest.raises(ValidationError):
        _send(new_game(6, ROBOT), "p1", bad)


@pytest.mark.parametrize("rule,field,words", [
    ({"when": {"round": {"min": 9, "max": 2}}}, ("when", "round"), "min 9 is more than max 2"),
    ({"when": {"to_finish": {"min": 11, "max": 10}}}, ("when", "to_finish"), "min 11 is more than max 10"),
    ({"move": "all", "bank": "all"}, ("bank",), 'move is "all", so bank can only be "rest" or 0'),
    ({"move": "all", "bank": 4}, ("bank",), "not 4"),
    ({"bank": "all", "move": 2}, ("move",), 'bank is "all", so move can only be "rest" or 0'),
])
def test_robot_algorithm_contradictions_are_refused_by_field(rule: dict, field: tuple, words: str) -> None:
    """A condition that can never hold, or a card given wholly to both sides, is a slip: refused, named."""
    with pytest.raises(ValidationError) as err:
        _send(new_game(6, ROBOT), "p1", {"cards": [6, 6, 6, 6, 6], "rules": [{"card": "oldest"}, rule]})
    where = err.value.messages["algorithm"]["rules"][1]
    for key in field:
        where = where[key]
    assert any(words in message for message in where), where


def test_robot_algorithm_consistent_edges_are_accepted() -> None:
    rules = [{"when": {"round": {"min": 6, "max": 6}}, "move": "all", "bank": 0},
             {"bank": "all", "move": "rest"}, {"when": {"round": {"min": 3}}, "move": "all"}]
    state = _send(new_game(6, ROBOT), "p1", {"cards": [6, 6, 6, 6, 6], "rules": rules})
    assert state["algorithms"]["p1"]["rules"][0]["when"]["round"] == {"min": 6, "max": 6}


def test_robot_algorithm_starting_cards_follow_rule_2() -> None:
    with pytest.raises(RuleError) as err:
        _send(new_game(6, ROBOT), "p1", {"cards": [6, 6, 6, 6, 5], "rules": [{}]})
    assert err.value.rule == "rule 2"


def test_robot_algorithms_stay_secret_until_the_race_is_run() -> None:
    state = _send(new_game(6, ROBOT), "p1", robot.EXAMPLE)
    assert "Rulebook example" not in str(ENGINE.view(state, "p2"))
    assert "Rulebook example" not in str(ENGINE.view(state, None))
    assert ENGINE.view(state, "p1")["you"]["algorithm"]["name"] == "Rulebook example"
    assert "Rulebook example" in str(ENGINE.view(state, GM))
    outcome, after = resolve(state)
    assert outcome["public"]["algorithms"]["p1"]["name"] == "Rulebook example"
    assert ENGINE.view(after, None)["algorithms"]["p1"]["name"] == "Rulebook example"


def test_robot_without_an_algorithm_runs_on_no_move_received() -> None:
    state = _send(new_game(6, ROBOT), "p1", robot.EXAMPLE)
    outcome, _ = resolve(state)
    first = [r for r in outcome["public"]["rounds"][0]["rows"] if r["runner"] == "r2"][0]
    assert first["auto"] and first["M"] == 6


def test_robot_orders_of_another_phase_are_refused() -> None:
    with pytest.raises(RuleError) as err:
        submit(ENGINE, new_game(6, ROBOT), "p1", {"type": "play", "card": "6/0", "cards": [6] * 5})
    assert err.value.status == 409
