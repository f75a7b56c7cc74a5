"""Random bot games to the end for 2, 3 and 4 players, with the invariants checked after
every action: each turn's recorded moves are replayed one by one on a working copy of
the position before the turn, and the board is checked after each move."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engines.driver import Played, play_bots, player_list
from engines.sxyzm_cyclone import ENGINE
from engines.sxyzm_cyclone.board import CENTRE, all_spaces, base, cube_colour, is_base
from engines.sxyzm_cyclone.rules import (
    RULE_STACK_TOP,
    all_cubes,
    locate,
    move_error,
    play_move,
    targets,
    working_copy,
)

Board = dict[str, Any]


def distance_home(position: str, mover: str, length: int) -> int:
    """Spaces from ``position`` to the mover's base, counted on the drawn board (not with
    the engine's route code): own path i -> i, centre -> length + 1, another path's
    space i -> length + 1 + (length + 1 - i)."""
    if is_base(position):
        assert position == base(mover), f"{position} is not on the way to the {mover} base"
        return 0
    if position == CENTRE:
        return length + 1
    colour, index = position.split(":")
    return int(index) if colour == mover else 2 * (length + 1) - int(index)


def check_board(work: Board) -> None:
    """Every cube somewhere exactly once; no stack inside a base; stack tops movable."""
    placed = Counter(c for stack in work["spaces"].values() for c in stack)
    placed.update(c for inside in work["bases"].values() for c in inside)
    assert placed == Counter(all_cubes(work)), "a cube is missing or in two places"
    assert set(work["spaces"]) <= set(all_spaces(work["colours"], work["path_length"])), "cube off the open board"
    assert all(work["spaces"].values()), "empty stack left on the board"
    for colour, inside in work["bases"].items():
        for cube in inside:
            # No stack inside a base: every cube there stands alone, so each of the base's own
            # colour may move however many share the base, and every other colour's is out.
            assert locate(work, cube) == (base(colour), None), f"{cube} stacked in the {colour} base"
            owner = cube_colour(cube)
            error = move_error(work, owner, {"cube": cube, "toward": targets(work, owner)[0]})
            assert (error is None) == (owner == colour), f"{cube} in the {colour} base: {error}"
    for position, stack in work["spaces"].items():
        # The top cube of each stack moves by its owner's rules and leaves the rest in place;
        # every cube under it is refused as not on top.
        top = stack[-1]
        owner = cube_colour(top)
        move = {"cube": top, "toward": targets(work, owner)[0]}
        assert move_error(work, owner, move) is None, f"top cube {top} on {position} cannot move"
        trial = working_copy(work)
        play_move(trial, owner, move)
        assert locate(trial, top)[0] != position, f"{top} did not leave {position}"
        for cube in stack[:-1]:
            error = move_error(work, cube_colour(cube), {"cube": cube, "toward": targets(work, cube_colour(cube))[0]})
            assert error is not None and error[0] == RULE_STACK_TOP, f"{cube} under {top} was allowed to move"


def check_action(before: Board, after: Board, effect: dict[str, Any], mover: str, finished: dict[str, str]) -> None:
    """One action's pushes and finished cubes, against the boards either side of it."""
    length = after["path_length"]
    lifted = working_copy(before)
    origin = effect["from"]
    if not is_base(origin):
        lifted["spaces"][origin] = lifted["spaces"][origin][:-1]
    landed = [effect["to"]] + [p["to"] for p in effect["pushes"]]
    if not is_base(effect["to"]):
        onto = len(lifted["spaces"].get(effect["to"], []))
        assert (onto >= 2) == bool(effect["pushes"]), f"onto {onto} cube(s) on {effect['to']}: {effect['pushes']}"
    for start, push in zip(landed, effect["pushes"]):
        # Pushes go toward the mover's base: three spaces nearer each time, or into it.
        gain = distance_home(start, mover, length) - distance_home(push["to"], mover, length)
        assert gain == 3 or (is_base(push["to"]) and 0 < gain < 3), f"push {start} -> {push['to']} for {mover}"
    if effect["pushes"]:
        # A chain push ends on a space that was empty (the mover's start counts as left)
        # or in the mover's base; every landing before the last merged with cubes there.
        end = effect["pushes"][-1]["to"]
        assert is_base(end) or not lifted["spaces"].get(end), f"push ended on occupied {end}"
        for stop in landed[:-1]:
            assert lifted["spaces"].get(stop), f"the push went on from empty {stop}"
    for colour, inside in after["bases"].items():
        for cube in inside:
            if cube_colour(cube) != colour:
                finished.setdefault(cube, colour)
    for cube, colour in finished.items():
        assert cube in after["bases"][colour], f"finished {cube} came back into play"


def replay_every_action(played: Played) -> Counter:
    """Each turn of a played game move by move, checked after every move; returns counts
    of what happened (actions, pushes, chains, finishes) so a test can see it was tried."""
    seen: Counter = Counter()
    finished: dict[str, str] = {}
    for index, record in enumerate(played.records):
        if record["type"] != "phase.resolved":
            continue
        public = record["outcome"]["public"]
        work = working_copy(played.states[index])
        check_board(work)
        for effect in public["moves"]:
            before = working_copy(work)
            replayed = play_move(work, public["colour"], {"cube": effect["cube"], "toward": effect["toward"]})
            assert replayed == effect, "the recorded move does not replay"
            check_board(work)
            check_action(before, work, effect, public["colour"], finished)
            seen["actions"] += 1
            seen["pushes"] += len(effect["pushes"])
            seen["chains"] += len(effect["pushes"]) > 1
        seen["finished"] = len(finished)
        after = played.states[index + 1]
        assert (work["spaces"], work["bases"]) == (after["spaces"], after["bases"]), "turn replay differs from fold"
    return seen


CASES = [
    (2, {}),
    (2, {"side": "four-colour", "path_length": 5}),
    (3, {"missed_turn": "random"}),
    (3, {"path_length": 9}),
    (4, {}),
    (4, {"allow_unused_actions": False, "path_length": 5}),
]


@pytest.mark.parametrize("players,options", CASES)
def test_random_bot_games_end_with_invariants_after_every_action(players: int, options: dict) -> None:
    """A handful of seeded games per case; across them pushes, chains and finishes happen."""
    seen: Counter = Counter()
    for seed in ("one", "two", "three"):
        played = play_bots(ENGINE, options, player_list(players), seed)
        seen += replay_every_action(played)
        assert ENGINE.phase(played.final) is None
        result = ENGINE.result(played.final)
        assert result["ended"] == "win" and result["winners"]
        for winner in result["winning_colours"]:
            counts = sorted(next(p for p in result["standings"] if p["colour"] == winner)["finished"].values())
            assert counts[-1] >= {2: 5, 3: 3, 4: 3}[players] or counts[0] >= {3: 2, 4: 1}.get(players, 9)
    assert seen["pushes"] and seen["chains"] and seen["finished"], seen


def test_bot_games_with_missed_turns_still_end() -> None:
    played = play_bots(ENGINE, {"missed_turn": "random"}, player_list(4), "skips",
                       skip=lambda number, actor: actor == "p2")
    replay_every_action(played)
    sources = {r["outcome"]["public"]["source"] for r in played.records if r["type"] == "phase.resolved"}
    assert "missed: random" in sources and ENGINE.phase(played.final) is None
