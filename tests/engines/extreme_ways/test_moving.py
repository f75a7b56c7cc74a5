"""The Moving Phase: one submission, randomised gaps, the Rebound Token twist."""
from __future__ import annotations

import pytest

from engines.driver import eject
from engines.contract import RuleError
from engines.extreme_ways import ENGINE, rules
from engines.extreme_ways.resolution import resolve as resolve_outcome
from engines.rng import Rng

from tests.engines.extreme_ways.helpers import (
    act, axis_round, example_round, move_all, new_game, one_round_game, pass_all_bidding, resolve,
)


def _two_round_game(players: int, options: dict | None = None) -> dict:
    opts = {"bidding_rounds": 2, "rounds": [axis_round(), axis_round()], **(options or {})}
    return pass_all_bidding(new_game(players, opts))


def test_rule_moving_phase_is_one_sealed_submission_of_an_option_per_round() -> None:
    state = _two_round_game(2)
    phase = ENGINE.phase(state)
    assert (phase.name, phase.sealed, phase.awaiting) == ("moving", True, ("p1", "p2"))
    assert ENGINE.default_deadlines["moving"] == 2 * 86400
    outcome, after = move_all(state, {"p1": ["A", "C"], "p2": ["B", "B"]})
    assert outcome["public"]["positions"] == {"p1": [5, 2], "p2": [-6, 0]}
    assert outcome["public"]["distances"] == {"p1": 7, "p2": 6}


def test_rule_the_submission_names_every_round() -> None:
    with pytest.raises(RuleError) as err:
        act(_two_round_game(2), "p1", {"type": "move", "options": ["A"]})
    assert err.value.rule == "moving phase"


def test_rule_a_resubmission_replaces_the_first() -> None:
    state = act(_two_round_game(2), "p1", {"type": "move", "options": ["A", "A"]})
    outcome, _ = move_all(state, {"p1": ["B", "B"], "p2": ["A", "A"]})
    assert outcome["public"]["positions"]["p1"] == [-6, 0]


def test_rule_missing_options_are_randomised_from_the_seed_and_recorded() -> None:
    state = act(_two_round_game(2), "p1", {"type": "move", "options": ["A", None]})
    outcome, _ = resolve(state, 5)
    assert list(outcome["private"]["p1"]["randomised"]) == ["2"]
    assert sorted(outcome["private"]["p2"]["randomised"]) == ["1", "2"], "no submission: all randomised"
    assert outcome["private"]["p1"]["options"][0] == "A"
    again, _ = resolve(state, 5)
    assert again == outcome


@pytest.mark.parametrize("seed", ["a", "b", "c"])
@pytest.mark.parametrize("rebound", [False, True])
def test_rule_missing_options_are_randomised_each_from_the_players_own_stream(seed: str, rebound: bool) -> None:
    """Moving Phase: "if you fail to submit an Option for a round, you will automatically randomly select one".
    A player's missing rounds are drawn in round order from ``fork("options", player)`` of the phase's stream,
    so one player's gaps never change another's; the round a Rebound Token replaces is not randomised."""
    state = new_game(5, {"bidding_rounds": 3, "move_range": 1, "rebound_twist": rebound})
    ids = state["players"]
    gaps = {"p1": [], "p2": [0], "p3": [1, 2], "p4": [0, 1, 2], "p5": [2]}
    moves = {}
    for index, p in enumerate(ids):
        options: list[str | None] = [rules.OPTIONS[(index + n) % 4] for n in range(3)]
        for gap in gaps[p]:
            options[gap] = None
        use = {"round": 3, "player_id": ids[index - 1]} if rebound and index % 2 else None
        moves[p] = {"options": options, "rebound": use}
    state = {**state, "stage": "moving", "round": None, "moves": moves}
    outcome = resolve_outcome(state, Rng(seed, "phase", 4))
    for p in ids:
        stream, use = Rng(seed, "phase", 4).fork("options", p), moves[p]["rebound"]
        drawn = {str(n + 1): stream.choice(rules.OPTIONS) for n, letter in enumerate(moves[p]["options"])
                 if letter is None and not (use and use["round"] == n + 1)}
        assert outcome["private"][p]["randomised"] == drawn
        played = [drawn.get(str(n + 1), letter) for n, letter in enumerate(moves[p]["options"])]
        assert outcome["private"][p]["options"] == played


def test_clarification_final_positions_and_gold_revealed_not_intermediate_ones() -> None:
    state = _two_round_game(6)
    before = ENGINE.view(state, "p1")
    assert before["results"] is None
    letters = {"p1": ["A", "A"], "p2": ["B", "B"], "p3": ["C", "C"], "p4": ["D", "D"],
               "p5": ["C", "D"], "p6": ["C", "D"]}
    outcome, after = move_all(state, letters)
    assert ENGINE.phase(after).name == "ec_vote", "p5 and p6 tie at distance 1"
    seen = ENGINE.view(after, "p5")
    assert seen["results"]["positions"]["p1"] == [10, 0]
    assert seen["results"]["gold"]["p1"] == 50
    assert "hidden" not in seen and "paths" not in str(seen), "no intermediate coordinates"
    assert "paths" in outcome["secret"]


