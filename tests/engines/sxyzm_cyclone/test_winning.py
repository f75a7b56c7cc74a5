"""Winning the game, per player count, and how a win ends the game."""
from __future__ import annotations

from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.rules import has_won

from tests.engines.sxyzm_cyclone.scenario import board, game, turn


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


def test_ruling_a_winning_action_ends_the_game_at_once() -> None:
    """The win is checked after every action; moves after it in the order are not played."""
    start = board(game(3, rolls=[3]), {"yellow:1": ["blue-5"], "blue:3": ["blue-1"]},
                  bases={"yellow": ["blue-2", "blue-3"]})
    outcome, state = turn(start, "p1", ("blue-5", "yellow"), ("blue-1", "yellow"), ("blue-1", "yellow"))
    assert [m["cube"] for m in outcome["public"]["moves"]] == ["blue-5"]
    assert outcome["public"]["ended"] == "win" and outcome["public"]["next"] is None
    assert ENGINE.phase(state) is None
    assert state["spaces"]["blue:3"] == ["blue-1"]


def test_rule_two_player_game_won_through_the_api_with_a_result() -> None:
    start = board(game(2, rolls=[1]), {"yellow:1": ["blue-5"]},
                  bases={"yellow": ["blue-1", "blue-2", "blue-3", "blue-4"]})
    _, state = turn(start, "p1", ("blue-5", "yellow"))
    result = ENGINE.result(state)
    assert result["winners"] == ["p1"] and result["winning_colours"] == ["blue"] and not result["draw"]
    assert result["standings"][0]["id"] == "p1" and result["standings"][0]["finished"] == {"yellow": 5}
    assert ENGINE.view(state, "p2")["result"] == result


def test_ruling_a_push_can_win_the_game_for_another_player() -> None:
    """Cubes carried into the mover's base finish for their owners, who may win on it."""
    start = board(game(3, rolls=[1]), {"blue:1": ["blue-1"], "blue:2": ["green-1", "green-2"]},
                  bases={"yellow": ["green-3", "green-4"]})
    outcome, state = turn(start, "p1", ("blue-1", "yellow"))
    assert outcome["public"]["winners"] == ["p3"]
    assert ENGINE.result(state)["winning_colours"] == ["green"]


def test_option_max_turns_ends_the_game_in_a_draw() -> None:
    state = game(2, max_turns=2)
    _, state = turn(state, "p1", ("blue-5", "yellow"))
    _, state = turn(state, "p2", ("yellow-5", "blue"), number=2)
    assert ENGINE.phase(state) is None
    result = ENGINE.result(state)
    assert result["draw"] and result["winners"] == [] and result["ended"] == "turn limit"
