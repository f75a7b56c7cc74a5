"""Marshmallow schemas of the elemental Tag game: options, sign-up fields and orders.

They check only the form of a request; whether the rules allow an order now (your
team's size, an open element, a move that stays on the map) is the engine's to say,
so its errors can name the rule.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate
from engines.shapes import (
    BOOLEAN as _B, INTEGER as _I, STRING as _S, array as _list, by as _by, nullable as _maybe, obj as _obj,
)

# Ruling 1: the elements a team can take (and a player's guild can have).
ELEMENTS = ("fire", "water", "earth", "air", "lightning", "ice", "light", "darkness")
DIRECTIONS = ("n", "s", "e", "w", "ne", "nw", "se", "sw", "stay")
ROUNDINGS = ("nearest", "down", "up")
TIE_AVERAGES = ("all_bids", "tied_bids")
MAX_PLAYERS = 200
POINTS = validate.Range(1, 10_000)
COST = validate.Range(0, 1_000)


def _count(default: int, check: validate.Validator = COST) -> fields.Integer:
    return fields.Integer(strict=True, load_default=default, validate=check)


class OptionsSchema(Schema):
    """Every number of the rulebook, as an option with the rulebook's value by default."""

    element_points = _count(45, POINTS)
    underworld_points = _count(25, POINTS)
    newcomer_points = _count(10, POINTS)  # a late underworld sign-up, a leaver, an ejected player
    it_cost = _count(2, validate.Range(1, 1_000))  # at least 1: the chase drains every round, so games end
    tag_cost = _count(1)
    tagged_cost = _count(4)
    replace_cost = _count(3)
    eject_cost = _count(4)
    max_bid = _count(100, validate.Range(0, 10_000))
    missed_bid = _count(0, validate.Range(0, 10_000))
    tie_average = fields.String(load_default="all_bids", validate=validate.OneOf(TIE_AVERAGES))
    average_rounding = fields.String(load_default="nearest", validate=validate.OneOf(ROUNDINGS))
    grid_size = _count(0, validate.Range(0, 40))  # 0: 5 x 5, larger past 12 players (ruling 2)
    min_teams = _count(3, validate.Range(2, MAX_PLAYERS))
    late_join_min_players = _count(6, validate.Range(0, MAX_PLAYERS))
    round_one_signups = fields.Boolean(load_default=False)


class JoinSchema(Schema):
    """Sign-up: an element to join (null: play alone in the underworld) and the player's guild."""

    element = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(ELEMENTS))
    guild = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(ELEMENTS))


class BidSchema(Schema):
    amount = fields.Integer(strict=True, required=True, validate=validate.Range(0, 10_000))


class PlaceSchema(Schema):
    replace = fields.Boolean(required=True)


class MoveSchema(Schema):
    direction = fields.String(required=True, validate=validate.OneOf(DIRECTIONS))
    # The it player's ordered tag list; left out (null) by everyone else.  An empty list is refused: it is
    # either a mistake or the same as leaving it out.
    tags = fields.List(fields.String(validate=validate.Length(1, 20)), load_default=None, allow_none=True,
                       validate=validate.Length(min=1, max=MAX_PLAYERS))


class ApplySchema(Schema):
    element = fields.String(required=True, validate=validate.OneOf(ELEMENTS))
    yes = fields.Boolean(load_default=True)


class VoteSchema(Schema):
    motion = fields.String(required=True, validate=validate.OneOf(("admit", "eject")))
    player_id = fields.String(required=True, validate=validate.Length(1, 20))
    yes = fields.Boolean(load_default=True)


class LeaveSchema(Schema):
    yes = fields.Boolean(load_default=True)


class DisbandSchema(Schema):
    yes = fields.Boolean(load_default=True)


class FormSchema(Schema):
    partner = fields.String(required=True, validate=validate.Length(1, 20))
    element = fields.String(required=True, validate=validate.OneOf(ELEMENTS))
    yes = fields.Boolean(load_default=True)


# -- what the engine sends out, as OpenAPI 3.0 schemas (Engine.view_schema ...; tests/schema checks real games) --

