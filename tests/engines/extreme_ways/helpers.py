"""Small inline scenarios for Extreme Ways tests: GM-fixed rounds and quick drivers."""
from __future__ import annotations

from typing import Any

from engines.contract import State
from engines.driver import player_list, run_phase, start, submit
from engines.extreme_ways import ENGINE

SEED = "test-seed"

# The rulebook's example option set (earlier text Options 1-4 are A-D here).
EXAMPLE_OPTIONS = {
    "A": [[1, 1], [-1, 1], [-1, -1], [1, -1]],
    "B": [[2, 2], [-2, 2], [-2, -2], [2, -2]],
    "C": [[3, 3], [-3, 3], [-3, -3], [3, -3]],
    "D": [[4, 4], [-4, 4], [-4, -4], [4, -4]],
}


def example_round(true: dict[str, int] | None = None, split: dict[str, int] | None = None) -> dict[str, Any]:
    """The example option set as a GM-fixed round (true move index per option)."""
    true = true or {"A": 0, "B": 0, "C": 0, "D": 0}
    out: dict[str, Any] = {x: {"moves": EXAMPLE_OPTIONS[x], "true": true[x]} for x in "ABCD"}
    if split is not None:
        out["split"] = split
    return out


def axis_round() -> dict[str, Any]:
    """A round whose true moves are A=(+5,0), B=(-3,0), C=(0,+2), D=(0,-1): easy positions."""
    trues = {"A": [5, 0], "B": [-3, 0], "C": [0, 2], "D": [0, -1]}
    return {
        x: {"moves": [trues[x], [9, 9], [-9, 9], [9, -9]], "true": 0} for x in "ABCD"
    }


def new_game(players: int = 4, options: dict[str, Any] | None = None,
             fields: list[dict[str, Any]] | None = None) -> State:
    return start(ENGINE, options or {}, player_list(players, fields), SEED).final


def act(state: State, actor: str, action: dict[str, Any]) -> State:
    return submit(ENGINE, state, actor, action)


def resolve(state: State, number: int = 1) -> tuple[dict[str, Any], State]:
    return run_phase(ENGINE, state, SEED, number)


def pass_all_bidding(state: State) -> State:
    """Resolve every remaining bidding round with no orders (nobody bids)."""
    number = 1
    while state["stage"] == "bidding":
        _, state = resolve(state, number)
        number += 1
    return state


def one_round_game(players: int = 4, options: dict[str, Any] | None = None,
                   fields: list[dict[str, Any]] | None = None) -> State:
    """A game of a single bidding round with the axis round, already in the Moving Phase."""
    opts = {"bidding_rounds": 1, "rounds": [axis_round()], **(options or {})}
    return pass_all_bidding(new_game(players, opts, fields))


def move_all(state: State, letters: dict[str, list[str | None]]) -> tuple[dict[str, Any], State]:
    """Everyone submits their options, then the Moving Phase resolves."""
    for player, options in letters.items():
        state = act(state, player, {"type": "move", "options": options})
    return resolve(state, 99)
