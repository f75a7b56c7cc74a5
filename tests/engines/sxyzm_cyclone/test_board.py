"""Setup rules and the board model (sides, paths, centre, colours, first player)."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.driver import player_list, start
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.board import next_toward
from engines.sxyzm_cyclone.turns import RULE_FIRST, RULE_SIDE

from tests.engines.sxyzm_cyclone.scenario import game


def test_setup_rule_two_players_use_the_two_colour_side() -> None:
    state = game(2)
    assert state["side"] == "two-colour"
    assert state["colours"] == ["blue", "yellow"]
    assert set(ENGINE.view(state, None)["paths"]) == {"blue", "yellow"}


def test_setup_rule_two_to_four_players_on_the_four_colour_side() -> None:
    assert game(2, side="four-colour")["side"] == "four-colour"
    assert game(3)["colours"] == ["blue", "yellow", "green"]
    assert game(4)["colours"] == ["blue", "yellow", "green", "red"]


@pytest.mark.parametrize("players", [3, 4])
def test_ruling_two_colour_side_with_three_or_four_players_refuses_the_start(players: int) -> None:
    """Setup rule: the two-colour side is for 2 players; forcing it on more is an error, not a silent switch."""
    with pytest.raises(RuleError) as caught:
        game(players, side="two-colour")
    assert caught.value.rule == RULE_SIDE
    assert "two-colour side seats 2 players" in caught.value.message
    assert game(2, side="two-colour")["side"] == "two-colour"


@pytest.mark.parametrize("players,colour", [(2, "green"), (3, "red")])
def test_ruling_first_colour_not_in_play_refuses_the_start(players: int, colour: str) -> None:
    with pytest.raises(RuleError) as caught:
        game(players, first_colour=colour)
    assert caught.value.rule == RULE_FIRST and f"first_colour {colour} is not in play" in caught.value.message
    assert caught.value.details["first_colour"] == colour


def test_setup_example_five_spaces_nearest_each_base_hold_one_cube() -> None:
    """The five spaces nearest the blue base each have one blue cube (and so for yellow)."""
    state = game(2)
    for colour in ("blue", "yellow"):
        for n in range(1, 6):
            assert state["spaces"][f"{colour}:{n}"] == [f"{colour}-{n}"]
    assert len(state["spaces"]) == 10
    assert state["bases"] == {"blue": [], "yellow": []}


def test_rule_paths_of_colours_not_in_play_are_closed() -> None:
    paths = ENGINE.view(game(3), None)["paths"]
    assert paths["red"] == {"open": False, "spaces": []}
    assert paths["green"]["open"] and len(paths["green"]["spaces"]) == 7


def test_ruling_requested_colours_are_honoured_then_free_colours_in_order() -> None:
    state = game(3, fields=[{}, {"colour": "red"}, {"colour": "red"}])
    assert {p["id"]: p["colour"] for p in state["players"]} == {"p1": "blue", "p2": "red", "p3": "yellow"}
    assert state["colours"] == ["blue", "yellow", "red"]


def test_ruling_two_colour_side_ignores_requests_for_green_or_red() -> None:
    state = game(2, fields=[{"colour": "green"}, {}])
    assert [p["colour"] for p in state["players"]] == ["blue", "yellow"]


def test_ruling_first_player_drawn_from_the_seed_and_recorded() -> None:
    firsts = set()
    for seed in ("a", "b", "c", "d", "e", "f", "g", "h"):
        played = start(ENGINE, {}, player_list(4), seed)
        assert played.final["current"] == played.setup["public"]["first"]
        assert 1 <= played.setup["public"]["roll"] <= 6
        firsts.add(played.setup["public"]["first"])
    assert len(firsts) > 1


def test_option_first_colour_fixes_the_first_player() -> None:
    assert game(3, first_colour="green")["current"] == "green"


def test_board_route_runs_out_to_the_centre_and_in_to_the_target_base() -> None:
    assert next_toward("base:blue", "yellow", 7) == "blue:1"
    assert next_toward("blue:6", "yellow", 7) == "blue:7"
    assert next_toward("blue:7", "yellow", 7) == "centre"
    assert next_toward("centre", "yellow", 7) == "yellow:7"
    assert next_toward("yellow:2", "yellow", 7) == "yellow:1"
    assert next_toward("yellow:1", "yellow", 7) == "base:yellow"
    assert next_toward("green:3", "yellow", 7) == "green:4"


def test_option_path_length_sets_the_board_size() -> None:
    state = game(2, path_length=10)
    view = ENGINE.view(state, None)
    assert [s["space"] for s in view["paths"]["blue"]["spaces"]][-1] == "blue:10"
