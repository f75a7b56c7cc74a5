"""One test (at least) per numbered rule of the standard game."""
from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.contract import RuleError
from engines.driver import player_list, start
from engines.golden_strider import ENGINE, race, rules

from .helpers import mid_race, new_game, order, resolve, row, runner, with_runner


def test_rule_1_six_to_ten_runners() -> None:
    for count in (6, 10):
        assert len(new_game(count)["runners"]) == count
    for count in (5, 11):
        with pytest.raises(RuleError) as err:
            start(ENGINE, {}, player_list(count), "s")
        assert err.value.rule == "rule 1"


def test_rule_2_five_cards_totalling_thirty() -> None:
    state = new_game()
    order(state, "p1", cards=[10, 10, 10, 0, 0], card="0/0")
    for cards in ([6, 6, 6, 6, 5], [6, 6, 6, 6], [6, 6, 6, 6, 6, 0]):
        with pytest.raises(RuleError) as err:
            order(state, "p1", cards=cards, card="6/0")
        assert err.value.rule == "rule 2"


def test_rule_2_cards_range_zero_to_ten() -> None:
    with pytest.raises(ValidationError):
        order(new_game(), "p1", cards=[11, 10, 9, 0, 0], card="0/0")


def test_rule_2_starting_cards_come_with_the_first_order_only() -> None:
    state = new_game()
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="6/0", move=6)
    assert err.value.rule == "rule 2"
    later = mid_race()
    with pytest.raises(RuleError) as err:
        order(later, "p1", cards=[6, 6, 6, 6, 6], card="6/0")
    assert err.value.status == 409


def test_rule_3_first_past_the_post_furthest_ahead_wins() -> None:
    state = mid_race(6, 12)
    state = with_runner(state, "r1", square=58)
    state = with_runner(state, "r2", square=57)
    state = order(state, "p1", card="6/7", move=3, bank=3)  # 61: one past the post
    state = order(state, "p2", card="6/7", move=6, bank=0)  # 63: three past the post
    outcome, after = resolve(state)
    assert outcome["public"]["over"] is True
    assert row(outcome, "r2")["P"] == 1 and row(outcome, "r1")["P"] == 2
    result = ENGINE.result(after)
    assert result["winners"] == ["p2"]
    assert [s["runner"] for s in result["standings"][:2]] == ["r2", "r1"]
    assert ENGINE.phase(after) is None


def test_rule_3_reaching_the_finish_exactly_wins() -> None:
    state = with_runner(mid_race(6, 12), "r3", square=54)
    state = order(state, "p3", card="6/7", move=6, bank=0)
    outcome, after = resolve(state)
    assert row(outcome, "r3")["S"] == 60
    assert ENGINE.result(after)["winners"] == ["p3"]


def test_rule_4_race_length_set_by_the_referee() -> None:
    assert new_game()["race_length"] == 60
    assert new_game(6, {"race_length": 65})["race_length"] == 65
    assert new_game(6, {"variant": "steeplechase"})["race_length"] == 70


def test_rule_5_card_split_between_movement_and_banking() -> None:
    state = order(mid_race(), "p1", card="6/0", move=2, bank=4)
    outcome, _ = resolve(state)
    got = row(outcome, "r1")
    assert (got["M"], got["B"], got["S"]) == (2, 4, 2)
    with pytest.raises(RuleError) as err:
        order(mid_race(), "p1", card="6/0", move=2, bank=2)
    assert err.value.rule == "rule 5"


def test_rule_5_one_number_given_the_rest_is_the_other() -> None:
    state = order(mid_race(), "p1", card="6/0", bank=1)
    got = row(resolve(state)[0], "r1")
    assert (got["M"], got["B"]) == (5, 1)


def test_rule_5_a_card_named_by_its_value_alone_is_the_oldest_of_that_value() -> None:
    state = with_runner(mid_race(6, 3), "r1", cards=["4/0", "6/0", "5/1", "6/1", "6/2"])
    outcome, _ = resolve(order(state, "p1", card="6", move=6))
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "6/0"
    outcome, _ = resolve(order(state, "p1", card=" 6/2 ", move=6))
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "6/2"
    for label in ("x", "6/", "6/0/1"):
        with pytest.raises(RuleError) as err:
            order(state, "p1", card=label, move=6)
        assert err.value.rule == "rule 5"


