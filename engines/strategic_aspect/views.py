"""What each viewer sees.  Hidden: the rest of the turn order (the GM only), sealed bids and votes (their
author and the GM, until revealed; ballots stay the GM's, only counts are published)."""
from __future__ import annotations

from typing import Any, Callable

from engines.contract import GM, JSON, Viewer
from engines.strategic_aspect import rules

State = dict[str, Any]
SEALED_STAGES = ("auction", "rebid", "vote")


def standings(state: State) -> list[JSON]:
    """Everyone who started: cyclists still in (most steps first), then the eliminated, then the departed
    ("▲ steps")."""
    safety = state["safety"] or {}
    holder = safety.get("holder") if safety.get("status") in ("deciding", "offered", "kept") else None
    rows = []
    for cyclist in state["roster"]:
        row: dict[str, Any] = {"id": cyclist, "name": state["names"][cyclist], "steps": state["steps"][cyclist],
                               "position": state["position"].get(cyclist), "status": _status(state, cyclist),
                               "safety": cyclist == holder,
                               "vote_holder": state["cycle"] is not None and state["cycle"]["vote_holder"] == cyclist}
        if cyclist in state["departed"]:
            row["shown"] = f"▲ {state['departed'][cyclist]['steps']}"
        else:
            row["shown"] = str(state["steps"][cyclist])
        rows.append(row)
    rank = {"riding": 0, "arrived": 0, "eliminated": 1, "departed": 2}
    return sorted(rows, key=lambda r: (rank[r["status"]], -r["steps"] if r["status"] != "departed" else 0,
                                       state["roster"].index(r["id"])))


def _status(state: State, cyclist: str) -> str:
    if cyclist in state["departed"]:
        return "departed"
    if cyclist in state["eliminated"]:
        return "eliminated"
    if state["cycle"] is not None and cyclist in state["cycle"]["arrivals"]:
        return "arrived"
    return "riding"


def view(state: State, viewer: Viewer, hint: Callable[[State, str], JSON | None], result: JSON | None) -> JSON:
    cycle = state["cycle"]
    shown: dict[str, Any] = {
        "game": "Strategic Aspect",
        "status": "finished" if state["stage"] == "over" else "running",
        "stage": state["stage"],
        "cycle": {**{k: cycle[k] for k in ("number", "kind", "length", "tiebreak_space", "vote_holder", "round",
                                           "turn", "arrivals")},
                  "steal_spaces": list(rules.steal_spaces(cycle["kind"]))},
        "current": _current(state),
        "standings": standings(state),
        "turns": list(cycle["turns"]),
        "auction": _auction(state),
        "safety": state["safety"],
        "ceremony": state["ceremony"],
        "suffice_cycles_owed": state["suffice_after"],
        "eliminated": state["eliminated"],
        "departed": state["departed"],
        "winner": state["winner"],
    }
    if state["stage"] == "vote":
        shown["ceremony"] = {"candidates": rules.ceremony_candidates(state), "automatic": rules.automatic_voters(state),
                             "voted": sorted(c for c in state["pending"])}
    if viewer == GM:
        shown["order"] = list(state["order"])  # the rest of this round's turn order: the GM's alone
        shown["pending"] = state["pending"]
        shown["ballots"] = state["ballots"]  # who voted for whom, by cycle: secret ballots are the GM's
    elif viewer is not None and viewer in state["names"]:
        mine = state["pending"].get(viewer)
        shown["you"] = {"id": viewer, "sent": mine, "legal": hint(state, viewer)}
    if result is not None:
        shown["result"] = result
    return shown


def _current(state: State) -> JSON | None:
    """The open turn: whose it is and their place in this round (announced when the turn opens)."""
    if state["current"] is None:
        return None
    cycle = state["cycle"]
    return {"cyclist": state["current"], "name": state["names"][state["current"]], "stage": state["stage"],
            "round": cycle["round"], "place": cycle["place"]}


def _auction(state: State) -> JSON | None:
    """Bidders and the revealed bids; the bids of the open round are nobody else's business."""
    auction = state["auction"]
    if auction is None:
        return None
    return {"bidders": auction["bidders"], "cap": auction["cap"], "rounds": auction["rounds"],
            "result": auction.get("result"), "winner": auction.get("winner"),
            "bid": sorted(state["pending"]) if state["stage"] in ("auction", "rebid") else []}


def legal(state: State, cyclist: str) -> JSON:
    """The orders ``cyclist`` may send now, for a client to offer."""
    stage = state["stage"]
    if stage == "move":
        return {"spaces": rules.legal_moves(state["steps"][cyclist], state["position"][cyclist],
                                            state["cycle"]["length"], state["options"]["exact_finish"])}
    if stage == "steal":
        return {"from": [*rules.steal_targets(state, cyclist), None]}
    if stage == "buy_vote":
        return {"buy": [True, False]}
    if stage in ("auction", "rebid"):
        return {"amount": [0, state["auction"]["cap"]]}
    if stage == "safety":
        safety = state["safety"]
        gift = safety["transfers"] < rules.MAX_TRANSFERS
        to = [c for c in state["cyclists"] if c != cyclist and c not in safety["declined"]] if gift else []
        return {"choice": ["keep", "destroy", *(["give"] if to else [])], "to": to}
    if stage == "accept":
        return {"accept": [True, False]}
    if stage == "vote":
        return {"against": rules.ceremony_candidates(state)}
    if stage == "tiebreak":
        return {"eliminate": list(state["ceremony"]["tied"])}
    distance = rules.suffice_distance(state, cyclist)
    return {"choice": ["add", "subtract", "ignore"], "distance": distance}


def result(state: State) -> JSON:
    """The winner, how the game ended, and everyone's standing (the winner first)."""
    rows = [{**row, "winner": row["id"] == state["winner"]} for row in standings(state)]
    return {"winner": state["winner"], "ended": state["ended"], "cycles": len(state["history"]),
            "standings": sorted(rows, key=lambda r: not r["winner"])}
