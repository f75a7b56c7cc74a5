"""The board: a base per colour joined to one centre space by a path of spaces.

Positions are strings: ``"blue:3"`` is the third space of the blue path counted
from the blue base, ``"centre"`` joins every path, ``"base:blue"`` is the blue base.
Cubes are named by colour and number, ``"blue-1"`` .. ``"blue-5"``.
"""
from __future__ import annotations

COLOURS: tuple[str, ...] = ("blue", "yellow", "green", "red")
TWO_COLOURS: tuple[str, ...] = ("blue", "yellow")
SIDES: tuple[str, ...] = ("two-colour", "four-colour")
CUBES_PER_PLAYER = 5
MAX_PATH_LENGTH = 20  # the longest path the options allow (the shortest: CUBES_PER_PLAYER, so the cubes fit)
CENTRE = "centre"
BASE_PREFIX = "base:"
PUSH_DISTANCE = 3


def cube_name(colour: str, number: int) -> str:
    return f"{colour}-{number}"


def cube_colour(cube: str) -> str:
    return cube.rsplit("-", 1)[0]


def cubes_of(colour: str) -> tuple[str, ...]:
    """The five cubes of a colour; cube ``n`` starts on space ``n`` of its own path."""
    return _CUBES[colour]


_CUBES = {colour: tuple(cube_name(colour, n) for n in range(1, CUBES_PER_PLAYER + 1)) for colour in COLOURS}


def space(colour: str, index: int) -> str:
    return f"{colour}:{index}"


def base(colour: str) -> str:
    return f"{BASE_PREFIX}{colour}"


def is_base(position: str) -> bool:
    return position.startswith(BASE_PREFIX)


def base_colour(position: str) -> str:
    return position[len(BASE_PREFIX):]


def side_colours(side: str) -> tuple[str, ...]:
    """Colours printed on a side of the board card."""
    return TWO_COLOURS if side == "two-colour" else COLOURS


def path_spaces(colour: str, length: int) -> list[str]:
    """The spaces of one colour's path, from its base (1) to the centre (length)."""
    return [space(colour, i) for i in range(1, length + 1)]


def all_spaces(colours: list[str], length: int) -> list[str]:
    """Every open space: the paths of the colours in play and the centre."""
    return [s for c in colours for s in path_spaces(c, length)] + [CENTRE]


def next_toward(position: str, target: str, length: int) -> str:
    """One space along the only route from ``position`` toward the ``target`` base.

    The route runs out along the position's own path to the centre, then in along
    the target's path to its base.  Never called from the target base itself.
    """
    if is_base(position):
        return space(base_colour(position), 1)
    if position == CENTRE:
        return space(target, length)
    colour, index = position.split(":")
    number = int(index)
    if colour == target:
        return base(target) if number == 1 else space(target, number - 1)
    return CENTRE if number == length else space(colour, number + 1)


def step(position: str, target: str, length: int) -> str:
    """``next_toward``, looked up in a table of its answers (every move and push leg takes steps)."""
    return _STEPS[length][target][position]


def push_destination(position: str, mover: str, length: int) -> str:
    """Rule: a pushed stack goes three spaces toward the mover's base, stopping at the base
    (it is the last space)."""
    for _ in range(PUSH_DISTANCE):
        if is_base(position):
            break
        position = step(position, mover, length)
    return position


def _steps(length: int) -> dict[str, dict[str, str]]:
    """``next_toward`` from every position of the full board toward every base, for one path length."""
    positions = all_spaces(list(COLOURS), length) + [base(c) for c in COLOURS]
    return {target: {p: next_toward(p, target, length) for p in positions} for target in COLOURS}


# Built once, at import, for every path length the options allow (a few thousand entries).
_STEPS = {length: _steps(length) for length in range(CUBES_PER_PLAYER, MAX_PATH_LENGTH + 1)}

