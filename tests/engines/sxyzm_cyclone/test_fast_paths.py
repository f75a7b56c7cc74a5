"""``winners`` and ``movable_cubes`` count and locate every cube once instead of once per colour or
cube (they run after every action that is played, checked or replayed): they must say exactly
what ``has_won`` and ``is_movable`` say, on any board, including boards no real game reaches."""
from __future__ import annotations

import random

import pytest

from engines.sxyzm_cyclone.board import COLOURS, all_spaces, base, cubes_of
from engines.sxyzm_cyclone.rules import has_won, is_movable, movable_cubes, winners


def _random_board(rng: random.Random, players: int) -> dict:
    """Every cube somewhere: on a stack on any open space, or in any base (its own, or finished)."""
    colours = list(COLOURS[:players])
    length = rng.randint(3, 6)
    spaces: dict[str, list[str]] = {}
    bases: dict[str, list[str]] = {c: [] for c in colours}
    open_spaces = all_spaces(colours, length)
    in_bases = rng.random()
    for cube in [cube for colour in colours for cube in cubes_of(colour)]:
        if rng.random() < in_bases:
            bases[rng.choice(colours)].append(cube)
        else:
            spaces.setdefault(rng.choice(open_spaces), []).append(cube)
    return {"colours": colours, "path_length": length, "spaces": spaces, "bases": bases}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_winners_and_movable_cubes_say_what_the_rule_functions_say(players: int) -> None:
    rng = random.Random(f"fast-{players}")
    wins = 0
    for _ in range(3000):
        state = _random_board(rng, players)
        candidates = [c for c in state["colours"] if rng.random() < 0.8]
        expected = [c for c in state["colours"] if c in candidates and has_won(state, c)]
        assert winners(state, candidates) == expected
        wins += bool(expected)
        for colour in state["colours"]:
            assert movable_cubes(state, colour) == [c for c in cubes_of(colour) if is_movable(state, c)]
    assert wins > 20  # the boards reach the win conditions, not only the early exit


def test_movable_cubes_fails_like_locate_for_a_cube_not_on_the_board() -> None:
    state = {"colours": ["blue", "yellow"], "path_length": 4, "spaces": {"blue:1": ["blue-1"]},
             "bases": {"blue": [], "yellow": [base("x")]}}
    with pytest.raises(KeyError) as missing:
        movable_cubes(state, "blue")
    assert missing.value.args == ("blue-2",)
