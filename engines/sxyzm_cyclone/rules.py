"""Pure rule functions over the board part of the state (``spaces`` and ``bases``).

``spaces`` maps each occupied space to its stack, bottom to top; ``bases`` maps each
colour in play to the cubes inside its base (its own cubes waiting to re-enter, and
other colours' finished cubes).  Functions named ``play_*`` change the working copy
they are given; everything else only reads.
"""
from __future__ import annotations

from itertools import chain
from typing import Any

from engines.sxyzm_cyclone.board import (
    BASE_PREFIX,
    COLOURS,
    base,
    base_colour,
    cube_colour,
    cubes_of,
    is_base,
    next_toward,
    push_destination,
    routes,
    Routes,
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


_CUBE_COLOURS = {cube: colour for colour in COLOURS for cube in cubes_of(colour)}


def colour_of_cube(cube: str) -> str:
    """``cube_colour``, looked up for the twenty cube names (asked for every cube in every base after
    every move that can win); anything else is computed, with whatever that gives or raises."""
    known = _CUBE_COLOURS.get(cube) if type(cube) is str else None
    return known if known is not None else cube_colour(cube)


def working_copy(state: State) -> State:
    """A copy of just the parts of the state the rule functions read and change.

    ``play_move`` replaces stacks and base lists rather than editing them, so those are shared
    (only the two maps are copied); colours and the path length are only read.
    """
    return {"spaces": dict(state["spaces"]), "bases": dict(state["bases"]),
            "colours": state["colours"], "path_length": state["path_length"]}


def locate(state: State, cube: str) -> tuple[str, int | None]:
    """Where a cube is: (space, level in its stack from 0 at the bottom) or (base, None)."""
    for position, stack in state["spaces"].items():
        if cube in stack:
            return position, stack.index(cube)
    for colour, inside in state["bases"].items():
        if cube in inside:
            return base(colour), None
    raise KeyError(cube)


def is_finished(state: State, cube: str) -> bool:
    """Rule: a cube in a base of another colour has crossed the finish line."""
    position, _ = locate(state, cube)
    return _finished_at(position, cube)


def is_movable(state: State, cube: str) -> bool:
    """Rule: a lone cube, the top cube of a stack, or a cube in its own base may move."""
    position, level = locate(state, cube)
    return _movable_at(state, position, level, cube)


def _finished_at(position: str, cube: str) -> bool:
    return is_base(position) and base_colour(position) != cube_colour(cube)


def _movable_at(state: State, position: str, level: int | None, cube: str) -> bool:
    if is_base(position):
        return base_colour(position) == cube_colour(cube)
    return level == len(state["spaces"][position]) - 1


def all_cubes(state: State) -> list[str]:
    """Every cube of the colours in play, colour by colour in turn order."""
    return [cube for colour in state["colours"] for cube in cubes_of(colour)]


def movable_cubes(state: State, colour: str) -> list[str]:
    """``is_movable`` for each of the colour's cubes, with every cube located in one pass.

    Asked for every phase, every checked turn and every hint.  On a board where no cube is in two
    places (every board the rules make; only a forged outcome can lift one cube and drop another)
    a cube is wherever it is found, so tops of stacks and the own base answer it in a few set
    operations; any other board is located cube by cube, as ``locate`` finds them."""
    spaces, bases = state["spaces"], state["bases"]
    placed = list(chain.from_iterable(spaces.values()))
    placed += chain.from_iterable(bases.values())
    try:
        found = set(placed)
    except TypeError:  # an unhashable cube: never on a board the rules make
        found = None
    if found is not None and len(found) == len(placed):
        tops = {stack[-1] for stack in spaces.values() if stack}
        home = bases.get(colour, ())
        movable = []
        for cube in cubes_of(colour):
            if cube not in found:
                raise KeyError(cube)  # as locate does
            if cube in tops or cube in home:
                movable.append(cube)
        return movable
    return _movable_one_by_one(state, colour)


def _movable_one_by_one(state: State, colour: str) -> list[str]:
    """``movable_cubes`` on any board: each cube where ``locate`` finds it first."""
    where = _locations(state)
    movable = []
    for cube in cubes_of(colour):
        if cube not in where:
            raise KeyError(cube)  # as locate does
        position, level = where[cube]
        if _movable_at(state, position, level, cube):
            movable.append(cube)
    return movable


def _locations(state: State) -> dict[str, tuple[str, int | None]]:
    """``locate`` of every cube on the board (the first place it is found, as locate finds it)."""
    where: dict[str, tuple[str, int | None]] = {}
    for position, stack in state["spaces"].items():
        for level, cube in enumerate(stack):
            where.setdefault(cube, (position, level))
    for colour, inside in state["bases"].items():
        for cube in inside:
            where.setdefault(cube, (base(colour), None))
    return where


def targets(state: State, colour: str) -> list[str]:
    """Rule: cubes move toward another base in play; paths of absent colours are closed."""
    return [c for c in state["colours"] if c != colour]


def legal_moves(state: State, colour: str) -> list[Move]:
    """Every single action open to ``colour`` in this position."""
    aims = targets(state, colour)
    return [{"cube": cube, "toward": t} for cube in movable_cubes(state, colour) for t in aims]


def move_error(state: State, colour: str, move: Move) -> tuple[str, str] | None:
    """(rule, reason) if ``move`` breaks a rule in this position, else None."""
    return checked_move(state, colour, move)[0]


def checked_move(state: State, colour: str, move: Move) -> tuple[tuple[str, str] | None, str | None]:
    """``move_error``, and where the cube is (``locate``'s position) when the move is legal, so that
    ``play_move`` need not look for it again."""
    cube, toward = move["cube"], move["toward"]
    if colour_of_cube(cube) != colour:
        return (RULE_OWN_CUBE, f"{cube} is not a {colour} cube"), None
    if toward == colour or toward not in state["colours"]:  # not in targets(state, colour), without the list
        if toward == colour:
            return (RULE_TOWARD, "a cube cannot move toward its own base"), None
        return (RULE_TOWARD, f"{toward} is not in play, so the path to the {toward} base is closed"), None
    position, level = locate(state, cube)  # once: each check below asks where it is
    # _finished_at and _movable_at, for a cube of ``colour``: in a base it has finished unless the
    # base is its own (where it may move); on a space it may move from the top of its stack.
    if position.startswith(BASE_PREFIX):
        if base_colour(position) != colour:
            return (RULE_FINISHED, f"{cube} has finished and is out of play"), None
    elif level != len(state["spaces"][position]) - 1:
        return (RULE_STACK_TOP, f"{cube} is under another cube in the stack on {position}"), None
    return None, position


def play_move(state: State, colour: str, move: Move, origin: str | None = None,
              tables: tuple[Routes, Routes] | None = None) -> dict[str, Any]:
    """Play one action on the working copy ``state``; returns what happened.  ``origin``: where
    ``locate`` finds the cube in ``state``, if the caller has just asked (``checked_move``).
    ``tables``: ``routes`` of the state's path length, if the caller has them (a turn's moves share them).

    Rule: onto an empty space or a lone cube the cube simply lands (making a stack);
    onto a stack of two or more it goes on top and the whole stack moves three spaces
    toward the mover's base, merging with whatever it lands on and moving three more,
    until it reaches an empty space or the mover's base.
    """
    cube, toward = move["cube"], move["toward"]
    if origin is None:
        origin, _ = locate(state, cube)
    pushes: list[dict[str, Any]] = []
    if tables is None:
        tables = routes(state["path_length"])
    target = _play(state, tables, colour, cube, toward, origin, pushes)
    return {"cube": cube, "toward": toward, "from": origin, "to": target, "pushes": pushes}


def checked_play(state: State, colour: str, move: Move, tables: tuple[Routes, Routes] | None
                 ) -> tuple[tuple[str, str] | None, dict[str, Any] | None, bool]:
    """``checked_move``, then (when legal) ``play_move`` and ``entered_base`` of its record, in one call:
    (error, None, False) or (None, record, entered).  Validate plays every move of every order this way,
    so the usual move, an own cube toward a colour in play from the top of a stack or from its own base, is
    checked and located (``locate``) here; anything else (an error, any odd name) is
    ``checked_move``'s to answer."""
    cube, toward = move["cube"], move["toward"]
    origin = None
    if (type(cube) is str and _CUBE_COLOURS.get(cube) == colour and toward != colour
            and toward in state["colours"]):
        try:
            position, level = locate(state, cube)
        except KeyError:  # on the board nowhere: checked_move says so
            position = level = None
        if level is not None:  # legal on top of its stack (checked_move's stack rule)
            if level == len(state["spaces"][position]) - 1 and not position.startswith(BASE_PREFIX):
                origin = position
        elif position is not None and position == base(colour):  # legal in its own base (the finish rule)
            origin = position
    if origin is None:
        error, origin = checked_move(state, colour, move)
        if error is not None:
            return error, None, False
    record = play_move(state, colour, move, origin, tables)
    return None, record, entered_base(record)


def replay_moves(state: State, public: dict[str, Any]) -> None:
    """Play an outcome's recorded moves on the working copy ``state``, as ``play_move`` plays each
    (``apply_outcome``: a replay needs no record of what happened, it has one).

    Each move records where its cube was (``from``).  On a board where no cube is in two places
    (every board the rules make) a cube found there is where ``locate`` finds it, and a move from
    there keeps it so; anything else (a forged outcome) is located, and nothing trusted after it."""
    moves = public["moves"]
    if not moves:
        return
    known = _one_place_each(state)
    spaces, bases, tables = state["spaces"], state["bases"], routes(state["path_length"])
    for effect in moves:
        colour = public["colour"]
        cube, toward = effect["cube"], effect["toward"]
        origin = effect.get("from") if known else None
        # ``origin`` if the cube is there (on top of its stack, or in that base), else None:
        if type(origin) is not str:
            origin = None
        elif origin.startswith(BASE_PREFIX):
            inside = bases.get(base_colour(origin))
            if inside is None or cube not in inside:
                origin = None
        else:
            stack = spaces.get(origin)
            if not stack or stack[-1] != cube:
                origin = None
        if origin is None:
            known = False
            origin, _ = locate(state, cube)
        _play(state, tables, colour, cube, toward, origin, None)


def _one_place_each(state: State) -> bool:
    """No cube on the board twice (in stacks and bases together): as many distinct cubes as cubes.
    False for a board of anything but lists (then every move is located: exact, only slower)."""
    try:
        placed = sum(state["bases"].values(), [])
        placed = sum(state["spaces"].values(), placed)
        return len(set(placed)) == len(placed)
    except TypeError:  # an unhashable cube, or a stack that is not a list: never on a board the rules make
        return False


def _play(state: State, tables: tuple[Routes, Routes] | None, colour: str, cube: str, toward: str, origin: str,
          pushes: list[dict[str, Any]] | None) -> str:
    """``play_move``'s play: the space or base the cube steps to.  ``tables``: ``routes`` of the state's
    path length (looked up once per turn by the caller).  ``pushes``: a list to record each push in, or
    None when nobody asks."""
    spaces = state["spaces"]
    if origin.startswith(BASE_PREFIX):  # lift it: stacks and base lists are replaced, never edited (shared)
        bases, home = state["bases"], base_colour(origin)
        inside = list(bases[home])
        inside.remove(cube)
        bases[home] = inside
    else:
        stack = spaces[origin]
        if len(stack) == 1:
            del spaces[origin]
        else:
            spaces[origin] = stack[:-1]
    try:
        target = tables[0].get(toward, _NOWHERE).get(origin)  # type: ignore[index]
    except TypeError:  # no tables (a length outside the options' range), or a toward that is no key at all
        target = None
    if target is None:  # not a position or colour of the board (see ``routes``)
        target = next_toward(origin, toward, state["path_length"])
    if target.startswith(BASE_PREFIX):
        _enter_base(state, target, [cube])
        return target
    below = spaces.pop(target, None)
    if below is None:
        spaces[target] = [cube]
        return target
    stack = [*below, cube]
    position = target
    if len(below) >= 2:
        try:
            steps = tables[1].get(colour, _NOWHERE)  # type: ignore[index]
        except TypeError:
            steps = _NOWHERE
        while True:
            position = steps.get(position) or push_destination(position, colour, state["path_length"])
            if pushes is not None:
                pushes.append({"stack": list(stack), "to": position})
            if position.startswith(BASE_PREFIX):
                _enter_base(state, position, stack)
                return target
            below = spaces.pop(position, None)
            if not below:
                break
            stack = [*below, *stack]
    spaces[position] = stack
    return target


_NOWHERE: dict[str, str] = {}  # the table row of a colour the board does not have


def entered_base(effect: dict[str, Any]) -> bool:
    """Whether the move ``play_move`` described put a cube into a base (landing there, or a push
    ending there): only then can it make a winner (``winners`` counts cubes in bases; a move that
    takes a cube out of one only lowers a count)."""
    pushes = effect["pushes"]
    return effect["to"].startswith(BASE_PREFIX) or (bool(pushes) and pushes[-1]["to"].startswith(BASE_PREFIX))


def _enter_base(state: State, position: str, cubes: list[str]) -> None:
    """Rule: no stacking in a base; each cube enters on its own (home or finished)."""
    bases, colour = state["bases"], base_colour(position)
    bases[colour] = bases[colour] + cubes


def finished_counts(state: State, colour: str) -> dict[str, int]:
    """How many of ``colour``'s cubes have finished in each other base in play."""
    return {
        other: sum(1 for c in state["bases"][other] if cube_colour(c) == colour)
        for other in state["colours"]
        if other != colour
    }


def has_won(state: State, colour: str) -> bool:
    """Winning the game, by the number of colours in play (see ``_wins``)."""
    return _wins(list(finished_counts(state, colour).values()), len(state["colours"]))


def _wins(counts: list[int], players: int) -> bool:
    """2 players: all five cubes in the other base.  3 players: three in one opponent's
    base, or two in each.  4 players: three in one opponent's base, or one in each."""
    if players == 2:
        return counts[0] >= 5
    if players == 3:
        return max(counts) >= 3 or min(counts) >= 2
    return max(counts) >= 3 or min(counts) >= 1


def winners(state: State, candidates: list[str]) -> list[str]:
    """Colours among ``candidates`` that meet a win condition now, in turn order.

    ``has_won`` for each of them, counted as ``_winners_by_name`` counts (this runs after every action
    of every turn that is played, checked or replayed): when every cube in the bases is one of the twenty
    cube names, a colour's cubes in a base are the times its ``"colour-"`` prefix occurs in the base's
    names joined (no name holds another colour's prefix), a few C calls per base; any other board (a
    base or colour missing, a name no board holds) is counted name by name.
    """
    colours = state["colours"]
    # Candidates are nearly always every colour (nobody ejected): then every colour is playing.
    playing = list(colours) if candidates == colours else [c for c in colours if c in candidates]
    if not playing:
        return []
    bases = state["bases"]
    joined: dict[str, str] | None = {}
    finished = 0  # cubes in a base of another colour: every way to win (_wins) takes three of one colour
    try:
        for other in colours:
            if other in joined:  # a colour listed twice (no state has one) counts its base once
                continue
            cubes = bases[other]
            if not _ALL_CUBES.issuperset(cubes):
                joined = None
                break
            text = ",".join(cubes)
            finished += len(cubes) - text.count(_PREFIXES[other])
            joined[other] = text
    except (KeyError, TypeError):  # a base missing, a cube that is no name, a colour no board has
        joined = None
    if joined is None:
        return _winners_by_name(state, colours, playing)
    players = len(colours)
    if finished < 3 and players >= 2:
        return []
    everywhere = ",".join(joined.values()) if len(joined) == players >= 2 else ""  # 2-4 colours, each once
    won = []
    for colour in playing:
        prefix = _PREFIXES[colour]
        if everywhere and everywhere.count(prefix) - joined[colour].count(prefix) < 3:
            continue  # fewer than three of its cubes finished: no way to win (_wins) for 2-4 colours
        if _wins([joined[other].count(prefix) for other in colours if other != colour], players):
            won.append(colour)
    return won


def _winners_by_name(state: State, colours: list[str], playing: list[str]) -> list[str]:
    """``winners`` on any board: each cube's colour read from its name."""
    inside = {other: list(map(colour_of_cube, state["bases"][other])) for other in colours}
    if len(colours) >= 2 and sum(len(cubes) - cubes.count(other) for other, cubes in inside.items()) < 3:
        return []
    return [c for c in playing if _wins([inside[other].count(c) for other in colours if other != c], len(colours))]


_ALL_CUBES = frozenset(_CUBE_COLOURS)
_PREFIXES = {colour: f"{colour}-" for colour in COLOURS}  # how each cube name of a colour begins (cube_name)
