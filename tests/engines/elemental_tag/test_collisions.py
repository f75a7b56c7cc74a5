"""Rule 3: collisions, case by case, each with a drawing, and properties over random boards.

Drawings: the grid with x growing east (right) and y growing south (down); a letter is a player,
an arrow where they want to go, ``.`` an empty square.  ``resolve_moves`` is called with players
and their targets; the cases check where everyone ends up and which collisions, of which kind, in
which step.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.elemental_tag.board import STEPS, on_grid, resolve_moves, target

Square = tuple[int, int]


def play(start: dict[str, Square], moves: dict[str, str], side: int = 7) -> tuple[dict[str, Square], list[dict]]:
    targets = {p: target(start[p], moves.get(p, "stay")) for p in start}
    assert all(on_grid(t, side) for t in targets.values())
    return resolve_moves(start, targets)


def kinds(collisions: list[dict]) -> list[tuple[int, list[str]]]:
    return [(c["kind"], c["players"]) for c in collisions]


def test_rule_3_first_kind_trading_places() -> None:
    """A and B try to trade places: both stay.

        A→ ←B
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1)}, {"A": "e", "B": "w"})
    assert final == {"A": (1, 1), "B": (2, 1)}
    assert kinds(collisions) == [(1, ["A", "B"])]


def test_rule_3_three_into_one_space_all_collide() -> None:
    """Three players step into the middle square at once: all three collide with each other.

        A . B        A↘ . ↙B
        . x .
        . C .           ↑C
    """
    final, collisions = play({"A": (1, 1), "B": (3, 1), "C": (2, 3)}, {"A": "se", "B": "sw", "C": "n"})
    assert final == {"A": (1, 1), "B": (3, 1), "C": (2, 3)}
    assert kinds(collisions) == [(2, ["A", "B", "C"])]
    assert collisions[0]["square"] == [2, 2] and collisions[0]["into"] is None


def test_rule_3_third_kind_crossing_diagonals() -> None:
    """A goes south-east while B goes south-west across the same block: the paths cross, both stay.

        A↘ ↙B
        .   .
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1)}, {"A": "se", "B": "sw"})
    assert final == {"A": (1, 1), "B": (2, 1)}
    assert kinds(collisions) == [(3, ["A", "B"])]


def test_rule_3_third_kind_crossing_diagonals_one_above_the_other() -> None:
    """A at (5, 6) goes south-east while B below at (5, 7) goes north-east: the paths cross (issue 30), both stay.

        A↘
        B↗
    """
    final, collisions = play({"A": (5, 6), "B": (5, 7)}, {"A": "se", "B": "ne"})
    assert final == {"A": (5, 6), "B": (5, 7)}
    assert kinds(collisions) == [(3, ["A", "B"])]
    assert kinds(play({"A": (6, 6), "B": (6, 7)}, {"A": "sw", "B": "nw"})[1]) == [(3, ["A", "B"])]


def test_rule_3_collisions_of_the_same_precedence_are_simultaneous() -> None:
    """O heads west into Z's path and they meet at (3, 3); in the same pass I and X head into O's square.  O was
    still moving when the pass began, so I and X collide with each other, not with O (issue 30: O was counted
    as the square's still occupant).  Then the chain: nobody else heads for O's square.

        Z→ . ←O ←I
               ↑X
    """
    start = {"Z": (2, 3), "O": (4, 3), "I": (5, 3), "X": (4, 4)}
    final, collisions = play(start, {"Z": "e", "O": "w", "I": "w", "X": "n"})
    assert final == start
    assert kinds(collisions) == [(2, ["O", "Z"]), (2, ["I", "X"])]
    assert [c["into"] for c in collisions] == [None, None]
    assert collisions[0]["step"] == collisions[1]["step"]


def test_rule_3_a_chain_of_five() -> None:
    """E and F meet in one space; D, C, B and A, each following the one ahead, stop one after another.

        A→ B→ C→ D→ E→ . ←F
    """
    start = {p: (x, 1) for x, p in enumerate("ABCDE", start=1)} | {"F": (7, 1)}
    final, collisions = play(start, {"A": "e", "B": "e", "C": "e", "D": "e", "E": "e", "F": "w"})
    assert final == start
    assert kinds(collisions) == [(2, ["E", "F"]), (2, ["D", "E"]), (2, ["C", "D"]), (2, ["B", "C"]), (2, ["A", "B"])]
    assert [c["step"] for c in collisions] == sorted({c["step"] for c in collisions})  # one step each, in order
    assert [c["into"] for c in collisions] == [None, "E", "D", "C", "B"]


def test_rule_3_a_chain_ending_on_a_still_player() -> None:
    """C stands still: B walks into C (a collision of the second kind, ruling 4), then A into B.

        A→ B→ C
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1), "C": (3, 1)}, {"A": "e", "B": "e"})
    assert final == {"A": (1, 1), "B": (2, 1), "C": (3, 1)}
    assert kinds(collisions) == [(2, ["B", "C"]), (2, ["A", "B"])]
    assert collisions[0]["step"] < collisions[1]["step"]


