"""Marshmallow schemas of Extreme Ways: game options, sign-up fields and orders.

Schemas check only the form of a request; the rules (positive bid, enough gold, your
turn) are checked by the engine so errors can name the rulebook rule.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engines.extreme_ways.rules import OPTIONS
from engines.shapes import (
    BOOLEAN as _B, INTEGER as _I, STRING as _S, array as _list, by, nullable as _null, obj as _obj,
)

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


# -- what the engine sends out, as OpenAPI 3.0 schemas (Engine.view_schema ...; tests/schema checks real games) --


def _map(values: dict[str, Any], keys: str = "player id") -> dict[str, Any]:
    return by(keys, values)


_OPTION = {"type": "string", "enum": list(OPTIONS)}
_POINT = {**_list(_I), "minItems": 2, "maxItems": 2, "description": "(x, y)"}
_MOVES = {**_list(_POINT), "minItems": 4, "maxItems": 4, "description": "The four candidate moves."}
_PACKET = {"type": "object", "additionalProperties": _obj({}, {"true": _POINT, "false": _list(_POINT)}),
           "description": "By option letter: the true move, or false ones, the packet tells."}
_PACKETS = _map(_PACKET, "packet number")
_TOKENS = _obj({}, {k: _null(_S) for k in ("highest_x", "highest_y", "lowest_x", "lowest_y")},
               "Each Token of Life's holder (player id).")
_CHOSEN = _list(_null(_OPTION))
_RANDOMISED = _map(_OPTION, "round number")
_REBOUND = _null(_obj({"round": _I, "player_id": _S}))
_PURCHASES = _list(_obj({"round": _I, "garnets": _I, "gold": _I}))
_WON = _list(_obj({"round": _I, "packet": _S, "paid": _I, "contents": _PACKET}))
_TALLY = _map(_I, "candidate")
_PATHS = _map(_list(_POINT))
_OFFER = _list(_obj({"round": _I, "options": _map(_MOVES, "option letter")}))
_ELIMINATION = _obj({"candidates": _list(_S), "decided_by": _null(_S), "ec": _null(_S), "voters": _list(_S)},
                    {"votes": _map(_S), "tally": _TALLY},
                    "The Elimination Candidate's choice (after an EC vote its tally; votes once the game is over).")
_ANNOUNCEMENT = _null({**_map({"anyOf": [_list(_S), _obj({"players": _list(_S), "amount": _I})]}, "packet number"),
                       "description": "By packet number: its winners (announce winners) or winners and amount "
                                      "(winners_and_amounts); null with announce none."})
# what a Loki's Auction records for the GM: every bid, who got which packet and what they paid
_AUCTION_SECRET = _obj({"round": _I, "bids": _map(_I), "packets": _map(_list(_S), "packet number"), "paid": _map(_I)})
# what the Moving Phase makes public (the view's results: its outcome's public part less phase and elimination)
_RESULT_PARTS = {"distances": _map(_I), "garnets_awarded": _map(_I), "gold": _map(_I), "positions": _map(_POINT),
                 "tokens": _map(_I), "tokens_of_life": _TOKENS}

HINT = _obj({}, {
    "pass": _obj({}), "bid": _obj({"min": _I, "max": _I}),
    "buy_gold": _obj({"max_garnets": _I, "gold_per_garnet": _I}),
    "move": _obj({"rounds": _I, "options": _list(_OPTION)}, {"rebound_players": _list(_S)}),
    "ec_vote": _obj({"candidates": _list(_S)})},
    "The orders you may send now, each with its bounds (empty when none).")

RESULT = _obj({
    "tokens_of_life": _TOKENS, "winners": _list(_S), "elimination_candidate": _null(_S),
    "elimination_decided_by": _null(_S), "ejected": _list(_S),
    "standings": _list(_obj({"player_id": _S, "name": _S, "position": _POINT, "distance": _I, "gold": _I,
                             "tokens_of_life": _list(_S), "garnets_awarded": _I, "garnets": _I})),
}, description="Token of Life holders, the Elimination Candidate and each player's standing, farthest first.")

_RESULTS = _null(_obj(_RESULT_PARTS, description="After the Moving Phase."))

VIEW = _obj({
    "game": {"type": "string", "enum": ["Extreme Ways"]},
    "stage": {"type": "string", "enum": ["bidding", "moving", "ec_vote", "over"]},
    "round": _null(_I), "rounds_total": _I,
    "players": _list(_obj({"id": _S, "name": _S, "ejected": _B})),
    "rules": _obj({"bidding_rounds": _I, "starting_gold": _I, "announce": {"type": "string", "enum": list(ANNOUNCE)},
                   "reveal_leftover_packets": _B, "rebound_twist": _B, "garnet_rate": _null(_I),
                   "ec_rule": {"type": "string", "enum": list(EC_RULES)}, "ec_excludes_token_holders": _B,
                   "ec_tiebreak_garnets": {"type": "string", "enum": list(TIEBREAK_GARNETS)}}),
    "moves_on_offer": _OFFER,
    "auctions": _list(_obj({"round": _I, "phase": _S, "revealed_packets": _PACKETS}, {"announcement": _ANNOUNCEMENT})),
    "results": _RESULTS,
    "elimination": _null(_ELIMINATION),
}, {
    "you": _obj({
        "id": _S, "name": _S, "ejected": _B, "gold": _I, "garnets": _I, "purchases": _PURCHASES,
        "bid": _null({"anyOf": [{"type": "string", "enum": ["pass"]}, _obj({"amount": _I})],
                      "description": "Your order this round: pass, {amount}, or null for none yet."}),
        "bids": _list(_obj({"round": _I, "bid": _null(_I), "paid": _I})), "packets": _WON,
        "move": _null(_obj({"options": _CHOSEN, "rebound": _REBOUND})), "options_played": _null(_CHOSEN),
        "randomised": _null(_RANDOMISED), "vote": _null(_S), "legal_actions": HINT,
    }, description="Your own secrets (players only)."),
    "hidden": _obj({
        "true_moves": _list(_obj({"round": _I, "true": _map(_POINT, "option letter")})),
        "packets": _list(_obj({"round": _I, "packets": _PACKETS})),
        "bids": _map(_null(_I)),
        "auctions": _list(_AUCTION_SECRET),
        "gold": _map(_I), "garnets": _map(_I), "garnets_signed_up": _map(_I), "purchases": _map(_PURCHASES),
        "packets_won": _map(_WON), "moves": _map(_obj({"options": _CHOSEN, "rebound": _REBOUND})),
        "played": _null(_obj({"choices": _map(_CHOSEN), "paths": _PATHS,
                              "randomised": _map(_RANDOMISED)})),
        "votes": _map(_S),
    }, description="Everything hidden: the GM's, and everyone's once the game is over."),
}, "An Extreme Ways game as one viewer sees it.")

_INDEX = {**_I, "minimum": 0, "maximum": 3, "description": "An index into the option's four candidate moves."}
_PHASE = {"type": "string", "enum": ["bidding", "moving", "ec_vote"], "description": "The phase resolved."}

OUTCOME = _obj({"public": _obj({}, {
    "rounds": _OFFER,
    "phase": _PHASE, "round": _I, "announcement": _ANNOUNCEMENT, "revealed_packets": _PACKETS,
    **_RESULT_PARTS, "elimination": _ELIMINATION,
    "tally": _TALLY, "ec": _null(_S), "decided_by": _S,
}, "Everyone's part. Setup: rounds. Bidding: phase, round, announcement, revealed_packets (leftover packets). "
   "Moving: phase, positions, distances, gold, tokens_of_life, tokens, garnets_awarded, elimination. EC vote: "
   "phase, tally, ec, decided_by. A membership change: empty.")}, {
    "private": _map(_obj({}, {
        "round": _I, "bid": _null(_I), "packet": _null(_S), "paid": _I, "gold": _I, "contents": _PACKET,
        "options": _CHOSEN, "randomised": _RANDOMISED,
    }, "Bidding: round, bid (null: none), packet won (null: none), paid, gold left, the packet's contents. "
       "Moving: the options played (null: the rebound round) and those randomised.")),
    "secret": _obj({}, {
        "rounds": _list(_obj({"round": _I, "true": _map(_INDEX, "option letter"),
                              "split": _obj({"B": _INDEX, "C": _INDEX, "D": _INDEX}), "packets": _PACKETS})),
        **_AUCTION_SECRET["properties"],
        "paths": _PATHS, "garnets": _map(_I), "votes": _map(_S),
    }, "The GM's until the end. Setup: rounds (true moves, packet splits, packets). Bidding: round, bids, packets "
       "(winners by packet number), paid. Moving: paths, garnets after the award. EC vote: votes."),
}, "A setup, outcome or membership record, cut to what the viewer may see.")