def _option(field: fields.Field) -> dict[str, Any]:
    """An option as the view's rules show it (defaults filled in), from its marshmallow field: one declaration."""
    if isinstance(field, fields.Boolean):
        return _B
    choices = [v.choices for v in field.validators if isinstance(v, validate.OneOf)]
    return {"type": "string", "enum": list(choices[0])} if choices else _I


_RULES = _obj({name: _option(field) for name, field in OptionsSchema().fields.items()},
              description="The game's options, every one (defaults filled in).")
_ELEMENT = {"type": "string", "enum": list(ELEMENTS)}
_DIRECTION = {"type": "string", "enum": list(DIRECTIONS)}
_SQUARE = {**_list(_I), "minItems": 2, "maxItems": 2,
           "description": "[x, y]: column from the west, row from the north."}
_ORDER = _obj({"type": {"type": "string", "enum": ["bid", "place", "move", "apply", "vote", "leave", "disband",
                                                   "form"]}},
              {"amount": _I, "replace": _B, "direction": _DIRECTION,
               "tags": _maybe(_list(_S)), "element": _ELEMENT, "motion": {"type": "string", "enum": ["admit", "eject"]},
               "player_id": _S, "partner": _S, "yes": _B}, "An order as sent (defaults filled in).")
_ACTS = _by("player", _by("subject (leave, disband, form, apply, admit:<player>, eject:<player>)", _ORDER))
# a team's element (null: an underworld player alone), its players and its points, wherever a team is shown
_TEAM_PARTS = {"element": _maybe(_ELEMENT), "members": _list(_S), "points": _I}
_CHANGE = _obj({"team": _S, "points": _I, "why": {"type": "string", "enum": [
    "bid", "new place", "it", "tag list", "tagged", "ejection"]}}, description="Points taken from a team, and why.")
_OUT = _obj({"team": _S, **_TEAM_PARTS, "turn": _I, "how": {"type": "string", "enum": ["points", "left"]}},
            description="A team out of the game: at no points, or left by its last player.")
_DRAW = _obj({"among": _list(_S), "index": _I}, description="A draw by lot: the index drawn among the players.")
_TRANSFER = _maybe(_obj({"from": _S, "to": _maybe(_S), "how": {"type": "string", "enum": [
    "most recent", "drawn", "nobody left"]}}, {"among": _list(_S), "index": _I}))
_COLLISION = _obj({"kind": {"type": "integer", "enum": [1, 2, 3]}, "step": _I, "players": _list(_S),
                   "square": _maybe(_SQUARE), "into": _maybe(_S)},
                  description="Kind 1 trading places, 2 the same space (into: whoever stood there), 3 crossing.")
_EVENT = _obj({"event": {"type": "string", "enum": ["left", "ejected", "disbanded", "formed", "admitted"]}},
              {"player": _S, "players": _list(_S), "team": _S, "element": _ELEMENT, "points": _I})
_MOVES = {**_by("player", _DIRECTION), "description": "By player: the direction sent (the view's last round leaves "
                                                      "out those who stayed)."}
_ROUND = _obj(
    {"turn": _I, "kind": {"type": "string", "enum": ["bidding", "placement", "moving"]}, "it": _maybe(_S),
     "changes": _list(_CHANGE), "eliminated": _list(_OUT), "it_transfer": _TRANSFER},
    {"tied": _list(_S), "draw": _maybe(_DRAW), "replaced": _list(_S), "moves": _MOVES,
     "collisions": _list(_COLLISION), "tagger": _maybe(_S), "tagged": _maybe(_S), "team_events": _list(_EVENT),
     "applications": _by("applicant", _ELEMENT)},
    "A round's announced facts.")
_SECRET = _obj({}, {"bids": _by("player", _I), "missed": _list(_S), "tie_price": _maybe(_I), "tags": _list(_S),
                    "acts": _ACTS},
               "A round's secrets. Bidding: bids (a missed bid at the missed-bid price), missed, tie_price (null: "
               "no tie). Placement: none. Moving: tags (the it player's list, players still on the map), acts "
               "(every team action sent).")

