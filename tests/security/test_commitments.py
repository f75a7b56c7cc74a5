"""The public hash chain must not give sealed information away.

Every event's hash is public, and a sealed order has few possible values: an attacker
who can rebuild the hashed body for each candidate bid finds the one that matches,
unless the body holds something they cannot guess.  These tests play that attacker.
"""
from __future__ import annotations

from typing import Any

from eventlog.events import event_hash
from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def _events(api: Api, game_id: str, token: str | None) -> list[dict[str, Any]]:
    status, body = api.get(f"/games/{game_id}/events?limit=1000", token=token)
    assert status == 200, body
    return body["events"]


def _candidates(template: dict[str, Any], amounts: range) -> list[dict[str, Any]]:
    """Every body the attacker can build for a bid: the shape is known from their own orders."""
    return [
        {**template, "data": {**template["data"], "action": {**template["data"]["action"], "amount": amount}}}
        for amount in amounts
    ]


def _matches(event: dict[str, Any], candidates: list[dict[str, Any]]) -> list[int]:
    found = []
    for body in candidates:
        unhashed = {k: v for k, v in body.items() if k != "hash"}
        if event_hash(event["prev_hash"], unhashed) == event["hash"]:
            found.append(body["data"]["action"]["amount"])
    return found


def test_a_sealed_bid_cannot_be_found_by_hashing_every_possible_bid(api: Api) -> None:
    game = new_game(api, players=4)
    status, answer = api.post(game.path("/actions"), {"type": "bid", "amount": 37}, token=game.tokens["p1"])
    assert status == 202, answer
    seq = answer["seq"]

    as_gm = next(e for e in _events(api, game.id, game.gm) if e["seq"] == seq)
    as_author = next(e for e in _events(api, game.id, game.tokens["p1"]) if e["seq"] == seq)
    assert "salt" in as_gm and as_author == as_gm  # the author can re-check their own receipt

    # The attack works when the salt is known: the GM's copy gives the bid away ...
    assert _matches(as_gm, _candidates(as_gm, range(1, 1001))) == [37]
    # ... and fails without it, for the public and for every other player.
    without_salt = {k: v for k, v in as_gm.items() if k != "salt"}
    for viewer in (None, game.tokens["p2"], game.tokens["p3"]):
        shown = next(e for e in _events(api, game.id, viewer) if e["seq"] == seq)
        assert shown["data"] == {"phase": 1, "sealed": True}
        assert "salt" not in shown
        assert shown["hash"] == as_gm["hash"]  # the chain itself stays public and checkable
        assert _matches(shown, _candidates(without_salt, range(1, 1001))) == []


def test_every_event_shown_cut_has_lost_its_salt(api: Api) -> None:
    game = new_game(api, players=4)
    for player, amount in (("p1", 5), ("p2", 9), ("p3", 9)):
        status, answer = api.post(game.path("/actions"), {"type": "bid", "amount": amount},
                                  token=game.tokens[player])
        assert status == 202, answer
    full = {e["seq"]: e for e in _events(api, game.id, game.gm)}
    assert all("salt" in e for e in full.values())
    cut = 0
    for viewer in (None, game.tokens["p1"], game.tokens["p4"]):
        for shown in _events(api, game.id, viewer):
            if shown == full[shown["seq"]]:
                continue
            cut += 1
            assert "salt" not in shown, shown
            assert shown["hash"] == full[shown["seq"]]["hash"]
    assert cut >= 3 * 2  # each viewer sees at least the other players' bids cut
