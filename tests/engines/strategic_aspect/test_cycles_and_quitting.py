"""Handbook sections Transitioning cycles, The final cycle, Sudden death cycle and Quitting/ejections."""
from __future__ import annotations

import pytest

from engines.canonical import roundtrip
from engines.contract import PUBLIC
from engines.driver import eject
from engines.rng import Rng
from engines.strategic_aspect import ENGINE

from .helpers import auction, ceremony, effects, new, resolve, send, turn, with_


def _leave(state: dict, cyclist: str, how: str = "quit", seed: str = "members") -> tuple[dict, dict]:
    change = {"kind": how, "player": {"id": cyclist, "name": cyclist, "fields": {}}}
    outcome = roundtrip(ENGINE.change_members(state, change, Rng(seed, "members", 0)))
    return outcome, roundtrip(ENGINE.apply_members(state, change, outcome))


def test_rule_transitioning_steps_carry_over_positions_reset_one_fewer_cyclist() -> None:
    state = with_(ceremony(new(4)), position={"p1": 30, "p2": 30, "p3": 12, "p4": 7},
                  steps={"p1": 3, "p2": 41, "p3": 17, "p4": 30})
    for voter in ("p1", "p2", "p3", "p4"):
        state = send(state, voter, "vote", against="p4")
    _, after = resolve(state)
    assert after["cyclists"] == ["p1", "p2", "p3"] and after["cycle"]["number"] == 2
    assert after["position"] == {"p1": 0, "p2": 0, "p3": 0}
    assert {c: after["steps"][c] for c in after["cyclists"]} == {"p1": 3, "p2": 41, "p3": 17}
    assert after["cycle"]["kind"] == "normal" and after["cycle"]["tiebreak_space"] is not None
    assert after["history"][-1]["ceremony"]["eliminated"] == "p4"


def test_rule_tie_breaking_vote_is_good_for_the_cycle_it_is_bought_in_only() -> None:
    state = with_(ceremony(new(4), vote_holder="p1"), steps={"p1": 20})
    for voter in ("p1", "p2", "p3", "p4"):
        state = send(state, voter, "vote", against="p4")
    _, after = resolve(state)
    assert after["history"][-1]["vote_holder"] == "p1"
    assert after["cycle"]["vote_holder"] is None and after["cycle"]["tiebreak_space"] is not None


def _final(steps: dict, arriving: str = "p1", at: int = 29, seed: str = "final") -> dict:
    state = new(3, seed=seed)
    state = with_(state, cyclists=["p1", "p2"], eliminated={"p3": {"cycle": 1, "steps": 30}},
                  position={"p1": 0, "p2": 0}, steps=steps, cycle={"kind": "final", "tiebreak_space": None})
    state["position"].pop("p3")
    return turn(state, arriving, at=at, order=[c for c in ("p1", "p2") if c != arriving])


def test_rule_final_the_first_to_reach_30_ends_it_and_the_most_steps_wins() -> None:
    state = send(_final({"p1": 10, "p2": 20}), "p1", "move", spaces=1)
    _, after = resolve(state)
    assert ENGINE.phase(after) is None
    assert ENGINE.result(after)["winner"] == "p2" and after["ended"] == "most steps"


def test_rule_final_a_tie_in_steps_goes_to_sudden_death_on_15_spaces() -> None:
    state = send(_final({"p1": 14, "p2": 15}), "p1", "move", spaces=1)
    _, after = resolve(state)
    cycle = after["cycle"]
    assert cycle["kind"] == "sudden_death" and cycle["length"] == 15 and cycle["tiebreak_space"] is None
    assert after["position"] == {"p1": 0, "p2": 0} and after["steps"]["p1"] == after["steps"]["p2"] == 15
    assert ENGINE.view(after, PUBLIC)["cycle"]["steal_spaces"] == [12]


def test_rule_sudden_death_steal_on_12_only_and_the_first_to_15_ends_it() -> None:
    _, state = resolve(send(_final({"p1": 14, "p2": 15}), "p1", "move", spaces=1))
    state = turn(state, "p1", at=9, order=["p2"])
    _, state = resolve(send(state, "p1", "move", spaces=3))
    assert state["stage"] == "steal"
    _, state = resolve(send(state, "p1", "steal", **{"from": "p2"}))
    state = turn(state, "p2", at=13, order=[])
    _, after = resolve(send(state, "p2", "move", spaces=2))
    assert after["stage"] == "over" and after["winner"] == "p1"  # 18+5 = 23 against 10+2


def test_rule_sudden_death_still_tied_the_one_who_reached_15_wins_with_an_extra_step() -> None:
    _, state = resolve(send(_final({"p1": 14, "p2": 15}), "p1", "move", spaces=1))
    state = with_(turn(state, "p2", at=14, order=[]), steps={"p1": 16, "p2": 15})
    _, after = resolve(send(state, "p2", "move", spaces=1))
    assert after["winner"] == "p2" and after["steps"]["p2"] == 17 and "reached 15" in after["ended"]


