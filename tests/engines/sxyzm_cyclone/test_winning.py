"""Winning the game, per player count, and how a win ends the game."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.driver import eject, submit
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.engine import RULE_WON
from engines.sxyzm_cyclone.rules import has_won

from tests.engines.sxyzm_cyclone.scenario import board, game, order, turn


def _finished(players: int, **bases: list[str]) -> dict:
    return board(game(players), {}, bases=bases)


def test_rule_two_players_win_with_all_five_cubes_in_the_other_base() -> None:
    """Two players: blue must get all five blue cubes to the yellow base."""
    five = [f"blue-{n}" for n in range(1, 6)]
    assert has_won(_finished(2, yellow=five), "blue")
    assert not has_won(_finished(2, yellow=five[:4]), "blue")


def test_rule_three_players_win_with_three_in_one_opponents_base() -> None:
    assert has_won(_finished(3, yellow=["blue-1", "blue-2", "blue-3"]), "blue")
    assert has_won(_finished(3, green=["blue-1", "blue-2", "blue-3"]), "blue")


def test_rule_three_players_win_with_two_in_each_opponents_base() -> None:
    assert has_won(_finished(3, yellow=["blue-1", "blue-2"], green=["blue-3", "blue-4"]), "blue")
    assert not has_won(_finished(3, yellow=["blue-1", "blue-2"], green=["blue-3"]), "blue")


def test_rule_four_players_win_with_three_in_one_opponents_base() -> None:
    assert has_won(_finished(4, red=["blue-1", "blue-2", "blue-3"]), "blue")
    assert not has_won(_finished(4, red=["blue-1", "blue-2"], green=["blue-3", "blue-4"]), "blue")


def test_rule_four_players_win_with_one_in_each_opponents_base() -> None:
    """Blue wins with one cube in each of the yellow, red and green bases."""
    assert has_won(_finished(4, yellow=["blue-1"], red=["blue-2"], green=["blue-3"]), "blue")
    assert not has_won(_finished(4, yellow=["blue-1"], red=["blue-2"]), "blue")


def test_rule_another_colours_cubes_in_a_base_do_not_count_for_you() -> None:
    assert not has_won(_finished(3, yellow=["green-1", "green-2", "green-3"]), "blue")


def test_ruling_the_game_ends_with_the_winning_action_and_later_moves_are_refused() -> None:
    """The win is checked after every action: an order with moves after the winning one is
    refused, naming the first of them; the order that stops at the win ends the game."""
    start = board(game(3, rolls=[3]), {"yellow:1": ["blue-5"], "blue:3": ["blue-1"]},
                  bases={"yellow": ["blue-2", "blue-3"]})
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, start, "p1", order(("blue-5", "yellow"), ("yellow-1", "blue"), ("blue-5", "blue")))
    error = caught.value
    assert error.rule == RULE_WON and error.status == 422
    assert error.message.startswith("move 2 (yellow-1 toward blue): the game is over after move 1 (blue-5 toward")
    assert error.details == {"move": 2, "cube": "yellow-1", "toward": "blue"}
    outcome, state = turn(start, "p1", ("blue-5", "yellow"))
    assert [m["cube"] for m in outcome["public"]["moves"]] == ["blue-5"]
    assert outcome["public"]["ended"] == "win" and outcome["public"]["next"] is None
    assert ENGINE.phase(state) is None and state["spaces"]["blue:3"] == ["blue-1"]


def test_ruling_a_push_that_wins_for_another_player_also_ends_theorder() -> None:
    start = board(game(3, rolls=[2]), {"blue:1": ["blue-1"], "blue:2": ["green-1", "green-2"], "blue:5": ["blue-2"]},
                  bases={"yellow": ["green-3", "green-4"]})
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, start, "p1", order(("blue-1", "yellow"), ("blue-2", "yellow")))
    assert caught.value.rule == RULE_WON and caught.value.details["move"] == 2


def test_rule_two_player_game_won_through_the_api_with_a_result() -> None:
    start = board(game(2, rolls=[1]), {"yellow:1": ["blue-5"]},
                  bases={"yellow": ["blue-1", "blue-2", "blue-3", "blue-4"]})
    _, state = turn(start, "p1", ("blue-5", "yellow"))
    result = ENGINE.result(state)
    assert result["winners"] == ["p1"] and result["winning_colours"] == ["blue"] and not result["draw"]
    assert result["standings"][0]["id"] == "p1" and result["standings"][0]["finished"] == {"yellow": 5}
    assert ENGINE.view(state, "p2")["result"] == result


def _won_by_a_played_turn(players: int, spaces: dict, bases: dict, *moves: tuple[str, str]) -> dict:
    """Play blue's turn through the engine (order, resolve, outcome) and return the result;
    the position before the last move must not already be a win."""
    start = board(game(players, rolls=[len(moves)]), spaces, bases=bases)
    assert not has_won(start, "blue")
    outcome, state = turn(start, "p1", *moves)
    assert outcome["public"]["ended"] == "win" and outcome["public"]["winners"] == ["p1"]
    assert ENGINE.phase(state) is None
    return ENGINE.result(state)


def test_rule_three_players_win_by_a_played_turn_three_in_one_base() -> None:
    result = _won_by_a_played_turn(3, {"green:1": ["blue-3"]}, {"green": ["blue-1", "blue-2"]},
                                   ("blue-3", "green"))
    assert result["winning_colours"] == ["blue"] and result["standings"][0]["finished"] == {"yellow": 0, "green": 3}


def test_rule_three_players_win_by_a_played_turn_two_in_each_base() -> None:
    result = _won_by_a_played_turn(3, {"yellow:2": ["blue-3"], "green:1": ["blue-4"]},
                                   {"yellow": ["blue-1"], "green": ["blue-2"]},
                                   ("blue-3", "yellow"), ("blue-3", "yellow"), ("blue-4", "green"))
    assert result["standings"][0]["finished"] == {"yellow": 2, "green": 2}


def test_rule_four_players_win_by_a_played_turn_three_in_one_base() -> None:
    result = _won_by_a_played_turn(4, {"red:1": ["blue-3"]}, {"red": ["blue-1", "blue-2"], "yellow": ["blue-4"]},
                                   ("blue-3", "red"))
    assert result["standings"][0]["finished"] == {"yellow": 1, "green": 0, "red": 3}


def test_rule_four_players_win_by_a_played_turn_one_in_each_of_the_three_bases() -> None:
    result = _won_by_a_played_turn(4, {"green:1": ["blue-3"], "red:1": ["blue-4"]}, {"yellow": ["blue-1"]},
                                   ("blue-3", "green"), ("blue-4", "red"))
    assert result["standings"][0]["finished"] == {"yellow": 1, "green": 1, "red": 1}


def test_ruling_a_push_can_win_the_game_for_another_player() -> None:
    """Cubes carried into the mover's base finish for their owners, who may win on it."""
    start = board(game(3, rolls=[1]), {"blue:1": ["blue-1"], "blue:2": ["green-1", "green-2"]},
                  bases={"yellow": ["green-3", "green-4"]})
    outcome, state = turn(start, "p1", ("blue-1", "yellow"))
    assert outcome["public"]["winners"] == ["p3"]
    assert ENGINE.result(state)["winning_colours"] == ["green"]