def test_rule_5_orders_are_simultaneous_and_sealed() -> None:
    state = order(mid_race(), "p1", card="6/0", move=2, bank=4)
    phase = ENGINE.phase(state)
    assert phase.sealed and "p1" not in phase.awaiting and "p2" in phase.awaiting
    assert "orders" not in ENGINE.view(state, "p2")["you"] or ENGINE.view(state, "p2")["you"]["orders"] == {}
    assert ENGINE.view(state, "p1")["you"]["orders"]["r1"]["move"] == 2


def test_rule_6_replacement_is_twice_banked_plus_positional_bonus() -> None:
    state = mid_race(6, 3)
    splits = [(6, 0), (5, 1), (4, 2), (3, 3), (2, 4), (1, 5)]
    for p, (move, bank) in zip(["p1", "p2", "p3", "p4", "p5", "p6"], splits):
        state = order(state, p, card="6/0", move=move, bank=bank)
    outcome, _ = resolve(state)
    # positions 1..6 -> bonus 0 1 1 2 2 2
    assert [row(outcome, f"r{i}")["R"] for i in range(1, 7)] == [0, 3, 5, 8, 10, 10]


def test_rule_6_tied_runners_all_get_the_bonus() -> None:
    state = mid_race(6, 3)
    state = with_runner(state, "r1", square=10)
    state = with_runner(state, "r2", square=5)
    state = with_runner(state, "r3", square=5)
    outcome, _ = resolve(state)  # nobody ordered: all move 6 (rule 13)
    assert row(outcome, "r2")["P"] == row(outcome, "r3")["P"] == 2
    assert row(outcome, "r2")["R"] == row(outcome, "r3")["R"] == 1
    assert rules.positional_bonus(3, 6) == 1  # "two runners in 3rd place would each gain 1"


def test_rule_6_bonus_table_for_ten_or_more_runners() -> None:
    assert [rules.positional_bonus(p, 9) for p in range(1, 10)] == [0, 1, 1, 2, 2, 2, 0, 0, 0]
    assert [rules.positional_bonus(p, 10) for p in range(1, 11)] == [0, 1, 1, 2, 2, 2, 2, 2, 0, 0]


def test_rule_7_replacement_never_above_ten() -> None:
    state = order(mid_race(), "p1", card="6/0", move=0, bank=6)
    assert row(resolve(state)[0], "r1")["R"] == 10
    assert rules.replacement_card(6, 2) == (10, 0)


def test_rule_8_initial_cards_by_the_end_of_turn_seven() -> None:
    state = mid_race(6, 4)
    state = with_runner(state, "r1", cards=["6/0", "6/0", "6/0", "6/0", "6/3"])
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="6/3", move=6)  # four initial cards, four turns left
    assert err.value.rule == "rule 8" and err.value.details["must_play"] == "6/0"
    order(state, "p1", card="6/0", move=6)


def test_rule_8_replacement_cards_within_seven_turns() -> None:
    state = mid_race(6, 9)
    state = with_runner(state, "r1", cards=["4/2", "6/5", "6/6", "6/7", "6/8"])
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="6/8", move=6)
    assert err.value.rule == "rule 8"
    assert ENGINE.view(state, "p1")["you"]["hint"][0]["playable"] == ["4/2"]


def test_rule_8_at_expiry_mode_only_forces_the_expiring_card() -> None:
    state = mid_race(6, 4, {"seven_turn_rule": "at_expiry"})
    state = with_runner(state, "r1", cards=["6/0", "6/0", "6/0", "6/0", "6/3"])
    order(state, "p1", card="6/3", move=6)  # allowed: nothing expires in round 4


def test_rule_8_two_initial_cards_expiring_together_at_expiry_mode() -> None:
    """Ruling: the lowest expiring card is played, the other expiring cards are lost."""
    state = mid_race(6, 7, {"seven_turn_rule": "at_expiry"})
    state = with_runner(state, "r1", cards=["5/0", "7/0", "6/4", "6/5", "6/6"])
    outcome, after = resolve(state)
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "5/0" and got["forfeited"] == [1] and got["auto"]
    left = [rules.card_label(c) for c in runner(after, "r1")["cards"]]
    assert left[:3] == ["6/4", "6/5", "6/6"] and len(left) == 4  # a hand of four from now on


def test_rule_8_at_expiry_a_card_played_as_it_expires_forfeits_the_other_expiring_card() -> None:
    """Two initial cards expire in round 7: the player plays one of them, the other is lost unplayed."""
    state = mid_race(6, 7, {"seven_turn_rule": "at_expiry"})
    state = with_runner(state, "r1", cards=["5/0", "4/0", "3/6", "3/6", "3/6"])
    outcome, after = resolve(order(state, "p1", card="5/0", move=5))
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "5/0" and got["forfeited"] == [1] and "auto" not in got
    assert [rules.card_label(c) for c in runner(after, "r1")["cards"]][:3] == ["3/6", "3/6", "3/6"]


