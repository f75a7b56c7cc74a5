"""Options, sign-up fields and the one order (a whole turn) as marshmallow 4 schemas."""
from __future__ import annotations


from marshmallow import Schema, fields, validate

from engines.sxyzm_cyclone.board import COLOURS, CUBES_PER_PLAYER, MAX_PATH_LENGTH
from engines.shapes import (
    BOOLEAN as _B, INTEGER as _I, STRING as _S, array as _list, by as _by, enum as _enum, nullable as _null,
    obj as _obj,
)

SIDE_CHOICES = ("auto", "two-colour", "four-colour")
MISSED_TURN_CHOICES = ("pass", "random")
CUBE_NAMES = tuple(f"{c}-{n}" for c in COLOURS for n in range(1, CUBES_PER_PLAYER + 1))


class OptionsSchema(Schema):
    """Game options; every ruling where GMs could differ is one of these."""

    side = fields.String(
        load_default="auto",
        validate=validate.OneOf(SIDE_CHOICES),
        metadata={"description": "Board side: auto = two-colour for 2 players, else four-colour."},
    )
    path_length = fields.Integer(
        strict=True,
        load_default=7,
        validate=validate.Range(min=CUBES_PER_PLAYER, max=MAX_PATH_LENGTH),
        metadata={"description": "Spaces on each colour's path from its base to the centre."},
    )
    missed_turn = fields.String(
        load_default="pass",
        validate=validate.OneOf(MISSED_TURN_CHOICES),
        metadata={"description": "No order by the deadline: pass (lose the actions) or random legal moves."},
    )
    allow_unused_actions = fields.Boolean(
        load_default=True,
        metadata={"description": "May a player use fewer actions than the die roll?"},
    )
    first_colour = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(COLOURS),
        metadata={"description": "Colour that plays first; null = drawn from the seed at setup."},
    )
    rolls = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=1, max=6)),
        load_default=list,
        metadata={"description": "Fixed die rolls for the first turns (then drawn from the seed)."},
    )
    max_turns = fields.Integer(
        strict=True,
        load_default=1000,
        validate=validate.Range(min=1, max=100000),
        metadata={"description": "After this many turns without a winner the game ends in a draw."},
    )


class JoinSchema(Schema):
    """Sign-up: the colour a player would like (honoured if free and on the side in use)."""

    colour = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(COLOURS))


class MoveSchema(Schema):
    """One action: move ``cube`` one space toward the base of colour ``toward``."""

    cube = fields.String(required=True, validate=validate.OneOf(CUBE_NAMES))
    toward = fields.String(required=True, validate=validate.OneOf(COLOURS))


class TurnSchema(Schema):
    """A whole turn: the actions in the order they are played (at most the die roll)."""

    # One load of the move schema over the list (many=True), not one per move through a List: the same moves are
    # taken and refused, in 42 us instead of 53 for six (the gate loads every order, the audit every recorded one).
    moves = fields.Nested(MoveSchema, many=True, required=True, validate=validate.Length(max=6))


# -- what the engine sends out, as OpenAPI 3.0 schemas (Engine.view_schema ...; tests/schema checks real games) --

_COLOUR = {"type": "string", "enum": list(COLOURS)}
_CUBE = {"type": "string", "enum": list(CUBE_NAMES)}
_MOVE = _obj({"cube": _CUBE, "toward": _COLOUR})
_SIDE = _enum("two-colour", "four-colour")
_PLAYER = _obj({"id": _S, "name": _S, "colour": _COLOUR, "ejected": _B,
                "finished": _by("base colour", _I), "home": _list(_CUBE)},
               description="A player, their cubes finished in each other base and those still at home.")

# one action as played: the cube, the space it left and the one it stepped to, each leg of a push (the hint's
# moves, played on a copy, and the outcome's moves, as played)
_PUSH = _obj({"stack": _list(_CUBE), "to": _S},
             description="One leg of a push: the stack (bottom first) and where it lands.")
_STEP = {"cube": _CUBE, "toward": _COLOUR, "from": _S, "to": _S, "pushes": _list(_PUSH)}

HINT = _obj({"roll": _I, "moves": _list(_obj(
    {**_STEP, "ends_at": _S, "finishes": _list(_CUBE)},
    {"also_toward": _list(_COLOUR)}, "One single move: where it steps, where the cube ends, what it pushes and "
                                     "which cubes finish; send cube and toward."))},
    description="The current player's legal single moves now.")

RESULT = _obj({"winners": _list(_S), "winning_colours": _list(_COLOUR), "ended": {
    "type": "string", "enum": ["win", "turn limit", "ejections"]}, "draw": _B, "turns": _I,
    "standings": _list(_PLAYER)}, description="Winners (player ids), why the game ended, and the standings.")

VIEW = _obj({
    "game": {"type": "string", "enum": ["SXYZM Cyclone"]}, "side": _SIDE,
    "path_length": _I, "status": {"type": "string", "enum": ["running", "finished"]}, "turn": _I,
    "current": {**_obj({"player": _S, "name": _S, "colour": _COLOUR, "roll": _I,
                        "order": {**_list(_MOVE), "nullable": True}}), "nullable": True},
    "players": _list(_PLAYER),
    "paths": _by("colour", _obj({"open": _B, "spaces": _list(_obj({"space": _S, "stack": _list(_CUBE)}))})),
    "centre": _list(_CUBE),
    "bases": _by("colour", _obj({"home": _list(_CUBE), "finished": _list(_CUBE)})),
    "cubes": _by("cube", _obj({"at": _S, "level": {**_I, "nullable": True}, "finished": _B, "movable": _B})),
    "diagram": _list(_S)}, {"legal_moves": HINT, "result": RESULT},
    "The whole board (nothing is hidden); the current player and the GM also get the legal moves.")

_NEXT = _obj({"turn": _I, "player": _S, "colour": _COLOUR, "roll": _I},
            description="The turn it opens: its player, colour and die roll.")
_PUBLIC = _obj({}, {
    "side": {**_SIDE, "description": "Setup only: the board side in use."},
    "colours": {**_by("player id", _COLOUR), "description": "Setup only: each player's colour, by player id."},
    "first": {**_COLOUR, "description": "Setup only: the colour that plays first."},
    "turn": {**_I, "description": "A turn only: its number."},
    "player": {**_S, "description": "A turn only: whose it was (player id)."},
    "colour": {**_COLOUR, "description": "A turn only: the colour that played."},
    "roll": {**_I, "description": "Setup: the first turn's die roll; a turn: its own."},
    "source": {**_enum("order", "missed: pass", "missed: random", "no movable cube", "ejected"),
               "description": "A turn only: where its moves came from (the order, or the default of a missed turn; "
                              "no moves when nobody could or may play)."},
    "moves": {**_list(_obj(_STEP)), "description": "A turn only: the actions as played, in order (replaying them "
                                                   "rebuilds the board)."},
    "winners": {**_list(_S), "description": "A turn only: the players (ids) its last action made winners."},
    "ended": {**_null(_enum("win", "turn limit")), "description": "A turn only: why it ended the game, else null."},
    "next": {**_null(_NEXT), "description": "A turn only: the turn it opens; null once the game is over."}},
    "Everything, at once: setup has the seats, first colour and roll; a turn its moves, winners and the next roll; "
    "a quit or ejection nothing.")
_EMPTY = _obj({}, description="Always empty: nothing in this game is hidden.")

OUTCOME = _obj({"public": _PUBLIC}, {"private": _EMPTY, "secret": _EMPTY},
               "A setup, turn or membership record (all public: nothing is hidden).")
