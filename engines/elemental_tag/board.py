"""The map and the moving rules: nine directions, and collisions resolved in the rulebook's order.

Squares are ``[x, y]``: x counts columns from 1 in the west, y rows from 1 in the north.

The rulebook's three kinds of collision, and the order they are resolved in:

1. trading places (two players each moving into the other's square);
2. going to the same space as another person: two or more movers heading for one square,
   or a mover heading for the square of someone who stays there (ruling 4), and every chain
   that follows (whoever heads for the square of someone who has just stopped);
3. diagonal paths crossing (two movers taking the two diagonals of one 2 x 2 block), and
   the chains that follow;

then the second and third kinds again, in turn, until nothing more collides.  Whoever
collides does not move, and counts as still for every later step.  Collisions found in one
step happen at once: all movers into one square collide with each other (and with whoever
stays there).  Whoever is still moving at the end arrives.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import isqrt
from typing import Any

from engines.elemental_tag.versions import LATEST, Rulings

Square = tuple[int, int]

STEPS: dict[str, Square] = {
    "stay": (0, 0), "n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0),
    "ne": (1, -1), "nw": (-1, -1), "se": (1, 1), "sw": (-1, 1),
}
NAMES = {"stay": "stays", "n": "north", "s": "south", "e": "east", "w": "west",
         "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest"}


def grid_side(players: int, fixed: int = 0) -> int:
    """Ruling 2: 5 x 5 for up to 12 players; beyond that the smallest square grid with at least two
    squares per player (13 players: 6 x 6, 60 players: 11 x 11).  A GM's fixed size wins if everyone fits."""
    if fixed and fixed * fixed >= players:
        return fixed
    needed = 2 * players
    side = isqrt(needed)
    if side * side < needed:
        side += 1
    return max(5, side)


def on_grid(square: Square, side: int) -> bool:
    return 1 <= square[0] <= side and 1 <= square[1] <= side


def target(square: Iterable[int], direction: str) -> Square:
    x, y = square
    dx, dy = STEPS[direction]
    return (x + dx, y + dy)


def squares(side: int) -> list[Square]:
    """Every square, row by row from the north-west corner (the order placement draws from)."""
    return [(x, y) for y in range(1, side + 1) for x in range(1, side + 1)]


def resolve_moves(
    positions: Mapping[str, Square], targets: Mapping[str, Square], rulings: Rulings = LATEST
) -> tuple[dict[str, Square], list[dict[str, Any]]]:
    """Where everyone ends up, and every collision in the order it was resolved.

    ``positions`` and ``targets`` map each player to a square (a target equal to the position: the player
    stays).  Each collision is ``{"kind": 1|2|3, "step": n, "players": [...], "square": [x, y] | None,
    "into": player | None}``: ``square`` is where movers of the second kind met, ``into`` whoever stood
    there.  The answer does not depend on the order of the mappings.  ``rulings``: the game's version
    (versions.py: 1.0.0 missed crossings one above the other and counted a player stopped earlier in the
    same pass as still).
    """
    moving = {p for p in positions if tuple(targets[p]) != tuple(positions[p])}
    standing = {tuple(positions[p]): p for p in positions}
    collisions: list[dict[str, Any]] = []

    def stop(kind: int, players: list[str], square: Square | None = None, into: str | None = None) -> None:
        collisions.append({"kind": kind, "step": step, "players": players,
                           "square": list(square) if square else None, "into": into})
        moving.difference_update(players)

    # The first kind: trading places.
    step = 1
    for p in sorted(moving):
        q = standing.get(tuple(targets[p]))
        if q is not None and q in moving and p < q and tuple(targets[q]) == tuple(positions[p]):
            stop(1, [p, q])

    def same_space(stopped: list[str] | None) -> list[str]:
        """One step of the second kind, all at once: every square two or more movers head for, and every
        square a mover heads for where someone is still (with ``stopped``, only the squares of those who have
        just stopped: the chains).  Returns who stopped in this step."""
        heading: dict[Square, list[str]] = {}
        for p in moving:
            heading.setdefault(tuple(targets[p]), []).append(p)
        if stopped is None:
            watched = sorted(heading)
        else:
            watched = sorted({tuple(positions[p]) for p in stopped} & heading.keys())
        now: list[str] = []
        moving_at_start = set(moving)  # the pass's collisions are simultaneous: who was moving when it began
        for square in watched:
            movers = sorted(heading[square])
            still = standing.get(square)
            if still is not None and still in (moving_at_start if rulings.same_pass_is_simultaneous else moving):
                still = None  # leaving the square this step, as far as anyone knows yet
            if len(movers) >= 2 or still is not None:
                stop(2, sorted(movers + ([still] if still else [])), square, still)
                now.extend(movers)
        return now

    def chains(stopped: list[str]) -> None:
        nonlocal step
        while stopped:
            step += 1
            stopped = same_space(stopped)

    def crossings() -> list[str]:
        """One step of the third kind: movers on the two diagonals of one 2 x 2 block, all at once."""
        found: list[list[str]] = []
        for p in sorted(moving):
            (x, y), (tx, ty) = tuple(positions[p]), tuple(targets[p])
            if x == tx or y == ty:
                continue
            # The other diagonal runs from (tx, y) to (x, ty): side by side; or back (one above the other).
            ends = [((tx, y), (x, ty)), ((x, ty), (tx, y))] if rulings.crossings_both_ways else [((tx, y), (x, ty))]
            for start, end in ends:
                q = standing.get(start)
                if q is not None and q in moving and p < q and tuple(targets[q]) == end:
                    found.append([p, q])
        now = []
        for pair in found:
            stop(3, pair)
            now.extend(pair)
        return now

    while True:
        step += 1
        changed = same_space(None)
        chains(changed)
        step += 1
        crossed = crossings()
        chains(crossed)
        if not changed and not crossed:
            break
    final = {p: (tuple(targets[p]) if p in moving else tuple(positions[p])) for p in positions}
    return final, collisions


def met(collisions: list[dict[str, Any]], player: str) -> set[str]:
    """Everyone ``player`` collided with this round (ruling 5: everyone in a collision they were part of)."""
    return {q for c in collisions if player in c["players"] for q in c["players"] if q != player}
