"""One test per rule of the elemental Tag rulebook, and per ruling in docs/games/elemental-tag.md.

Team ids in the 7-player sign-up FIRE3_WATER2_ALONE2: t1 fire (p1-p3), t2 water (p4, p5), t3 p6 alone,
t4 p7 alone.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.canonical import canonical_json
from engines.contract import GM, PUBLIC, RuleError
from engines.driver import change_members, eject, player_list, start
from engines.elemental_tag import ENGINE
from engines.elemental_tag.board import STEPS, grid_side
from engines.elemental_tag.rules import average, standings
from tests.engines.elemental_tag.helpers import (
    FIRE3_WATER2_ALONE2,
    members,
    on_map,
    points,
    resolve,
    send,
    signed_up,
    team_of,
)

ROW = {f"p{i}": (i, 1) for i in range(1, 6)} | {"p6": (1, 5), "p7": (5, 5)}


# -- Round 0: sign-up ----------------------------------------------------------------------------
def test_rule_0_players_join_an_element_or_play_alone_in_the_underworld() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    assert members(state, "p1") == ["p1", "p2", "p3"] and members(state, "p4") == ["p4", "p5"]
    assert members(state, "p6") == ["p6"] and state["teams"][team_of(state, "p6")]["element"] is None
    assert len(state["teams"]) == 4


def test_rule_0_at_least_three_teams_to_start() -> None:
    with pytest.raises(RuleError, match="at least 3 teams"):
        signed_up([{"element": "fire"}] * 5 + [{"element": "water"}] * 2)
    assert len(signed_up([{}, {}, {}])["teams"]) == 3  # three underworld players are three teams


def test_rule_0_no_upper_limit_and_the_sign_up_deadline_is_the_gms_start() -> None:
    assert ENGINE.meta.max_players == 200 and ENGINE.meta.min_players == 3 and ENGINE.meta.late_joins
    assert ENGINE.default_deadlines == {"bidding": 4 * 86400, "placement": 3 * 86400, "moving": 3 * 86400}


# -- Round 1: points and who's it -----------------------------------------------------------------
def test_rule_1_elements_start_with_45_points_underworld_players_with_25() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    assert [points(state, p) for p in ("p1", "p4", "p6", "p7")] == [45, 45, 25, 25]


def test_rule_1_the_lowest_bid_is_it_and_every_other_bid_is_paid() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    for player, amount in {"p1": 5, "p2": 3, "p3": 4, "p4": 2, "p5": 6, "p6": 1, "p7": 7}.items():
        state = send(state, player, type="bid", amount=amount)
    outcome, after = resolve(state)
    assert after["it"] == "p6" and outcome["public"]["it"] == "p6"
    assert points(after, "p1") == 45 - 5 - 3 - 4 and points(after, "p4") == 45 - 2 - 6
    assert points(after, "p6") == 25 and points(after, "p7") == 25 - 7
    assert outcome["secret"]["bids"]["p6"] == 1 and "bids" not in outcome["public"]


def test_ruling_9_individual_bids_are_never_announced_only_each_teams_total() -> None:
    """Issue 30: one change per team, its bids' total (fire pays 5 + 3 + 4 as one 12); the bids stay secret."""
    state = signed_up(FIRE3_WATER2_ALONE2)
    for player, amount in {"p1": 5, "p2": 3, "p3": 4, "p4": 2, "p5": 6, "p6": 1, "p7": 7}.items():
        state = send(state, player, type="bid", amount=amount)
    outcome, _ = resolve(state)
    assert outcome["public"]["changes"] == [{"team": "t1", "points": -12, "why": "bid"},
                                            {"team": "t2", "points": -8, "why": "bid"},
                                            {"team": "t4", "points": -7, "why": "bid"}]


