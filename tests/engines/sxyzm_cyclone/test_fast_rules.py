"""The rule functions' shortcuts must say exactly what the plain rules say, on any board, including
boards no real game reaches (a cube in two places, a cube missing, a forged move or colour):

- ``routes`` tables hold exactly ``next_toward``'s and ``push_destination``'s answers;
- ``play_move`` (table lookups, a located origin and the tables handed in, stacks and base lists replaced rather
  than edited) plays like the plain version below, raises what it raises, and leaves the state
  its working copy came from untouched;
- ``checked_move`` is ``move_error`` plus ``locate``'s position;
- ``checked_play`` (validate's move: checked, located and played in one call) is ``checked_move``, then
  ``play_move`` and ``entered_base``, move after move, on any board, including space keys named like bases;
- ``movable_cubes`` (set shortcut on boards where every cube is in one place) is ``is_movable``;
- ``winners`` (early answer from an upper bound on finished cubes) is ``has_won`` for each colour;
- ``replay_moves`` (``apply_outcome``: a move's recorded ``from`` trusted where the cube is, on a
  board with no cube twice) plays like the plain moves;
- a move that puts no cube into a base makes no winner (validate and resolve skip ``winners`` then);
- ``active_colours`` (every colour at once when nobody is ejected and each colour has a player) is the
  colour-by-colour ``player_of`` check.
"""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.sxyzm_cyclone.board import (
    COLOURS,
    PUSH_DISTANCE,
    all_spaces,
    base,
    base_colour,
    cube_colour,
    cubes_of,
    is_base,
    next_toward,
    push_destination,
    routes,
)
from engines.sxyzm_cyclone.rules import (
    RULE_FINISHED,
    RULE_OWN_CUBE,
    RULE_STACK_TOP,
    RULE_TOWARD,
    checked_move,
    checked_play,
    entered_base,
    has_won,
    is_finished,
    is_movable,
    locate,
    move_error,
    movable_cubes,
    play_move,
    replay_moves,
    targets,
    winners,
    working_copy,
)
from engines.sxyzm_cyclone.turns import active_colours, player_of

CUBES = [cube for colour in COLOURS for cube in cubes_of(colour)]
ODD_CUBES = ["blue-9", "purple-1", "red"]  # names no board holds
ODD_COLOURS = ["purple", "a:b"]  # colours no board has


def plain_play_move(state: dict[str, Any], colour: str, move: dict[str, str]) -> dict[str, Any]:
    """``play_move`` as the rules read (the version before the shortcuts): edits ``state`` in place."""
    cube, toward = move["cube"], move["toward"]
    origin, _ = locate(state, cube)
    if is_base(origin):
        state["bases"][base_colour(origin)].remove(cube)
    elif len(state["spaces"][origin]) == 1:
        del state["spaces"][origin]
    else:
        state["spaces"][origin] = state["spaces"][origin][:-1]
    target = next_toward(origin, toward, state["path_length"])
    effect: dict[str, Any] = {"cube": cube, "toward": toward, "from": origin, "to": target, "pushes": []}
    if is_base(target):
        state["bases"][base_colour(target)].extend([cube])
        return effect
    below = state["spaces"].pop(target, [])
    stack = below + [cube]
    position = target
    if len(below) >= 2:
        while True:
            for _ in range(PUSH_DISTANCE):
                if is_base(position):
                    break
                position = next_toward(position, colour, state["path_length"])
            effect["pushes"].append({"stack": list(stack), "to": position})
            if is_base(position):
                state["bases"][base_colour(position)].extend(stack)
                return effect
            below = state["spaces"].pop(position, [])
            stack = below + stack
            if not below:
                break
    state["spaces"][position] = stack
    return effect


def plain_move_error(state: dict[str, Any], colour: str, move: dict[str, str]) -> tuple[str, str] | None:
    """``move_error`` as the rules read (the version before ``checked_move``)."""
    cube, toward = move["cube"], move["toward"]
    if cube_colour(cube) != colour:
        return RULE_OWN_CUBE, f"{cube} is not a {colour} cube"
    if toward not in targets(state, colour):
        if toward == colour:
            return RULE_TOWARD, "a cube cannot move toward its own base"
        return RULE_TOWARD, f"{toward} is not in play, so the path to the {toward} base is closed"
    if is_finished(state, cube):
        return RULE_FINISHED, f"{cube} has finished and is out of play"
    if not is_movable(state, cube):
        return RULE_STACK_TOP, f"{cube} is under another cube in the stack on {locate(state, cube)[0]}"
    return None


