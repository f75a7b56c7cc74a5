"""Orders of Extreme Ways: which order is allowed now (naming the rule) and its effect.

Bids and passes replace each other within a round; a move submission replaces the
previous one; ballots replace; gold purchases add up.
"""
from __future__ import annotations

import copy
from typing import Callable

from engines.contract import JSON, RuleError, State
from engines.extreme_ways.players import active_players, ec_candidates


def validate(state: State, actor: str, action: JSON) -> None:
    """Raise RuleError naming the rule unless the rules allow ``action`` (the platform's gate has checked
    the phase and that ``actor`` is one of its actors)."""
    kind = action["type"]
    if kind == "gm.set_garnets":
        _validate_set_garnets(state, action)
        return
    _VALIDATORS[kind](state, actor, action)


def _validate_bid(state: State, actor: str, action: JSON) -> None:
    amount, gold = action["amount"], state["gold"][actor]
    if amount < 1:
        raise RuleError("positive bid", "A bid must be a positive integer; to bid nothing, pass.",
                        {"amount": amount})
    if amount > gold:
        raise RuleError("gold", f"You bid {amount} gold pieces but hold only {gold}.",
                        {"amount": amount, "gold": gold})


def _validate_pass(state: State, actor: str, action: JSON) -> None:
    return None


def _validate_buy_gold(state: State, actor: str, action: JSON) -> None:
    if not state["options"]["allow_buy_gold"]:
        raise RuleError("garnets", "Buying gold pieces with garnets is off in this game.")
    count, held = action["garnets"], state["garnets"][actor]
    if count < 1:
        raise RuleError("garnets", "Buy with a positive number of garnets.", {"garnets": count})
    if count > held:
        raise RuleError("garnets", f"You hold only {held} garnets.", {"garnets": count, "held": held})


def _validate_move(state: State, actor: str, action: JSON) -> None:
    total = len(state["rounds"])
    if len(action["options"]) != total:
        raise RuleError("moving phase",
                        f"Submit exactly one option (or null) for each of the {total} rounds.",
                        {"options": len(action["options"])})
    use = action["rebound"]
    if use is None:
        return
    if not state["options"]["rebound_twist"]:
        raise RuleError("rebound token", "The Rebound Token twist is not in play in this game.")
    if not 1 <= use["round"] <= total:
        raise RuleError("rebound token", f"The rebound round must be 1 to {total}.",
                        {"round": use["round"]})
    if use["player_id"] == actor or use["player_id"] not in active_players(state):
        raise RuleError("rebound token", "Rebound about a different player who is still in the game.",
                        {"player_id": use["player_id"]})


def _validate_ec_vote(state: State, actor: str, action: JSON) -> None:
    choice, candidates = action["player_id"], ec_candidates(state)
    if choice in state["elimination"]["candidates"] and choice not in candidates:
        raise RuleError("elimination candidate",
                        f"{state['names'][choice]} was removed from the game by the GM and can no longer be "
                        "the Elimination Candidate; vote for one of the tied players still in the game.",
                        {"player_id": choice, "candidates": candidates})
    if choice not in candidates:
        raise RuleError("elimination candidate", "Vote for one of the tied players.",
                        {"player_id": choice, "candidates": candidates})


def _validate_set_garnets(state: State, action: JSON) -> None:
    if action["player_id"] not in state["players"]:
        raise RuleError("players", f"No player {action['player_id']!r} in this game.")


_VALIDATORS: dict[str, Callable[[State, str, JSON], None]] = {
    "bid": _validate_bid,
    "pass": _validate_pass,
    "buy_gold": _validate_buy_gold,
    "move": _validate_move,
    "ec_vote": _validate_ec_vote,
}


def apply_action(state: State, actor: str, action: JSON) -> State:
    """A new state sharing the untouched parts (orders are frequent; states are never mutated)."""
    new = dict(state)
    kind = action["type"]
    if kind in ("bid", "pass"):
        new["bids"] = {**state["bids"], actor: action["amount"] if kind == "bid" else None}
    elif kind == "buy_gold":
        gold = action["garnets"] * state["options"]["garnet_rate"]
        new["garnets"] = {**state["garnets"], actor: state["garnets"][actor] - action["garnets"]}
        new["gold"] = {**state["gold"], actor: state["gold"][actor] + gold}
        bought = {"garnets": action["garnets"], "gold": gold, "round": state["round"]}
        new["purchases"] = {**state["purchases"], actor: [*state["purchases"][actor], bought]}
    elif kind == "move":
        options = list(action["options"])
        use = action["rebound"]
        if use is not None:
            options[use["round"] - 1] = None  # the rebound replaces that round's move
        rebound = None if use is None else copy.deepcopy(use)  # the order's own, never the state's
        new["moves"] = {**state["moves"], actor: {"options": options, "rebound": rebound}}
    elif kind == "ec_vote":
        new["votes"] = {**state["votes"], actor: action["player_id"]}
    elif kind == "gm.set_garnets":
        new["garnets"] = {**state["garnets"], action["player_id"]: action["garnets"]}
    return new