def test_rule_1_a_tie_for_lowest_is_drawn_and_the_others_pay_the_average_bid() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    bids = {"p1": 2, "p2": 9, "p3": 9, "p4": 2, "p5": 9, "p6": 2, "p7": 9}
    for player, amount in bids.items():
        state = send(state, player, type="bid", amount=amount)
    outcome, after = resolve(state)
    draw = outcome["public"]["draw"]
    assert draw["among"] == ["p1", "p4", "p6"] and after["it"] == draw["among"][draw["index"]]
    price = average(list(bids.values()), "nearest")  # 42 / 7 = 6 (ruling 8: the mean of every bid)
    assert price == 6 and outcome["secret"]["tie_price"] == 6
    def paid(player: str) -> int:
        return 0 if player == after["it"] else price

    assert points(after, "p1") == 45 - paid("p1") - 9 - 9
    assert points(after, "p4") == 45 - paid("p4") - 9
    assert points(after, "p6") == 25 - paid("p6") and points(after, "p7") == 25 - 9


def test_ruling_8_the_average_rounds_to_the_nearest_or_as_the_gm_chose() -> None:
    assert average([1, 2], "nearest") == 2 and average([1, 2], "down") == 1 and average([1, 2], "up") == 2
    assert average([1, 1, 2], "nearest") == 1 and average([1, 1, 2], "up") == 2


def test_ruling_8_option_tied_players_pay_only_their_own_bid() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2, {"tie_average": "tied_bids"})
    for player, amount in {"p1": 9, "p2": 9, "p3": 9, "p4": 9, "p5": 9, "p6": 1, "p7": 1}.items():
        state = send(state, player, type="bid", amount=amount)
    outcome, after = resolve(state)
    other = "p7" if after["it"] == "p6" else "p6"
    assert outcome["secret"]["tie_price"] == 1 and points(after, other) == 24


def test_ruling_7_a_missed_bid_counts_as_zero_and_bids_are_bounded() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    for player in ("p1", "p2", "p3", "p4", "p5", "p6"):
        state = send(state, player, type="bid", amount=3)
    outcome, after = resolve(state)
    assert after["it"] == "p7" and outcome["secret"]["missed"] == ["p7"]
    with pytest.raises(RuleError, match="at most|from 0 to"):
        send(signed_up(FIRE3_WATER2_ALONE2), "p1", type="bid", amount=101)


def test_rule_1_hasty_bids_can_knock_a_team_out_before_it_begins() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    for player, amount in {"p1": 2, "p6": 30, "p7": 40}.items():
        state = send(state, player, type="bid", amount=amount)
    outcome, after = resolve(state)  # p2..p5 missed (0): one of them is it; p6 and p7 pay more than they have
    assert {e["members"][0] for e in outcome["public"]["eliminated"]} == {"p6", "p7"}
    assert "p6" not in after["players"] and "p7" not in after["players"]


# -- Round 2: the map -----------------------------------------------------------------------------
@pytest.mark.parametrize("players, side", [(3, 5), (12, 5), (13, 6), (18, 6), (19, 7), (60, 11), (200, 20)])
def test_rule_2_a_5x5_grid_larger_with_more_than_12_players(players: int, side: int) -> None:
    assert grid_side(players) == side


def test_rule_2_everyone_is_placed_at_random_on_distinct_squares_shown_with_coordinates() -> None:
    state = signed_up(FIRE3_WATER2_ALONE2)
    outcome, after = resolve(state)
    squares = [tuple(p["pos"]) for p in after["players"].values()]
    assert len(set(squares)) == len(squares) == len(after["players"])
    assert all(1 <= x <= 5 and 1 <= y <= 5 for x, y in squares) and after["size"] == 5
    view = ENGINE.view(after, PUBLIC)
    assert {p["id"]: tuple(p["square"]) for p in view["players"]} == {p: tuple(q["pos"]) for p, q in
                                                                       after["players"].items()}
    _, other = resolve(state, seed="another seed")
    assert {p: q["pos"] for p, q in other["players"].items()} != {p: q["pos"] for p, q in after["players"].items()}


