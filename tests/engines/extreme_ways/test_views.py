"""Who sees what: own gold, bids and packets; announcements; everything at the end."""
from __future__ import annotations

from engines.contract import GM, PUBLIC
from engines.extreme_ways import ENGINE

from tests.engines.extreme_ways.helpers import act, axis_round, move_all, new_game, pass_all_bidding, resolve


def test_clarification_players_know_their_own_gold_and_packets_only() -> None:
    state = new_game(3, fields=[{"garnets": 2}, {"garnets": 9}, {}])
    state = act(state, "p1", {"type": "bid", "amount": 5})
    mine, other, public, gm = (ENGINE.view(state, v) for v in ("p1", "p2", PUBLIC, GM))
    assert mine["you"]["bid"] == {"amount": 5} and mine["you"]["garnets"] == 2
    assert other["you"]["bid"] is None and "9" not in str(mine["you"])
    assert "you" not in public and "hidden" not in public and "hidden" not in other
    assert gm["hidden"]["bids"] == {"p1": 5}
    _, state = resolve(state)
    mine, other = ENGINE.view(state, "p1"), ENGINE.view(state, "p2")
    assert mine["you"]["gold"] == 45 and mine["you"]["packets"][0]["packet"] == "1"
    assert other["you"]["packets"] == [] and other["you"]["gold"] == 50
    assert "45" not in str(other), "nobody else sees p1's gold"
    assert mine["you"]["bids"] == [{"round": 1, "bid": 5, "paid": 5}]


def test_everyone_sees_all_options_of_every_round_from_the_start() -> None:
    state = new_game(2)
    view = ENGINE.view(state, PUBLIC)
    assert len(view["moves_on_offer"]) == 7
    assert sorted(view["moves_on_offer"][0]["options"]) == ["A", "B", "C", "D"]
    assert all(len(c) == 4 for r in view["moves_on_offer"] for c in r["options"].values())
    assert "true" not in str(view["moves_on_offer"])


def test_gm_fixed_rounds_are_not_echoed_to_players() -> None:
    state = new_game(2, {"bidding_rounds": 1, "rounds": [axis_round()]})
    assert "rounds" not in ENGINE.view(state, "p1")["rules"]
    assert "true_moves" in ENGINE.view(state, GM)["hidden"]


def test_legal_actions_hint_in_the_players_view() -> None:
    state = new_game(2, fields=[{"garnets": 1}, {}])
    assert ENGINE.view(state, "p1")["you"]["legal_actions"] == {
        "pass": {}, "bid": {"min": 1, "max": 50}, "buy_gold": {"max_garnets": 1, "gold_per_garnet": 5}}
    state = pass_all_bidding(state)
    assert ENGINE.view(state, "p2")["you"]["legal_actions"]["move"]["rounds"] == 7


def test_everything_is_revealed_once_the_game_is_over() -> None:
    state = pass_all_bidding(new_game(2, {"bidding_rounds": 1, "rounds": [axis_round()]}))
    _, state = move_all(state, {"p1": ["A"], "p2": ["B"]})
    assert ENGINE.phase(state) is None
    public = ENGINE.view(state, PUBLIC)
    assert public["hidden"]["played"]["paths"]["p1"] == [[0, 0], [5, 0]]
    assert public["hidden"]["garnets"] == {"p1": 5, "p2": 5}
    result = ENGINE.result(state)
    assert [s["player_id"] for s in result["standings"]] == ["p1", "p2"]


def test_result_is_none_until_the_end() -> None:
    assert ENGINE.result(new_game(2)) is None