def test_twist_rebound_token_is_off_by_default() -> None:
    with pytest.raises(RuleError) as err:
        act(_two_round_game(2), "p1", {"type": "move", "options": ["A", "A"],
                                       "rebound": {"round": 1, "player_id": "p2"}})
    assert err.value.rule == "rebound token"


def test_twist_rebound_moves_opposite_about_the_chosen_players_start_of_round() -> None:
    """p1 flies A, A; p2 flies C then rebounds about p1 at (5, 0): (0, 2) -> (10, -2)."""
    state = _two_round_game(2, {"rebound_twist": True})
    state = act(state, "p1", {"type": "move", "options": ["A", "A"]})
    state = act(state, "p2", {"type": "move", "options": ["C", "D"],
                              "rebound": {"round": 2, "player_id": "p1"}})
    assert state["moves"]["p2"]["options"] == ["C", None], "the rebound replaces round 2's move"
    outcome, _ = resolve(state, 9)
    assert outcome["public"]["positions"] == {"p1": [10, 0], "p2": [10, -2]}


def test_twist_rebound_about_another_player_in_a_real_round() -> None:
    state = _two_round_game(3, {"rebound_twist": True})
    for bad in ({"round": 1, "player_id": "p1"}, {"round": 3, "player_id": "p2"},
                {"round": 1, "player_id": "nobody"}):
        with pytest.raises(RuleError):
            act(state, "p1", {"type": "move", "options": ["A", "A"], "rebound": bad})


def test_move_is_an_order_of_the_moving_phase_only() -> None:
    with pytest.raises(RuleError) as err:
        act(new_game(2), "p1", {"type": "move", "options": ["A"] * 7})
    assert err.value.status == 409


def test_one_round_game_reaches_axis_positions() -> None:
    outcome, _ = move_all(one_round_game(4), {"p1": ["A"], "p2": ["B"], "p3": ["C"], "p4": ["D"]})
    assert outcome["public"]["positions"] == {"p1": [5, 0], "p2": [-3, 0], "p3": [0, 2], "p4": [0, -1]}


def test_ruling_ejected_players_stay_at_odin_and_leave_the_standings() -> None:
    """A rebound about a player ejected after the submission reflects about (0, 0)."""
    state = _two_round_game(3, {"rebound_twist": True})
    state = act(state, "p1", {"type": "move", "options": ["A", None],
                              "rebound": {"round": 2, "player_id": "p3"}})
    state = act(state, "p2", {"type": "move", "options": ["B", "B"]})
    state = act(state, "p3", {"type": "move", "options": ["C", "C"]})
    state = eject(ENGINE, state, "p3")
    assert ENGINE.phase(state).awaiting == ()
    outcome, after = resolve(state, 9)
    assert outcome["public"]["positions"] == {"p1": [-5, 0], "p2": [-6, 0]}
    assert [s["player_id"] for s in ENGINE.result(after)["standings"]] == ["p2", "p1"]
    assert ENGINE.result(after)["ejected"] == ["p3"]


def test_example_rebound_from_0_0_about_5_5_to_10_10_in_a_moving_phase() -> None:
    """Twist example played through a game: p1 flies (1, 1) then (-1, -1), back at (0, 0);
    p2 flies (2, 2) then (3, 3) to (5, 5); in round 3 p1 rebounds about p2 and lands on
    (10, 10) while p2 moves on: the reflection uses p2's start-of-round position."""
    rounds = [example_round({"A": 0, "B": 0, "C": 0, "D": 0}),
              example_round({"A": 2, "B": 0, "C": 0, "D": 0}),
              example_round({"A": 0, "B": 0, "C": 0, "D": 0})]
    state = pass_all_bidding(new_game(2, {"bidding_rounds": 3, "rounds": rounds, "rebound_twist": True}))
    state = act(state, "p1", {"type": "move", "options": ["A", "A", "B"],
                              "rebound": {"round": 3, "player_id": "p2"}})
    state = act(state, "p2", {"type": "move", "options": ["B", "C", "D"]})
    outcome, _ = resolve(state, 9)
    assert outcome["secret"]["paths"] == {"p1": [[0, 0], [1, 1], [0, 0], [10, 10]],
                                          "p2": [[0, 0], [2, 2], [5, 5], [9, 9]]}
    assert outcome["public"]["positions"] == {"p1": [10, 10], "p2": [9, 9]}


def test_example_option_set_played_through_the_moving_phase() -> None:
    """The earlier text's example options 1-4 (A-D) as one GM-fixed round: each player moves
    by their option's true move; p4 wins two extremes and so two Tokens of Life."""
    trues = {"A": 0, "B": 1, "C": 2, "D": 3}
    state = pass_all_bidding(new_game(4, {"bidding_rounds": 1, "rounds": [example_round(trues)]}))
    outcome, after = move_all(state, {"p1": ["A"], "p2": ["B"], "p3": ["C"], "p4": ["D"]})
    assert outcome["public"]["positions"] == {"p1": [1, 1], "p2": [-2, 2], "p3": [-3, -3], "p4": [4, -4]}
    assert outcome["public"]["tokens_of_life"] == {
        "highest_x": "p4", "lowest_x": "p3", "highest_y": "p2", "lowest_y": "p4"}
    assert outcome["public"]["tokens"] == {"p1": 0, "p2": 1, "p3": 1, "p4": 2}
    assert ENGINE.result(after)["elimination_candidate"] == "p1"
