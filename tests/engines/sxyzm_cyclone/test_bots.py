"""Random bot games to the end for 2, 3 and 4 players, with invariants after every step."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engines.driver import play_bots, player_list
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.board import all_spaces, cube_colour, cubes_of, is_base
from engines.sxyzm_cyclone.rules import is_movable, legal_moves


def check_invariants(state: dict[str, Any]) -> None:
    """Every cube somewhere exactly once; no stack inside a base; stack tops movable."""
    colours = state["colours"]
    placed = Counter(c for stack in state["spaces"].values() for c in stack)
    placed.update(c for inside in state["bases"].values() for c in inside)
    assert placed == Counter(c for colour in colours for c in cubes_of(colour))
    assert set(state["spaces"]) <= set(all_spaces(colours, state["path_length"])), "cube on a closed path"
    assert all(state["spaces"].values()), "empty stack left on the board"
    assert not any(is_base(s) for s in state["spaces"]), "stack inside a base"
    for stack in state["spaces"].values():
        assert is_movable(state, stack[-1])
        assert not any(is_movable(state, c) for c in stack[:-1])
    for colour, inside in state["bases"].items():
        for cube in inside:
            assert is_movable(state, cube) == (cube_colour(cube) == colour)
    if not state["over"]:
        current = state["current"]
        tops = {s[-1] for s in state["spaces"].values() if cube_colour(s[-1]) == current}
        home = {c for c in state["bases"][current] if cube_colour(c) == current}
        assert {m["cube"] for m in legal_moves(state, current)} == tops | home


@pytest.mark.parametrize(
    "players,options",
    [
        (2, {}),
        (2, {"side": "four-colour", "path_length": 5}),
        (3, {"missed_turn": "random"}),
        (3, {"path_length": 9}),
        (4, {}),
        (4, {"allow_unused_actions": False, "path_length": 5}),
    ],
)
@pytest.mark.parametrize("seed", ["one", "two", "three"])
def test_random_bot_games_end_with_invariants_after_every_action(
    players: int, options: dict, seed: str
) -> None:
    played = play_bots(ENGINE, options, player_list(players), seed, check=check_invariants)
    assert ENGINE.phase(played.final) is None
    result = ENGINE.result(played.final)
    assert result["ended"] == "win" and result["winners"]
    for winner in result["winning_colours"]:
        counts = sorted(next(p for p in result["standings"] if p["colour"] == winner)["finished"].values())
        assert counts[-1] >= {2: 5, 3: 3, 4: 3}[players] or counts[0] >= {3: 2, 4: 1}.get(players, 9)


def test_bot_games_with_missed_turns_still_end() -> None:
    played = play_bots(ENGINE, {"missed_turn": "random"}, player_list(4), "skips",
                       skip=lambda number, actor: actor == "p2", check=check_invariants)
    sources = {r["outcome"]["public"]["source"] for r in played.records if r["kind"] == "outcome"}
    assert "missed: random" in sources and ENGINE.phase(played.final) is None
