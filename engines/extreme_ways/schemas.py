"""Marshmallow schemas of Extreme Ways: game options, sign-up fields and orders.

Schemas check only the form of a request; the rules (positive bid, enough gold, your
turn) are checked by the engine so errors can name the rulebook rule.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engines.extreme_ways.rules import OPTIONS

ANNOUNCE = ("none", "winners", "winners_and_amounts")
EC_RULES = ("later", "earlier")
TIEBREAK_GARNETS = ("after_award", "before_award")


def _move_field() -> fields.List:
    return fields.List(fields.Integer(strict=True), validate=validate.Length(equal=2))


class OptionMovesSchema(Schema):
    """One option of a GM-fixed round: its four candidate moves and which one is true."""

    moves = fields.List(_move_field(), required=True, validate=validate.Length(equal=4))
    true = fields.Integer(strict=True, required=True, validate=validate.Range(0, 3))

    @validates_schema
    def _distinct_moves(self, data: dict[str, Any], **kwargs: Any) -> None:
        moves = data.get("moves", [])
        if [0, 0] in moves:
            raise ValidationError("a candidate move may not be (0, 0)", "moves")
        if len({tuple(m) for m in moves}) != len(moves):
            raise ValidationError("the four candidate moves must be distinct", "moves")


class SplitSchema(Schema):
    """Candidate indices of the false moves in the single-move packet slots (see rules)."""

    B = fields.Integer(strict=True, required=True, validate=validate.Range(0, 3))
    C = fields.Integer(strict=True, required=True, validate=validate.Range(0, 3))
    D = fields.Integer(strict=True, required=True, validate=validate.Range(0, 3))


class RoundSchema(Schema):
    """A GM-fixed bidding round: options A-D and, optionally, how the packets split."""

    A = fields.Nested(OptionMovesSchema, required=True)
    B = fields.Nested(OptionMovesSchema, required=True)
    C = fields.Nested(OptionMovesSchema, required=True)
    D = fields.Nested(OptionMovesSchema, required=True)
    split = fields.Nested(SplitSchema, load_default=None, allow_none=True)

    @validates_schema
    def _split_names_false_moves(self, data: dict[str, Any], **kwargs: Any) -> None:
        split = data.get("split")
        if not split:
            return
        for letter in ("B", "C", "D"):
            if letter in data and split[letter] == data[letter]["true"]:
                raise ValidationError(f"split.{letter} must name a false move, not the true one", "split")


class OptionsSchema(Schema):
    """Game options; defaults follow the later (Odin/Loki) rule text."""

    bidding_rounds = fields.Integer(strict=True, load_default=7, validate=validate.Range(1, 20))
    starting_gold = fields.Integer(strict=True, load_default=50, validate=validate.Range(0, 100000))
    move_range = fields.Integer(strict=True, load_default=5, validate=validate.Range(1, 1000))
    rounds = fields.List(fields.Nested(RoundSchema), load_default=None, allow_none=True)
    announce = fields.String(load_default="winners", validate=validate.OneOf(ANNOUNCE))
    # null: on, except with announce "none" (whose "no info is ever revealed" it would break)
    reveal_leftover_packets = fields.Boolean(load_default=None, allow_none=True)
    rebound_twist = fields.Boolean(load_default=False)
    garnet_rate = fields.Integer(strict=True, load_default=5, validate=validate.Range(1, 10))
    allow_buy_gold = fields.Boolean(load_default=True)
    ec_rule = fields.String(load_default="later", validate=validate.OneOf(EC_RULES))
    # Left out or null: true, as both texts say (the later text's rule, the earlier text's clarification).
    # Recorded as true in game.created; a log recorded with null keeps its reading (rules.ec_excludes_token_holders).
    ec_exclude_token_holders = fields.Boolean(load_default=None, allow_none=True)
    # which garnet count breaks a tied EC vote: after this game's award (ruling 14) or before it
    ec_tiebreak_garnets = fields.String(load_default="after_award", validate=validate.OneOf(TIEBREAK_GARNETS))

    @validates_schema
    def _rounds_match(self, data: dict[str, Any], **kwargs: Any) -> None:
        rounds = data.get("rounds")
        if rounds is not None and len(rounds) != data.get("bidding_rounds", 7):
            raise ValidationError("rounds must list exactly bidding_rounds rounds", "rounds")

    @post_load
    def _token_holders_are_never_ec(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Both texts keep Token of Life holders from being the EC (ruling 13), so a new game records true
        unless the GM says false; null is left to games recorded before this default (their reading stands)."""
        if data.get("ec_exclude_token_holders") is None:
            data["ec_exclude_token_holders"] = True
        return data


# Ruling 21: garnets held are at most a million.  A season earns a few per game; without a
# bound, 2**63 garnets bought gold past 64 bits and every view of the game failed.
MAX_GARNETS = 1_000_000


class JoinSchema(Schema):
    """Sign-up fields: the garnets a player holds (set by the GM)."""

    garnets = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, MAX_GARNETS))


class BidSchema(Schema):
    amount = fields.Integer(strict=True, required=True)


class PassSchema(Schema):
    """No bid this round."""


class BuyGoldSchema(Schema):
    garnets = fields.Integer(strict=True, required=True, validate=validate.Range(1, MAX_GARNETS))


class ReboundSchema(Schema):
    round = fields.Integer(strict=True, required=True)
    player_id = fields.String(required=True)


class MoveSchema(Schema):
    options = fields.List(
        fields.String(allow_none=True, validate=validate.OneOf(OPTIONS)), required=True
    )
    rebound = fields.Nested(ReboundSchema, load_default=None, allow_none=True)


class EcVoteSchema(Schema):
    player_id = fields.String(required=True)


class SetGarnetsSchema(Schema):
    player_id = fields.String(required=True)
    garnets = fields.Integer(strict=True, required=True, validate=validate.Range(0, MAX_GARNETS))
