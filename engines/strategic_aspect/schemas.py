"""Marshmallow schemas of Strategic Aspect: options and orders (form only; the rules are in rules.py/engine.py)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from engines.strategic_aspect.rules import MAX_BID, MOVES, SUFFICE_SIGN

MISSED_MOVE = ("one", "random")
MISSED_SAFETY = ("keep", "destroy")
MISSED_VOTE = ("abstain", "self")


class OptionsSchema(Schema):
    """Where GMs could differ (docs/games/strategic-aspect.md, rulings)."""

    exact_finish = fields.Boolean(load_default=False)  # space 30 must be hit exactly (default: may be passed)
    missed_move = fields.String(load_default="one", validate=validate.OneOf(MISSED_MOVE))
    missed_safety = fields.String(load_default="keep", validate=validate.OneOf(MISSED_SAFETY))
    missed_vote = fields.String(load_default="abstain", validate=validate.OneOf(MISSED_VOTE))


class MoveSchema(Schema):
    spaces = fields.Integer(strict=True, required=True, validate=validate.OneOf(sorted(MOVES)))


class StealSchema(Schema):
    """``from``: the cyclist to take five steps from, or null to steal nothing."""

    from_ = fields.String(data_key="from", attribute="from", required=True, allow_none=True,
                          validate=validate.Length(1, 64))


class BuyVoteSchema(Schema):
    buy = fields.Boolean(required=True)


class BidSchema(Schema):
    amount = fields.Integer(strict=True, required=True, validate=validate.Range(0, MAX_BID))


class SafetySchema(Schema):
    choice = fields.String(required=True, validate=validate.OneOf(("keep", "destroy", "give")))
    to = fields.String(load_default=None, allow_none=True, validate=validate.Length(1, 64))


class AcceptSchema(Schema):
    accept = fields.Boolean(required=True)


class VoteSchema(Schema):
    against = fields.String(required=True, validate=validate.Length(1, 64))


class TiebreakSchema(Schema):
    eliminate = fields.String(required=True, validate=validate.Length(1, 64))


class SufficeSchema(Schema):
    choice = fields.String(required=True, validate=validate.OneOf(sorted(SUFFICE_SIGN)))
