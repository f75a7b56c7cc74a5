"""Whether the rules allow an order now, and how an order is kept until its round is resolved.

The platform's gate has already checked the form, the phase, and that the sender is playing.
Bids, places and moves are one per player per phase (a new one replaces the old); team actions
are kept by what they are about (``leave``, ``disband``, ``form``, ``apply``, ``admit:p7``,
``eject:p4``), and the same order with ``"yes": false`` takes one back.
"""
from __future__ import annotations

from engines.contract import JSON, RuleError, State, not_now
from engines.elemental_tag import board as grid
from engines.elemental_tag.rules import by_id, element_team, open_elements

SINGLE = ("bid", "place", "move")


def act_key(action: JSON) -> str:
    """Where a team action is kept: one per subject, so a vote on one player does not replace another."""
    if action["type"] == "vote":
        return f"{action['motion']}:{action['player_id']}"
    return action["type"]


def _team(state: State, player: str) -> JSON:
    return state["teams"][state["players"][player]["team"]]


def _player(state: State, player_id: str, field: str, rule: str) -> None:
    """``rule`` (the rule whose order names the player) is broken unless ``player_id`` is in the game."""
    if player_id not in state["players"]:
        raise RuleError(rule, f"{player_id!r} is not a player on the map.", {field: ["Not a player in play."]})


def validate(state: State, actor: str, action: JSON) -> None:
    kind = action["type"]
    options = state["options"]
    if kind == "bid":
        if action["amount"] > options["max_bid"]:
            raise RuleError("rule 1: bids", f"A bid is a whole number from 0 to {options['max_bid']}.",
                            {"amount": [f"At most {options['max_bid']}."]})
        return
    if kind == "move":
        _move(state, actor, action)
        return
    if kind == "place" or not action.get("yes", True):
        return  # a new place may always be asked for (or not); an action may always be taken back
    team = _team(state, actor)
    if kind == "apply":
        if team["element"] is not None:
            raise not_now("rule 5: joining a team", "Only an underworld player applies to join a team.")
        if element_team(state, action["element"]) is None:
            raise RuleError("rule 5: joining a team", f"No team holds {action['element']} now.",
                            {"element": ["No team of this element is in the game."]})
    elif kind == "vote":
        _vote(state, actor, action, team)
    elif kind == "leave":
        if team["element"] is None or len(team["members"]) < 3:
            raise not_now("rule 5: leaving", "Only a player of a team of three or more may leave it.")
    elif kind == "disband":
        if team["element"] is None or len(team["members"]) != 2:
            raise not_now("rule 5: disbanding", "Only a team of exactly two players may disband.")
    elif kind == "form":
        _form(state, actor, action, team)


def _move(state: State, actor: str, action: JSON) -> None:
    square = grid.target(state["players"][actor]["pos"], action["direction"])
    if not grid.on_grid(square, state["size"]):
        raise RuleError("rule 3: moving", f"Moving {grid.NAMES[action['direction']]} would leave the map.",
                        {"direction": ["That way is off the map."]})
    tags = action["tags"]
    if tags is None:
        return
    if state["it"] != actor:
        raise RuleError("rule 4: tagging", "Only the player who is it sends a tag list.",
                        {"tags": ["You are not it: leave tags out."]})
    if len(set(tags)) != len(tags):
        raise RuleError("rule 4: tagging", "Name each player once in the tag list.", {"tags": ["A repeated name."]})
    for target in tags:
        _player(state, target, "tags", "rule 4: tagging")
        if target == actor:
            raise RuleError("rule 4: tagging", "You cannot tag yourself.", {"tags": ["Your own id."]})


def _vote(state: State, actor: str, action: JSON, team: JSON) -> None:
    if team["element"] is None:
        raise not_now("rule 5: team votes", "Only the players of an element's team vote on its members.")
    target = action["player_id"]
    if action["motion"] == "admit":
        if state["applications"].get(target) != team["element"]:
            raise RuleError("rule 5: joining a team", f"{target!r} has no application to your team this round.",
                            {"player_id": ["Not an applicant to your team."]})
        return
    _player(state, target, "player_id", "rule 5: ejection")
    if target == actor or target not in team["members"]:
        raise RuleError("rule 5: ejection", "Vote to eject another player of your own team.",
                        {"player_id": ["Not one of your team-mates."]})
    if len(team["members"]) < 3:
        raise not_now("rule 5: ejection", "A team of two cannot eject a player.")


def _form(state: State, actor: str, action: JSON, team: JSON) -> None:
    partner = action["partner"]
    if team["element"] is not None:
        raise not_now("rule 5: forming a team", "Only underworld players form a new team.")
    _player(state, partner, "partner", "rule 5: forming a team")
    if partner == actor or _team(state, partner)["element"] is not None:
        raise RuleError("rule 5: forming a team", "Your partner must be another underworld player.",
                        {"partner": ["Not another underworld player."]})
    if action["element"] not in open_elements(state):
        raise RuleError("rule 5: forming a team", f"{action['element']} is not open: a team holds it.",
                        {"element": ["Choose an element no team holds."]})


def apply_action(state: State, actor: str, action: JSON) -> State:
    if action["type"] in SINGLE:
        return {**state, "orders": {**state["orders"], actor: action}}
    mine = dict(state["acts"].get(actor, {}))
    key = act_key(action)
    if action.get("yes", True):
        mine[key] = action
    else:
        mine.pop(key, None)
    acts = {p: a for p, a in state["acts"].items() if p != actor}
    if mine:
        acts[actor] = mine
    return {**state, "acts": dict(sorted(acts.items(), key=lambda kv: by_id(kv[0])))}