def test_rule_2_a_new_place_costs_3_points_and_is_another_square() -> None:
    _, state = resolve(signed_up(FIRE3_WATER2_ALONE2))
    before, fire = state["players"]["p1"]["pos"], points(state, "p1")
    state = send(state, "p1", type="place", replace=True)
    state = send(state, "p6", type="place", replace=False)
    outcome, after = resolve(state, number=2)
    assert outcome["public"]["replaced"] == ["p1"]
    assert after["players"]["p1"]["pos"] != before and points(after, "p1") == fire - 3
    assert after["stage"] == "moving"


# -- Round 3: moving --------------------------------------------------------------------------
def test_rule_3_nine_directions_and_no_order_means_stay() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (3, 3), "p6": (1, 1), "p7": (5, 5)}, it="p7")
    state = send(state, "p1", type="move", direction="ne")
    outcome, after = resolve(state)
    assert after["players"]["p1"]["pos"] == [4, 2] and after["players"]["p6"]["pos"] == [1, 1]
    assert outcome["public"]["moves"] == {"p1": "ne", "p6": "stay", "p7": "stay"}


def test_ruling_3_a_move_off_the_map_is_refused() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p6": (3, 3), "p7": (5, 5)}, it="p7")
    with pytest.raises(RuleError, match="leave the map"):
        send(state, "p1", type="move", direction="nw")


def test_rule_3_colliders_do_not_move() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p6": (2, 1), "p7": (5, 5)}, it="p7")
    state = send(send(state, "p1", type="move", direction="e"), "p6", type="move", direction="w")
    outcome, after = resolve(state)
    assert outcome["public"]["collisions"][0]["kind"] == 1
    assert after["players"]["p1"]["pos"] == [1, 1] and after["players"]["p6"]["pos"] == [2, 1]


# -- Round 4: it ----------------------------------------------------------------------------------
def test_rule_4_the_it_players_team_loses_2_each_round() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p6")
    outcome, after = resolve(state)
    assert points(after, "p6") == 23 and {"team": "t3", "points": -2, "why": "it"} in outcome["public"]["changes"]


def test_rule_4_colliding_with_a_listed_target_makes_them_it_and_costs_their_team_4() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p5")  # p5 (water) next to p4 (water), p6 alone
    state = on_map(state, {**ROW, "p6": (5, 2)}, it="p5")
    state = send(state, "p5", type="move", direction="s", tags=["p6"])
    outcome, after = resolve(state)
    assert outcome["public"]["tagged"] == "p6" and after["it"] == "p6"
    assert points(after, "p6") == 25 - 4
    assert points(after, "p5") == 45 - 2 - 1  # being it, one name on the list


def test_rule_4_the_tag_list_is_ordered_the_first_listed_collider_is_it() -> None:
    """p5 runs into p6's square while p7 runs into it too: p5 collides with both; p7 is first on the list."""
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p5": (2, 2), "p6": (3, 3), "p7": (4, 4), "p1": (1, 5)},
                   it="p5")
    state = send(state, "p5", type="move", direction="se", tags=["p7", "p6"])
    state = send(state, "p7", type="move", direction="nw")
    outcome, after = resolve(state)
    assert outcome["public"]["collisions"][0]["players"] == ["p5", "p6", "p7"]
    assert after["it"] == "p7" and points(after, "p5") == 45 - 2 - 2


def test_rule_4_colliding_with_someone_not_listed_tags_nobody() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p5": (2, 2), "p6": (3, 2), "p7": (5, 5)}, it="p5")
    state = send(state, "p5", type="move", direction="e", tags=["p7"])
    outcome, after = resolve(state)
    assert outcome["public"]["collisions"] and outcome["public"]["tagged"] is None and after["it"] == "p5"


def test_rule_4_friendly_tags_are_allowed_and_cost_no_4_points() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1")
    state = send(state, "p1", type="move", direction="e", tags=["p2"])  # p2 stands still next door
    outcome, after = resolve(state)
    assert after["it"] == "p2" and points(after, "p1") == 45 - 2 - 1
    assert not [c for c in outcome["public"]["changes"] if c["why"] == "tagged"]


