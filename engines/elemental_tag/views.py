"""What each viewer of an elemental Tag game may see, and the orders a client may offer.

Everyone sees the map (every player's square), the teams with their points, who is it, the
applications to join a team, the eliminations, and the last round's announced facts (moves,
collisions, tag, point changes, team events).  A player also sees their own orders of the open
round.  Bids, tag lists, place requests and team actions are the GM's (and their sender's) until
the game ends; then everyone sees everything.
"""
from __future__ import annotations

from typing import Any, Callable

from engines.canonical import roundtrip
from engines.contract import GM, JSON, State, Viewer
from engines.elemental_tag import board as grid
from engines.elemental_tag.rules import by_id, open_elements, present
from engines.elemental_tag.schemas import DIRECTIONS


def _last(state: State) -> JSON:
    if not state["history"]:
        return None
    return {k: v for k, v in state["history"][-1].items() if k not in ("squares", "teams", "size")}


def view(state: State, viewer: Viewer, hint: Callable[[State, str], JSON]) -> JSON:
    over = state["stage"] == "over"
    out: dict[str, Any] = {
        "game": "Elemental Tag",
        "stage": state["stage"],
        "round": state["turn"],
        "moving_round": state["turn"] - 2 if state["stage"] == "moving" else None,
        "size": state["size"],
        "it": state["it"],
        "players": [
            {"id": p, "name": state["names"][p], "team": state["players"][p]["team"],
             "element": state["teams"][state["players"][p]["team"]]["element"], "square": state["players"][p]["pos"]}
            for p in present(state)
        ],
        "teams": [{"team": t, **state["teams"][t]} for t in sorted(state["teams"], key=by_id)],
        "open_elements": open_elements(state),
        "applications": state["applications"],
        "eliminated": state["eliminated"],
        "departed": state["departed"],
        "last_round": _last(state),
        "rules": state["options"],
    }
    if viewer is not None and viewer != GM and viewer in state["names"]:
        out["you"] = {
            "id": viewer, "in_play": viewer in state["players"],
            "team": state["players"].get(viewer, {}).get("team"),
            "order": state["orders"].get(viewer),
            "team_actions": state["acts"].get(viewer, {}),
            "legal_actions": hint(state, viewer),
        }
    if viewer == GM or over:
        out["hidden"] = {"orders": state["orders"], "team_actions": state["acts"], "last_round": state["last_secret"]}
    return roundtrip(out)


def legal_actions(state: State, player: str) -> JSON:
    """What ``player`` may send now, for a client to offer (the rules still judge each order)."""
    if state["stage"] == "over" or player not in state["players"]:
        return {}
    if state["stage"] == "bidding":
        return {"bid": {"min": 0, "max": state["options"]["max_bid"]}}
    if state["stage"] == "placement":
        return {"place": {"replace": [True, False]}}
    me = state["players"][player]
    team = state["teams"][me["team"]]
    directions = [d for d in DIRECTIONS if grid.on_grid(grid.target(me["pos"], d), state["size"])]
    out: dict[str, Any] = {"move": {"directions": directions,
                                    "tags": [p for p in present(state) if p != player] if state["it"] == player
                                    else []}}
    if team["element"] is None:
        out["apply"] = {"elements": sorted(t["element"] for t in state["teams"].values() if t["element"])}
        partners = [p for p in present(state) if p != player and state["teams"][state["players"][p]["team"]]
                    ["element"] is None]
        if partners and open_elements(state):
            out["form"] = {"partners": partners, "elements": open_elements(state)}
        return out
    applicants = sorted((p for p, e in state["applications"].items() if e == team["element"]), key=by_id)
    ejectable = [m for m in team["members"] if m != player] if len(team["members"]) >= 3 else []
    if applicants or ejectable:
        out["vote"] = {"admit": applicants, "eject": ejectable}
    if len(team["members"]) >= 3:
        out["leave"] = {}
    if len(team["members"]) == 2:
        out["disband"] = {}
    return out