@st.composite
def boards(draw: st.DrawFn) -> dict[str, Any]:
    """Any board: usually each cube once, sometimes a cube twice or missing; lengths in and out of
    the options' range (the tables cover only the first)."""
    players = draw(st.integers(2, 4))
    colours = list(COLOURS[:players]) if draw(st.booleans()) else sorted(
        draw(st.lists(st.sampled_from(COLOURS), min_size=2, max_size=4, unique=True)), key=COLOURS.index)
    length = draw(st.sampled_from([5, 6, 7, 12, 20, 3, 4, 21]))
    cubes = [cube for colour in colours for cube in cubes_of(colour)]
    if draw(st.integers(0, 4)) == 0:  # a board no game makes
        cubes += draw(st.lists(st.sampled_from(cubes), max_size=3))
        cubes = [c for c in cubes if draw(st.integers(0, 30)) > 0]
    spaces: dict[str, list[str]] = {}
    bases: dict[str, list[str]] = {c: [] for c in colours}
    open_spaces = all_spaces(colours, length)
    in_bases = draw(st.integers(0, 4))  # from none to nearly all: late games have many finished cubes
    for cube in draw(st.permutations(cubes)):
        if draw(st.integers(0, 4)) < in_bases:
            bases[draw(st.sampled_from(colours))].append(cube)
        else:
            spaces.setdefault(draw(st.sampled_from(open_spaces)), []).append(cube)
    return {"colours": colours, "path_length": length, "spaces": spaces, "bases": bases}


def moves(board: dict[str, Any], colour: str) -> st.SearchStrategy[dict[str, str]]:
    """Mostly the mover's own cubes toward the other colours in play; any name now and then."""
    own = [cube for cube in CUBES if cube_colour(cube) == colour]
    others = [c for c in board["colours"] if c != colour]
    return st.fixed_dictionaries({
        "cube": st.one_of(st.sampled_from(own), st.sampled_from(CUBES + ODD_CUBES)) if own
        else st.sampled_from(CUBES + ODD_CUBES),
        "toward": st.one_of(st.sampled_from(others), st.sampled_from(list(COLOURS) + ODD_COLOURS)) if others
        else st.sampled_from(list(COLOURS) + ODD_COLOURS),
    })


def outcome(function: Any, *args: Any) -> tuple[str, Any]:
    """What ``function(*args)`` gives, or the error it raises (type and arguments)."""
    try:
        return "value", function(*args)
    except Exception as exc:  # noqa: BLE001 - any error must be the same error
        return type(exc).__name__, exc.args


def test_route_tables_hold_exactly_what_the_functions_say() -> None:
    for length in range(5, 21):
        steps, pushes = routes(length)  # type: ignore[misc]
        positions = all_spaces(list(COLOURS), length) + [base(c) for c in COLOURS]
        assert set(steps) == set(pushes) == set(COLOURS)
        for colour in COLOURS:
            assert steps[colour] == {p: next_toward(p, colour, length) for p in positions}
            assert pushes[colour] == {p: push_destination(p, colour, length) for p in positions}
    for length in (4, 21, True, 7.0, "7", None):
        assert routes(length) is None  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_play_move_plays_as_the_rules_read(data: st.DataObject) -> None:
    state = data.draw(boards())
    frozen = copy.deepcopy(state)
    fast, plain = working_copy(state), copy.deepcopy(state)
    colour = data.draw(st.sampled_from(list(state["colours"]) + ODD_COLOURS))
    for move in data.draw(st.lists(moves(state, colour), min_size=1, max_size=8)):
        before = outcome(winners, fast, state["colours"])
        origin = data.draw(st.booleans()) and outcome(locate, fast, move["cube"])
        handed = origin[1][0] if origin and origin[0] == "value" else None
        tables = routes(state["path_length"]) if data.draw(st.booleans()) else None  # as a turn hands them in
        got = outcome(play_move, fast, colour, move, handed, tables)
        expected = outcome(plain_play_move, plain, colour, move)
        assert got == expected
        if got[0] != "value":
            break  # a failed move leaves the copy half played, as it always did: it is thrown away
        assert (fast["spaces"], fast["bases"]) == (plain["spaces"], plain["bases"])
        if before == ("value", []) and not entered_base(got[1]):
            assert winners(fast, state["colours"]) == []
    assert state == frozen, "play_move changed the state its working copy came from"


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_checked_move_is_move_error_and_where_the_cube_is(data: st.DataObject) -> None:
    state = data.draw(boards())
    colour = data.draw(st.sampled_from(list(state["colours"]) + ODD_COLOURS))
    move = data.draw(moves(state, colour))
    got = outcome(checked_move, state, colour, move)
    plain = outcome(plain_move_error, state, colour, move)
    assert outcome(move_error, state, colour, move) == plain
    if got[0] != "value":
        assert got == plain
        return
    error, origin = got[1]
    assert ("value", error) == plain
    assert origin == (locate(state, move["cube"])[0] if error is None else None)


