"""Setup: seeded move generation or GM-fixed rounds, options and ejections."""
from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.driver import eject
from engines.contract import RuleError
from engines.driver import load_options, player_list
from engines.extreme_ways import ENGINE
from engines.rng import Rng

from tests.engines.extreme_ways.helpers import act, axis_round, example_round, new_game, resolve


def test_example_option_set_as_gm_fixed_rounds() -> None:
    """The rulebook's example option set can be played as given, with its packets."""
    options = load_options(ENGINE, {"bidding_rounds": 1,
                                    "rounds": [example_round({"A": 2, "B": 1, "C": 0, "D": 3},
                                                             {"B": 0, "C": 3, "D": 1})]})
    setup = ENGINE.setup(options, player_list(4), Rng("s", "setup"))
    assert setup["public"]["rounds"][0]["options"]["C"] == [[3, 3], [-3, 3], [-3, -3], [3, -3]]
    packets = setup["secret"]["rounds"][0]["packets"]
    assert packets["1"] == {"A": {"true": [-1, -1]}}
    assert packets["3"]["B"] == {"false": [[2, 2]]} and packets["4"]["C"] == {"false": [[3, -3]]}


def test_setup_moves_are_public_and_true_moves_secret() -> None:
    options = load_options(ENGINE, {})
    setup = ENGINE.setup(options, player_list(3), Rng("s", "setup"))
    assert len(setup["public"]["rounds"]) == 7
    assert "true" not in str(setup["public"]) and len(setup["secret"]["rounds"]) == 7
    again = ENGINE.setup(options, player_list(3), Rng("s", "setup"))
    assert again == setup


def test_generated_rounds_use_the_move_range_and_never_0_0() -> None:
    options = load_options(ENGINE, {"move_range": 2})
    setup = ENGINE.setup(options, player_list(3), Rng("r", "setup"))
    for rnd in setup["public"]["rounds"]:
        for moves in rnd["options"].values():
            assert len({tuple(m) for m in moves}) == 4 and [0, 0] not in moves
            assert all(abs(c) <= 2 for m in moves for c in m)


@pytest.mark.parametrize("bad", [
    {"rounds": [axis_round()]},  # 7 rounds expected
    {"bidding_rounds": 1, "rounds": [{**axis_round(), "A": {"moves": [[0, 0], [1, 1], [2, 2], [3, 3]],
                                                            "true": 0}}]},
    {"bidding_rounds": 1, "rounds": [{**axis_round(), "A": {"moves": [[1, 1], [1, 1], [2, 2], [3, 3]],
                                                            "true": 0}}]},
    {"bidding_rounds": 1, "rounds": [{**axis_round(), "split": {"B": 0, "C": 1, "D": 1}}]},
    {"announce": "everything"},
    {"ec_tiebreak_garnets": "whenever"},
    {"garnet_rate": 0},
    {"starting_gold": "50"},
])
def test_bad_options_are_rejected(bad: dict) -> None:
    with pytest.raises(ValidationError):
        load_options(ENGINE, bad)


def test_join_garnets_default_zero_and_never_negative() -> None:
    assert ENGINE.join_schema().load({}) == {"garnets": 0}
    with pytest.raises(ValidationError):
        ENGINE.join_schema().load({"garnets": -1})


def test_eject_during_bidding_drops_the_bid_and_the_player() -> None:
    state = act(new_game(3), "p2", {"type": "bid", "amount": 9})
    state = eject(ENGINE, state, "p2")
    assert ENGINE.phase(state).actors == ("p1", "p3")
    outcome, _ = resolve(state)
    assert outcome["secret"]["bids"] == {} and "p2" not in outcome["private"]
    with pytest.raises(RuleError) as err:
        act(state, "p2", {"type": "pass"})
    assert err.value.status == 409


def test_rule_gold_pieces_and_rebound_tokens_cannot_be_traded() -> None:
    """There is no order to give gold or a Rebound Token to another player."""
    assert sorted(ENGINE.actions) == ["bid", "buy_gold", "ec_vote", "gm.set_garnets", "move", "pass"]


def test_mm_for_12_players_2_to_24_accepted() -> None:
    assert (ENGINE.meta.min_players, ENGINE.meta.max_players) == (2, 24)
    assert ENGINE.simulation_cases[0]["players"] == 12


def test_a_log_recorded_before_an_option_existed_plays_under_its_default() -> None:
    """Options stored in an older game.created lack newer keys; the state fills in defaults."""
    options = load_options(ENGINE, {})
    del options["ec_tiebreak_garnets"]
    players = player_list(2)
    state = ENGINE.initial_state(options, players, ENGINE.setup(options, players, Rng("s", "setup")))
    assert state["options"]["ec_tiebreak_garnets"] == "after_award"
    assert "ec_tiebreak_garnets" not in options, "the caller's options are not altered"
