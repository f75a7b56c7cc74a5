"""What each viewer sees: the public race, a player's own orders and drugs, the GM all."""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import GM, Viewer
from engines.golden_strider import rules
from engines.golden_strider.race import hand_for
from engines.golden_strider.orders import own_runners
from engines.golden_strider.report import full_report, rulebook_row


def public_runner(runner: dict[str, Any], full: bool = True) -> dict[str, Any]:
    """A runner as the report shows it; cards are hidden until the first round is run.  Not ``full`` (the
    Tarnished report): the square and position only."""
    if not full:
        return {"id": runner["id"], "name": runner["name"], "player": runner["owner"], "square": runner["square"],
                "position": runner["position"], "withdrawn": runner["withdrawn"]}
    cards = runner["cards"]
    return {
        "id": runner["id"], "name": runner["name"], "player": runner["owner"],
        "square": runner["square"], "position": runner["position"], "owed": runner["owed"],
        "cf": runner["cf"], "withdrawn": runner["withdrawn"],
        "cards": None if cards is None else [rules.card_label(c) for c in cards],
    }


def submitted(state: dict[str, Any]) -> list[str]:
    """Who has an order in for the open phase (never what it says)."""
    if state["stage"] == "round":
        return sorted(state["orders"])
    if state["stage"] == "accusation":
        return sorted(state["accusations"])
    if state["stage"] == "robots":
        return sorted(state["algorithms"])
    return []


def public_view(state: dict[str, Any], full: bool | None = None) -> dict[str, Any]:
    """What everyone sees; ``full`` (the GM's) or, by default, the report the game shows (``full_report``)."""
    opts = state["options"]
    full = full_report(state) if full is None else full
    latest = state["history"][-1]["rows"] if state["history"] else None
    view: dict[str, Any] = {
        "variant": opts["variant"], "race_length": state["race_length"], "round": state["round"],
        "stage": state["stage"], "runners": [public_runner(r, full) for r in state["runners"]],
        "submitted": submitted(state), "rounds_played": [e["round"] for e in state["history"]],
        "report": latest if full or latest is None else [rulebook_row(row) for row in latest],
        "result": state["result"],
    }
    if opts["variant"] == "steeplechase":
        view["obstacles"] = {"barriers": opts["barriers"], "water_jumps": opts["water_jumps"]}
    if state["stage"] == "over":
        drugs = {r["id"]: r.get("drug") for r in state["runners"]}
        view["drugs"] = drugs if opts["variant"] == "tarnished" else None
        view["algorithms"] = state["algorithms"] or None
    return view


def player_view(state: dict[str, Any], player_id: str, hint: Any) -> dict[str, Any]:
    """The public view plus the player's own sealed orders, drugs and algorithm."""
    view = public_view(state)
    mine = [r for r in state["runners"] if r["owner"] == player_id]
    you: dict[str, Any] = {
        "player": player_id, "runners": [r["id"] for r in mine],
        "orders": {r["id"]: state["orders"][r["id"]] for r in mine if r["id"] in state["orders"]},
        "hint": hint,
    }
    if state["options"]["variant"] == "tarnished":
        you["drugs"] = {r["id"]: r.get("drug") or _ordered_drug(state, r["id"]) for r in mine}
        you["accusation"] = state["accusations"].get(player_id)
        if not full_report(state):  # the rest of the report is the runners' own: their manager's to see
            you["runner_details"] = [public_runner(r) for r in mine]
            latest = state["history"][-1]["rows"] if state["history"] else []
            you["report"] = [row for row in latest if row["runner"] in you["runners"]]
    if state["options"]["variant"] == "robot":
        you["algorithm"] = state["algorithms"].get(player_id)
    view["you"] = copy.deepcopy(you)
    return view


def _ordered_drug(state: dict[str, Any], runner_id: str) -> str | None:
    order = state["orders"].get(runner_id)
    return (order.get("drug") or "clean") if order else None


def gm_view(state: dict[str, Any]) -> dict[str, Any]:
    """Everything: the full report, orders, drugs, accusations and algorithms as they stand."""
    view = public_view(state, full=True)
    view["gm"] = copy.deepcopy({
        "orders": state["orders"], "accusations": state["accusations"], "algorithms": state["algorithms"],
        "drugs": {r["id"]: r.get("drug") for r in state["runners"]},
        "boost_used": {r["id"]: r.get("boost_used", False) for r in state["runners"]},
    })
    return view


def hint(state: dict[str, Any], player_id: str) -> list[dict[str, Any]] | None:
    """For a client: each of the player's runners' playable cards and what is owed."""
    if state["stage"] != "round":
        return None
    out = []
    mode = state["options"]["seven_turn_rule"]
    for runner in own_runners(state, player_id):
        if runner["cards"] is None:
            out.append({"runner": runner["id"], "starting_cards": True, "owed": 0})
            continue
        hand = hand_for(state, runner, None)
        playable = [
            rules.card_label(c) for i, c in enumerate(hand)
            if rules.keeps_seven_turn_rule(hand, i, state["round"], mode)
        ]
        out.append({"runner": runner["id"], "playable": playable, "owed": runner["owed"]})
    return out


def view(state: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    if viewer == GM:
        return gm_view(state)
    if viewer is None or viewer not in {p["id"] for p in state["players"]}:
        return public_view(state)
    return player_view(state, viewer, hint(state, viewer))
