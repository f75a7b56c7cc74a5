"""Marshmallow schemas of the elemental Tag game: options, sign-up fields and orders.

They check only the form of a request; whether the rules allow an order now (your
team's size, an open element, a move that stays on the map) is the engine's to say,
so its errors can name the rule.
"""
from __future__ import annotations

from marshmallow import Schema, fields, validate

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
    round_one_signups = fields.Boolean(load_default=True)


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
