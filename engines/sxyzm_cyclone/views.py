"""What each viewer sees.  Nothing in SXYZM Cyclone is hidden, so every viewer sees
the whole board; the current player also gets the legal moves for a client to offer."""
from __future__ import annotations

from typing import Any

from engines.contract import JSON
from engines.sxyzm_cyclone import rules, turns
from engines.sxyzm_cyclone.board import CENTRE, cube_colour, path_spaces, side_colours

State = dict[str, Any]


def prompt(state: State, can_move: bool | None = None, player: str | None = None) -> str:
    """What the turn asks of its player, in words: how many moves, or why none.  ``can_move``:
    whether the current colour has a movable cube, ``player`` who plays it, if the caller knows already."""
    colour = state["current"]
    player = turns.player_of(state, colour) if player is None else player
    name = _name(state, player)
    roll = state["roll"]
    opening = f"Turn {state['turn']}: {name} ({colour}) rolled {roll}"
    if player in state["ejected"]:
        return f"Turn {state['turn']}: {name} ({colour}) has been ejected; the turn is skipped."
    if not (rules.can_move(state, colour) if can_move is None else can_move):
        return f"{opening}; no {colour} cube can move, so the actions are lost."
    if state["options"]["allow_unused_actions"]:
        return f"{opening}; send up to {_moves(roll)}."
    return f"{opening}; send exactly {_moves(roll)} (fewer only if no cube can move or a move wins)."


def view(state: State, hint: JSON | None, result: JSON | None) -> JSON:
    """The board by path and space (stacks bottom to top), the bases, every cube, the turn."""
    shown: dict[str, Any] = {
        "game": "SXYZM Cyclone",
        "side": state["side"],
        "path_length": state["path_length"],
        "status": "finished" if state["over"] else "running",
        "turn": state["turn"],
        "current": None if state["over"] else _current(state),
        "players": [_player(state, p) for p in state["players"]],
        "paths": _paths(state),
        "centre": list(state["spaces"].get(CENTRE, [])),
        "bases": {c: _base(state, c) for c in state["colours"]},
        "cubes": {cube: _cube(state, cube) for cube in rules.all_cubes(state)},
        "diagram": diagram(state),
    }
    if hint is not None:
        shown["legal_moves"] = hint
    if result is not None:
        shown["result"] = result
    return shown


def result(state: State) -> JSON:
    """Winners (player ids), why the game ended, and each player's finished cubes per base."""
    standings = sorted(
        (_player(state, p) for p in state["players"]),
        key=lambda p: (p["colour"] not in state["winners"], -sum(p["finished"].values())),
    )
    return {
        "winners": [turns.player_of(state, c) for c in state["winners"]],
        "winning_colours": list(state["winners"]),
        "ended": state["ended"],
        "draw": not state["winners"],
        "turns": state["turn"],
        "standings": standings,
    }


def diagram(state: State) -> list[str]:
    """A plain-text picture: each base, each path from its base to the centre, the centre."""
    lines = []
    for colour in side_colours(state["side"]):
        if colour not in state["colours"]:
            lines.append(f"{colour} path: closed (colour not in play)")
            continue
        base = _base(state, colour)
        lines.append(f"{colour} base: home {_stack(base['home'])} finished {_stack(base['finished'])}")
        cells = [f"{s.split(':')[1]} {_stack(state['spaces'].get(s, []))}" for s in _spaces(state, colour)]
        lines.append(f"{colour} path (base to centre): " + "  ".join(cells))
    lines.append(f"centre {_stack(state['spaces'].get(CENTRE, []))}  (stacks are listed bottom to top)")
    return lines


def _current(state: State) -> dict[str, Any]:
    player = turns.player_of(state, state["current"])
    return {"player": player, "name": _name(state, player), "colour": state["current"],
            "roll": state["roll"], "order": state["order"]}


def _player(state: State, player: dict[str, Any]) -> dict[str, Any]:
    colour = player["colour"]
    return {
        "id": player["id"],
        "name": player["name"],
        "colour": colour,
        "ejected": player["id"] in state["ejected"],
        "finished": rules.finished_counts(state, colour),
        "home": [c for c in state["bases"][colour] if cube_colour(c) == colour],
    }


def _paths(state: State) -> dict[str, Any]:
    """Every path printed on the side in use, each space from the base out to the centre."""
    return {
        colour: {
            "open": colour in state["colours"],
            "spaces": [{"space": s, "stack": list(state["spaces"].get(s, []))}
                       for s in _spaces(state, colour)],
        }
        for colour in side_colours(state["side"])
    }


def _spaces(state: State, colour: str) -> list[str]:
    return path_spaces(colour, state["path_length"]) if colour in state["colours"] else []


def _base(state: State, colour: str) -> dict[str, list[str]]:
    inside = state["bases"][colour]
    return {"home": [c for c in inside if cube_colour(c) == colour],
            "finished": [c for c in inside if cube_colour(c) != colour]}


def _cube(state: State, cube: str) -> dict[str, Any]:
    position, level = rules.locate(state, cube)
    finished = rules.is_finished(state, cube)
    movable = not finished and rules.is_movable(state, cube)
    return {"at": position, "level": level, "finished": finished, "movable": movable}


def _stack(cubes: list[str]) -> str:
    return "[" + ",".join(cubes) + "]"


def _moves(count: int) -> str:
    return f"{count} move" if count == 1 else f"{count} moves"


def _name(state: State, player_id: str) -> str:
    return next(p["name"] for p in state["players"] if p["id"] == player_id)
