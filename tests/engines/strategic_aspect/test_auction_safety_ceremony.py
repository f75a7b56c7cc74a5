"""Handbook sections Safety auction, Safety options, Elimination ceremony and Tie-breaking vote (its use)."""
from __future__ import annotations

import pytest

from engines.contract import GM, PUBLIC, RuleError
from engines.rng import Rng
from engines.strategic_aspect import ENGINE, rules

from .helpers import auction, ceremony, effects, holding_safety, new, resolve, send, with_


def _bid(state: dict, p1: int | None, p2: int | None) -> tuple[dict, dict]:
    for cyclist, amount in (("p1", p1), ("p2", p2)):
        if amount is not None:
            state = send(state, cyclist, "bid", amount=amount)
    return resolve(state, 4)


def test_rule_auction_the_higher_bid_wins_safety_and_both_pay() -> None:
    outcome, after = _bid(auction(new()), 7, 3)
    assert effects(outcome, "auction")[0]["result"] == "won"
    assert after["steps"]["p1"] == 23 and after["steps"]["p2"] == 27
    assert after["stage"] == "safety" and after["current"] == "p1"


def test_rule_auction_bids_are_sealed_until_revealed_together() -> None:
    state = send(auction(new()), "p1", "bid", amount=12)
    for viewer in (PUBLIC, "p2", "p3"):
        assert "12" not in str(ENGINE.view(state, viewer)["auction"])
    assert ENGINE.view(state, "p1")["you"]["sent"]["amount"] == 12
    assert ENGINE.view(state, GM)["pending"]["p1"]["amount"] == 12
    outcome, _ = _bid(state, None, 4)
    assert effects(outcome, "auction")[0]["bids"] == {"p1": 12, "p2": 4}


def test_rule_auction_0_0_destroys_safety() -> None:
    outcome, after = _bid(auction(new()), 0, 0)
    assert effects(outcome, "auction")[0]["result"] == "destroyed"
    assert after["safety"]["status"] == "destroyed" and after["stage"] == "vote"
    assert after["steps"]["p1"] == after["steps"]["p2"] == 30


def test_rule_auction_15_15_tie_then_a_0_5_rebid() -> None:
    """The handbook's example: both lose fifteen, then re-bid from zero to five; five wins safety."""
    outcome, state = _bid(auction(new()), 15, 15)
    assert effects(outcome, "auction")[0]["result"] == "rebid"
    assert state["steps"]["p1"] == state["steps"]["p2"] == 15
    assert state["stage"] == "rebid" and state["auction"]["cap"] == 5
    with pytest.raises(RuleError) as error:
        send(state, "p1", "bid", amount=6)
    assert error.value.rule == rules.RULE_BID and error.value.details == {"amount": ["At most 5."]}
    outcome, after = _bid(state, 0, 5)
    assert effects(outcome, "auction")[0]["result"] == "won"
    assert after["steps"] == {**after["steps"], "p1": 15, "p2": 10}
    assert after["safety"]["holder"] == "p2" and after["current"] == "p2"


def test_rule_auction_a_tied_rebid_destroys_safety_and_both_pay() -> None:
    _, state = _bid(auction(new()), 10, 10)
    outcome, after = _bid(state, 4, 4)
    assert effects(outcome, "auction")[0]["result"] == "destroyed"
    assert after["steps"]["p1"] == after["steps"]["p2"] == 16 and after["safety"]["status"] == "destroyed"


def test_rule_auction_20_20_a_random_draw_winner_pays_nothing_loser_pays_forty() -> None:
    outcome, after = _bid(auction(new(), steps=25), 20, 20)
    effect = effects(outcome, "auction")[0]
    drawn = Rng("rules", "phase", 4).shuffled(["p1", "p2"])
    assert effect["result"] == "draw" and effect["list"] == drawn and effect["winner"] == drawn[0]
    assert after["steps"][drawn[0]] == 25 and after["steps"][drawn[1]] == -15, "bids may go below zero"
    assert after["safety"]["holder"] == drawn[0]


def test_ruling_a_missed_bid_is_zero() -> None:
    outcome, after = _bid(auction(new()), None, 2)
    assert effects(outcome, "auction")[0]["missed"] == ["p1"] and after["safety"]["holder"] == "p2"