HINT = _obj({}, {
    "bid": _obj({"min": _I, "max": _I}), "place": _obj({"replace": _list(_B)}),
    "move": _obj({"directions": _list(_DIRECTION), "tags": _list(_S)}), "apply": _obj({"elements": _list(_ELEMENT)}),
    "form": _obj({"partners": _list(_S), "elements": _list(_ELEMENT)}),
    "vote": _obj({"admit": _list(_S), "eject": _list(_S)}), "leave": _obj({}), "disband": _obj({})},
    "The orders a player may send now, with their choices.")

_TEAM_RESULT = _obj({"team": _S, **_TEAM_PARTS,
                     "place": {"oneOf": [_I, {"type": "string", "enum": ["last standing"]}]}, "score": _I})
RESULT = _obj({"winners": _list(_S), "teams": _list(_TEAM_RESULT), "players": _list(_obj(
    {"player_id": _S, "name": _S, "score": _I, "team": _maybe(_S), "element": _maybe(_ELEMENT),
     "guild_points": _I, "departed": _B}))}, description="Each team's place and score, and each player's.")

VIEW = _obj({
    "game": {"type": "string", "enum": ["Elemental Tag"]},
    "stage": {"type": "string", "enum": ["bidding", "placement", "moving", "over"]},
    "round": _I, "moving_round": _maybe(_I), "size": _maybe(_I), "it": _maybe(_S),
    "players": _list(_obj({"id": _S, "name": _S, "team": _S, "element": _maybe(_ELEMENT),
                           "square": _maybe(_SQUARE)})),
    "teams": _list(_obj({"team": _S, **_TEAM_PARTS})),
    "open_elements": _list(_ELEMENT), "applications": _by("applicant", _ELEMENT), "eliminated": _list(_OUT),
    "departed": _list(_S), "last_round": _maybe(_ROUND), "rules": _RULES,
}, {
    "you": _obj({"id": _S, "in_play": _B, "team": _maybe(_S), "order": _maybe(_ORDER),
                 "team_actions": _by("subject", _ORDER), "legal_actions": HINT}),
    "hidden": _obj({"orders": _by("player", _ORDER), "team_actions": _ACTS, "last_round": _SECRET},
                   description="The GM's (everyone's once the game is over); last_round: the last round's secrets."),
}, "The map, the teams and their points, who is it; a player's own orders; the GM's hidden part.")

_BOARD = _obj({"players": _by("player", _obj({"team": _S, "pos": _maybe(_SQUARE)})),
               "teams": _by("team id", _obj(_TEAM_PARTS)), "it": _maybe(_S), "it_history": _list(_S),
               "next_team": _I, "size": _maybe(_I)},
              description="The board after it: each player's team and square (null before the bidding's end), the "
                          "teams, who is it and who was (oldest first), the next team number, the map's side.")
_PUBLIC = _obj({}, {
    **_ROUND["properties"], "board": _BOARD,
    "placement_draws": _list(_maybe(_I)),
    "team_draws": _by("draw (disband <team id>, form <element>)", _obj(
        {"among": _list({"oneOf": [_S, _list(_S)]}), "index": _I},
        description="A draw by lot: the index drawn among players (a disbanding) or pairs (a forming).")),
    "joined": _S, "team": _S, "square": _maybe(_SQUARE),
    "left": _S, "how": {"type": "string", "enum": ["quit", "eject"]}, "in_play": _B,
}, "Everyone's part. Setup: empty. A round: its announced facts (as the view's last_round), board, and "
   "placement_draws (indices into the free squares, row by row; placement: null where the map was full) or "
   "team_draws. A join: joined, team, square (null while the bids are open), board. A quit or ejection: left, "
   "how, in_play (false: already out), and if in play team, eliminated, it_transfer, board.")
_PRIVATE = _by("viewer: the it player's id, or team:<element>:<team id>", _obj({}, {
    "tags": _list(_S), "team_actions": _by("member", _list(_S))},
    "The it player's tag list as sent; a team's actions of the round by member (their subjects: leave, admit:p7 "
    "...)."))

OUTCOME = _obj({"public": _PUBLIC}, {"private": _PRIVATE, "secret": _SECRET, "closes_phase": _B},
               "A setup, outcome or membership record, cut to what the viewer may see.")