def test_rule_4_only_the_it_player_sends_a_tag_list_and_it_stays_secret() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1")
    with pytest.raises(RuleError, match="Only the player who is it"):
        send(state, "p2", type="move", direction="stay", tags=["p3"])
    with pytest.raises(RuleError, match="yourself"):
        send(state, "p1", type="move", direction="stay", tags=["p1"])
    with pytest.raises(RuleError) as refused:  # issue 30: the doc's rule, not "players"
        send(state, "p1", type="move", direction="stay", tags=["p2", "p99"])
    assert refused.value.rule == "rule 4: tagging" and refused.value.details == {"tags": ["Not a player in play."]}
    sent = send(state, "p1", type="move", direction="s", tags=["p2"])
    for viewer in [PUBLIC, "p2", "p3"]:
        assert "p2" not in str(ENGINE.view(sent, viewer).get("you", {}).get("order"))
        assert ENGINE.view(sent, viewer) == ENGINE.view(send(state, "p1", type="move", direction="s"), viewer)
    outcome, after = resolve(sent)
    assert "tags" not in str(outcome["public"]) and outcome["secret"]["tags"] == ["p2"]
    assert ENGINE.view(after, PUBLIC)["it"] == "p1"


# -- Round 5: team actions ------------------------------------------------------------------------
def test_rule_5_an_underworld_player_is_voted_into_a_team_by_a_majority() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    state = send(state, "p6", type="apply", element="fire")
    _, state = resolve(state)
    assert state["applications"] == {"p6": "fire"}
    state = send(send(state, "p1", type="vote", motion="admit", player_id="p6"), "p2", type="vote", motion="admit",
                 player_id="p6")
    outcome, after = resolve(state, number=2)
    assert members(after, "p6") == ["p1", "p2", "p3", "p6"] and points(after, "p1") == 45
    assert {"event": "admitted", "player": "p6", "team": "t1"} in outcome["public"]["team_events"]


def test_rule_5_one_vote_of_three_is_no_majority() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    _, state = resolve(send(state, "p6", type="apply", element="fire"))
    _, after = resolve(send(state, "p1", type="vote", motion="admit", player_id="p6"), number=2)
    assert members(after, "p6") == ["p6"] and after["applications"] == {}


def test_rule_5_an_ejected_player_plays_alone_with_10_points_and_the_team_loses_4() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    state = send(send(state, "p1", type="vote", motion="eject", player_id="p3"), "p2", type="vote", motion="eject",
                 player_id="p3")
    _, after = resolve(state)
    assert members(after, "p1") == ["p1", "p2"] and points(after, "p1") == 41
    assert members(after, "p3") == ["p3"] and points(after, "p3") == 10


def test_rule_5_a_player_may_leave_with_10_points_at_no_cost_to_the_team() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    _, after = resolve(send(state, "p2", type="leave"))
    assert members(after, "p1") == ["p1", "p3"] and points(after, "p1") == 45 and points(after, "p2") == 10


def test_rule_5_no_ejection_or_leaving_in_a_team_of_two() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    with pytest.raises(RuleError, match="three or more"):
        send(state, "p4", type="leave")
    with pytest.raises(RuleError, match="team of two"):
        send(state, "p4", type="vote", motion="eject", player_id="p5")


def test_ruling_13_two_leaving_a_team_of_three_at_once_only_the_first_leaves() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7")
    _, after = resolve(send(send(state, "p2", type="leave"), "p3", type="leave"))
    assert members(after, "p1") == ["p1", "p3"] and members(after, "p2") == ["p2"]