def test_rule_safety_keep_makes_the_holder_safe_and_voteless() -> None:
    _, state = resolve(send(holding_safety(new(), "p1"), "p1", "safety", choice="keep"))
    assert state["stage"] == "vote" and "p1" not in ENGINE.phase(state).actors
    with pytest.raises(RuleError) as error:
        send(state, "p2", "vote", against="p1")
    assert error.value.rule == rules.RULE_CEREMONY


def test_rule_safety_destroy_lets_the_holder_vote_and_be_voted_for() -> None:
    _, state = resolve(send(holding_safety(new(), "p1"), "p1", "safety", choice="destroy"))
    assert "p1" in ENGINE.phase(state).actors
    send(state, "p2", "vote", against="p1")


def test_rule_safety_give_needs_the_receivers_consent_then_they_have_the_same_options() -> None:
    state = send(holding_safety(new(), "p1"), "p1", "safety", choice="give", to="p3")
    _, state = resolve(state)
    assert state["stage"] == "accept" and state["current"] == "p3"
    _, state = resolve(send(state, "p3", "accept", accept=True))
    assert state["stage"] == "safety" and state["current"] == "p3" and state["safety"]["transfers"] == 1
    send(state, "p3", "safety", choice="give", to="p1")


def test_ruling_a_declined_transfer_goes_back_to_the_giver_who_may_not_offer_it_there_again() -> None:
    state = resolve(send(holding_safety(new(), "p1"), "p1", "safety", choice="give", to="p3"))[1]
    outcome, state = resolve(send(state, "p3", "accept", accept=False))
    assert effects(outcome, "accept")[0]["accept"] is False
    assert state["stage"] == "safety" and state["current"] == "p1" and state["safety"]["transfers"] == 0
    with pytest.raises(RuleError) as error:
        send(state, "p1", "safety", choice="give", to="p3")
    assert "declined" in error.value.message
    send(state, "p1", "safety", choice="give", to="p2")


def test_ruling_a_missed_acceptance_declines() -> None:
    state = resolve(send(holding_safety(new(), "p1"), "p1", "safety", choice="give", to="p3"))[1]
    outcome, state = resolve(state)
    assert effects(outcome, "accept")[0] == {"do": "accept", "cyclist": "p3", "accept": False, "missed": True}
    assert state["current"] == "p1"


def test_rule_safety_at_most_five_transfers_then_keep_or_destroy_only() -> None:
    state = holding_safety(new(), "p1")
    for number in range(5):
        giver = state["current"]
        receiver = "p2" if giver == "p1" else "p1"
        state = resolve(send(state, giver, "safety", choice="give", to=receiver), number)[1]
        state = resolve(send(state, receiver, "accept", accept=True), number)[1]
    assert state["safety"]["transfers"] == 5
    assert ENGINE.legal_actions_hint(state, state["current"])["choice"] == ["keep", "destroy"]
    with pytest.raises(RuleError) as error:
        send(state, state["current"], "safety", choice="give", to="p3")
    assert "five times" in error.value.message
    send(state, state["current"], "safety", choice="destroy")


@pytest.mark.parametrize("option, status", [("keep", "kept"), ("destroy", "destroyed")])
def test_ruling_a_missed_safety_decision_keeps_it_or_by_option_destroys_it(option: str, status: str) -> None:
    _, after = resolve(holding_safety(new(options={"missed_safety": option}), "p1"))
    assert after["safety"]["status"] == status


def test_rule_ceremony_votes_are_secret_and_the_counts_public() -> None:
    state = ceremony(new(4), keeper="p4")
    assert set(ENGINE.phase(state).actors) == {"p1", "p2", "p3"}
    for voter, target in (("p1", "p2"), ("p2", "p2"), ("p3", "p1")):
        state = send(state, voter, "vote", against=target)
    assert "against" not in str(ENGINE.view(state, "p3")["ceremony"])
    outcome, after = resolve(state)
    assert effects(outcome, "ceremony")[0]["counts"] == {"p1": 1, "p2": 2, "p3": 0}
    assert "ballots" not in str(outcome["public"]) and outcome["secret"]["ballots"] == {"p1": "p2", "p2": "p2",
                                                                                       "p3": "p1"}
    assert effects(outcome, "eliminate")[0]["cyclist"] == "p2", "a cyclist may vote for themselves"
    assert "p2" not in after["cyclists"] and after["cycle"]["number"] == 2


