"""Marshmallow schemas of Strategic Aspect: options and orders (form only; the rules are in rules.py/engine.py)."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from engines.strategic_aspect.rules import MAX_BID, MOVES, SUFFICE_SIGN
from engines.shapes import (
    BOOLEAN as _B, INTEGER as _I, STRING as _S, array as _list,
    by as _by, enum as _enum, nullable as _null, obj as _obj,
)

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


# -- what the engine sends out, as OpenAPI 3.0 schemas (Engine.view_schema ...; tests/schema checks real games) --

STAGES = ("starting", "move", "steal", "buy_vote", "auction", "rebid", "safety", "accept", "vote", "tiebreak",
          "suffice", "over")
_KIND = _enum("normal", "final", "sudden_death", "suffice")
_SUFFICE_CHOICE = _enum("add", "subtract", "ignore")
_SAFETY_CHOICE = _enum("keep", "destroy", "give")
_ELIMINATED_BY = _enum("votes", "tie-breaking vote", "random list")
_ENDED = _enum("most steps", "reached 15 in a tied sudden death", "last cyclist left", "nobody left")
_DRAWN = _null(_list(_S))
_ROW = _obj({"id": _S, "name": _S, "steps": _I, "position": _null(_I),
             "status": _enum("riding", "arrived", "eliminated", "departed"), "safety": _B, "vote_holder": _B,
             "shown": _S}, description="A cyclist: space, steps (\"▲ steps\" in shown once departed), safety, vote.")
_STEAL = _obj({"from": _null(_S), "missed": _B})
_TURN = _obj({"turn": _I, "round": _I, "cyclist": _S, "steps": _I, "missed": _B},
             {"move": _I, "from": _I, "to": _I, "steal": _STEAL,
              "purchase": _obj({"buy": _B, "missed": _B}), "distance": _I, "choice": _SUFFICE_CHOICE},
             "A revealed turn: a move (with any steal or purchase), or a suffice choice.")
_ORDER = _obj({"type": _S}, {"spaces": _I, "from": _null(_S), "buy": _B, "amount": _I,
                             "choice": _S, "to": _null(_S), "accept": _B, "against": _S, "eliminate": _S},
              "An order as sent.")
_SAFETY = _obj({"holder": _null(_S), "transfers": _I, "status": _enum("deciding", "offered", "kept", "destroyed"),
                "offered_to": _null(_S), "declined": _list(_S),
                "history": _list(_obj({"cyclist": _S, "choice": _enum("keep", "destroy", "give", "accept", "decline"),
                                       "missed": _B}, {"to": _null(_S)}))})
# the public counts of a ceremony (the view's ceremony and the outcome's ceremony effect)
_TALLY = {"counts": _by("cyclist", _I), "automatic": _list(_S), "abstained": _list(_S), "tied": _list(_S)}
_CEREMONY = _obj({}, {**_TALLY, "list": _DRAWN, "eliminated": _null(_S), "by": _null(_ELIMINATED_BY),
                      "candidates": _list(_S), "voted": _list(_S)},
                 "The ceremony: while voting, who may be voted for and who has voted; then the public counts.")
# one revealed round of bids (the view's auction rounds and the outcome's auction effect)
_BIDDING = {"bids": _by("bidder", _I), "paid": _by("bidder", _I), "missed": _list(_S),
            "result": _enum("won", "destroyed", "draw", "rebid")}
_AUCTION = _obj({"bidders": _list(_S), "cap": _I, "rounds": _list(_obj(_BIDDING)), "result": _null(_S),
                 "winner": _null(_S), "bid": _list(_S)},
                description="The bidders, the revealed bids of each round, and who has bid in the open one.")

HINT = _obj({}, {"spaces": _list({**_I, "enum": sorted(MOVES)}), "from": _list(_null(_S)), "buy": _list(_B),
                 "amount": _list(_I), "choice": _list(_S), "to": _list(_S), "accept": _list(_B), "against": _list(_S),
                 "eliminate": _list(_S), "distance": _I},
            "What the cyclist may send now: the values of the open phase's order (amount: its lowest and highest).")

RESULT = _obj({"winner": _null(_S), "ended": _null(_ENDED), "cycles": _I,
               "standings": _list({**_ROW, "properties": {**_ROW["properties"], "winner": _B},
                                   "required": sorted([*_ROW["required"], "winner"])})},
              description="The winner, how the game ended, and the standings (the winner first).")

VIEW = _obj({
    "game": _enum("Strategic Aspect"), "status": _enum("running", "finished"), "stage": _enum(*STAGES),
    "cycle": _obj({"number": _I, "kind": _KIND, "length": _I, "tiebreak_space": _null(_I),
                   "vote_holder": _null(_S), "round": _I, "turn": _I, "arrivals": _list(_S),
                   "steal_spaces": _list(_I)}),
    "current": _null(_obj({"cyclist": _S, "name": _S, "stage": _enum(*STAGES), "round": _I, "place": _I})),
    "standings": _list(_ROW), "turns": _list(_TURN), "auction": _null(_AUCTION), "safety": _null(_SAFETY),
    "ceremony": _null(_CEREMONY), "suffice_cycles_owed": _I,
    "eliminated": _by("cyclist", _obj({"cycle": _I, "steps": _I})),
    "departed": _by("cyclist", _obj({"kind": _enum("quit", "eject"), "steps": _I, "cycle": _I})),
    "winner": _null(_S)},
    {"order": _list(_S), "pending": _by("cyclist", _ORDER), "ballots": _by("cycle", _by("voter", _S)),
     "you": _obj({"id": _S, "sent": _null(_ORDER), "legal": _null(HINT)}), "result": RESULT},
    "The cycle, the open turn, the standings and what has been revealed; the GM also gets the rest of the round's "
    "turn order and every open order; a cyclist their own open order and what they may send.")


def _effect(do: str, required: dict[str, Any], optional: dict[str, Any] | None = None,
            description: str = "") -> dict[str, Any]:
    """One kind of recorded effect, named by ``do`` (its title names the generated client's class)."""
    return {**_obj({"do": _enum(do), **required}, optional, description), "title": f"{do}_effect"}


_MISSED = {"missed": _B}
_EFFECTS = [
    _effect("move", {"cyclist": _S, "spaces": _I, "from": _I, "to": _I, "steps": _I, **_MISSED},
            description="A move: spaces moved from one space to another (capped at the cycle's end), steps earned "
                        "(+) or spent (-); missed: the default move of a missed turn."),
    _effect("steal", {"cyclist": _S, **_STEAL["properties"]}, description="A steal of five steps (from: null, none)."),
    _effect("buy_vote", {"cyclist": _S, "buy": _B, **_MISSED}, description="The tie-breaking vote bought or not."),
    _effect("new_round", {"round": _I, "riders": _I, "draw": _I},
            description="A round of turns begins; draw: the index of its order in the secret part's orders."),
    _effect("open", {"stage": _enum(*STAGES[1:-1])},
            {"cyclist": _S, "place": _I, "bidders": _list(_S), "cap": _I, "tied": _list(_S)},
            "The next phase opens: its cyclist (single phases), place in the round (move, suffice), bidders and "
            "the most a bid may be (auction, rebid), the tied (tiebreak)."),
    _effect("auction", {"stage": _enum("auction", "rebid"), **_BIDDING, "winner": _null(_S), "list": _DRAWN},
            description="Bids revealed and paid; list: the random draw of a 20-20 tie (else null)."),
    _effect("safety", {"cyclist": _S, "choice": _SAFETY_CHOICE, "to": _null(_S), **_MISSED},
            description="The holder keeps, destroys or gives safety (to: the receiver of a gift, else null)."),
    _effect("accept", {"cyclist": _S, "accept": _B, **_MISSED}, description="The receiver accepts safety or not."),
    _effect("ceremony", _TALLY, description="The ceremony's public counts (the ballots are secret)."),
    _effect("eliminate", {"cyclist": _S, "by": _ELIMINATED_BY, "list": _DRAWN},
            description="A cyclist eliminated; list: the random list of the tied, the last one out (else null)."),
    _effect("suffice", {"cyclist": _S, "distance": _I, "choice": _SUFFICE_CHOICE, "steps": _I, **_MISSED},
            description="A suffice turn: the distance to the end added, subtracted or ignored (steps: the change)."),
    _effect("new_cycle", {"number": _I, "kind": _KIND, "length": _I, "tiebreak_space": _null(_I)},
            {"suffice_after": _I}, "A cycle begins (suffice_after: suffice cycles still owed after this one)."),
    _effect("leave", {"cyclist": _S, "kind": _enum("quit", "eject")}, {"out": _B, "owed": _I},
            "A cyclist quits or is ejected (out: already eliminated, or the game over; owed: one more suffice cycle)."),
    _effect("finish", {"winner": _null(_S), "how": _ENDED}, {"bonus": _I},
            "The game is over (bonus: the extra step of a sudden death's tie)."),
]
_EFFECT = {"oneOf": _EFFECTS, "description": "One recorded effect; do names its kind."}
OUTCOME = _obj({"public": _obj({"effects": _list(_EFFECT)},
                               description="The effects, in order: replaying them rebuilds the game.")},
               {"private": _obj({}, description="Always empty: the game has no private parts."),
                "secret": _obj({}, {"orders": _list(_list(_S)), "ballots": _by("voter", _S)},
                               "The GM's until the end: the turn orders drawn (new_round's draw indexes them), "
                               "and a ceremony's ballots (by voter, whom they voted against)."),
                "closes_phase": {**_B, "description": "A quit or ejection: whether it ended the open phase."}},
               "A setup, outcome or membership record: public effects; the drawn turn orders and ballots secret.")
