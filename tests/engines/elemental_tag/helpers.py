"""Building elemental Tag states for rule tests: sign-ups, a map set by hand, orders through the gate."""
from __future__ import annotations

from typing import Any

from engines.canonical import roundtrip
from engines.driver import load_action, player_list, run_phase, start, submit
from engines.elemental_tag import ENGINE
from engines.elemental_tag.rules import by_id

State = dict[str, Any]


def signed_up(fields: list[dict[str, Any]], options: dict[str, Any] | None = None) -> State:
    """A game just started with one player per entry of ``fields`` (p1, p2, ...)."""
    return start(ENGINE, options, player_list(len(fields), fields), "rules").final


def on_map(state: State, squares: dict[str, tuple[int, int]], size: int = 5, it: str | None = None,
           points: dict[str, int] | None = None, turn: int = 3) -> State:
    """``state`` in a moving round with players on the given squares (others out of the game), ``it``
    it, and team points set by team id."""
    players = {p: {**state["players"][p], "pos": list(sq)} for p, sq in squares.items()}
    teams = {}
    for tid, team in state["teams"].items():
        members = [m for m in team["members"] if m in players]
        if members:
            teams[tid] = {**team, "members": members, "points": (points or {}).get(tid, team["points"])}
    return roundtrip({**state, "players": players, "teams": teams, "stage": "moving", "turn": turn, "size": size,
                      "it": it, "it_history": [it] if it else []})


def send(state: State, actor: str, **action: Any) -> State:
    """An order through the schema, the platform's gate and the rules, as the service would take it."""
    return roundtrip(submit(ENGINE, state, actor, load_action(ENGINE, action)))


def resolve(state: State, seed: str = "rules", number: int = 1) -> tuple[dict[str, Any], State]:
    return run_phase(ENGINE, state, seed, number)


def team_of(state: State, player: str) -> str:
    return state["players"][player]["team"]


def points(state: State, player: str) -> int:
    return state["teams"][team_of(state, player)]["points"]


def members(state: State, player: str) -> list[str]:
    return sorted(state["teams"][team_of(state, player)]["members"], key=by_id)


FIRE3_WATER2_ALONE2 = [{"element": "fire"}, {"element": "fire"}, {"element": "fire"}, {"element": "water"},
                       {"element": "water"}, {}, {}]