def test_rule_5_a_two_player_team_disbands_when_both_agree_and_splits_its_points() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p7", points={"t2": 31})
    _, not_yet = resolve(send(state, "p4", type="disband"))
    assert members(not_yet, "p4") == ["p4", "p5"]
    outcome, after = resolve(send(send(state, "p4", type="disband"), "p5", type="disband"))
    assert members(after, "p4") == ["p4"] and members(after, "p5") == ["p5"]
    assert sorted([points(after, "p4"), points(after, "p5")]) == [15, 16]  # the odd point by lot (ruling 13)
    assert outcome["public"]["team_draws"]["disband t2"]["among"] == ["p4", "p5"]
    assert "water" in ENGINE.view(after, PUBLIC)["open_elements"]


def test_rule_5_two_underworld_players_form_a_team_of_an_open_element_pooling_points() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t3": 20})
    with pytest.raises(RuleError, match="not open"):
        send(state, "p6", type="form", partner="p7", element="fire")
    state = send(send(state, "p6", type="form", partner="p7", element="ice"), "p7", type="form", partner="p6",
                 element="ice")
    _, after = resolve(state)
    assert members(after, "p6") == ["p6", "p7"] and points(after, "p6") == 45
    assert after["teams"][team_of(after, "p6")]["element"] == "ice"
    assert ENGINE.teams(after, "p6") == (f"team:ice:{team_of(after, 'p6')}",)


def test_rule_5_a_new_underworld_player_joins_with_10_points_while_six_or_more_remain() -> None:
    played = start(ENGINE, {}, player_list(7, FIRE3_WATER2_ALONE2), "late")
    played.states[-1] = on_map(played.final, ROW, it="p7")
    newcomer = {"id": "p8", "name": "Late", "fields": {"element": "fire"}}
    record = change_members(ENGINE, played, "join", newcomer)
    state = played.final
    assert members(state, "p8") == ["p8"] and points(state, "p8") == 10
    assert record["outcome"]["public"]["square"] == state["players"]["p8"]["pos"]
    few = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p4": (2, 2), "p6": (3, 3), "p7": (4, 4),
                                                  "p2": (5, 5)}, it="p7")
    with pytest.raises(RuleError, match="at least 6 players"):
        ENGINE.change_members(few, {"kind": "join", "player": newcomer}, None)


def test_ruling_15_a_sign_up_while_the_bids_are_open_is_a_late_sign_up_as_the_rulebook_says() -> None:
    """"Late signups are handled as described later": the underworld with 10 points (joining a team takes its
    vote), only while six or more players remain; the map is drawn after the bids, so no square yet."""
    played = start(ENGINE, {}, player_list(7, FIRE3_WATER2_ALONE2), "late")
    record = change_members(ENGINE, played, "join", {"id": "p8", "name": "Hal", "fields": {"element": "fire"}})
    state = played.final
    assert members(state, "p8") == ["p8"] and points(state, "p8") == 10 and members(state, "p1") == ["p1", "p2", "p3"]
    assert state["players"]["p8"]["pos"] is None and record["outcome"]["public"]["square"] is None
    assert "p8" in ENGINE.phase(state).awaiting
    few = start(ENGINE, {}, player_list(3, [{}, {}, {"element": "air"}]), "late")
    with pytest.raises(RuleError, match="at least 6 players"):
        change_members(ENGINE, few, "join", {"id": "p4", "name": "Dee", "fields": {"element": "air"}})


def test_ruling_15_option_round_one_signups_joins_as_at_the_start() -> None:
    """The house rule: a sign-up while the bids are open joins its element's team without a vote, or the
    underworld with 25 points."""
    played = start(ENGINE, {"round_one_signups": True}, player_list(3, [{}, {}, {"element": "air"}]), "late")
    change_members(ENGINE, played, "join", {"id": "p4", "name": "Dee", "fields": {"element": "air"}})
    change_members(ENGINE, played, "join", {"id": "p5", "name": "Eve", "fields": {}})
    state = played.final
    assert members(state, "p4") == ["p3", "p4"] and points(state, "p4") == 45 and points(state, "p5") == 25
    assert "p5" in ENGINE.phase(state).awaiting


