"""Options, sign-up fields and the one order (a whole turn) as marshmallow 4 schemas."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from engines.sxyzm_cyclone.board import COLOURS, CUBES_PER_PLAYER, MAX_PATH_LENGTH

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

    moves = fields.List(fields.Nested(MoveSchema), required=True, validate=validate.Length(max=6))