def test_rule_8_at_expiry_a_card_that_does_not_expire_is_refused_while_others_do() -> None:
    state = mid_race(6, 7, {"seven_turn_rule": "at_expiry"})
    state = with_runner(state, "r1", cards=["5/0", "4/0", "3/6", "3/6", "3/6"])
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="3", move=3)
    assert err.value.rule == "rule 8" and err.value.details["must_play"] == "4/0"
    assert sorted(err.value.details["playable"]) == ["4/0", "5/0"]


def test_rule_14_at_expiry_the_referee_plays_the_lowest_expiring_card_for_one_ignoring_rule_8() -> None:
    """A plan playing a card that does not expire while two do (a robot ignoring rule 8): the referee plays the
    lower expiring card as no move received, and the higher one is lost."""
    state = mid_race(6, 7, {"seven_turn_rule": "at_expiry"})
    state = with_runner(state, "r1", cards=["5/0", "4/0", "3/6", "3/6", "3/6"])
    outcome = race.resolve_round(state, {"r1": {"card": 2, "move": 3, "bank": 0, "deduct": "move"}})
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "4/0" and got["auto"] and got["forfeited"] == [0]
    assert (got["D"], got["M"], got["B"]) == (0, 4, 0)


def _stay(state: dict, *players: str) -> dict:
    """These players bank their whole (oldest) card and stay where they are."""
    for p in players:
        state = order(state, p, card="6/0", move=0, bank=6)
    return state


def test_rule_9_no_overtaking_costs_in_the_first_two_rounds() -> None:
    state = mid_race(6, 2)
    for rid in ("r2", "r3", "r4", "r5", "r6"):
        state = with_runner(state, rid, square=3)
    state = _stay(state, "p2", "p3", "p4", "p5", "p6")
    state = order(state, "p1", card="6/0", move=6, bank=0)
    outcome, _ = resolve(state)
    assert row(outcome, "r1")["P"] == 1 and row(outcome, "r1")["O"] == 0


def test_rule_9_overtaking_costs_from_round_three() -> None:
    state = mid_race(6, 3)
    for rid in ("r2", "r3", "r4", "r5", "r6"):
        state = with_runner(state, rid, square=3)
    state = _stay(state, "p2", "p3", "p4", "p5", "p6")
    outcome, _ = resolve(order(state, "p1", card="6/0", move=6, bank=0))
    assert row(outcome, "r1")["P"] == 1 and row(outcome, "r1")["O"] == 5  # 6th -> 1st: five overtaken


def _overtaking_field() -> dict:
    state = mid_race(6, 3)
    squares = {"r1": 10, "r2": 12, "r3": 11, "r4": 9, "r5": 0, "r6": 0}
    for rid, square in squares.items():
        state = with_runner(state, rid, square=square)
    return state


def test_rule_10_net_overtakes() -> None:
    state = _overtaking_field()
    state = order(state, "p1", card="6/0", move=3, bank=3)   # 10 -> 13: passes r2 and r3
    state = order(state, "p2", card="6/0", move=0, bank=6)   # stays on 12
    state = order(state, "p3", card="6/0", move=0, bank=6)   # stays on 11
    state = order(state, "p4", card="6/0", move=6, bank=0)   # 9 -> 15: passes everyone
    outcome, _ = resolve(state)
    assert row(outcome, "r1")["O"] == 1  # 3rd -> 2nd: overtook two, overtaken by one
    assert row(outcome, "r4")["O"] == 3  # 4th -> 1st


def test_rule_11_seventh_to_sixth_equal_is_overtaking() -> None:
    state = mid_race(8, 3)
    squares = [20, 19, 18, 17, 16, 10, 8, 0]
    for i, square in enumerate(squares):
        state = with_runner(state, f"r{i + 1}", square=square)
    for i in range(1, 9):
        state = order(state, f"p{i}", card="6/0", move=0, bank=6)
    state = order(state, "p7", card="6/0", move=2, bank=4)  # 8 -> 10, level with 6th
    outcome, _ = resolve(state)
    assert row(outcome, "r7")["P"] == 6 and row(outcome, "r6")["P"] == 6
    assert row(outcome, "r7")["O"] == 1