# -- Round 6: elimination and scoring --------------------------------------------------------------
def test_rule_6_a_team_at_no_points_is_out_with_all_its_players() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t1": 2})
    outcome, after = resolve(state)
    assert [e["members"] for e in outcome["public"]["eliminated"]] == [["p1", "p2", "p3"]]
    assert not {"p1", "p2", "p3"} & set(after["players"])


def test_rule_6_it_returns_to_the_most_recent_it_player_still_in_the_game() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t1": 2})
    state = {**state, "it_history": ["p6", "p4", "p1"]}
    outcome, after = resolve(state)
    assert after["it"] == "p4" and outcome["public"]["it_transfer"]["how"] == "most recent"


def test_rule_6_with_no_earlier_it_player_left_a_random_player_is_it() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t1": 2})
    outcome, after = resolve(state)
    transfer = outcome["public"]["it_transfer"]
    assert transfer["how"] == "drawn" and after["it"] == transfer["among"][transfer["index"]]
    assert transfer["among"] == ["p4", "p5", "p6", "p7"]


def test_ruling_11_points_go_below_zero_before_the_elimination_check() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t1": 1})
    state = send(state, "p1", type="move", direction="stay", tags=["p2", "p3"])
    outcome, _ = resolve(state)
    assert outcome["public"]["eliminated"][0]["points"] == 1 - 2 - 2


def test_ruling_12_a_team_out_this_round_cannot_escape_by_leaving() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1", points={"t1": 2})
    outcome, after = resolve(send(state, "p2", type="leave"))
    assert "p2" not in after["players"] and outcome["public"]["team_events"] == []


def test_rule_6_scoring_5_3_2_2_1_1_1_and_guild_points() -> None:
    fields = [{"guild": "fire"}, {}, {}, {}, {}, {}, {}, {"element": "fire", "guild": "fire"}]
    state = signed_up(fields)
    survivors = {t: team for t, team in state["teams"].items() if "p8" in team["members"]}
    out = [{"team": t, "element": None, "members": team["members"], "points": -1, "turn": 3 + i, "how": "points"}
           for i, (t, team) in enumerate(sorted(state["teams"].items())) if t not in survivors]
    result = standings({**state, "teams": survivors, "eliminated": out, "stage": "over"})
    scores = {row["player_id"]: (row["score"], row["guild_points"]) for row in result["players"]}
    assert scores["p8"] == (5, 5)
    assert [scores[p][0] for p in ("p7", "p6", "p5", "p4", "p3", "p2", "p1")] == [3, 2, 2, 1, 1, 1, 0]
    assert scores["p1"] == (0, 0) and result["winners"] == ["p8"]


def test_ruling_16_teams_out_in_one_round_are_ranked_by_points_and_still_tied_share_a_place() -> None:
    state = signed_up([{}, {}, {}, {}])
    out = [{"team": "t1", "element": None, "members": ["p1"], "points": -3, "turn": 9, "how": "points"},
           {"team": "t2", "element": None, "members": ["p2"], "points": 0, "turn": 9, "how": "points"},
           {"team": "t3", "element": None, "members": ["p3"], "points": 0, "turn": 9, "how": "points"},
           {"team": "t4", "element": None, "members": ["p4"], "points": -1, "turn": 8, "how": "points"}]
    result = standings({**state, "teams": {}, "eliminated": out, "stage": "over"})
    places = {t["team"]: (t["place"], t["score"]) for t in result["teams"]}
    assert places == {"t2": (1, 3), "t3": (1, 3), "t1": (3, 2), "t4": (4, 1)} and result["winners"] == []


# -- The GM removes an inactive player; a player quits --------------------------------------------
def test_the_gm_may_remove_an_inactive_player_and_it_passes_on() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p6")
    state = {**state, "it_history": ["p2", "p6"]}
    after = eject(ENGINE, state, "p6")
    assert "p6" not in after["players"] and after["it"] == "p2" and "p6" in after["departed"]
    assert [e["how"] for e in after["eliminated"]] == ["left"]
    quit_ = eject(ENGINE, state, "p1", how="quit")
    assert members(quit_, "p2") == ["p2", "p3"] and points(quit_, "p2") == 45


