"""Pure rule functions, one test per rule or rulebook example."""
from __future__ import annotations

from engines.extreme_ways import rules
from engines.rng import Rng

from tests.engines.extreme_ways.helpers import EXAMPLE_OPTIONS


def test_example_move_from_origin_by_plus3_minus4_reaches_3_minus4() -> None:
    """Earlier text: a player at (0, 0) moving (+3, -4) ends at (3, -4)."""
    assert rules.step([0, 0], [3, -4]) == [3, -4]


def test_example_move_from_1_1_by_plus4_minus3_reaches_5_minus2() -> None:
    """Later text: a player at (1, 1) moving (+4, -3) ends at (5, -2)."""
    assert rules.step([1, 1], [4, -3]) == [5, -2]


def test_example_rebound_from_0_0_about_5_5_goes_to_10_10() -> None:
    """Twist example: a player at (0, 0) rebounding about a player at (5, 5) moves to (10, 10)."""
    assert rules.rebound([0, 0], [5, 5]) == [10, 10]


def test_rule_rebound_is_the_point_opposite_ones_start_of_round() -> None:
    assert rules.rebound([2, -1], [5, 5]) == [8, 11]


def test_example_packets_for_the_example_option_set() -> None:
    """The rulebook's example packets: 1 names Option A; 2 names B and C; 3 names B and D;
    4 names C and D (true moves at index 0, splits chosen)."""
    true = {"A": 0, "B": 0, "C": 0, "D": 0}
    packets = rules.packet_contents(EXAMPLE_OPTIONS, true, {"B": 3, "C": 1, "D": 2})
    assert packets == {
        "1": {"A": {"true": [1, 1]}},
        "2": {"B": {"false": [[-2, 2], [-2, -2]]}, "C": {"false": [[-3, -3], [3, -3]]}},
        "3": {"B": {"false": [[2, -2]]}, "D": {"false": [[-4, 4], [4, -4]]}},
        "4": {"C": {"false": [[-3, 3]]}, "D": {"false": [[-4, -4]]}},
    }


def test_rule_packets_never_repeat_and_together_reveal_every_true_move() -> None:
    """No Info Packet gives information given in another; all four reveal every true move."""
    for number in range(40):
        rng = Rng("packets", number)
        drawn = rules.generate_round(rng, 3)
        split = rules.draw_split(rng, drawn["true"])
        packets = rules.packet_contents(drawn["candidates"], drawn["true"], split)
        assert packets["1"]["A"]["true"] == drawn["candidates"]["A"][drawn["true"]["A"]]
        for letter in "BCD":
            named = [m for p in packets.values() for m in p.get(letter, {}).get("false", [])]
            false = [m for i, m in enumerate(drawn["candidates"][letter]) if i != drawn["true"][letter]]
            assert sorted(named) == sorted(false), "every false move exactly once"
        assert [len(packets["2"][x]["false"]) for x in "BC"] == [2, 2]
        assert [len(packets["3"][x]["false"]) for x in "BD"] == [1, 2]
        assert [len(packets["4"][x]["false"]) for x in "CD"] == [1, 1]


def test_rule_generated_moves_are_four_distinct_never_0_0_within_range() -> None:
    for number in range(60):
        moves = rules.generate_candidates(Rng("moves", number), 1)
        assert len(moves) == 4 and len({tuple(m) for m in moves}) == 4
        assert [0, 0] not in moves
        assert all(-1 <= c <= 1 for m in moves for c in m)


def test_clarification_bids_4_3_2_1_receive_packets_1_2_3_4() -> None:
    """Players bid overall: bids of 4, 3, 2 and 1 receive Info Packets 1, 2, 3 and 4."""
    awarded = rules.award_packets({"a": 4, "b": 3, "c": 2, "d": 1})
    assert awarded == {"1": ["a"], "2": ["b"], "3": ["c"], "4": ["d"]}


def test_rule_equal_bids_share_a_packet_and_the_next_amount_gets_the_next_packet() -> None:
    awarded = rules.award_packets({"a": 5, "b": 5, "c": 3, "d": 3, "e": 1})
    assert awarded == {"1": ["a", "b"], "2": ["c", "d"], "3": ["e"]}


def test_rule_bids_below_the_fourth_distinct_amount_receive_nothing() -> None:
    awarded = rules.award_packets({"a": 9, "b": 7, "c": 5, "d": 3, "e": 2})
    assert "e" not in [p for ps in awarded.values() for p in ps]


def test_addendum_leftover_packets_when_fewer_than_four_distinct_bids() -> None:
    assert rules.leftover_packets(rules.award_packets({"a": 2, "b": 2})) == ["2", "3", "4"]
    assert rules.leftover_packets(rules.award_packets({})) == ["1", "2", "3", "4"]


