"""What each viewer of an Extreme Ways game may see, and the final result.

Everyone: every round's options and candidate moves, auction announcements, leftover
packets revealed, and (after the Moving Phase) final positions, gold and Tokens of Life.
A player also sees their own gold, garnets, bids, packets won and submissions.  The GM
sees everything; once the game is over, so does everyone.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import orjson

from engines.contract import GM, JSON, Phase, State, Viewer
from engines.extreme_ways import rules
from engines.extreme_ways.players import ec_candidates


def _detached(data: JSON) -> JSON:
    """A copy sharing nothing with the state, so a caller can never alter the game.  States are JSON data,
    which orjson copies as json does (same types and key order) several times faster; what orjson refuses
    gets json's copy, or json's error."""
    try:
        return orjson.loads(orjson.dumps(data, option=_ONLY_JSON))
    except TypeError:
        return json.loads(json.dumps(data))


# orjson writes dataclasses, datetimes and subclasses of str, int, dict and list in its own way: let json decide.
_ONLY_JSON = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


def _public_rules(options: JSON) -> JSON:
    """The options a player needs to know (GM-fixed rounds are never echoed)."""
    return {
        "bidding_rounds": options["bidding_rounds"],
        "starting_gold": options["starting_gold"],
        "announce": options["announce"],
        "reveal_leftover_packets": rules.reveals_leftover_packets(options),
        "rebound_twist": options["rebound_twist"],
        "garnet_rate": options["garnet_rate"] if options["allow_buy_gold"] else None,
        "ec_rule": options["ec_rule"],
        "ec_excludes_token_holders": rules.ec_excludes_token_holders(options),
        "ec_tiebreak_garnets": options["ec_tiebreak_garnets"],
    }


def _public_elimination(state: State, over: bool) -> JSON:
    elim = state["elimination"]
    if elim is None:
        return None
    return {k: v for k, v in elim.items() if over or k != "votes"}


def _own_bid(state: State, player: str) -> JSON:
    if player not in state["bids"]:
        return None
    amount = state["bids"][player]
    return "pass" if amount is None else {"amount": amount}


def _you(state: State, player: str, hint: Callable[[State, str], JSON]) -> JSON:
    """A player's own secrets: gold, garnets, bids, packets, submissions."""
    played = state["played"] or {}
    return {
        "id": player,
        "name": state["names"][player],
        "ejected": player in state["ejected"],
        "gold": state["gold"][player],
        "garnets": state["garnets"][player],
        "purchases": state["purchases"][player],
        "bid": _own_bid(state, player),
        "bids": [
            {"round": a["public"]["round"], "bid": a["secret"]["bids"].get(player),
             "paid": a["secret"]["paid"].get(player, 0)}
            for a in state["auctions"]
        ],
        "packets": state["packets_won"][player],
        "move": state["moves"].get(player),
        "options_played": played.get("choices", {}).get(player),
        "randomised": played.get("randomised", {}).get(player),
        "vote": state["votes"].get(player),
        "legal_actions": hint(state, player),
    }


def _everything(state: State) -> JSON:
    """The GM's view of the hidden parts (everyone's once the game is over)."""
    return {
        "true_moves": [
            {"round": s["round"], "true": {x: r["options"][x][s["true"][x]] for x in rules.OPTIONS}}
            for r, s in zip(state["rounds"], state["secret_rounds"])
        ],
        "packets": [
            {"round": s["round"], "packets": rules.round_packets(r["options"], s)}
            for r, s in zip(state["rounds"], state["secret_rounds"])
        ],
        "bids": dict(state["bids"]),
        "auctions": [a["secret"] for a in state["auctions"]],
        "gold": dict(state["gold"]),
        "garnets": dict(state["garnets"]),
        "garnets_signed_up": dict(state["garnets_signed_up"]),
        "purchases": state["purchases"],
        "packets_won": state["packets_won"],
        "moves": state["moves"],
        "played": state["played"],
        "votes": dict(state["votes"]),
    }


def view(state: State, viewer: Viewer, hint: Callable[[State, str], JSON]) -> JSON:
    over = state["stage"] == "over"
    out: dict[str, Any] = {
        "game": "Extreme Ways",
        "stage": state["stage"],
        "round": state["round"],
        "rounds_total": len(state["rounds"]),
        "players": [
            {"id": p, "name": state["names"][p], "ejected": p in state["ejected"]} for p in state["players"]
        ],
        "rules": _public_rules(state["options"]),
        "moves_on_offer": state["rounds"],
        "auctions": [a["public"] for a in state["auctions"]],
        "results": state["results"],
        "elimination": _public_elimination(state, over),
    }
    if viewer is not None and viewer in state["players"]:
        out["you"] = _you(state, viewer, hint)
    if viewer == GM or over:
        out["hidden"] = _everything(state)
    return _detached(out)


def legal_actions(state: State, player: str, phase: Phase | None) -> JSON:
    """What ``player`` may send now, for a client to offer."""
    if phase is None or player not in phase.actors:
        return {}
    options = state["options"]
    if phase.name == "bidding":
        out: dict[str, Any] = {"pass": {}}
        if state["gold"][player] >= 1:
            out["bid"] = {"min": 1, "max": state["gold"][player]}
        if options["allow_buy_gold"] and state["garnets"][player] >= 1:
            out["buy_gold"] = {"max_garnets": state["garnets"][player],
                               "gold_per_garnet": options["garnet_rate"]}
        return out
    if phase.name == "moving":
        move: dict[str, Any] = {"rounds": len(state["rounds"]), "options": list(rules.OPTIONS)}
        if options["rebound_twist"]:
            move["rebound_players"] = [p for p in phase.actors if p != player]
        return {"move": move}
    return {"ec_vote": {"candidates": ec_candidates(state)}}


def result(state: State) -> JSON:
    """Token of Life holders, the Elimination Candidate and every player's standing."""
    res = state["results"] or {}
    positions = res.get("positions", {})
    standings = [
        {
            "player_id": p,
            "name": state["names"][p],
            "position": positions[p],
            "distance": res["distances"][p],
            "gold": res["gold"][p],
            "tokens_of_life": rules.tokens_held(res["tokens_of_life"], p),
            "garnets_awarded": res["garnets_awarded"][p],
            "garnets": state["garnets"][p],
        }
        for p in state["players"]
        if p in positions
    ]
    standings.sort(key=lambda s: (-s["distance"], s["player_id"]))
    elim = state["elimination"] or {}
    return _detached({
        "tokens_of_life": res.get("tokens_of_life", {}),
        "winners": sorted({w for w in res.get("tokens_of_life", {}).values() if w is not None}),
        "elimination_candidate": elim.get("ec"),
        "elimination_decided_by": elim.get("decided_by"),
        "standings": standings,
        "ejected": list(state["ejected"]),
    })
