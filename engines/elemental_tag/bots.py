"""Random legal orders for simulated elemental Tag games.

Bots bid low, sometimes ask for a new place, run about (the it player chases the nearest
player and tags whoever is close), and now and then take a team action.  Team actions that
need two or more players to agree (a disbanding, a new team, an ejection, an admission) follow
a schedule every bot can see (the round number), so they really happen in simulated games.
Bots sometimes send nothing, so the defaults for missing orders are played too.
"""
from __future__ import annotations

from engines.contract import JSON, State
from engines.elemental_tag import board as grid
from engines.elemental_tag.rules import by_id, open_elements, present
from engines.rng import Rng


def bot_action(state: State, actor: str, rng: Rng) -> JSON | None:
    stage = state["stage"]
    if rng.below(10) == 0:
        return None  # missed the deadline
    if stage == "bidding":
        return {"type": "bid", "amount": rng.randint(0, min(8, state["options"]["max_bid"]))}
    if stage == "placement":
        return {"type": "place", "replace": rng.below(5) == 0}
    action = _team_action(state, actor, rng)
    return action if action is not None else _move(state, actor, rng)


def _distance(a: list[int], b: list[int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _move(state: State, actor: str, rng: Rng) -> JSON:
    me = state["players"][actor]["pos"]
    choices = [d for d in grid.STEPS if grid.on_grid(grid.target(me, d), state["size"])]
    others = sorted((p for p in present(state) if p != actor),
                    key=lambda p: (_distance(me, state["players"][p]["pos"]), by_id(p)))
    if state["it"] == actor and others and rng.below(4):
        goal = state["players"][others[0]]["pos"]
        direction = min(choices, key=lambda d: (_distance(list(grid.target(me, d)), goal), d))
        close = [p for p in others if _distance(me, state["players"][p]["pos"]) <= 2][: 1 + rng.below(2)]
        return {"type": "move", "direction": direction, **({"tags": close} if close else {})}
    return {"type": "move", "direction": rng.choice(choices)}


def _team_action(state: State, actor: str, rng: Rng) -> JSON | None:
    """A team action this round, or None to move instead."""
    turn = state["turn"]
    team = state["teams"][state["players"][actor]["team"]]
    members = team["members"]
    if team["element"] is None:
        alone = [p for p in present(state) if state["teams"][state["players"][p]["team"]]["element"] is None]
        opened = open_elements(state)
        if turn % 4 == 0 and len(alone) >= 2 and opened:  # pairs in id order form a team of the first open element
            index = alone.index(actor)
            mate = index + 1 if index % 2 == 0 else index - 1
            if mate < len(alone):
                return {"type": "form", "partner": alone[mate], "element": opened[0]}
        held = sorted(t["element"] for t in state["teams"].values() if t["element"])
        if held and rng.below(6) == 0:
            return {"type": "apply", "element": rng.choice(held)}
        return None
    applicants = sorted((p for p, e in state["applications"].items() if e == team["element"]), key=by_id)
    if applicants and rng.below(3):
        return {"type": "vote", "motion": "admit", "player_id": applicants[0]}
    if len(members) >= 3 and turn % 6 == 0 and actor != members[-1]:
        return {"type": "vote", "motion": "eject", "player_id": members[-1]}
    if len(members) >= 3 and rng.below(25) == 0:
        return {"type": "leave"}
    if len(members) == 2 and turn % 5 == 0:
        return {"type": "disband"}
    return None
