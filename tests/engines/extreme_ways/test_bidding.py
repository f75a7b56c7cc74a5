"""Loki's Auction: bids, packets, payment, announcements and buying gold."""
from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.contract import GM, RuleError
from engines.extreme_ways import ENGINE, rules

from tests.engines.extreme_ways.helpers import act, example_round, new_game, resolve


def _bid_all(state: dict, amounts: dict[str, int]) -> dict:
    for player, amount in amounts.items():
        state = act(state, player, {"type": "bid", "amount": amount})
    return state


def test_rule_7_bidding_rounds_each_a_day_then_the_moving_phase() -> None:
    state = new_game(4)
    assert ENGINE.default_deadlines["bidding"] == 86400
    for number in range(1, 8):
        phase = ENGINE.phase(state)
        assert (phase.name, phase.round, phase.sealed) == ("bidding", number, True)
        _, state = resolve(state, number)
    assert ENGINE.phase(state).name == "moving"


def test_rule_players_start_with_50_gold_pieces() -> None:
    state = new_game(3)
    assert state["gold"] == {"p1": 50, "p2": 50, "p3": 50}


def test_clarification_you_cannot_bid_zero() -> None:
    with pytest.raises(RuleError) as err:
        act(new_game(2), "p1", {"type": "bid", "amount": 0})
    assert err.value.rule == "positive bid" and err.value.status == 422


def test_rule_bid_must_be_a_positive_integer_not_above_your_gold() -> None:
    with pytest.raises(RuleError) as err:
        act(new_game(2), "p1", {"type": "bid", "amount": 51})
    assert err.value.rule == "gold"
    act(new_game(2), "p1", {"type": "bid", "amount": 50})


def test_rule_one_bid_per_round_a_new_bid_replaces_the_old() -> None:
    state = act(new_game(2), "p1", {"type": "bid", "amount": 9})
    state = act(state, "p1", {"type": "bid", "amount": 4})
    outcome, _ = resolve(state)
    assert outcome["secret"]["bids"] == {"p1": 4}


def test_rule_players_may_choose_not_to_bid_pass_replaces_a_bid() -> None:
    state = act(new_game(2), "p1", {"type": "bid", "amount": 9})
    state = act(state, "p1", {"type": "pass"})
    state = act(state, "p2", {"type": "pass"})
    assert ENGINE.phase(state).awaiting == (), "everybody decided: the platform may resolve early"
    outcome, after = resolve(state)
    assert outcome["secret"]["bids"] == {}
    assert after["gold"] == {"p1": 50, "p2": 50}


def test_clarification_bids_4_3_2_1_receive_packets_1_2_3_4_in_a_game() -> None:
    state = _bid_all(new_game(4), {"p1": 4, "p2": 3, "p3": 2, "p4": 1})
    outcome, after = resolve(state)
    packets = rules.round_packets(state["rounds"][0]["options"], state["secret_rounds"][0])
    for player, packet in (("p1", "1"), ("p2", "2"), ("p3", "3"), ("p4", "4")):
        assert outcome["private"][player]["packet"] == packet
        assert outcome["private"][player]["contents"] == packets[packet]
        assert after["packets_won"][player][0]["contents"] == packets[packet]
    assert after["gold"] == {"p1": 46, "p2": 47, "p3": 48, "p4": 49}


def test_rule_only_packet_receivers_pay_other_bids_are_refunded() -> None:
    state = _bid_all(new_game(5), {"p1": 5, "p2": 4, "p3": 3, "p4": 2, "p5": 1})
    outcome, after = resolve(state)
    assert outcome["private"]["p5"]["packet"] is None
    assert after["gold"]["p5"] == 50 and after["gold"]["p4"] == 48


def test_rule_equal_bids_each_receive_the_same_packet_and_each_pay() -> None:
    state = _bid_all(new_game(4), {"p1": 6, "p2": 6, "p3": 2})
    outcome, after = resolve(state)
    assert [outcome["private"][p]["packet"] for p in ("p1", "p2", "p3", "p4")] == ["1", "1", "2", None]
    assert after["gold"] == {"p1": 44, "p2": 44, "p3": 48, "p4": 50}


def test_addendum_winners_announced_but_not_the_winning_bids_by_default() -> None:
    outcome, _ = resolve(_bid_all(new_game(4), {"p1": 6, "p2": 6, "p3": 2, "p4": 1}))
    assert outcome["public"]["announcement"] == {"1": ["p1", "p2"], "2": ["p3"], "3": ["p4"]}


def test_mm_winner_decision_no_information_revealed() -> None:
    state = _bid_all(new_game(2, {"announce": "none"}), {"p1": 6})
    outcome, _ = resolve(state)
    assert outcome["public"]["announcement"] is None


def test_mm_winner_decision_winners_and_amounts_revealed() -> None:
    state = _bid_all(new_game(3, {"announce": "winners_and_amounts"}), {"p1": 6, "p2": 6, "p3": 1})
    outcome, _ = resolve(state)
    assert outcome["public"]["announcement"] == {
        "1": {"players": ["p1", "p2"], "amount": 6}, "2": {"players": ["p3"], "amount": 1}}


def test_addendum_leftover_packets_are_publicly_revealed() -> None:
    state = _bid_all(new_game(3, {"bidding_rounds": 1, "rounds": [example_round()]}), {"p1": 3, "p2": 3})
    outcome, after = resolve(state)
    packets = rules.round_packets(state["rounds"][0]["options"], state["secret_rounds"][0])
    assert outcome["public"]["revealed_packets"] == {k: packets[k] for k in ("2", "3", "4")}
    assert ENGINE.view(after, None)["auctions"][0]["revealed_packets"]["4"] == packets["4"]