def plain_checked_play(state: dict[str, Any], colour: str, move: dict[str, str],
                       tables: Any) -> tuple[Any, Any, bool]:
    """``checked_play`` as three calls: ``checked_move``, then ``play_move`` from its position, ``entered_base``."""
    error, origin = checked_move(state, colour, move)
    if error is not None:
        return error, None, False
    effect = play_move(state, colour, move, origin, tables)
    return None, effect, entered_base(effect)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_checked_play_is_checked_move_then_play_move(data: st.DataObject) -> None:
    state = data.draw(boards())
    if data.draw(st.integers(0, 5)) == 0 and state["spaces"]:  # a space key named like a base (forged)
        key = data.draw(st.sampled_from(sorted(state["spaces"])))
        state["spaces"][base(data.draw(st.sampled_from(list(COLOURS) + ODD_COLOURS)))] = state["spaces"].pop(key)
    frozen = copy.deepcopy(state)
    fast, plain = working_copy(state), working_copy(state)
    colour = data.draw(st.sampled_from(list(state["colours"]) + ODD_COLOURS))
    tables = routes(state["path_length"])
    for move in data.draw(st.lists(moves(state, colour), min_size=1, max_size=8)):
        got = outcome(checked_play, fast, colour, move, tables)
        assert got == outcome(plain_checked_play, plain, colour, move, tables)
        assert (fast["spaces"], fast["bases"]) == (plain["spaces"], plain["bases"])
        if got[0] != "value":
            break  # a failed move leaves the copy half played: it is thrown away
    assert state == frozen, "checked_play changed the state its working copy came from"


def test_checked_play_answers_every_error_as_checked_move() -> None:
    state = {"colours": ["blue", "yellow"], "path_length": 5, "bases": {"blue": ["yellow-1"], "yellow": ["blue-1"]},
             "spaces": {"blue:2": ["blue-2", "blue-3"], "base:blue": ["blue-4"], "base:yellow": ["blue-5"]}}
    tables = routes(5)
    for move in ({"cube": "yellow-2", "toward": "yellow"}, {"cube": "blue-2", "toward": "blue"},
                 {"cube": "blue-2", "toward": "red"}, {"cube": "blue-1", "toward": "yellow"},
                 {"cube": "blue-2", "toward": "yellow"}, {"cube": "blue-5", "toward": "yellow"},
                 {"cube": "blue-9", "toward": "yellow"}, {"cube": "blue-4", "toward": "yellow"},
                 {"cube": "blue-3", "toward": "yellow"}):
        got = outcome(checked_play, working_copy(state), "blue", move, tables)
        assert got == outcome(plain_checked_play, working_copy(state), "blue", move, tables), move
    assert checked_play(working_copy(state), "blue", {"cube": "blue-5", "toward": "yellow"}, tables)[0] == (
        RULE_FINISHED, "blue-5 has finished and is out of play")
    assert checked_play(working_copy(state), "blue", {"cube": "blue-2", "toward": "yellow"}, tables)[0] == (
        RULE_STACK_TOP, "blue-2 is under another cube in the stack on blue:2")
    twice = {**state, "spaces": {"blue:1": ["blue-1", "yellow-1", "blue-1"]}}  # on top, and under it too
    move = {"cube": "blue-1", "toward": "yellow"}
    assert outcome(checked_play, working_copy(twice), "blue", move, tables) == outcome(
        plain_checked_play, working_copy(twice), "blue", move, tables)
    assert checked_play(working_copy(twice), "blue", move, tables)[0] == (
        RULE_STACK_TOP, "blue-1 is under another cube in the stack on blue:1")
    for bases in ({"yellow": ["blue-1"], "blue": ["blue-1"]}, {"blue": ["blue-1"], "yellow": ["blue-1"]}):
        in_two = {**state, "spaces": {}, "bases": bases}  # finished, and home too: as locate finds it first
        assert outcome(checked_play, working_copy(in_two), "blue", move, tables) == outcome(
            plain_checked_play, working_copy(in_two), "blue", move, tables)
    assert checked_play(working_copy({**state, "spaces": {}, "bases": {"yellow": ["blue-1"], "blue": ["blue-1"]}}),
                        "blue", move, tables)[0] == (RULE_FINISHED, "blue-1 has finished and is out of play")
    home = checked_play(working_copy({**state, "spaces": {}, "bases": {"yellow": [], "blue": ["blue-4"]}}), "blue",
                        {"cube": "blue-4", "toward": "yellow"}, tables)
    assert home == (None, {"cube": "blue-4", "toward": "yellow", "from": "base:blue", "to": "blue:1", "pushes": []},
                    False)