def test_the_game_ends_when_one_team_is_left_however_the_others_went() -> None:
    state = on_map(signed_up([{}, {}, {"element": "fire"}]), {"p1": (1, 1), "p2": (2, 2), "p3": (3, 3)}, it="p1")
    state = eject(ENGINE, eject(ENGINE, state, "p1"), "p2")
    assert ENGINE.phase(state) is None and ENGINE.result(state)["winners"] == ["p3"]


def test_what_each_viewer_sees_of_the_open_round() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p1")
    state = send(send(state, "p1", type="move", direction="s", tags=["p2"]), "p2", type="vote", motion="eject",
                 player_id="p3")
    assert ENGINE.view(state, "p1")["you"]["order"]["tags"] == ["p2"]
    assert "hidden" not in ENGINE.view(state, "p2") and "you" not in ENGINE.view(state, PUBLIC)
    assert ENGINE.view(state, GM)["hidden"]["team_actions"]["p2"] == {"eject:p3": {
        "type": "vote", "motion": "eject", "player_id": "p3", "yes": True}}
    outcome, _ = resolve(state)
    assert outcome["private"]["team:fire:t1"] == {"team_actions": {"p2": ["eject:p3"]}}
    assert ENGINE.teams(state, "p3") == ("team:fire:t1",) and ENGINE.teams(state, "p6") == ()
    assert outcome["private"]["p1"] == {"tags": ["p2"]}


def test_ruling_2_a_fixed_grid_size_holds_if_everyone_fits() -> None:
    assert grid_side(7, 6) == 6 and grid_side(30, 5) == 8 and grid_side(25, 5) == 5


def test_ruling_10_on_a_full_map_a_new_place_is_kept_for_nothing() -> None:
    state = signed_up([{}] * 9, {"grid_size": 3})
    _, state = resolve(state)  # everyone missed the bid: 0 each, a tie, the average 0
    assert state["size"] == 3 and len(state["players"]) == 9
    before = state["players"]["p1"]["pos"]
    outcome, after = resolve(send(state, "p1", type="place", replace=True), number=2)
    assert after["players"]["p1"]["pos"] == before and points(after, "p1") == 25
    assert outcome["public"]["changes"] == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["n", "s", "e", "w", "ne", "nw", "se", "sw", "stay"]), min_size=7, max_size=7),
       st.permutations(list(ROW)))
def test_rule_3_a_round_does_not_depend_on_the_order_the_orders_arrived_in(moves: list[str], order: list[str]) -> None:
    """The whole round (moves, collisions, tags, points), with the orders sent in id order or in any other."""
    base = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW, it="p6")
    wanted = {}
    for player, direction in zip(ROW, moves):
        x, y = ROW[player]
        dx, dy = STEPS[direction]
        if 1 <= x + dx <= 5 and 1 <= y + dy <= 5:
            wanted[player] = {"type": "move", "direction": direction,
                              **({"tags": ["p5", "p1"]} if player == "p6" else {})}
    states = []
    for sequence in (list(ROW), order):
        state = base
        for player in sequence:
            if player in wanted:
                state = send(state, player, **wanted[player])
        states.append(resolve(state))
    assert canonical_json(states[0]) == canonical_json(states[1])


