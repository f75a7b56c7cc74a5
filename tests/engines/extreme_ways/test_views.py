"""Who sees what: own gold, bids and packets; announcements; everything at the end."""
from __future__ import annotations

from typing import Any

from engines.canonical import roundtrip
from engines.contract import GM, PUBLIC
from engines.driver import load_options, player_list
from engines.extreme_ways import ENGINE
from engines.rng import Rng
from eventlog.events import GENESIS, Event, seal
from replays.fold import fold
from replays.views import event_for, game_for

from tests.engines.extreme_ways.helpers import (
    SEED, act, axis_round, move_all, new_game, pass_all_bidding, resolve,
)


def _log(bodies: list[tuple[str, str, dict[str, Any]]]) -> list[Event]:
    """A hash-chained log of (type, actor, data), as the service would record it."""
    events: list[Event] = []
    for seq, (kind, actor, data) in enumerate(bodies, start=1):
        events.append(seal(seq, events[-1]["hash"] if events else GENESIS, kind, actor, data,
                           at="2030-01-01T00:00:00.000000Z"))
    return events


def _running_game_with_garnets_set(fields: list[dict[str, Any]]) -> list[Event]:
    """Created, joined, started, then the GM sets p2's garnets to 3 (a platform log, folded below)."""
    options = load_options(ENGINE, {"bidding_rounds": 1})
    players = player_list(len(fields), fields)
    setup = roundtrip(ENGINE.setup(options, players, Rng(SEED, "setup")))
    created = {"game_id": "gtest", "type": ENGINE.meta.name, "version": ENGINE.meta.version, "name": None,
               "options": options, "deadlines": dict(ENGINE.default_deadlines), "resolve_early": True,
               "seed_commitment": "0" * 64}
    return _log([
        ("game.created", "anyone", created),
        *[("player.joined", "gm", {"player_id": p["id"], "name": p["name"], "fields": p["fields"]})
          for p in players],
        ("game.started", "gm", {"setup": setup, "phase": {"name": "bidding", "number": 1,
                                                          "deadline": "2030-01-02T00:00:00Z"}}),
        ("action.submitted", "gm", {"phase": 1, "action": {"type": "gm.set_garnets", "player_id": "p2",
                                                           "garnets": 3}}),
    ])


def test_ruling_8_garnets_are_private_so_gm_set_garnets_is_sealed() -> None:
    """Ruling 8: garnets are seen only by their holder and the GM until the end, in the log too."""
    events = _running_game_with_garnets_set([{"garnets": 1}, {"garnets": 8}, {"garnets": 0}])
    record = fold(events)
    assert record["status"] == "running"
    set_event, joined_p2 = events[-1], events[2]
    for viewer in (PUBLIC, "p1", "p3"):
        assert event_for(record, set_event, viewer)["data"] == {"phase": 1, "sealed": True}, viewer
        assert "garnets" not in event_for(record, joined_p2, viewer)["data"]["fields"], viewer
        game = game_for(record, viewer)
        assert "hidden" not in game["state"]
        assert "garnets" not in next(p for p in game["players"] if p["id"] == "p2")["fields"]
    assert event_for(record, set_event, GM)["data"]["action"]["garnets"] == 3
    assert game_for(record, "p2")["state"]["you"]["garnets"] == 3, "the player sees their own garnets"
    assert game_for(record, "p1")["state"]["you"]["garnets"] == 1
    assert game_for(record, GM)["state"]["hidden"]["garnets"] == {"p1": 1, "p2": 3, "p3": 0}


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


def test_clarification_a_log_closed_at_the_end_reveals_only_final_locations_and_gold() -> None:
    """With the platform's reveal_at_end "rulebook" the finished game shows what the rulebook reveals: final
    locations and gold counts (and the Tokens and EC they decide), not the paths, true moves, bids or ballots."""
    state = pass_all_bidding(new_game(6, {"bidding_rounds": 2, "rounds": [axis_round(), axis_round()]}))
    _, state = move_all(state, {"p1": ["A", "A"], "p2": ["B", "B"], "p3": ["C", "C"], "p4": ["D", "D"],
                                "p5": ["C", "D"], "p6": ["C", "D"]})  # p5 and p6 tie: the Token holders vote
    state = act(state, "p1", {"type": "ec_vote", "player_id": "p5"})
    _, state = resolve(state, 20)
    assert ENGINE.phase(state) is None and "votes" in ENGINE.view(state, PUBLIC)["elimination"]
    for viewer in (PUBLIC, "p2"):
        closed = ENGINE.closed_view(state, viewer)
        assert "hidden" not in closed and "votes" not in closed["elimination"]
        assert closed["results"]["positions"]["p1"] == [10, 0] and closed["results"]["gold"]["p1"] == 50
    assert ENGINE.closed_view(state, "p1")["you"]["vote"] == "p5", "a player's own part stays theirs"


def test_result_is_none_until_the_end() -> None:
    assert ENGINE.result(new_game(2)) is None