@settings(max_examples=300, deadline=None)
@given(boards(), st.sampled_from(COLOURS))
def test_movable_cubes_is_is_movable_on_any_board(state: dict[str, Any], colour: str) -> None:
    expected = outcome(lambda: [c for c in cubes_of(colour) if is_movable(state, c)])
    assert outcome(movable_cubes, state, colour) == expected


def test_movable_cubes_on_a_board_with_a_cube_in_two_places_asks_where_locate_finds_it() -> None:
    # blue-1 is under yellow-1 on blue:2 (found first) and on top of blue:3: it may not move.
    state = {"colours": ["blue", "yellow"], "path_length": 5,
             "spaces": {"blue:2": ["blue-1", "yellow-1"], "blue:3": ["blue-1"]},
             "bases": {"blue": ["blue-2", "blue-3", "blue-4", "blue-5"], "yellow": []}}
    assert movable_cubes(state, "blue") == ["blue-2", "blue-3", "blue-4", "blue-5"]


@settings(max_examples=400, deadline=None)
@given(boards(), st.lists(st.sampled_from(COLOURS), unique=True))
def test_winners_is_has_won_on_any_board(state: dict[str, Any], candidates: list[str]) -> None:
    expected = outcome(lambda: [c for c in state["colours"] if c in candidates and has_won(state, c)])
    assert outcome(winners, state, candidates) == expected


@pytest.mark.parametrize("players", [2, 3, 4])
def test_winners_is_has_won_where_games_are_won(players: int) -> None:
    """Boards near the win conditions (a few finished cubes more or less than they need), some
    with a cube twice in a base: random, many, so every threshold is met and missed."""
    rng = random.Random(f"near-wins-{players}")
    colours = list(COLOURS[:players])
    checked = {"won": 0, "doubled": 0}
    for _ in range(4000):
        bases: dict[str, list[str]] = {c: [] for c in colours}
        spaces: dict[str, list[str]] = {}
        finishing = rng.random()
        for cube in [cube for colour in colours for cube in cubes_of(colour)]:
            if rng.random() < finishing:
                bases[rng.choice([c for c in colours if c != cube_colour(cube)])].append(cube)
            elif rng.random() < 0.5:
                bases[cube_colour(cube)].append(cube)
            else:
                spaces.setdefault(f"{cube_colour(cube)}:1", []).append(cube)
        if rng.random() < 0.2:
            inside = bases[rng.choice(colours)]
            if inside:
                inside.append(rng.choice(inside))
                checked["doubled"] += 1
        state = {"colours": colours, "path_length": 7, "spaces": spaces, "bases": bases}
        candidates = [c for c in colours if rng.random() < 0.9]
        expected = [c for c in colours if c in candidates and has_won(state, c)]
        assert winners(state, candidates) == expected
        checked["won"] += bool(expected)
    assert checked["won"] > 200 and checked["doubled"] > 200


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_replay_moves_plays_each_move_as_the_rules_read(data: st.DataObject) -> None:
    """``apply_outcome``'s replay trusts a move's recorded ``from`` only where the cube is: on any
    board, with true, wrong and odd ``from``s, it plays what the plain moves play and fails alike."""
    state = data.draw(boards())
    colour = data.draw(st.sampled_from(list(state["colours"]) + ODD_COLOURS))
    fast, plain = working_copy(state), copy.deepcopy(state)
    recorded = []
    for move in data.draw(st.lists(moves(state, colour), max_size=8)):
        where = outcome(locate, plain, move["cube"])
        played = outcome(plain_play_move, copy.deepcopy(plain), colour, move)
        effect: dict[str, Any] = dict(move)
        holding = [p for p, stack in plain["spaces"].items() if move["cube"] in stack] + [
            base(c) for c, inside in plain["bases"].items() if move["cube"] in inside]
        hint = data.draw(st.sampled_from(["true", "holding", "wrong", "odd", "none"]))
        if hint == "true" and where[0] == "value":
            effect["from"] = where[1][0]
        elif hint == "holding" and holding:  # on a board with a cube twice: maybe not where locate finds it
            effect["from"] = data.draw(st.sampled_from(holding))
        elif hint == "wrong":
            effect["from"] = data.draw(st.sampled_from(all_spaces(list(COLOURS), 5) + [base(c) for c in COLOURS]))
        elif hint == "odd":
            effect["from"] = data.draw(st.sampled_from([None, 3, ["blue:1"], "centre"]))
        recorded.append(effect)
        if played[0] != "value":
            break
        plain_play_move(plain, colour, move)  # the board the next move's ``from`` is drawn on
    plain = copy.deepcopy(state)
    public = {"colour": colour, "moves": recorded}
    def plain_replay() -> None:
        for effect in recorded:
            plain_play_move(plain, colour, {"cube": effect["cube"], "toward": effect["toward"]})

    got = outcome(replay_moves, fast, public)
    expected = outcome(plain_replay)
    assert got == expected
    if got[0] == "value":
        assert (fast["spaces"], fast["bases"]) == (plain["spaces"], plain["bases"])


