"""Whole bot games: invariants of gold, garnets, packets and results after every step."""
from __future__ import annotations

import pytest

from engines.driver import play_bots, player_list
from engines.extreme_ways import ENGINE


def _check(state: dict) -> None:
    assert all(g >= 0 for g in state["gold"].values()), "gold never goes negative"
    assert all(g >= 0 for g in state["garnets"].values())
    for won in state["packets_won"].values():
        rounds = [w["round"] for w in won]
        assert len(rounds) == len(set(rounds)), "at most one packet per round (one bid per round)"
        assert all(w["paid"] >= 1 for w in won), "a packet is only won with a positive bid"
    for auction in state["auctions"]:
        winners = {p for ps in auction["secret"]["packets"].values() for p in ps}
        assert set(auction["secret"]["paid"]) == winners, "only packet receivers pay"


@pytest.mark.parametrize("case", range(len(ENGINE.simulation_cases)))
@pytest.mark.parametrize("seed", ["i1", "i2", "i3"])
def test_rule_invariants_hold_through_whole_games(case: int, seed: str) -> None:
    spec = ENGINE.simulation_cases[case]
    played = play_bots(ENGINE, spec["options"], player_list(spec["players"], spec.get("fields")), seed,
                       check=_check)
    result = ENGINE.result(played.final)
    standing = {s["player_id"]: s for s in result["standings"]}
    for direction, winner in result["tokens_of_life"].items():
        assert winner is None or direction in standing[winner]["tokens_of_life"]
    ec = result["elimination_candidate"]
    if ec is not None and ENGINE.simulation_cases[case]["options"].get("ec_exclude_token_holders") is not False:
        assert standing[ec]["tokens_of_life"] == [], "the EC never holds a Token of Life"
    for s in standing.values():
        bonus = 2 if s["tokens_of_life"] else 0
        assert s["garnets_awarded"] == s["gold"] // 15 + bonus