def test_rule_moves_of_a_round_are_simultaneous_rebound_about_start_of_round() -> None:
    """The rebound reflects about the chosen player's location at the start of that round."""
    rnd = {"candidates": {x: [[1, 0], [0, 1], [2, 2], [3, 3]] for x in "ABCD"},
           "true": {"A": 0, "B": 1, "C": 2, "D": 3}}
    paths = rules.play_moves(
        {"r": ["B", None], "m": ["A", "A"]},
        {"r": {"round": 2, "player_id": "m"}},
        [rnd, rnd],
        ["r", "m"],
    )
    assert paths["m"] == [[0, 0], [1, 0], [2, 0]]
    # r: (0, 1) after round 1, then opposite itself about m's (1, 0), not m's later (2, 0).
    assert paths["r"] == [[0, 0], [0, 1], [2, -1]]


def test_rule_rebound_example_inside_play_moves() -> None:
    rnd = {"candidates": {x: [[5, 5], [1, 1], [2, 2], [3, 3]] for x in "ABCD"},
           "true": {x: 0 for x in "ABCD"}}
    paths = rules.play_moves(
        {"r": ["A", None], "m": ["A", "B"]}, {"r": {"round": 2, "player_id": "m"}}, [rnd, rnd], ["r", "m"]
    )
    # Both at (5, 5) after round 1; reflecting (5, 5) about (5, 5) stays put.
    assert paths["r"][-1] == [5, 5] and paths["m"][-1] == [10, 10]
    paths = rules.play_moves(
        {"r": [None], "m": ["A"]}, {"r": {"round": 1, "player_id": "m"}},
        [{"candidates": rnd["candidates"], "true": rnd["true"]}], ["r", "m"],
    )
    assert paths["r"][-1] == [0, 0], "about m's start of round (0, 0), not m's end (5, 5)"


def test_rule_tokens_of_life_for_the_four_extremes() -> None:
    tokens = rules.tokens_of_life({"e": [9, 0], "w": [-9, 0], "n": [0, 9], "s": [0, -9]})
    assert tokens == {"highest_x": "e", "lowest_x": "w", "highest_y": "n", "lowest_y": "s"}


def test_example_ties_skipped_for_tokens_of_life() -> None:
    """Players tied for first are all skipped; the Token goes to the next unique value."""
    positions = {"a": [7, 0], "b": [7, 1], "c": [5, 1], "d": [5, 2], "e": [3, 3], "f": [-1, 3]}
    tokens = rules.tokens_of_life(positions)
    assert tokens["highest_x"] == "e", "7 and 5 are shared, 3 is the next unique value"
    assert tokens["lowest_x"] == "f"
    assert tokens["highest_y"] == "d", "3 is shared by e and f, 2 is unique"
    assert tokens["lowest_y"] == "a"


def test_rule_every_value_tied_gives_no_token() -> None:
    assert rules.tokens_of_life({"a": [1, 1], "b": [1, 1]})["highest_x"] is None


def test_clarification_one_player_can_win_several_tokens() -> None:
    tokens = rules.tokens_of_life({"a": [9, 9], "b": [0, 0], "c": [-1, -1]})
    counts = rules.tokens_per_player(tokens, ["a", "b", "c"])
    assert counts == {"a": 2, "b": 0, "c": 2}


def test_rule_manhattan_distance_sums_absolute_coordinates() -> None:
    assert rules.manhattan([-3, 4]) == 7


def test_rule_garnets_one_per_15_gold_rounded_down_plus_2_for_winners() -> None:
    assert rules.garnets_awarded(44, False) == 2
    assert rules.garnets_awarded(45, False) == 3
    assert rules.garnets_awarded(14, True) == 2
    assert rules.garnets_awarded(50, True) == 5


def test_rule_ec_tie_break_fewest_garnets_then_random() -> None:
    assert rules.break_tie(["a", "b"], {"a": 3, "b": 1}, Rng("x")) == ("b", "fewest garnets")
    ec, how = rules.break_tie(["a", "b"], {"a": 1, "b": 1}, Rng("x"))
    assert how == "random" and ec in ("a", "b")
    assert rules.break_tie(["a", "b"], {"a": 1, "b": 1}, Rng("x")) == (ec, how), "seeded"


def test_rule_ec_vote_plurality() -> None:
    assert rules.most_voted({"v1": "a", "v2": "a", "v3": "b"}, ["a", "b"]) == ["a"]
    assert rules.most_voted({"v1": "a", "v2": "b"}, ["a", "b"]) == ["a", "b"]
    assert rules.most_voted({}, ["a", "b"]) == ["a", "b"]


def test_clarification_winning_more_than_two_directions_earns_that_many_tokens() -> None:
    tokens = rules.tokens_of_life({"a": [9, 9], "b": [0, 0], "c": [0, -1], "d": [-1, 0]})
    assert rules.tokens_per_player(tokens, ["a", "b", "c", "d"])["a"] == 2
    tokens = rules.tokens_of_life({"a": [9, -9], "b": [1, 1], "c": [1, 1]})
    assert tokens == {"highest_x": "a", "lowest_x": "a", "highest_y": "a", "lowest_y": "a"}
    assert rules.tokens_per_player(tokens, ["a", "b", "c"]) == {"a": 4, "b": 0, "c": 0}


def test_rule_the_order_of_the_moves_in_each_option_is_randomised() -> None:
    """The true move's position among the four candidates is uniform, not fixed."""
    seen = {rules.generate_round(Rng("order", n), 5)["true"]["A"] for n in range(40)}
    assert seen == {0, 1, 2, 3}
