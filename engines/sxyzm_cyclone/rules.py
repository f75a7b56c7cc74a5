"""The rules of one action, and winning, over the board part of the state (``spaces`` and ``bases``).

``spaces`` maps each occupied space to its stack, bottom to top; ``bases`` maps each colour in play
to the cubes inside its base (its own cubes waiting to re-enter, and other colours' finished cubes).
``play_move`` changes the working copy it is given (``working_copy``); everything else only reads.
"""
from __future__ import annotations

from typing import Any

from engines.sxyzm_cyclone.board import (
    base,
    base_colour,
    cube_colour,
    cubes_of,
    is_base,
    push_destination,
    step,
)

State = dict[str, Any]
Move = dict[str, str]

# Rule names, as quoted in error messages and tests.
RULE_OWN_CUBE = "move your own cubes"
RULE_TOWARD = "move toward another base in play"
RULE_FINISHED = "finished cubes are out of play"
RULE_STACK_TOP = "only the top cube of a stack moves"
RULE_ROLL = "the die roll is the number of actions"
RULE_ALL_ACTIONS = "every action must be used"


def working_copy(state: State) -> State:
    """A copy of the board that ``play_move`` may change: every stack and base list is its own."""
    return {
        "spaces": {position: list(stack) for position, stack in state["spaces"].items()},
        "bases": {colour: list(inside) for colour, inside in state["bases"].items()},
        "colours": state["colours"],
        "path_length": state["path_length"],
    }


# -- where the cubes are ----------------------------------------------------------------------------
def locate(state: State, cube: str) -> tuple[str, int | None]:
    """Where a cube is: its space and its level in the stack there (0 at the bottom), or its base and
    None; KeyError if it is nowhere on the board."""
    for position, stack in state["spaces"].items():
        if cube in stack:
            return position, stack.index(cube)
    for colour, inside in state["bases"].items():
        if cube in inside:
            return base(colour), None
    raise KeyError(cube)


def all_cubes(state: State) -> list[str]:
    """Every cube of the colours in play, colour by colour in turn order."""
    return [cube for colour in state["colours"] for cube in cubes_of(colour)]


# -- which cubes may move ---------------------------------------------------------------------------
def _finished_at(position: str, cube: str) -> bool:
    """Rule: 'any cubes within the base of a different color are treated at the finish line and are
    no longer active participants in the game'."""
    return is_base(position) and base_colour(position) != cube_colour(cube)


def _movable_at(state: State, position: str, level: int | None, cube: str) -> bool:
    """Rule: 'while in a stack, only the cube on top may be moved' (a lone cube is the top of its own
    stack); a cube in its own base may move (it re-enters on the first space), one in another
    colour's base has finished."""
    if is_base(position):
        return base_colour(position) == cube_colour(cube)
    return level == len(state["spaces"][position]) - 1


def is_finished(state: State, cube: str) -> bool:
    """Whether ``cube`` has crossed the finish line (see ``_finished_at``)."""
    position, _ = locate(state, cube)
    return _finished_at(position, cube)


def is_movable(state: State, cube: str) -> bool:
    """Whether ``cube`` may move now (see ``_movable_at``)."""
    position, level = locate(state, cube)
    return _movable_at(state, position, level, cube)


def movable_cubes(state: State, colour: str) -> list[str]:
    """The colour's cubes that may move now."""
    return [cube for cube in cubes_of(colour) if is_movable(state, cube)]


def can_move(state: State, colour: str) -> bool:
    """Whether any of the colour's cubes may move.  Rule: 'if player does not have an available cube
    to move, that player will not be able to use their actions on their turn'."""
    return any(is_movable(state, cube) for cube in cubes_of(colour))


def targets(state: State, colour: str) -> list[str]:
    """Rule: each action moves a cube 'one space towards another base'; 'if a player color is not
    used during gameplay, player must proceed down paths of player colors used in gameplay'."""
    return [c for c in state["colours"] if c != colour]


def legal_moves(state: State, colour: str) -> list[Move]:
    """Every single action open to ``colour`` in this position."""
    aims = targets(state, colour)
    return [{"cube": cube, "toward": t} for cube in movable_cubes(state, colour) for t in aims]


def move_error(state: State, colour: str, move: Move) -> tuple[str, str] | None:
    """(rule, reason) for the first rule ``move`` breaks in this position, or None if it is legal."""
    cube, toward = move["cube"], move["toward"]
    if cube_colour(cube) != colour:
        return RULE_OWN_CUBE, f"{cube} is not a {colour} cube"
    if toward not in targets(state, colour):
        if toward == colour:
            return RULE_TOWARD, "a cube cannot move toward its own base"
        return RULE_TOWARD, f"{toward} is not in play, so the path to the {toward} base is closed"
    position, level = locate(state, cube)
    if _finished_at(position, cube):
        return RULE_FINISHED, f"{cube} has finished and is out of play"
    if not _movable_at(state, position, level, cube):
        return RULE_STACK_TOP, f"{cube} is under another cube in the stack on {position}"
    return None