def _replayed_both_ways(spaces: dict[str, list[str]], recorded: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The board after ``replay_moves`` and after the plain moves, from the same board."""
    state = {"colours": ["blue", "yellow"], "path_length": 5, "spaces": spaces,
             "bases": {"blue": [c for c in cubes_of("blue") if not any(c in s for s in spaces.values())],
                       "yellow": [c for c in cubes_of("yellow") if not any(c in s for s in spaces.values())]}}
    fast, plain = working_copy(state), copy.deepcopy(state)
    replay_moves(fast, {"colour": "blue", "moves": recorded})
    for effect in recorded:
        plain_play_move(plain, "blue", {"cube": effect["cube"], "toward": effect["toward"]})
    return (fast["spaces"], fast["bases"]), (plain["spaces"], plain["bases"])


def test_replay_does_not_trust_from_on_a_board_with_a_cube_twice() -> None:
    # blue-1 is on blue:2 (under yellow-1, found first) and on blue:3: the move lifts from blue:2.
    fast, plain = _replayed_both_ways({"blue:2": ["blue-1", "yellow-1"], "blue:3": ["blue-1"]},
                                      [{"cube": "blue-1", "toward": "yellow", "from": "blue:3"}])
    assert fast == plain


def test_replay_stops_trusting_from_after_a_move_from_under_a_stack() -> None:
    # A forged first move lifts blue-1 from under blue-2 (which the lift takes instead): blue-1 is
    # then on blue:1 and blue:2, and the second move must take it from blue:1, where locate finds it.
    fast, plain = _replayed_both_ways({"blue:1": ["blue-1", "blue-2"]},
                                      [{"cube": "blue-1", "toward": "yellow", "from": "blue:1"},
                                       {"cube": "blue-1", "toward": "yellow", "from": "blue:2"}])
    assert fast == plain


def plain_active_colours(state: dict[str, Any]) -> list[str]:
    """``active_colours`` as the rules read (the version before the nobody-ejected shortcut)."""
    return [c for c in state["colours"] if player_of(state, c) not in state["ejected"]]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_active_colours_is_every_colour_whose_player_is_not_ejected(data: st.DataObject) -> None:
    """Seated as the engine seats them, or not (a colour nobody plays, a player without a colour or with
    one that is not a name, two players of one colour), with nobody, someone or something odd ejected."""
    colours = sorted(data.draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=4, unique=True)),
                     key=COLOURS.index)
    seats = data.draw(st.lists(st.one_of(st.sampled_from(list(COLOURS)), st.just(["blue"]), st.none()),
                               min_size=0, max_size=5)) if data.draw(st.booleans()) else list(colours)
    players: list[dict[str, Any]] = [{"id": f"p{i}", "colour": c} for i, c in enumerate(seats)]
    if players and data.draw(st.integers(0, 9)) == 0:
        del players[data.draw(st.integers(0, len(players) - 1))]["colour"]
    ejected = data.draw(st.one_of(st.just([]), st.lists(st.sampled_from([p["id"] for p in players] + ["p9"])),
                                  st.sampled_from([None, "", {}, 0])))
    state = {"colours": colours, "players": players, "ejected": ejected}
    assert outcome(active_colours, state) == outcome(plain_active_colours, state)