def test_rule_12_restitution_paid_first_next_round() -> None:
    """"A runner who moves from sixth to fourth must use the first two points of the next round.\""""
    state = mid_race(6, 3)
    squares = {"r1": 20, "r2": 19, "r3": 18, "r4": 17, "r5": 16, "r6": 15}
    for rid, square in squares.items():
        state = with_runner(state, rid, square=square)
    for i in range(1, 7):
        state = order(state, f"p{i}", card="6/0", move=0, bank=6)
    state = order(state, "p6", card="6/0", move=3, bank=3)  # 15 -> 18: 6th -> 3rd equal with r3
    outcome, state = resolve(state)
    assert row(outcome, "r6")["P"] == 3 and row(outcome, "r6")["O"] == 3
    state = order(state, "p6", card="6/1", move=1, bank=2)  # the net split after 3 restitution
    outcome, state = resolve(state)
    got = row(outcome, "r6")
    assert (got["D"], got["M"], got["B"]) == (3, 1, 2)


def test_rule_12_sixth_to_fourth_pays_two() -> None:
    assert rules.overtaking_cost(6, 4, 3, 2) == 2
    assert rules.split_card(6, 2, 4, 2, "move") == (2, 2, 2)  # whole-card split, D off movement
    assert rules.split_card(6, 2, 4, 2, "bank") == (2, 4, 0)


def test_ruling_17_a_lone_number_is_net_of_restitution() -> None:
    """Card 6, 2 owed, only move 4: the player gets the 4 asked for, D2 M4 B0 (not M2 B2)."""
    assert rules.split_card(6, 2, 4, None) == (2, 4, 0)
    assert rules.split_card(6, 2, 4, None, "bank") == (2, 4, 0)  # deduct only matters for two numbers
    assert rules.split_card(6, 2, None, 3) == (2, 1, 3)
    assert rules.split_card(6, 2, 0, None) == (2, 0, 4)
    assert rules.split_card(6, 0, 4, None) == (0, 4, 2)  # nothing owed: as before
    state = with_runner(mid_race(6, 3), "r1", owed=2)
    got = row(resolve(order(state, "p1", card="6/0", move=4))[0], "r1")
    assert (got["D"], got["M"], got["B"], got["O"]) == (2, 4, 0, 0)


def test_ruling_17_a_lone_number_more_than_is_left_is_refused_saying_why() -> None:
    state = with_runner(mid_race(6, 3), "r1", owed=2)
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="6/0", move=5)
    assert err.value.rule == "rule 5"
    assert err.value.message == "movement 5 is more than the 4 left of the card's 6 after 2 restitution"
    with pytest.raises(RuleError) as err:
        order(state, "p1", card="6/0", bank=6)
    assert err.value.message == "banking 6 is more than the 4 left of the card's 6 after 2 restitution"
    with pytest.raises(RuleError) as err:
        order(mid_race(6, 3), "p1", card="6/0", move=7)
    assert err.value.message == "movement 7 is more than the card's value 6"


def test_rule_12_restitution_carried_forward_when_the_card_is_too_small() -> None:
    state = with_runner(mid_race(6, 3), "r1", owed=3, cards=["2/0", "6/0", "6/0", "6/1", "6/2"])
    outcome, after = resolve(order(state, "p1", card="2/0"))
    got = row(outcome, "r1")
    assert (got["D"], got["M"], got["B"], got["O"], got["cf"]) == (2, 0, 0, 1, True)
    assert runner(after, "r1")["owed"] == 1 and runner(after, "r1")["cf"] is True


def test_rule_13_no_move_received_oldest_lowest_card_movement_only() -> None:
    state = with_runner(mid_race(6, 2), "r1", owed=1, cards=["4/0", "5/0", "7/0", "8/0", "6/1"])
    outcome, _ = resolve(state)
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "4/0"
    assert (got["D"], got["M"], got["B"], got["auto"]) == (1, 3, 0, True)


def test_rule_13_no_starting_cards_received_uses_the_default_cards() -> None:
    outcome, after = resolve(new_game())
    assert row(outcome, "r1")["cards"][:5] == ["6/0"] * 5 and row(outcome, "r1")["M"] == 6


def test_rule_14_referee_plays_an_expiring_card_as_no_move_received() -> None:
    state = with_runner(mid_race(6, 9), "r1", owed=2, cards=["4/2", "6/5", "6/6", "6/7", "9/8"])
    plan = {"card": 4, "move": 0, "bank": 9, "deduct": "move"}  # a robot ignoring rule 8
    outcome = race.resolve_round(state, {"r1": plan})
    got = row(outcome, "r1")
    assert got["cards"][got["played"]] == "4/2" and got["auto"]
    assert (got["D"], got["M"], got["B"]) == (2, 2, 0)