def test_ruling_7_with_announce_none_leftover_packets_stay_hidden_unless_the_gm_says() -> None:
    """Ruling 7: a leftover packet tells how many distinct bids there were, so with the MM
    Winner's "no info is ever revealed" the addendum is off by default; an explicit
    ``reveal_leftover_packets: true`` turns it back on."""
    silent = new_game(3, {"announce": "none"})
    assert ENGINE.view(silent, None)["rules"]["reveal_leftover_packets"] is False
    outcome, after = resolve(_bid_all(silent, {"p1": 3, "p2": 5}))
    assert outcome["public"] == {"phase": "bidding", "round": 1, "announcement": None, "revealed_packets": {}}
    assert ENGINE.view(after, "p3")["auctions"] == [outcome["public"]]
    told = new_game(3, {"announce": "none", "reveal_leftover_packets": True})
    assert ENGINE.view(told, None)["rules"]["reveal_leftover_packets"] is True
    outcome, _ = resolve(_bid_all(told, {"p1": 3, "p2": 5}))
    assert sorted(outcome["public"]["revealed_packets"]) == ["3", "4"]
    assert ENGINE.view(new_game(3), None)["rules"]["reveal_leftover_packets"] is True, "default: announced"


def test_option_leftover_packets_stay_hidden_when_the_addendum_is_off() -> None:
    state = _bid_all(new_game(3, {"reveal_leftover_packets": False}), {"p1": 3})
    outcome, _ = resolve(state)
    assert outcome["public"]["revealed_packets"] == {}


def test_clarification_no_packet_without_a_bid_all_packets_revealed_if_nobody_bids() -> None:
    outcome, after = resolve(new_game(3))
    assert all(mine["packet"] is None for mine in outcome["private"].values())
    assert sorted(outcome["public"]["revealed_packets"]) == ["1", "2", "3", "4"]
    assert after["gold"] == {"p1": 50, "p2": 50, "p3": 50}


def test_bids_are_orders_of_the_bidding_phase_only() -> None:
    state = new_game(2, {"bidding_rounds": 1})
    _, state = resolve(state)
    with pytest.raises(RuleError) as err:
        act(state, "p1", {"type": "bid", "amount": 1})
    assert err.value.status == 409


def test_dm_winner_decision_one_garnet_buys_5_gold_by_default() -> None:
    state = new_game(2, fields=[{"garnets": 2}, {}])
    state = act(state, "p1", {"type": "buy_gold", "garnets": 1})
    assert (state["gold"]["p1"], state["garnets"]["p1"]) == (55, 1)
    act(state, "p1", {"type": "bid", "amount": 55})  # bought gold can be bid at once


def test_dm_winner_decision_rate_is_an_option_from_1_to_10() -> None:
    state = new_game(2, {"garnet_rate": 10}, [{"garnets": 3}, {}])
    state = act(state, "p1", {"type": "buy_gold", "garnets": 3})
    assert state["gold"]["p1"] == 80
    for bad in (0, 11):
        with pytest.raises(ValidationError):
            new_game(2, {"garnet_rate": bad})


def test_buying_gold_needs_the_garnets_and_the_option() -> None:
    with pytest.raises(RuleError) as err:
        act(new_game(2, fields=[{"garnets": 1}, {}]), "p1", {"type": "buy_gold", "garnets": 2})
    assert err.value.rule == "garnets"
    with pytest.raises(RuleError):
        act(new_game(2, {"allow_buy_gold": False}, [{"garnets": 1}, {}]), "p1",
            {"type": "buy_gold", "garnets": 1})


def test_buying_gold_only_in_a_bidding_phase() -> None:
    state = new_game(2, {"bidding_rounds": 1}, [{"garnets": 1}, {}])
    _, state = resolve(state)
    with pytest.raises(RuleError) as err:
        act(state, "p1", {"type": "buy_gold", "garnets": 1})
    assert err.value.status == 409


def test_garnets_are_set_by_the_gm_at_sign_up_and_corrected_with_gm_set_garnets() -> None:
    assert ENGINE.gm_join_fields == frozenset({"garnets"})
    state = new_game(2, fields=[{"garnets": 4}, {}])
    assert state["garnets"] == {"p1": 4, "p2": 0}
    state = act(state, GM, {"type": "gm.set_garnets", "player_id": "p2", "garnets": 7})
    assert state["garnets"]["p2"] == 7
    with pytest.raises(RuleError):
        act(state, GM, {"type": "gm.set_garnets", "player_id": "nobody", "garnets": 1})
    with pytest.raises(RuleError) as err:
        act(state, "p1", {"type": "gm.set_garnets", "player_id": "p1", "garnets": 99})
    assert err.value.status == 403


def test_rule_buying_gold_is_private_the_phase_awaits_only_bids() -> None:
    """Garnets may buy gold pieces (DM Winner decision), a private matter: the bidding phase awaits a bid or a
    pass from each player, so a purchase neither settles a player nor, after their bid, unsettles them."""
    state = new_game(3, fields=[{"garnets": 2}] * 3)
    state = act(state, "p1", {"type": "buy_gold", "garnets": 1})
    assert ENGINE.phase(state).awaiting == ("p1", "p2", "p3")
    state = act(state, "p1", {"type": "bid", "amount": 3})
    state = act(state, "p1", {"type": "buy_gold", "garnets": 1})
    assert ENGINE.phase(state).awaiting == ("p2", "p3")
    assert ENGINE.view(state, None) == ENGINE.view(act(state, "p2", {"type": "buy_gold", "garnets": 2}), None)
