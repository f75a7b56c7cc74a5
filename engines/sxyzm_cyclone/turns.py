"""Seating and turns: colours, board side, turn order, the die roll and who plays next."""
from __future__ import annotations

from typing import Any

from engines.contract import RuleError
from engines.rng import Rng
from engines.sxyzm_cyclone.board import COLOURS, side_colours

State = dict[str, Any]

RULE_SIDE = "the two-colour side is for 2 players"
RULE_FIRST = "the first player must be a colour in play"


def board_side(options: dict[str, Any], player_count: int) -> str:
    """Rule: the two-colour side is for 2 players, the four-colour side for 2-4.
    Ruling: 'auto' plays 2 players on the two-colour side; forcing the two-colour side
    with 3-4 players refuses the start rather than quietly switching sides."""
    if options["side"] == "two-colour" and player_count > 2:
        raise RuleError(RULE_SIDE, f"the two-colour side seats 2 players, not {player_count}: "
                        "choose side 'four-colour' or 'auto'", {"side": "two-colour", "players": player_count})
    two_players_may_use_it = player_count == 2 and options["side"] != "four-colour"
    return "two-colour" if two_players_may_use_it else "four-colour"


def assign_colours(players: list[dict[str, Any]], side: str) -> dict[str, str]:
    """Ruling: requested colours are honoured in join order when free and printed on
    the side in use; everyone else takes the first free colour in turn order."""
    available = list(side_colours(side))
    chosen: dict[str, str] = {}
    for player in players:
        wish = (player.get("fields") or {}).get("colour")
        if wish in available and wish not in chosen.values():
            chosen[player["id"]] = wish
    for player in players:
        if player["id"] not in chosen:
            chosen[player["id"]] = next(c for c in available if c not in chosen.values())
    return chosen


def turn_order(colours: list[str]) -> list[str]:
    """Ruling (the rulebook gives no turn order): turns go clockwise round the board as
    the doc draws it, blue → yellow → green → red, skipping colours not in play."""
    return [c for c in COLOURS if c in colours]


def draw_roll(options: dict[str, Any], turn: int, rng: Rng) -> int:
    """The die roll for ``turn``: the GM's fixed roll if the options give one, else a d6."""
    fixed = options["rolls"]
    if turn <= len(fixed):
        return int(fixed[turn - 1])
    return rng.randint(1, 6)


def first_colour(options: dict[str, Any], colours: list[str], rng: Rng) -> str:
    """Ruling: the first player is the GM's choice, else drawn from the seed; a chosen
    colour nobody plays refuses the start rather than being quietly replaced."""
    chosen = options["first_colour"]
    if chosen is None:
        return rng.choice(colours)
    if chosen not in colours:
        raise RuleError(RULE_FIRST, f"first_colour {chosen} is not in play (colours: {', '.join(colours)})",
                        {"first_colour": chosen, "colours": list(colours)})
    return str(chosen)


def player_of(state: State, colour: str) -> str:
    """The id of the player of ``colour``; StopIteration if nobody plays it."""
    for player in state["players"]:
        if player["colour"] == colour:
            return player["id"]
    raise StopIteration


def colour_of(state: State, player_id: str) -> str | None:
    for player in state["players"]:
        if player["id"] == player_id:
            return player["colour"]
    return None


def active_colours(state: State) -> list[str]:
    """Ruling 14: colours whose player has not been ejected (an ejected player cannot win and their
    turns are skipped)."""
    return [c for c in state["colours"] if player_of(state, c) not in state["ejected"]]


def next_colour(state: State) -> str:
    """Ruling 7: the next active colour after the current one, in turn order."""
    order = state["colours"]
    active = active_colours(state)
    start = order.index(state["current"])
    for step in range(1, len(order) + 1):
        colour = order[(start + step) % len(order)]
        if colour in active:
            return colour
    return state["current"]
