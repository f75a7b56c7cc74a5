"""Handbook sections Basics, Turn order, Stealing steps and Tie-breaking vote (its purchase)."""
from __future__ import annotations

import pytest

from engines.contract import GM, PUBLIC, RuleError
from engines.rng import Rng
from engines.strategic_aspect import ENGINE, rules

from .helpers import effects, new, resolve, send, turn, with_


def test_rule_basics_every_cyclist_starts_on_space_0_with_thirty_steps() -> None:
    state = new(5)
    assert set(state["position"].values()) == {0}
    assert set(state["steps"].values()) == {30}
    assert state["cycle"]["length"] == 30 and state["cycle"]["kind"] == "normal"


@pytest.mark.parametrize("spaces, change", [(1, 1), (2, 2), (3, 3), (4, -1), (5, -3), (6, -6)])
def test_rule_basics_the_six_moves_earn_or_spend_steps(spaces: int, change: int) -> None:
    state = send(turn(new(), "p1", at=4), "p1", "move", spaces=spaces)
    outcome, after = resolve(state)
    assert effects(outcome, "move")[0] == {"do": "move", "cyclist": "p1", "spaces": spaces, "from": 4,
                                           "to": 4 + spaces, "steps": change, "missed": False}
    assert after["steps"]["p1"] == 30 + change and after["position"]["p1"] == 4 + spaces


@pytest.mark.parametrize("steps, spaces", [(5, 6), (2, 5), (0, 4)])
def test_rule_basics_no_move_takes_a_cyclist_below_zero_steps(steps: int, spaces: int) -> None:
    state = turn(new(), "p1", at=1, steps=steps)
    with pytest.raises(RuleError) as error:
        send(state, "p1", "move", spaces=spaces)
    assert error.value.rule == rules.RULE_BELOW_ZERO and "spaces" in error.value.details
    send(state, "p1", "move", spaces=3)  # earning moves are always allowed


def test_rule_transitioning_a_negative_cyclist_may_only_move_one_two_or_three() -> None:
    state = turn(new(), "p1", at=0, steps=-4)
    assert ENGINE.legal_actions_hint(state, "p1") == {"spaces": [1, 2, 3]}
    for spaces in (4, 5, 6):
        with pytest.raises(RuleError):
            send(state, "p1", "move", spaces=spaces)


def test_ruling_space_30_may_be_passed_by_default_and_the_move_stops_on_it() -> None:
    state = send(turn(new(), "p1", at=27), "p1", "move", spaces=6)
    outcome, after = resolve(state)
    assert effects(outcome, "move")[0]["to"] == 30 and after["steps"]["p1"] == 24
    assert after["cycle"]["arrivals"] == ["p1"]


def test_ruling_option_exact_finish_refuses_a_move_past_30() -> None:
    state = turn(new(options={"exact_finish": True}), "p1", at=27)
    with pytest.raises(RuleError) as error:
        send(state, "p1", "move", spaces=4)
    assert error.value.rule == rules.RULE_EXACT
    send(state, "p1", "move", spaces=3)


def test_rule_turn_order_a_fresh_random_order_each_round_of_turns() -> None:
    """Once every cyclist has taken a turn, a new order is drawn (recorded as the outcome's secret)."""
    state = turn(new(4), "p1", at=0, order=[])
    state = send(state, "p1", "move", spaces=1)
    outcome, after = resolve(state, 7)
    drawn = outcome["secret"]["orders"][0]
    assert sorted(drawn) == ["p1", "p2", "p3", "p4"]
    assert drawn == Rng("rules", "phase", 7).shuffled(["p1", "p2", "p3", "p4"])
    assert effects(outcome, "new_round") == [{"do": "new_round", "round": state["cycle"]["round"] + 1, "riders": 4,
                                               "draw": 0}]
    assert after["current"] == drawn[0] and after["order"] == drawn[1:]
    assert after["cycle"]["place"] == 1


def test_rule_turn_order_each_cyclist_learns_their_place_only_when_their_turn_opens() -> None:
    """Nobody but the GM sees the rest of the order: not in any view, the phase, or an outcome's public part."""
    state = new(6, seed="hidden")
    rest = state["order"]
    assert len(rest) == 5
    for viewer in [PUBLIC, *state["cyclists"]]:
        shown = ENGINE.view(state, viewer)
        assert "order" not in shown and str(rest) not in str(shown)
    assert ENGINE.view(state, GM)["order"] == rest
    phase = ENGINE.phase(state)
    assert phase.actors == (state["current"],) and phase.awaiting == (state["current"],)
    state = send(state, state["current"], "move", spaces=2)
    outcome, after = resolve(state)
    assert "order" not in str(outcome["public"]) and after["current"] == rest[0]
    assert ENGINE.view(after, PUBLIC)["current"]["place"] == 2


def test_ruling_arrived_cyclists_take_no_more_turns_and_the_round_stops_at_the_second_arrival() -> None:
    state = with_(turn(new(4), "p2", at=29, order=["p1", "p3", "p4"]), position={"p1": 30},
                  cycle={"arrivals": ["p1"]})
    state = send(state, "p2", "move", spaces=1)
    outcome, after = resolve(state)
    assert after["stage"] == "auction" and after["auction"]["bidders"] == ["p1", "p2"]
    assert ENGINE.phase(after).sealed and set(ENGINE.phase(after).actors) == {"p1", "p2"}
    skipped = with_(turn(new(4), "p2", at=0, order=["p1", "p3"]), position={"p1": 30}, cycle={"arrivals": ["p1"]})
    _, after = resolve(send(skipped, "p2", "move", spaces=1))
    assert after["current"] == "p3", "p1 has reached 30 and takes no turn"


