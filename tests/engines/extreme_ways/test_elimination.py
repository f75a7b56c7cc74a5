"""Results: Tokens of Life, garnets and the Elimination Candidate procedure."""
from __future__ import annotations

import pytest

from engines.driver import eject
from engines.contract import RuleError
from engines.extreme_ways import ENGINE, rules
from engines.extreme_ways.resolution import resolve as resolve_outcome
from engines.rng import Rng

from tests.engines.extreme_ways.helpers import act, axis_round, move_all, new_game, pass_all_bidding, resolve

# Two axis rounds: AA (10,0) BB (-6,0) CC (0,4) DD (0,-2) AD (5,-1) BC (-3,2) CD (0,1).
EXTREMES = {"p1": ["A", "A"], "p2": ["B", "B"], "p3": ["C", "C"], "p4": ["D", "D"]}


def _game(players: int, options: dict | None = None, fields: list | None = None) -> dict:
    opts = {"bidding_rounds": 2, "rounds": [axis_round(), axis_round()], **(options or {})}
    return pass_all_bidding(new_game(players, opts, fields))


def _vote_game(fields: list | None = None) -> dict:
    """p5 and p6 both end at (0, 1), tied at distance 1 without a Token: a vote."""
    _, state = move_all(_game(6, fields=fields), {**EXTREMES, "p5": ["C", "D"], "p6": ["C", "D"]})
    return state