def test_rule_3_four_moving_round_in_a_loop_all_move() -> None:
    """Four players turn round a block together: nobody trades places, meets or crosses, so all move.

        A→ B        D A
        ↑   ↓   =>  C B
        D ←C
    """
    start = {"A": (1, 1), "B": (2, 1), "C": (2, 2), "D": (1, 2)}
    final, collisions = play(start, {"A": "e", "B": "s", "C": "w", "D": "n"})
    assert final == {"A": (2, 1), "B": (2, 2), "C": (1, 2), "D": (1, 1)}
    assert collisions == []


def test_rule_3_a_loop_with_one_player_blocked_stops_everyone_in_it() -> None:
    """The loop above, with E stepping north into D's square as C does: C and E collide there, and the
    chain runs back round the loop (B into C, A into B, D into A).  Nobody moves.

        A→ B
        ↑   ↓
        D ←C
        ↑
        E
    """
    start = {"A": (1, 1), "B": (2, 1), "C": (2, 2), "D": (1, 2), "E": (1, 3)}
    final, collisions = play(start, {"A": "e", "B": "s", "C": "w", "D": "n", "E": "n"})
    assert final == start
    assert kinds(collisions) == [(2, ["C", "E"]), (2, ["B", "C"]), (2, ["A", "B"]), (2, ["A", "D"])]


def test_rule_3_a_collision_that_frees_a_later_move() -> None:
    """A's diagonal crosses B's, but A also meets C in the middle square: the second kind is resolved
    first, so A stays, and B's path crosses nobody's any more: B moves.

        A↘ ↙B  .
        .   x  .
        .   .  ↖C
    """
    start = {"A": (1, 1), "B": (2, 1), "C": (3, 3)}
    final, collisions = play(start, {"A": "se", "B": "sw", "C": "nw"})
    assert final == {"A": (1, 1), "B": (1, 2), "C": (3, 3)}
    assert kinds(collisions) == [(2, ["A", "C"])]


def test_rule_3_following_into_a_square_being_left_is_no_collision() -> None:
    """A steps where B was while B steps on: both arrive.

        A→ B→ .
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1)}, {"A": "e", "B": "e"})
    assert final == {"A": (2, 1), "B": (3, 1)} and collisions == []


def test_rule_3_a_swap_collider_counts_as_still_for_the_second_kind() -> None:
    """A and B trade places (first kind) and stay; C, stepping into B's square, then runs into B.

        A→ ←B ←C
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1), "C": (3, 1)}, {"A": "e", "B": "w", "C": "w"})
    assert final == {"A": (1, 1), "B": (2, 1), "C": (3, 1)}
    assert kinds(collisions) == [(1, ["A", "B"]), (2, ["B", "C"])]


def test_rule_3_a_crossing_collider_starts_a_chain() -> None:
    """A and B cross (third kind) and stay; C, stepping into B's square, runs into B: a chain of the
    third kind.

        A↘ ↙B ←C
    """
    final, collisions = play({"A": (1, 1), "B": (2, 1), "C": (3, 1)}, {"A": "se", "B": "sw", "C": "w"})
    assert final == {"A": (1, 1), "B": (2, 1), "C": (3, 1)}
    assert kinds(collisions) == [(3, ["A", "B"]), (2, ["B", "C"])]


# -- properties over random boards ------------------------------------------------------------------
@st.composite
def boards(draw: st.DrawFn) -> tuple[int, dict[str, Square], dict[str, str]]:
    side = draw(st.integers(3, 7))
    cells = [(x, y) for y in range(1, side + 1) for x in range(1, side + 1)]
    count = draw(st.integers(1, min(len(cells), 30)))
    chosen = draw(st.permutations(cells))[:count]
    start = {f"p{i + 1}": sq for i, sq in enumerate(chosen)}
    moves = {}
    for player, square in start.items():
        legal = [d for d in STEPS if on_grid(target(square, d), side)]
        moves[player] = draw(st.sampled_from(legal))
    return side, start, moves


@settings(max_examples=400, deadline=None)
@given(boards(), st.randoms(use_true_random=False))
def test_rule_3_properties_of_any_resolution(board: tuple, shuffler: random.Random) -> None:
    """No two players share a square; nobody moves more than one step; whoever collided stayed and whoever
    did not went where they asked; and the answer does not depend on the order the orders arrived in."""
    side, start, moves = board
    targets = {p: target(start[p], moves[p]) for p in start}
    final, collisions = resolve_moves(start, targets)
    assert len(set(final.values())) == len(final)
    collided = {p for c in collisions for p in c["players"]}
    for player in start:
        (x, y), (fx, fy) = start[player], final[player]
        assert max(abs(x - fx), abs(y - fy)) <= 1 and on_grid(final[player], side)
        if player in collided:
            assert final[player] == start[player]
        else:
            assert final[player] == targets[player]
    order = list(start)
    shuffler.shuffle(order)
    again = resolve_moves({p: start[p] for p in order}, {p: targets[p] for p in reversed(order)})
    assert again == (final, collisions)