def test_rule_quitting_before_two_reach_30_starts_a_suffice_cycle() -> None:
    state = with_(turn(new(4), "p2", at=10), position={"p1": 27, "p3": 5, "p4": 30}, cycle={"arrivals": ["p4"]})
    outcome, after = _leave(state, "p3")
    assert outcome["closes_phase"] is True
    assert after["cycle"]["kind"] == "suffice" and after["stage"] == "suffice"
    order = Rng("members", "members", 0).shuffled(["p1", "p2", "p4"])
    assert outcome["secret"]["orders"][0] == order and "order" not in str(outcome["public"])
    assert after["departed"]["p3"]["steps"] == 30
    assert ENGINE.view(after, PUBLIC)["standings"][-1]["shown"] == "▲ 30"
    assert after["current"] == next(c for c in order if c != "p4"), "p4 is on 30: nothing to choose"


@pytest.mark.parametrize("choice, steps", [("add", 33), ("subtract", 27), ("ignore", 30)])
def test_rule_suffice_on_space_27_add_three_subtract_three_or_nothing(choice: str, steps: int) -> None:
    state = with_(turn(new(4), "p2", at=10), position={"p1": 27})
    _, state = _leave(state, "p3")
    state = with_(state, current="p1", order=[c for c in state["order"] if c != "p1"])
    assert ENGINE.legal_actions_hint(state, "p1") == {"choice": ["add", "subtract", "ignore"], "distance": 3}
    outcome, after = resolve(send(state, "p1", "suffice", choice=choice))
    assert effects(outcome, "suffice")[0]["steps"] == steps - 30 and after["steps"]["p1"] == steps


def test_rule_suffice_may_take_a_cyclist_below_zero_and_a_missed_choice_changes_nothing() -> None:
    state = with_(turn(new(4), "p2", at=0), steps={"p1": 4})
    _, state = _leave(state, "p3")
    state = with_(state, current="p1")
    _, after = resolve(send(state, "p1", "suffice", choice="subtract"))
    assert after["steps"]["p1"] == 4 - 30
    outcome, after = resolve(state)
    assert effects(outcome, "suffice")[0]["choice"] == "ignore" and after["steps"]["p1"] == 4


def test_rule_suffice_cycle_ends_after_everyone_has_a_turn_with_no_ceremony() -> None:
    _, state = _leave(turn(new(4), "p2", at=3), "p3")
    for number in range(3):
        assert state["stage"] == "suffice"
        state = resolve(state, number)[1]
    assert state["stage"] == "move" and state["cycle"]["kind"] == "normal" and state["cycle"]["number"] == 3
    assert state["cyclists"] == ["p1", "p2", "p4"] and set(state["position"].values()) == {0}
    assert not state["eliminated"]


def test_rule_quitting_after_two_reach_30_starts_the_next_cycle_at_once_and_revealed_bids_stay_paid() -> None:
    state = auction(new(4))
    _, state = resolve(send(send(state, "p1", "bid", amount=9), "p2", "bid", amount=9))
    assert state["stage"] == "rebid" and state["steps"]["p1"] == 21
    state = send(state, "p2", "bid", amount=3)
    outcome, after = _leave(state, "p3", how="eject")
    assert outcome["closes_phase"] is True and not effects(outcome, "suffice")
    assert after["cycle"]["kind"] == "normal" and after["cycle"]["number"] == 2 and after["stage"] == "move"
    assert after["steps"]["p1"] == after["steps"]["p2"] == 21, "the revealed bids stay paid; the open re-bid is void"
    assert after["departed"]["p3"]["kind"] == "eject" and not after["eliminated"]


def test_rule_quitting_several_at_once_plays_that_many_suffice_cycles() -> None:
    _, state = _leave(turn(new(6), "p2", at=3), "p3")
    _, state = _leave(state, "p5")
    assert state["suffice_after"] == 1
    kinds = []
    for number in range(20):
        kinds.append(state["cycle"]["number"])
        if state["cycle"]["kind"] != "suffice":
            break
        state = resolve(state, number)[1]
    assert state["cycle"]["kind"] == "normal" and state["cycle"]["number"] == 4, "cycles 2 and 3 were suffice cycles"


def test_rule_quitting_in_the_final_still_plays_a_suffice_cycle() -> None:
    state = _final({"p1": 12, "p2": 20}, arriving="p1", at=4)
    state = with_(state, position={"p2": 22})
    outcome, state = _leave(state, "p1")
    assert state["cycle"]["kind"] == "suffice" and state["current"] == "p2"
    assert ENGINE.legal_actions_hint(state, "p2")["distance"] == 8
    _, after = resolve(send(state, "p2", "suffice", choice="add"))
    assert after["stage"] == "over" and after["winner"] == "p2" and after["steps"]["p2"] == 28


def test_ruling_11_an_eliminated_cyclist_who_quits_changes_nothing() -> None:
    """She stays eliminated, with her steps, not departed with "▲ steps" (issue 30)."""
    state = with_(turn(new(4), "p2"), cyclists=["p1", "p2", "p4"], eliminated={"p3": {"cycle": 1, "steps": 30}})
    outcome, after = _leave(state, "p3")
    assert outcome["closes_phase"] is False and outcome["public"]["effects"] == []
    assert after == state
    standing = next(row for row in ENGINE.view(after, None)["standings"] if row["id"] == "p3")
    assert standing["status"] == "eliminated"


def test_ruling_when_everyone_leaves_the_game_ends_without_a_winner() -> None:
    state = new(3)
    for cyclist in ("p1", "p2", "p3"):
        state = eject(ENGINE, state, cyclist)
        while ENGINE.phase(state) is not None and state["stage"] == "suffice" and not state["cyclists"]:
            state = resolve(state)[1]
    assert ENGINE.phase(state) is None and ENGINE.result(state)["winner"] is None
