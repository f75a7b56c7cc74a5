"""Rules of an action: moving, stacking, pushing stacks, bases (rulebook examples by name)."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.driver import run_phase, submit
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.rules import (
    RULE_FINISHED,
    RULE_OWN_CUBE,
    RULE_STACK_TOP,
    RULE_TOWARD,
    is_movable,
    legal_moves,
)

from tests.engines.sxyzm_cyclone.scenario import board, game, order, play, turn


def _rejects(state: dict, player: str, *moves: tuple[str, str]) -> RuleError:
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, state, player, order(*moves))
    return caught.value


def test_rule_each_action_moves_one_cube_one_space_toward_another_base() -> None:
    state = play(game(2, rolls=[1]), "p1", ("blue-5", "yellow"))
    assert state["spaces"]["blue:6"] == ["blue-5"]
    assert "blue:5" not in state["spaces"]


def test_example_blue_rolls_two_moves_the_same_cube_or_another() -> None:
    """Blue rolls a two: two actions, the same blue cube twice or another blue cube."""
    same = play(game(2, rolls=[2]), "p1", ("blue-5", "yellow"), ("blue-5", "yellow"))
    assert same["spaces"]["blue:7"] == ["blue-5"]
    start = board(game(2, rolls=[2]), {"blue:3": ["blue-1"], "blue:5": ["blue-2"]})
    other = play(start, "p1", ("blue-2", "yellow"), ("blue-1", "yellow"))
    assert other["spaces"]["blue:6"] == ["blue-2"] and other["spaces"]["blue:4"] == ["blue-1"]


def test_rule_the_die_roll_is_the_number_of_actions() -> None:
    error = _rejects(game(2, rolls=[1]), "p1", ("blue-5", "yellow"), ("blue-5", "yellow"))
    assert error.rule == "the die roll is the number of actions" and error.status == 422


def test_example_without_red_blue_may_go_toward_green_or_yellow_but_not_red() -> None:
    state = game(3)
    assert {m["toward"] for m in legal_moves(state, "blue")} == {"yellow", "green"}
    error = _rejects(state, "p1", ("blue-5", "red"))
    assert error.rule == RULE_TOWARD and "closed" in error.message


def test_rule_cubes_move_toward_another_base_not_their_own() -> None:
    assert _rejects(game(2), "p1", ("blue-5", "blue")).rule == RULE_TOWARD


def test_rule_a_player_moves_only_cubes_of_their_colour() -> None:
    assert _rejects(game(2), "p1", ("yellow-5", "yellow")).rule == RULE_OWN_CUBE


def test_rule_moving_onto_a_cube_makes_a_stack_with_the_mover_on_top() -> None:
    start = board(game(2, rolls=[1]), {"blue:7": ["blue-1"], "centre": ["yellow-1"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"]["centre"] == ["yellow-1", "blue-1"]
    assert "blue:7" not in state["spaces"]


def test_rule_only_the_top_cube_of_a_stack_moves() -> None:
    state = board(game(2), {"centre": ["blue-1", "yellow-1"], "yellow:7": ["yellow-2", "blue-2"]})
    assert not is_movable(state, "blue-1") and is_movable(state, "blue-2")
    error = _rejects(state, "p1", ("blue-1", "yellow"))
    assert error.rule == RULE_STACK_TOP
    assert error.message == "move 1 (blue-1 toward yellow): blue-1 is under another cube in the stack on centre"


def test_example_blue_onto_two_yellows_moves_the_stack_three_toward_blue() -> None:
    """Blue moves a blue cube onto two yellow cubes: on top, and the stack moves three toward blue."""
    start = board(game(2, rolls=[1]), {"blue:7": ["blue-1"], "centre": ["yellow-1", "yellow-2"]})
    outcome, state = turn(start, "p1", ("blue-1", "yellow"))
    assert "centre" not in state["spaces"] and "blue:7" not in state["spaces"]
    assert state["spaces"]["blue:5"] == ["yellow-1", "yellow-2", "blue-1"]
    pushes = outcome["public"]["moves"][0]["pushes"]
    assert pushes == [{"stack": ["yellow-1", "yellow-2", "blue-1"], "to": "blue:5"}]


def test_example_chained_pushes_merge_and_move_three_more_until_an_empty_space() -> None:
    """A pushed stack landing on a cube or stack goes on top; the new stack moves three more."""
    start = board(
        game(2, rolls=[1], path_length=10),
        {
            "yellow:5": ["blue-1"],
            "yellow:4": ["yellow-1", "yellow-2"],   # blue-1 lands here: push toward blue
            "yellow:7": ["yellow-3"],               # three spaces on: merge
            "yellow:10": ["blue-2", "yellow-4"],    # three more: merge again
            # three more: yellow:10 -> centre -> blue:10 -> blue:9, empty: stop
        },
    )
    outcome, state = turn(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"]["blue:9"] == ["blue-2", "yellow-4", "yellow-3", "yellow-1", "yellow-2", "blue-1"]
    assert set(state["spaces"]) == {"blue:9"}
    assert [p["to"] for p in outcome["public"]["moves"][0]["pushes"]] == ["yellow:7", "yellow:10", "blue:9"]


def test_rule_the_whole_push_is_one_action() -> None:
    start = board(game(2, rolls=[2]),
                  {"blue:7": ["blue-1"], "centre": ["yellow-1", "yellow-2"], "blue:2": ["blue-2"]})
    outcome, state = turn(start, "p1", ("blue-1", "yellow"), ("blue-2", "yellow"))
    assert len(outcome["public"]["moves"]) == 2
    assert state["spaces"]["blue:3"] == ["blue-2"]


def test_ruling_a_push_passes_straight_through_the_centre() -> None:
    """The route toward the mover's base is unique: out along this path, across the
    centre (one space), and in along the mover's path."""
    start = board(game(3, rolls=[1]), {"green:6": ["blue-1"], "green:7": ["yellow-1", "green-1"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"] == {"blue:6": ["yellow-1", "green-1", "blue-1"]}


def test_ruling_intermediate_spaces_of_a_push_are_jumped() -> None:
    """Only the space a pushed stack lands on matters; cubes it passes over stay put."""
    start = board(game(2, rolls=[1]), {"blue:7": ["blue-1"], "centre": ["yellow-1", "yellow-2"],
                                       "blue:6": ["yellow-3"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"] == {"blue:6": ["yellow-3"], "blue:5": ["yellow-1", "yellow-2", "blue-1"]}


def test_example_pushed_into_the_blue_base_yellows_finish_and_blue_must_re_enter() -> None:
    """A stack with two yellow cubes pushed into the blue base: the yellows have crossed
    the finish line; the blue cube stays in its base and needs an action to re-enter."""
    start = board(game(2, rolls=[1, 1, 1]), {"blue:1": ["blue-1"], "blue:2": ["yellow-1", "yellow-2"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"] == {}
    assert "yellow-1" in state["bases"]["blue"] and "yellow-2" in state["bases"]["blue"]
    view = ENGINE.view(state, None)
    assert view["bases"]["blue"]["finished"] == ["yellow-1", "yellow-2"]
    assert "blue-1" in view["bases"]["blue"]["home"]
    assert view["cubes"]["yellow-1"] == {"at": "base:blue", "level": None, "finished": True, "movable": False}
    assert view["players"][1]["finished"] == {"blue": 2}
    state = play(state, "p2", ("yellow-3", "blue"))
    state = play(state, "p1", ("blue-1", "yellow"))
    assert state["spaces"]["blue:1"] == ["blue-1"]


def test_rule_a_cube_in_its_own_base_may_move_and_re_enters_on_the_first_space() -> None:
    state = board(game(2, rolls=[1]), {})
    assert {m["cube"] for m in legal_moves(state, "blue")} == {f"blue-{n}" for n in range(1, 6)}
    outcome, after = turn(state, "p1", ("blue-3", "yellow"))
    assert after["spaces"] == {"blue:1": ["blue-3"]}
    assert outcome["public"]["moves"] == [
        {"cube": "blue-3", "toward": "yellow", "from": "base:blue", "to": "blue:1", "pushes": []}]


def test_rule_a_pushed_cube_goes_no_further_back_than_its_own_base() -> None:
    start = board(game(2, rolls=[1]), {"blue:1": ["blue-1"], "blue:2": ["yellow-1", "blue-2"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert sorted(state["bases"]["blue"]) == ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5", "yellow-1"]


def test_rule_no_stacking_in_a_base_a_yellow_entering_blue_base_is_not_stacked() -> None:
    start = board(game(2, rolls=[6, 1]), {"blue:1": ["yellow-1"]}, bases={"blue": ["yellow-2"]})
    state = play(start, "p1")
    state = play(state, "p2", ("yellow-1", "blue"))
    assert state["spaces"] == {} and sorted(state["bases"]["blue"])[-2:] == ["yellow-1", "yellow-2"]
    assert all(ENGINE.view(state, None)["cubes"][c]["level"] is None for c in ("yellow-1", "yellow-2"))


def test_rule_a_cube_in_another_colours_base_has_finished_and_cannot_move() -> None:
    state = board(game(2), {"blue:7": ["blue-2"]}, bases={"yellow": ["blue-1"]})
    assert "blue-1" not in {m["cube"] for m in legal_moves(state, "blue")}
    error = _rejects(state, "p1", ("blue-1", "yellow"))
    assert error.rule == RULE_FINISHED
    assert error.message == "move 1 (blue-1 toward yellow): blue-1 has finished and is out of play"


def test_rule_a_third_colour_carried_into_a_base_by_a_pushed_stack_finishes_there() -> None:
    start = board(game(3, rolls=[1]), {"blue:1": ["blue-1"], "blue:2": ["green-1", "yellow-1"]})
    state = play(start, "p1", ("blue-1", "green"))
    view = ENGINE.view(state, None)
    assert view["bases"]["blue"]["finished"] == ["green-1", "yellow-1"]
    assert view["players"][2]["finished"] == {"blue": 1, "yellow": 0}


def test_rule_a_player_with_no_movable_cube_loses_the_turns_actions() -> None:
    start = board(game(2, rolls=[4, 1]),
                  {"centre": ["blue-1", "yellow-1"], "yellow:2": ["blue-2", "yellow-2"]},
                  bases={"yellow": ["blue-3", "blue-4", "blue-5"]})
    phase = ENGINE.phase(start)
    assert phase is not None and phase.actors == ("p1",) and phase.awaiting == ()
    outcome, state = turn(start, "p1")
    assert outcome["public"]["source"] == "order" and outcome["public"]["moves"] == []
    outcome, _ = run_phase(ENGINE, start, "s", 1)
    assert outcome["public"]["source"] == "no movable cube"
    assert state["current"] == "yellow"


def test_ruling_own_cubes_count_for_stacking_and_pushing() -> None:
    start = board(game(2, rolls=[1]), {"blue:4": ["blue-1"], "blue:5": ["blue-2", "blue-3"]})
    state = play(start, "p1", ("blue-1", "yellow"))
    assert state["spaces"] == {"blue:2": ["blue-2", "blue-3", "blue-1"]}


def test_ruling_a_cube_may_turn_toward_another_base_in_play() -> None:
    start = board(game(3, rolls=[1]), {"yellow:3": ["blue-1"]})
    state = play(start, "p1", ("blue-1", "green"))
    assert state["spaces"] == {"yellow:4": ["blue-1"]}