@pytest.mark.parametrize("space", [12, 18, 24])
def test_rule_steal_on_12_18_24(space: int) -> None:
    state = send(turn(new(), "p1", at=space - 3), "p1", "move", spaces=3)
    _, state = resolve(state)
    assert state["stage"] == "steal" and state["current"] == "p1"
    state = send(state, "p1", "steal", **{"from": "p3"})
    outcome, after = resolve(state)
    assert effects(outcome, "steal")[0]["from"] == "p3"
    assert after["steps"]["p1"] == 33 + 5 and after["steps"]["p3"] == 25


def test_rule_steal_refused_from_a_cyclist_with_four_steps() -> None:
    state = with_(turn(new(), "p1", at=9), steps={"p2": 4})
    _, state = resolve(send(state, "p1", "move", spaces=3))
    assert ENGINE.legal_actions_hint(state, "p1")["from"] == ["p3", "p4", None]
    with pytest.raises(RuleError) as error:
        send(state, "p1", "steal", **{"from": "p2"})
    assert error.value.rule == rules.RULE_STEAL and "five" in error.value.message


def test_rule_steal_nobody_with_five_steps_means_no_steal_decision() -> None:
    state = with_(turn(new(3), "p1", at=9), steps={"p2": 4, "p3": 0})
    _, after = resolve(send(state, "p1", "move", spaces=3))
    assert after["stage"] == "move" and after["current"] != "p1"


def test_rule_steal_may_be_declined_and_a_missed_steal_takes_nothing() -> None:
    state = resolve(send(turn(new(), "p1", at=9), "p1", "move", spaces=3))[1]
    declined = resolve(send(state, "p1", "steal", **{"from": None}))[1]
    missed_outcome, missed = resolve(state)
    assert declined["steps"] == missed["steps"] == state["steps"]
    assert effects(missed_outcome, "steal")[0]["missed"] is True


def test_rule_tie_breaking_vote_space_is_drawn_from_11_to_25_without_12_18_24() -> None:
    spaces = {new(3, seed=f"space-{i}")["cycle"]["tiebreak_space"] for i in range(60)}
    assert spaces <= set(range(11, 26)) - {12, 18, 24}
    assert len(spaces) > 6
    assert rules.TIEBREAK_SPACES == (11, 13, 14, 15, 16, 17, 19, 20, 21, 22, 23, 25)


def _landing_on_the_vote(steps: int = 30) -> dict:
    state = new()
    space = state["cycle"]["tiebreak_space"]
    return resolve(send(turn(state, "p1", at=space - 1, steps=steps), "p1", "move", spaces=1))[1]


def test_rule_tie_breaking_vote_bought_for_ten_steps_on_its_space() -> None:
    state = _landing_on_the_vote()
    assert state["stage"] == "buy_vote"
    _, after = resolve(send(state, "p1", "buy_vote", buy=True))
    assert after["steps"]["p1"] == 31 - 10 and after["cycle"]["vote_holder"] == "p1"
    assert ENGINE.view(after, PUBLIC)["cycle"]["vote_holder"] == "p1"


def test_ruling_ten_positive_steps_means_the_buyer_holds_ten() -> None:
    """Nine steps before the move (ten after it): the vote is offered; eight (nine after): it is not."""
    assert _landing_on_the_vote(steps=9)["stage"] == "buy_vote"
    assert _landing_on_the_vote(steps=8)["stage"] == "move"
    state = _landing_on_the_vote(steps=9)
    state = with_(state, steps={"p1": 9})
    with pytest.raises(RuleError) as error:
        send(state, "p1", "buy_vote", buy=True)
    assert error.value.rule == rules.RULE_VOTE
    send(state, "p1", "buy_vote", buy=False)


def test_rule_tie_breaking_vote_a_second_purchase_is_refused() -> None:
    state = resolve(send(_landing_on_the_vote(), "p1", "buy_vote", buy=True))[1]
    space = state["cycle"]["tiebreak_space"]
    second = resolve(send(turn(state, "p2", at=space - 2), "p2", "move", spaces=2))[1]
    assert second["stage"] == "move", "no purchase is offered once the vote is bought"
    forced = with_(second, stage="buy_vote", current="p2", pending={})
    with pytest.raises(RuleError) as error:
        send(forced, "p2", "buy_vote", buy=True)
    assert "already been bought" in error.value.message


def test_rule_tie_breaking_vote_missed_purchase_buys_nothing() -> None:
    outcome, after = resolve(_landing_on_the_vote())
    assert effects(outcome, "buy_vote")[0] == {"do": "buy_vote", "cyclist": "p1", "buy": False, "missed": True}
    assert after["cycle"]["vote_holder"] is None


def test_rule_tie_breaking_vote_not_in_the_final() -> None:
    state = new(3)
    final = resolve(with_(state, stage="vote", current=None, pending={}, safety=None,
                          ceremony=None), 1)[1]
    assert final["cycle"]["kind"] == "final" and final["cycle"]["tiebreak_space"] is None
    assert rules.may_buy_vote(final, final["current"]) == "this cycle has no tie-breaking vote"


def test_ruling_missed_move_is_one_space_or_a_random_legal_move() -> None:
    outcome, after = resolve(turn(new(), "p1", at=5))
    assert effects(outcome, "move")[0] == {"do": "move", "cyclist": "p1", "spaces": 1, "from": 5, "to": 6,
                                           "steps": 1, "missed": True}
    outcome, _ = resolve(turn(new(options={"missed_move": "random"}), "p1", at=5, steps=0), 3)
    assert effects(outcome, "move")[0]["spaces"] in (1, 2, 3) and effects(outcome, "move")[0]["missed"]
