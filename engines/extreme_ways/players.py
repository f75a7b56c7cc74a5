"""Who is still in an Extreme Ways game, and who votes for the Elimination Candidate."""
from __future__ import annotations

from engines.contract import State


def active_players(state: State) -> list[str]:
    """Players still in the game (not ejected by the GM), in join order (a copy: most games eject nobody,
    and the auction resolves each round for them)."""
    ejected = state["ejected"]
    if not ejected:  # always a list: initial_state's, or eject's
        return list(state["players"])
    return [p for p in state["players"] if p not in ejected]


def ec_candidates(state: State) -> list[str]:
    """The tied players still in the game: those an EC vote may name (GM ejection removes one)."""
    return [c for c in state["elimination"]["candidates"] if c not in state["ejected"]]


def ec_voters(state: State) -> list[str]:
    """Token of Life holders still in the game, during an EC vote."""
    if state["stage"] != "ec_vote":
        return []
    return [v for v in state["elimination"]["voters"] if v not in state["ejected"]]
