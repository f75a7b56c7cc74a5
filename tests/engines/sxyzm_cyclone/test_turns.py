"""The turn: the roll when it opens, the order, validation, defaults and turn order."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.driver import eject, player_list, run_phase, start, submit
from engines.sxyzm_cyclone import ENGINE
from engines.gate import LEFT, NOT_YOUR_TURN
from engines.sxyzm_cyclone.rules import RULE_ALL_ACTIONS, RULE_STACK_TOP

from tests.engines.sxyzm_cyclone.scenario import SEED, board, game, order, play, turn


def test_rule_one_die_roll_recorded_when_each_turn_opens() -> None:
    played = start(ENGINE, {"first_colour": "blue"}, player_list(2), "dice")
    state = played.final
    assert state["roll"] == played.setup["public"]["roll"]
    outcome, after = run_phase(ENGINE, state, "dice", 1)
    nxt = outcome["public"]["next"]
    assert nxt["colour"] == "yellow" and 1 <= nxt["roll"] <= 6 and after["roll"] == nxt["roll"]
    assert ENGINE.view(after, None)["current"]["roll"] == nxt["roll"]


def test_rule_rolls_are_fair_six_sided_dice() -> None:
    rolls = set()
    state = game(2, rolls=[])
    for number in range(1, 60):
        outcome, state = run_phase(ENGINE, state, SEED, number)
        rolls.add(outcome["public"]["next"]["roll"])
    assert rolls == {1, 2, 3, 4, 5, 6}


def test_option_fixed_rolls_are_used_first() -> None:
    state = game(2, rolls=[3, 5])
    assert state["roll"] == 3
    outcome, state = run_phase(ENGINE, state, SEED, 1)
    assert outcome["public"]["next"]["roll"] == 5


def test_ruling_turns_go_clockwise_blue_yellow_green_red_skipping_absent_colours() -> None:
    state = game(4, first_colour="green")
    seen = []
    for number in range(1, 6):
        seen.append(state["current"])
        _, state = run_phase(ENGINE, state, SEED, number)
    assert seen == ["green", "red", "blue", "yellow", "green"]


def test_phase_is_the_current_players_turn() -> None:
    phase = ENGINE.phase(game(3))
    assert phase is not None
    shape = (phase.name, phase.actors, phase.awaiting, phase.sealed, phase.round)
    assert shape == ("turn", ("p1",), ("p1",), False, 1)
    assert ENGINE.default_deadlines["turn"] == 86400


def test_rule_one_player_acts_at_a_time_others_get_409() -> None:
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, game(2), "p2", order(("yellow-5", "blue")))
    assert caught.value.status == 409 and caught.value.rule == NOT_YOUR_TURN
    assert caught.value.message == "It is p1's turn, not yours."


def test_ruling_an_ejected_player_is_told_they_were_ejected_not_to_wait_their_turn() -> None:
    """The current player (p1) and a waiting one (p2), both ejected, hear the same reason."""
    for player, cube in (("p1", "blue-5"), ("p2", "yellow-5")):
        state = eject(ENGINE, game(3), player)
        with pytest.raises(RuleError) as caught:
            submit(ENGINE, state, player, order((cube, "green")), departed=[player])
        assert caught.value.status == 409 and caught.value.rule == LEFT
        assert "You have left this game" in caught.value.message and "turn" not in caught.value.message
    prompt = ENGINE.phase(eject(ENGINE, game(3), "p1")).prompt
    assert prompt == "Turn 1: Player 1 (blue) has been ejected; the turn is skipped."


def test_prompt_says_up_to_or_exactly_the_roll_by_the_unused_actions_option() -> None:
    assert ENGINE.phase(game(2, rolls=[3])).prompt == "Turn 1: Player 1 (blue) rolled 3; send up to 3 moves."
    strict = ENGINE.phase(game(2, rolls=[1], allow_unused_actions=False)).prompt
    assert strict.startswith("Turn 1: Player 1 (blue) rolled 1; send exactly 1 move (fewer only if")


def test_submitted_turn_empties_awaiting_and_may_be_replaced() -> None:
    state = submit(ENGINE, game(2), "p1", order(("blue-5", "yellow")))
    assert ENGINE.phase(state).awaiting == ()
    state = submit(ENGINE, state, "p1", order(("blue-4", "yellow")))
    _, state = run_phase(ENGINE, state, SEED, 1)
    assert state["spaces"]["blue:5"] == ["blue-5", "blue-4"]


def test_each_move_is_checked_against_the_position_after_the_moves_before_it() -> None:
    state = board(game(2, rolls=[2]), {"centre": ["blue-1", "blue-2"]})
    with pytest.raises(RuleError):
        submit(ENGINE, state, "p1", order(("blue-1", "yellow")))
    state = play(state, "p1", ("blue-2", "yellow"), ("blue-1", "yellow"))
    assert state["spaces"]["yellow:7"] == ["blue-2", "blue-1"]


def test_a_rejected_order_names_the_move_the_cube_and_the_rule() -> None:
    state = board(game(2, rolls=[3]), {"centre": ["blue-1", "blue-2"]})
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, state, "p1", order(("blue-3", "yellow"), ("blue-1", "yellow")))
    error = caught.value
    assert error.status == 422 and error.rule == RULE_STACK_TOP
    assert error.message.startswith("move 2 (blue-1 toward yellow)")
    assert error.details == {"move": 2, "cube": "blue-1", "toward": "yellow"}


def test_schema_rejects_unknown_cubes_and_fields() -> None:
    from marshmallow import ValidationError
    for bad in ({"moves": [{"cube": "blue-6", "toward": "yellow"}]},
                {"moves": [{"cube": "blue-1", "toward": "yellow", "steps": 2}]}, {}):
        with pytest.raises(ValidationError):
            submit(ENGINE, game(2), "p1", {"type": "turn", **bad})


def test_ruling_actions_may_be_left_unused_by_default() -> None:
    outcome, state = turn(game(2, rolls=[4]), "p1", ("blue-5", "yellow"))
    assert len(outcome["public"]["moves"]) == 1 and state["current"] == "yellow"


def test_option_every_action_must_be_used_while_a_cube_can_move() -> None:
    state = game(2, rolls=[2], allow_unused_actions=False)
    with pytest.raises(RuleError) as caught:
        submit(ENGINE, state, "p1", order(("blue-5", "yellow")))
    assert caught.value.rule == RULE_ALL_ACTIONS
    stuck = board(game(3, rolls=[3], allow_unused_actions=False),
                  {"yellow:1": ["blue-1"], "centre": ["blue-3", "blue-4", "blue-5", "green-1"]},
                  bases={"green": ["blue-2"]})
    submit(ENGINE, stuck, "p1", order(("blue-1", "yellow")))  # blue-1 finishes: no cube left to move


def test_ruling_missed_deadline_passes_by_default() -> None:
    outcome, state = run_phase(ENGINE, game(2), SEED, 1)
    assert outcome["public"]["source"] == "missed: pass" and outcome["public"]["moves"] == []
    assert state["spaces"] == game(2)["spaces"] and state["current"] == "yellow"


def test_option_missed_deadline_plays_random_legal_moves_recorded_in_the_outcome() -> None:
    state = game(3, rolls=[4], missed_turn="random")
    outcome, after = run_phase(ENGINE, state, SEED, 1)
    assert outcome["public"]["source"] == "missed: random" and len(outcome["public"]["moves"]) == 4
    again = ENGINE.apply_outcome(state, outcome)
    assert again == after
    assert after["spaces"] != state["spaces"]


def test_ruling_ejected_players_turns_are_skipped() -> None:
    state = eject(ENGINE, game(3), "p2")
    _, state = run_phase(ENGINE, state, SEED, 1)
    assert state["current"] == "green"
    ejected_turn = eject(ENGINE, game(3), "p1")
    phase = ENGINE.phase(ejected_turn)
    assert phase.actors == () and phase.awaiting == ()
    outcome, state = run_phase(ENGINE, ejected_turn, SEED, 1)
    assert outcome["public"]["source"] == "ejected" and state["current"] == "yellow"


def test_ruling_last_player_left_after_ejections_wins() -> None:
    state = eject(ENGINE, eject(ENGINE, game(3), "p1"), "p3")
    assert ENGINE.phase(state) is None
    assert ENGINE.result(state)["winners"] == ["p2"] and ENGINE.result(state)["ended"] == "ejections"


def test_view_shows_legal_moves_only_to_the_current_player() -> None:
    state = game(2)
    mine = ENGINE.view(state, "p1")["legal_moves"]
    assert mine["roll"] == 6
    assert {"cube": "blue-5", "toward": "yellow", "also_toward": [], "from": "blue:5", "to": "blue:6",
            "ends_at": "blue:6", "pushes": [], "finishes": []} in mine["moves"]
    assert "legal_moves" not in ENGINE.view(state, "p2")
    assert "legal_moves" not in ENGINE.view(state, None)


def test_legal_moves_show_where_each_move_ends_what_it_pushes_and_what_finishes() -> None:
    """The hint plays each move on a copy: a push is shown with its landing and the cubes it finishes."""
    start = board(game(2, rolls=[1]), {"blue:7": ["blue-1"], "centre": ["yellow-1", "yellow-2"],
                                       "blue:1": ["blue-2"], "blue:2": ["yellow-3", "yellow-4"]})
    moves = {m["cube"]: m for m in ENGINE.view(start, "p1")["legal_moves"]["moves"]}
    push = moves["blue-1"]
    assert (push["from"], push["to"], push["ends_at"]) == ("blue:7", "centre", "blue:5")
    assert push["pushes"] == [{"stack": ["yellow-1", "yellow-2", "blue-1"], "to": "blue:5"}]
    home = moves["blue-2"]
    assert (home["to"], home["ends_at"]) == ("blue:2", "base:blue")
    assert home["finishes"] == ["yellow-3", "yellow-4"]
    assert start["spaces"]["centre"] == ["yellow-1", "yellow-2"], "the hint leaves the state alone"


def test_legal_moves_list_a_move_with_the_same_route_to_several_bases_once() -> None:
    """3 players, opening: each blue cube steps to the same space toward yellow or green,
    so 5 moves are shown (not 10); from the centre the routes differ and both are shown."""
    moves = ENGINE.view(game(3), "p1")["legal_moves"]["moves"]
    assert [(m["cube"], m["toward"], m["also_toward"]) for m in moves] == [
        (f"blue-{n}", "yellow", ["green"]) for n in range(1, 6)]
    split = ENGINE.view(board(game(3), {"centre": ["blue-1"]}), "p1")["legal_moves"]["moves"]
    from_centre = [(m["toward"], m["to"], m["also_toward"]) for m in split if m["cube"] == "blue-1"]
    assert from_centre == [("yellow", "yellow:7", []), ("green", "green:7", [])]


def test_view_shows_every_cube_stacks_bottom_to_top_and_bases() -> None:
    state = board(game(2), {"centre": ["yellow-1", "blue-1"]}, bases={"yellow": ["blue-2"]})
    view = ENGINE.view(state, None)
    assert view["centre"] == ["yellow-1", "blue-1"]
    assert view["cubes"]["yellow-1"] == {"at": "centre", "level": 0, "finished": False, "movable": False}
    assert view["cubes"]["blue-1"]["movable"] is True
    home = ["yellow-2", "yellow-3", "yellow-4", "yellow-5"]
    assert view["bases"]["yellow"] == {"home": home, "finished": ["blue-2"]}
    assert "centre [yellow-1,blue-1]  (stacks are listed bottom to top)" in view["diagram"]
    assert len(view["cubes"]) == 10


def test_ruling_an_ejected_players_cubes_stay_as_obstacles() -> None:
    start = board(game(3, rolls=[1]), {"blue:7": ["blue-1"], "centre": ["yellow-1", "yellow-2"]})
    state = eject(ENGINE, start, "p2")
    state = play(state, "p1", ("blue-1", "yellow"))
    assert state["spaces"] == {"blue:5": ["yellow-1", "yellow-2", "blue-1"]}
    assert ENGINE.view(state, None)["players"][1]["ejected"] is True


def test_ruling_win_conditions_count_the_players_at_the_start() -> None:
    """With green ejected, blue and yellow still play for three cubes in one base (not five)."""
    start = board(game(3, rolls=[1]), {"yellow:1": ["blue-1"]}, bases={"yellow": ["blue-2", "blue-3"]})
    state = eject(ENGINE, start, "p3")
    _, state = turn(state, "p1", ("blue-1", "yellow"))
    assert ENGINE.result(state)["winners"] == ["p1"]


def test_gm_view_shows_the_current_players_legal_moves() -> None:
    assert ENGINE.view(game(2), "gm")["legal_moves"]["roll"] == 6
