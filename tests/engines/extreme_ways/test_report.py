"""The GM's forum report: auction announcements per round and the results."""
from __future__ import annotations

import pytest

from engines.contract import RuleError
from engines.extreme_ways import ENGINE

from tests.engines.extreme_ways.helpers import act, axis_round, move_all, new_game, pass_all_bidding, resolve


def _auctioned(options: dict | None = None) -> dict:
    state = new_game(3, {"bidding_rounds": 1, "rounds": [axis_round()], **(options or {})})
    state = act(state, "p1", {"type": "bid", "amount": 4})
    state = act(state, "p2", {"type": "bid", "amount": 4})
    _, state = resolve(state)
    return state


def test_report_of_an_auction_names_the_winners_and_leftover_packets() -> None:
    state = _auctioned()
    data = ENGINE.report(state, 1, "json")
    assert data["winners"] == [{"packet": "1", "players": ["Player 1", "Player 2"]}]
    assert sorted(data["revealed_packets"]) == ["2", "3", "4"]
    text = ENGINE.report(state, None, "text")
    assert "Info Packet 1: Player 1, Player 2" in text and "4 gold" not in text
    assert "Leftover Info Packet 4" in text
    assert "[list]" in ENGINE.report(state, 1, "bbcode")
    assert ENGINE.report(state, 1, "markdown").startswith("### ")


def test_report_shows_amounts_only_when_announced() -> None:
    assert "(4 gold pieces)" in ENGINE.report(_auctioned({"announce": "winners_and_amounts"}), 1, "text")
    assert "not announced" in ENGINE.report(_auctioned({"announce": "none"}), 1, "text")


def test_report_of_the_results_after_the_moving_phase() -> None:
    state = pass_all_bidding(new_game(3, {"bidding_rounds": 1, "rounds": [axis_round()]}))
    _, state = move_all(state, {"p1": ["A"], "p2": ["B"], "p3": ["D"]})
    data = ENGINE.report(state, None, "json")
    assert data["kind"] == "results" and data["round"] == 2
    assert [r["player"] for r in data["rows"]] == ["Player 1", "Player 2", "Player 3"]
    assert "| Player 1 | (5, 0) | 5 | 50 |" in ENGINE.report(state, 2, "markdown")
    assert "[table]" in ENGINE.report(state, 2, "bbcode")
    assert "Elimination Candidate" in ENGINE.report(state, 2, "text")


def test_report_of_a_round_not_yet_played_is_a_rule_error() -> None:
    with pytest.raises(RuleError):
        ENGINE.report(new_game(2), None, "json")
    with pytest.raises(RuleError):
        ENGINE.report(_auctioned(), 2, "json")
    with pytest.raises(RuleError):
        ENGINE.report(_auctioned(), 1, "pdf")