def test_rule_15_report_row_follows_the_rulebook_layout() -> None:
    """The rulebook's row "Steve Ovett 6/0 6/0 6/0 6/0 6/0 8/1 - 3 3 8 3 4 -": round one, 4th."""
    state = new_game(6)
    state = order(state, "p1", cards=[6, 6, 6, 6, 6], card="6/0", move=3, bank=3)
    state = order(state, "p2", cards=[6, 6, 6, 6, 6], card="6/0", move=4, bank=2)
    state = order(state, "p3", cards=[6, 6, 6, 6, 6], card="6/0", move=5, bank=1)
    state = order(state, "p4", cards=[6, 6, 6, 6, 6], card="6/0", move=4, bank=2)
    for p in ("p5", "p6"):
        state = order(state, p, cards=[6, 6, 6, 6, 6], card="6/0", move=1, bank=5)
    _, state = resolve(state)
    text = ENGINE.report(state, 1, "text")
    line = next(x for x in text.splitlines() if x.startswith("Steve Ovett"))
    assert line.split() == ["Steve", "Ovett", "~6/0~", "6/0", "6/0", "6/0", "6/0", "8/1",
                            "-", "3", "3", "8", "3", "4", "-"]


def test_ruling_19_cf_is_printed_with_the_restitution_it_carries() -> None:
    """The rulebook's sample row ends "- cf"; a carried restitution is owed, so O shows it."""
    state = with_runner(mid_race(6, 3), "r1", owed=3, cards=["2/0", "6/0", "6/0", "6/1", "6/2"])
    _, after = resolve(order(state, "p1", card="2/0"))
    line = next(x for x in ENGINE.report(after, 3, "text").splitlines() if x.startswith("Steve Ovett"))
    # D 2 of the 3 owed, M 0, B 0, R 0 + 2 (6th), S 0, P 6, O the 1 carried, cf
    assert line.split()[-8:] == ["2", "0", "0", "2", "0", "6", "1", "cf"]


def test_rule_6_example_two_runners_in_third_place_each_gain_one() -> None:
    """"For example, two runners in 3rd place would each gain a bonus of 1.\""""
    state = mid_race(6, 3)
    for rid, square in {"r1": 20, "r2": 15, "r3": 10, "r4": 10, "r5": 5, "r6": 0}.items():
        state = with_runner(state, rid, square=square)
    state = _stay(state, "p1", "p2", "p3", "p4", "p5", "p6")
    outcome, _ = resolve(state)
    assert row(outcome, "r3")["P"] == row(outcome, "r4")["P"] == 3
    assert row(outcome, "r3")["R"] == row(outcome, "r4")["R"] == 10  # 2 x 6 banked + 1, capped
    state = _stay(with_runner(state, "r3", cards=["1/0", "6/0", "6/0", "6/1", "6/2"]), "p4")
    outcome, _ = resolve(order(state, "p3", card="1/0", move=0, bank=1))
    assert row(outcome, "r3")["R"] == 3 and row(outcome, "r3")["P"] == 3  # 2 x 1 + 1


def test_rule_12_example_sixth_to_fourth_uses_the_first_two_points_next_round() -> None:
    """"A runner who moves from sixth to fourth must use the first two points of the next round.\""""
    state = mid_race(6, 3)
    for rid, square in {"r1": 20, "r2": 19, "r3": 18, "r4": 16, "r5": 14, "r6": 12}.items():
        state = with_runner(state, rid, square=square)
    state = _stay(state, "p1", "p2", "p3", "p4", "p5")
    outcome, state = resolve(order(state, "p6", card="6/0", move=5, bank=1))  # 12 -> 17: 6th -> 4th
    assert row(outcome, "r6")["P"] == 4 and row(outcome, "r6")["O"] == 2
    outcome, _ = resolve(order(state, "p6", card="6/1", move=6, bank=0))  # whole card: D off move
    got = row(outcome, "r6")
    assert (got["D"], got["M"], got["B"]) == (2, 4, 0)


def test_rule_3_dead_heat_same_distance_past_the_post_shares_the_win() -> None:
    state = mid_race(6, 12)
    state = with_runner(state, "r1", square=58)
    state = with_runner(state, "r2", square=57)
    state = order(state, "p1", card="6/7", move=4, bank=2)  # 62
    state = order(state, "p2", card="6/7", move=5, bank=1)  # 62
    _, after = resolve(state)
    assert sorted(ENGINE.result(after)["winners"]) == ["p1", "p2"]