def test_ruling_an_ejected_player_cannot_win() -> None:
    """Ruling 14: blue's push carries two green cubes into the blue base, which gives green two in
    each opponent's base (a three-player win); green's player was ejected, so nobody wins, the
    game goes on and a move after the push is allowed."""
    start = board(game(3, rolls=[2]), {"blue:1": ["blue-1"], "blue:2": ["green-1", "green-2"], "blue:5": ["blue-2"]},
                  bases={"yellow": ["green-3", "green-4"]})
    state = eject(ENGINE, start, "p3")
    outcome, state = turn(state, "p1", ("blue-1", "yellow"), ("blue-2", "yellow"))
    assert outcome["public"]["winners"] == [] and outcome["public"]["ended"] is None
    assert {"green-1", "green-2"} <= set(state["bases"]["blue"]) and state["spaces"]["blue:6"] == ["blue-2"]
    assert ENGINE.phase(state) is not None and state["current"] == "yellow"


def test_option_max_turns_ends_the_game_in_a_draw() -> None:
    state = game(2, max_turns=2)
    _, state = turn(state, "p1", ("blue-5", "yellow"))
    _, state = turn(state, "p2", ("yellow-5", "blue"), number=2)
    assert ENGINE.phase(state) is None
    result = ENGINE.result(state)
    assert result["draw"] and result["winners"] == [] and result["ended"] == "turn limit"