def test_ruling_5_a_chain_collision_and_a_crossing_count_as_colliding_with_a_target() -> None:
    """p1 (it) follows p2, who runs into p3 standing still: p1 meets p2 in the chain.  Then p1 crosses p3."""
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p6": (2, 1), "p7": (3, 1)}, it="p1")
    state = send(send(state, "p1", type="move", direction="e", tags=["p6"]), "p6", type="move", direction="e")
    outcome, after = resolve(state)
    assert [c["players"] for c in outcome["public"]["collisions"]] == [["p6", "p7"], ["p1", "p6"]]
    assert after["it"] == "p6"
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p7": (2, 1), "p6": (5, 5)}, it="p1")
    state = send(send(state, "p1", type="move", direction="se", tags=["p7"]), "p7", type="move", direction="sw")
    outcome, after = resolve(state)
    assert outcome["public"]["collisions"][0]["kind"] == 3 and after["it"] == "p7"


def test_rule_3_same_precedence_a_player_stopped_in_the_pass_is_not_tagged_as_its_still_occupant() -> None:
    """Issue 30: p7 meets p2 at (3, 3) while p1 (it, tagging p7) and p6 head into p7's square in the same pass:
    p1 collides with p6, never with p7, so nobody is tagged."""
    squares = {"p2": (2, 3), "p7": (4, 3), "p1": (5, 3), "p6": (4, 4)}
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), squares, it="p1")
    for player, direction in {"p2": "e", "p7": "w", "p6": "n"}.items():
        state = send(state, player, type="move", direction=direction)
    outcome, after = resolve(send(state, "p1", type="move", direction="w", tags=["p7"]))
    assert [c["players"] for c in outcome["public"]["collisions"]] == [["p2", "p7"], ["p1", "p6"]]
    assert after["it"] == "p1" and outcome["public"]["tagged"] is None


def test_rule_3_third_kind_a_crossing_one_above_the_other_tags() -> None:
    """Issue 30: p1 (it) at (2, 2) goes south-east, p7 below at (2, 3) north-east: they cross, and p7 is it."""
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (2, 2), "p7": (2, 3), "p6": (5, 5)}, it="p1")
    state = send(send(state, "p1", type="move", direction="se", tags=["p7"]), "p7", type="move", direction="ne")
    outcome, after = resolve(state)
    assert [(c["kind"], c["players"]) for c in outcome["public"]["collisions"]] == [(3, ["p1", "p7"])]
    assert after["players"]["p1"]["pos"] == [2, 2] and after["players"]["p7"]["pos"] == [2, 3]
    assert after["it"] == "p7"


def test_the_hint_offers_what_the_rules_allow_now() -> None:
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), ROW | {"p4": (3, 3)}, it="p1")
    fire = ENGINE.legal_actions_hint(state, "p1")
    assert fire["move"]["directions"] == ["s", "e", "se", "stay"] and "p2" in fire["move"]["tags"]
    assert fire["vote"] == {"admit": [], "eject": ["p2", "p3"]} and "leave" in fire and "disband" not in fire
    water = ENGINE.legal_actions_hint(state, "p5")
    assert water["move"]["tags"] == [] and "disband" in water and "vote" not in water and "leave" not in water
    alone = ENGINE.legal_actions_hint(state, "p6")
    assert alone["apply"] == {"elements": ["fire", "water"]} and alone["form"]["partners"] == ["p7"]
    assert "fire" not in alone["form"]["elements"]


def test_ruling_12_a_tag_that_knocks_a_team_out_hands_it_back_to_the_tagger() -> None:
    """The chase's points first (the tagger's 2 + 1, the tagged team's 4), then eliminations, then it-ness."""
    state = on_map(signed_up(FIRE3_WATER2_ALONE2), {"p1": (1, 1), "p6": (2, 1), "p7": (5, 5)}, it="p1",
                   points={"t3": 3})
    outcome, after = resolve(send(state, "p1", type="move", direction="e", tags=["p6"]))
    assert outcome["public"]["tagged"] == "p6" and [e["members"] for e in outcome["public"]["eliminated"]] == [["p6"]]
    assert after["it"] == "p1" and outcome["public"]["it_transfer"] == {"from": "p6", "to": "p1", "how": "most recent"}
    assert [c["why"] for c in outcome["public"]["changes"]] == ["it", "tag list", "tagged"]
    assert points(after, "p1") == 45 - 3