# -- playing an action ------------------------------------------------------------------------------
def play_move(state: State, colour: str, move: Move) -> dict[str, Any]:
    """Play one action for ``colour`` on the working copy ``state``; returns what happened: the cube,
    where it came ``from``, the space or base it stepped ``to``, and each leg of any push.

    Rules: the cube moves one space toward the ``toward`` base (from its own base it re-enters on the
    first space).  Onto an empty space or a lone cube it simply lands (making a stack).  Onto a stack
    of two or more it goes on top and 'the entire stack' moves three spaces toward the mover's base;
    a pushed stack that lands on a cube or stack goes on top of it and the new stack moves three more,
    'until the stack reaches an empty space' or the mover's base, which it never passes.  All of it is
    one action.
    """
    cube, toward = move["cube"], move["toward"]
    length, spaces = state["path_length"], state["spaces"]
    origin, _ = locate(state, cube)
    _lift(state, origin, cube)
    target = step(origin, toward, length)
    pushes: list[dict[str, Any]] = []
    effect = {"cube": cube, "toward": toward, "from": origin, "to": target, "pushes": pushes}
    if is_base(target):
        _enter_base(state, target, [cube])
        return effect
    below = spaces.pop(target, [])
    stack, position = below + [cube], target
    if len(below) >= 2:
        while True:
            position = push_destination(position, colour, length)
            pushes.append({"stack": list(stack), "to": position})
            if is_base(position):
                _enter_base(state, position, stack)
                return effect
            below = spaces.pop(position, [])
            if not below:
                break
            stack = below + stack
    spaces[position] = stack
    return effect


def _lift(state: State, origin: str, cube: str) -> None:
    """Take the moving cube off its space (the top of the stack there) or out of its base."""
    if is_base(origin):
        state["bases"][base_colour(origin)].remove(cube)
        return
    stack = state["spaces"][origin]
    stack.pop()
    if not stack:
        del state["spaces"][origin]


def _enter_base(state: State, position: str, cubes: list[str]) -> None:
    """Rule: 'all cubes within a player's base exist independent from the other cubes and stacking
    rules do not apply in a player's base': each cube enters on its own (home, or finished)."""
    state["bases"][base_colour(position)].extend(cubes)


def brought_cubes_into_a_base(effect: dict[str, Any]) -> bool:
    """Whether the action ``play_move`` described put cubes into a base: the cube landing there, or a
    push ending there.  Only such an action can complete a win condition (they count cubes in bases)."""
    pushes = effect["pushes"]
    return is_base(effect["to"]) or bool(pushes) and is_base(pushes[-1]["to"])


def replay_moves(state: State, public: dict[str, Any]) -> None:
    """Play an outcome's recorded moves again on the working copy ``state`` (``apply_outcome``)."""
    for effect in public["moves"]:
        play_move(state, public["colour"], {"cube": effect["cube"], "toward": effect["toward"]})


# -- winning ----------------------------------------------------------------------------------------
def _cube_colours_in_bases(state: State) -> dict[str, list[str]]:
    """For each base in play, the colour of every cube inside it (read once for every colour's
    win check)."""
    return {other: [cube_colour(cube) for cube in state["bases"][other]] for other in state["colours"]}


def finished_counts(state: State, colour: str) -> dict[str, int]:
    """How many of ``colour``'s cubes have finished in each other base in play."""
    inside = _cube_colours_in_bases(state)
    return {other: inside[other].count(colour) for other in state["colours"] if other != colour}


def _meets_a_win_condition(finished: list[int], players: int) -> bool:
    """Winning the game, from a colour's finished cubes in each other base and the number of colours in
    play (ruling 13: the players at the start).  Two players: all five cubes in the other base.  Three
    players: three cubes in a single base, or two in each.  Four players: three cubes in a single base,
    or one in each."""
    if players == 2:
        return finished[0] >= 5
    if players == 3:
        return max(finished) >= 3 or min(finished) >= 2
    return max(finished) >= 3 or min(finished) >= 1


def winners(state: State, candidates: list[str]) -> list[str]:
    """The colours among ``candidates`` that have won now, in turn order.  Ruling 12: everyone who
    meets a win condition after an action wins (a push can win the game for another player)."""
    colours = state["colours"]
    inside = _cube_colours_in_bases(state)
    return [colour for colour in colours if colour in candidates and _meets_a_win_condition(
        [inside[other].count(colour) for other in colours if other != colour], len(colours))]


def has_won(state: State, colour: str) -> bool:
    """Whether ``colour`` meets a win condition now."""
    return winners(state, [colour]) == [colour]