def test_rule_ceremony_a_negative_voters_vote_is_counted_against_themselves() -> None:
    state = with_(ceremony(new(4)), steps={"p3": -2})
    assert "p3" not in ENGINE.phase(state).actors
    for voter in ("p1", "p2", "p4"):
        state = send(state, voter, "vote", against="p1" if voter != "p1" else "p4")
    outcome, _ = resolve(state)
    effect = effects(outcome, "ceremony")[0]
    assert effect["automatic"] == ["p3"] and effect["counts"] == {"p1": 2, "p2": 0, "p3": 1, "p4": 1}


def test_rule_ceremony_a_negative_keeper_of_safety_casts_no_vote() -> None:
    state = with_(ceremony(new(4), keeper="p3"), steps={"p3": -2})
    assert rules.automatic_voters(state) == []


def _tied(state: dict) -> dict:
    """p1 and p2 two votes each, p3 and p4 none."""
    for voter, target in (("p1", "p2"), ("p2", "p1"), ("p3", "p1"), ("p4", "p2")):
        state = send(state, voter, "vote", against=target)
    return state


def test_rule_tie_breaking_vote_a_tied_ceremony_is_decided_by_the_holder_even_against_themselves() -> None:
    state = _tied(ceremony(new(4), vote_holder="p1"))
    outcome, state = resolve(state)
    assert effects(outcome, "ceremony")[0]["tied"] == ["p1", "p2"]
    assert state["stage"] == "tiebreak" and state["current"] == "p1"
    with pytest.raises(RuleError) as error:
        send(state, "p1", "tiebreak", eliminate="p3")
    assert error.value.rule == rules.RULE_TIEBREAK
    outcome, after = resolve(send(state, "p1", "tiebreak", eliminate="p1"))
    assert effects(outcome, "eliminate")[0] == {"do": "eliminate", "cyclist": "p1", "by": "tie-breaking vote",
                                                "list": None}
    assert "p1" in after["eliminated"]


def test_rule_tie_breaking_vote_without_a_holder_the_bottom_of_a_random_list_is_eliminated() -> None:
    outcome, after = resolve(_tied(ceremony(new(4))), 9)
    drawn = Rng("rules", "phase", 9).shuffled(["p1", "p2"])
    assert effects(outcome, "eliminate")[0] == {"do": "eliminate", "cyclist": drawn[-1], "by": "random list",
                                                "list": drawn}
    assert drawn[-1] in after["eliminated"]


def test_rule_tie_breaking_vote_a_holder_protected_by_safety_may_not_use_it() -> None:
    state = ceremony(new(5), keeper="p5", vote_holder="p5")
    state = _tied(state)
    outcome, after = resolve(state)
    assert effects(outcome, "eliminate")[0]["by"] == "random list" and after["stage"] != "tiebreak"


def test_ruling_a_missed_tiebreak_choice_goes_to_the_random_list() -> None:
    _, state = resolve(_tied(ceremony(new(4), vote_holder="p3")))
    outcome, _ = resolve(state, 2)
    assert effects(outcome, "eliminate")[0]["by"] == "random list"


@pytest.mark.parametrize("option, counts, abstained, automatic", [
    ("abstain", {"p1": 1, "p2": 0, "p3": 0, "p4": 0}, ["p2", "p3", "p4"], []),
    ("self", {"p1": 1, "p2": 1, "p3": 1, "p4": 1}, [], ["p2", "p3", "p4"])])
def test_ruling_7_a_missing_vote_abstains_or_by_option_is_cast_against_the_voter(
        option: str, counts: dict, abstained: list, automatic: list) -> None:
    """Under missed_vote "self" a missing vote is cast against its voter: listed with the votes cast for their
    voters (``automatic``), never as abstaining (issue 30)."""
    state = send(ceremony(new(4, options={"missed_vote": option})), "p1", "vote", against="p1")
    outcome, _ = resolve(state)
    effect = effects(outcome, "ceremony")[0]
    assert effect["counts"] == counts and effect["abstained"] == abstained and effect["automatic"] == automatic
