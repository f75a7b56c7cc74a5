"""Small inline scenarios for SXYZM Cyclone tests: a started game and a board to order."""
from __future__ import annotations

import copy
from typing import Any

from engines.driver import player_list, run_phase, start, submit
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.board import cubes_of

State = dict[str, Any]
SEED = "scenario"


def game(players: int = 2, fields: list[dict[str, Any]] | None = None, **options: Any) -> State:
    """A started game; blue plays first and rolls 6 unless the options say otherwise."""
    options.setdefault("first_colour", "blue")
    options.setdefault("rolls", [6] * 50)
    return start(ENGINE, options, player_list(players, fields), SEED).final


def board(state: State, spaces: dict[str, list[str]], bases: dict[str, list[str]] | None = None) -> State:
    """The state with exactly this position; cubes not named wait in their own base."""
    new = copy.deepcopy(state)
    new["spaces"] = copy.deepcopy(spaces)
    new["bases"] = {c: list((bases or {}).get(c, [])) for c in new["colours"]}
    placed = {cube for stack in spaces.values() for cube in stack} | {
        cube for inside in new["bases"].values() for cube in inside
    }
    for colour in new["colours"]:
        new["bases"][colour] += [c for c in cubes_of(colour) if c not in placed]
    return new


def order(*moves: tuple[str, str]) -> dict[str, Any]:
    """A turn order of (cube, toward) moves."""
    return {"type": "turn", "moves": [{"cube": c, "toward": t} for c, t in moves]}


def turn(state: State, player: str, *moves: tuple[str, str], number: int = 1) -> tuple[dict[str, Any], State]:
    """Submit a turn of (cube, toward) moves and resolve it: (outcome, new state)."""
    return run_phase(ENGINE, submit(ENGINE, state, player, order(*moves)), SEED, number)


def play(state: State, player: str, *moves: tuple[str, str]) -> State:
    return turn(state, player, *moves)[1]