def test_rule_tokens_of_life_and_the_ec_with_the_lowest_distance_without_a_token() -> None:
    outcome, after = move_all(_game(6), {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    assert outcome["public"]["tokens_of_life"] == {
        "highest_x": "p1", "lowest_x": "p2", "highest_y": "p3", "lowest_y": "p4"}
    assert outcome["public"]["elimination"]["ec"] == "p6", "p4 is closer but holds a Token"
    assert ENGINE.phase(after) is None
    result = ENGINE.result(after)
    assert result["elimination_candidate"] == "p6"
    assert result["winners"] == ["p1", "p2", "p3", "p4"]


def test_earlier_text_without_its_clarification_ec_is_the_lowest_distance_overall() -> None:
    options = {"ec_rule": "earlier", "ec_exclude_token_holders": False}
    outcome, _ = move_all(_game(6, options), {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    assert outcome["public"]["elimination"]["ec"] == "p4"


def test_clarification_earlier_text_by_default_a_token_holder_is_never_the_ec() -> None:
    """The earlier text's clarification, "The EC cannot be a player who has a ToL", is its default: p4 (0, -2)
    is nearest but holds lowest_y, so p6 (-3, 2) is the EC."""
    state = _game(6, {"ec_rule": "earlier"})
    assert state["options"]["ec_exclude_token_holders"] is True, "the default is recorded, not left to null"
    outcome, _ = move_all(state, {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    assert outcome["public"]["elimination"]["ec"] == "p6"
    assert ENGINE.view(state, None)["rules"]["ec_excludes_token_holders"] is True


@pytest.mark.parametrize("ec_rule, excluded", [("earlier", False), ("later", True)])
def test_a_game_recorded_with_null_keeps_the_reading_it_was_played_under(ec_rule: str, excluded: bool) -> None:
    """Games created before the default was recorded hold null in game.created: they replay as played."""
    options = {**new_game(6)["options"], "ec_rule": ec_rule, "ec_exclude_token_holders": None}
    assert rules.ec_excludes_token_holders(options) is excluded


def test_rule_garnets_one_per_15_gold_left_plus_2_for_winners() -> None:
    state = new_game(6, {"bidding_rounds": 2, "rounds": [axis_round(), axis_round()]},
                     [{"garnets": 1}] + [{}] * 5)
    state = act(state, "p1", {"type": "bid", "amount": 6})
    state = pass_all_bidding(state)
    _, after = move_all(state, {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    result = {s["player_id"]: s for s in ENGINE.result(after)["standings"]}
    assert (result["p1"]["gold"], result["p1"]["garnets_awarded"], result["p1"]["garnets"]) == (44, 4, 5)
    assert (result["p6"]["garnets_awarded"], result["p6"]["garnets"]) == (3, 3)


def test_rule_ec_tie_goes_to_a_vote_of_the_token_holders() -> None:
    state = _vote_game()
    phase = ENGINE.phase(state)
    assert (phase.name, phase.actors, phase.sealed) == ("ec_vote", ("p1", "p2", "p3", "p4"), True)
    assert ENGINE.default_deadlines["ec_vote"] == 86400
    assert state["elimination"]["candidates"] == ["p5", "p6"]
    for voter, choice in (("p1", "p6"), ("p2", "p6"), ("p3", "p5")):
        state = act(state, voter, {"type": "ec_vote", "player_id": choice})
    outcome, after = resolve(state, 20)
    assert outcome["public"]["tally"] == {"p5": 1, "p6": 2}
    assert (outcome["public"]["ec"], outcome["public"]["decided_by"]) == ("p6", "vote")
    assert ENGINE.phase(after) is None and ENGINE.result(after)["elimination_candidate"] == "p6"


def test_rule_only_token_holders_vote_and_only_for_tied_players() -> None:
    state = _vote_game()
    with pytest.raises(RuleError) as err:
        act(state, "p5", {"type": "ec_vote", "player_id": "p6"})
    assert err.value.status == 409
    with pytest.raises(RuleError) as err:
        act(state, "p1", {"type": "ec_vote", "player_id": "p4"})
    assert err.value.rule == "elimination candidate" and err.value.status == 422


def test_rule_vote_tie_goes_to_the_tied_player_with_the_fewest_garnets() -> None:
    state = _vote_game([{}] * 4 + [{"garnets": 3}, {"garnets": 1}])
    state = act(state, "p1", {"type": "ec_vote", "player_id": "p5"})
    state = act(state, "p2", {"type": "ec_vote", "player_id": "p6"})
    outcome, _ = resolve(state, 20)
    assert (outcome["public"]["ec"], outcome["public"]["decided_by"]) == ("p6", "fewest garnets")


def test_rule_still_tied_the_ec_is_randomised_from_the_seed() -> None:
    state = _vote_game()
    outcome, _ = resolve(state, 20)  # nobody voted, garnets equal
    assert outcome["public"]["decided_by"] == "random"
    assert outcome["public"]["ec"] in ("p5", "p6")
    assert resolve(state, 20)[0] == outcome


def test_ruling_tie_with_no_token_holders_skips_the_vote() -> None:
    """Both players at (10, 0): every extreme is tied, nobody holds a Token, nobody can vote."""
    state = _game(2, fields=[{"garnets": 0}, {"garnets": 5}])
    outcome, after = move_all(state, {"p1": ["A", "A"], "p2": ["A", "A"]})
    assert outcome["public"]["tokens"] == {"p1": 0, "p2": 0}
    assert (outcome["public"]["elimination"]["ec"], outcome["public"]["elimination"]["decided_by"]) == (
        "p1", "fewest garnets")
    assert ENGINE.phase(after) is None


@pytest.mark.parametrize("seed", ["a", "b", "c", "d", "e"])
def test_rule_still_tied_without_token_holders_the_ec_is_drawn_from_the_ec_stream(seed: str) -> None:
    """Results: a tie nobody can vote on, equal garnets: "the Elimination Candidate will be randomized from the
    players that are still tied", drawn from ``fork("ec")`` of the Moving Phase's stream.  Two players with the
    same options end on the same spot, so every extreme is shared and nobody holds a Token."""
    state = new_game(2, {"bidding_rounds": 1})
    same = {"options": ["A"], "rebound": None}
    state = {**state, "stage": "moving", "round": None, "moves": {"p1": same, "p2": same}}
    elimination = resolve_outcome(state, Rng(seed, "phase", 2))["public"]["elimination"]
    expected = Rng(seed, "phase", 2).fork("ec").choice(["p1", "p2"])
    assert (elimination["ec"], elimination["decided_by"], elimination["voters"]) == (expected, "random", [])


def test_clarification_the_ec_cannot_hold_a_token_of_life() -> None:
    outcome, _ = move_all(_game(4), EXTREMES)
    assert outcome["public"]["elimination"]["ec"] is None
    assert outcome["public"]["elimination"]["decided_by"] == "nobody eligible"


def test_earlier_text_tie_the_winners_choose() -> None:
    """Earlier text: lowest distance overall; a tie is chosen by the winners (Token holders)."""
    state = _game(6, {"ec_rule": "earlier", "ec_exclude_token_holders": False})
    _, state = move_all(state, {**EXTREMES, "p5": ["C", "D"], "p6": ["C", "D"]})
    assert ENGINE.phase(state).name == "ec_vote"
    state = act(state, "p4", {"type": "ec_vote", "player_id": "p5"})
    outcome, _ = resolve(state, 20)
    assert outcome["public"]["ec"] == "p5"


def test_eject_a_voter_or_a_candidate_during_the_vote() -> None:
    state = _vote_game()
    state = act(state, "p1", {"type": "ec_vote", "player_id": "p6"})
    state = eject(ENGINE, state, "p1")
    assert "p1" not in ENGINE.phase(state).actors
    state = eject(ENGINE, state, "p5")
    outcome, _ = resolve(state, 20)
    assert (outcome["public"]["ec"], outcome["public"]["decided_by"]) == ("p6", "only candidate left")


def test_ruling_17_a_vote_for_an_ejected_candidate_is_refused_and_not_offered() -> None:
    """Ruling 17: an ejected tied player is no longer a candidate; a ballot naming them is a
    rule error (never accepted and silently dropped at the tally)."""
    state = eject(ENGINE, _vote_game(), "p5")
    assert ENGINE.view(state, "p1")["you"]["legal_actions"] == {"ec_vote": {"candidates": ["p6"]}}
    with pytest.raises(RuleError) as err:
        act(state, "p1", {"type": "ec_vote", "player_id": "p5"})
    assert (err.value.rule, err.value.status) == ("elimination candidate", 422)
    assert "removed from the game" in err.value.message and err.value.details["candidates"] == ["p6"]
    act(state, "p1", {"type": "ec_vote", "player_id": "p6"})


@pytest.mark.parametrize("override, ec", [(None, "p6"), (False, "p4")])
def test_option_ec_exclude_token_holders_overrides_the_later_text(override: bool | None, ec: str) -> None:
    """p4 (0, -2) holds lowest_y and is nearest; p6 (-3, 2) is the nearest without a Token."""
    state = _game(6, {"ec_exclude_token_holders": override})
    outcome, _ = move_all(state, {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    assert outcome["public"]["elimination"]["ec"] == ec


def test_option_ec_exclude_token_holders_applies_the_clarification_to_the_earlier_text() -> None:
    """Earlier text plus its clarification "the EC cannot be a player who has a ToL"."""
    state = _game(6, {"ec_rule": "earlier", "ec_exclude_token_holders": True})
    outcome, _ = move_all(state, {**EXTREMES, "p5": ["A", "D"], "p6": ["B", "C"]})
    assert outcome["public"]["elimination"]["ec"] == "p6"
    assert ENGINE.view(state, None)["rules"]["ec_excludes_token_holders"] is True


def _award_flips_the_garnet_order(players: int, fields: list, bidder: str, amount: int,
                                  options: dict | None = None) -> dict:
    """``bidder`` alone wins Packet 1 for ``amount``, so they earn fewer garnets this game."""
    opts = {"bidding_rounds": 2, "rounds": [axis_round(), axis_round()], **(options or {})}
    state = act(new_game(players, opts, fields), bidder, {"type": "bid", "amount": amount})
    return pass_all_bidding(state)


@pytest.mark.parametrize("counted, ec", [(None, "p5"), ("after_award", "p5"), ("before_award", "p6")])
def test_ruling_14_vote_tie_garnets_are_counted_after_this_games_award(counted: str | None, ec: str) -> None:
    """Before the award p5 holds 1 garnet and p6 0; p5 paid 21 (29 gold left: +1) and p6
    kept 50 (+3), so after it p5 holds 2 and p6 3.  Default: after the award."""
    fields = [{}] * 4 + [{"garnets": 1}, {"garnets": 0}]
    state = _award_flips_the_garnet_order(6, fields, "p5", 21,
                                          {"ec_tiebreak_garnets": counted} if counted else None)
    _, state = move_all(state, {**EXTREMES, "p5": ["C", "D"], "p6": ["C", "D"]})
    assert ENGINE.result(state) is None and state["garnets"]["p5"] == 2 and state["garnets"]["p6"] == 3
    state = act(state, "p1", {"type": "ec_vote", "player_id": "p5"})
    state = act(state, "p2", {"type": "ec_vote", "player_id": "p6"})
    outcome, _ = resolve(state, 20)
    assert (outcome["public"]["ec"], outcome["public"]["decided_by"]) == (ec, "fewest garnets")


@pytest.mark.parametrize("counted, ec", [("after_award", "p1"), ("before_award", "p2")])
def test_ruling_15_tie_without_voters_uses_the_same_garnet_count(counted: str, ec: str) -> None:
    """Both at (10, 0), nobody holds a Token.  p1: 1 garnet, pays 36 (14 gold: +0) -> 1;
    p2: 0 garnets, keeps 50 (+3) -> 3."""
    state = _award_flips_the_garnet_order(2, [{"garnets": 1}, {"garnets": 0}], "p1", 36,
                                          {"ec_tiebreak_garnets": counted})
    outcome, _ = move_all(state, {"p1": ["A", "A"], "p2": ["A", "A"]})
    assert outcome["public"]["garnets_awarded"] == {"p1": 0, "p2": 3}
    assert (outcome["public"]["elimination"]["ec"], outcome["public"]["elimination"]["decided_by"]) == (
        ec, "fewest garnets")


def test_earlier_text_a_tied_token_holder_votes_and_may_vote_for_themselves() -> None:
    """Earlier text: lowest distance overall, so p4 (0, -2) with lowest_y ties p5 (2, 0) at 2;
    the winners choose, and p4 is both a voter and a candidate."""
    state = _game(5, {"ec_rule": "earlier", "ec_exclude_token_holders": False})
    outcome, state = move_all(state, {**EXTREMES, "p5": ["A", "B"]})
    assert outcome["public"]["tokens_of_life"]["lowest_y"] == "p4"
    assert outcome["public"]["elimination"]["candidates"] == ["p4", "p5"]
    assert ENGINE.phase(state).actors == ("p1", "p2", "p3", "p4")
    assert ENGINE.view(state, "p4")["you"]["legal_actions"] == {"ec_vote": {"candidates": ["p4", "p5"]}}
    for voter, choice in (("p4", "p4"), ("p1", "p4"), ("p2", "p5")):
        state = act(state, voter, {"type": "ec_vote", "player_id": choice})
    outcome, after = resolve(state, 20)
    assert outcome["public"]["tally"] == {"p4": 2, "p5": 1}
    assert ENGINE.result(after)["elimination_candidate"] == "p4"
