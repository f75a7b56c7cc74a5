"""Marshmallow schemas: game options, sign-up fields, orders and robot algorithms."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engines.typed import TYPED_NAME
from engines.golden_strider.race import race_length
from engines.golden_strider.report import TARNISHED_REPORTS
from engines.shapes import (
    BOOLEAN as _B, INTEGER as _I, STRING as _S, array as _list, by, nullable as _null, obj as _obj,
)

VARIANTS = ("standard", "steeplechase", "tarnished", "robot")
DRUGS = ("clean", "enduron", "energiza")
CARD_PICKS = ("oldest", "newest", "highest", "lowest")
BARRIERS = (10, 30, 40, 60)  # Steeplechase: one extra movement point each
WATER_JUMPS = (20, 50)  # two extra points each
MEASURES = (
    "round", "square", "position", "owed", "to_finish", "behind_leader", "best_card", "oldest_card",
)


def _int(low: int, high: int, **kw: Any) -> fields.Integer:
    return fields.Integer(strict=True, validate=validate.Range(low, high), **kw)


class OptionsSchema(Schema):
    """Game options; every ruling where GMs could differ is here (see the doc)."""

    variant = fields.String(load_default="standard", validate=validate.OneOf(VARIANTS))
    # Rule 4 / variants: 60 by default, 70 for the Steeplechase when not given.
    race_length = _int(10, 300, load_default=None)
    free_rounds = _int(0, 50, load_default=2)  # rule 9: no overtaking costs in rounds 1-2
    seven_turn_rule = fields.String(load_default="ahead", validate=validate.OneOf(("ahead", "at_expiry")))
    max_rounds = _int(5, 500, load_default=100)
    default_cards = fields.List(_int(0, 10), load_default=lambda: [6, 6, 6, 6, 6])
    # Steeplechase course; left out, the rulebook's squares before the finish (ruling 9).
    barriers = fields.List(_int(1, 300), load_default=None)
    water_jumps = fields.List(_int(1, 300), load_default=None)
    place_points = fields.List(_int(0, 100), load_default=lambda: [10, 8, 6, 5, 4, 3, 2, 1])
    enduron_bank = _int(0, 5, load_default=1)
    enduron_total = _int(0, 50, load_default=32)
    energiza_max = _int(0, 10, load_default=2)
    energiza_boost = _int(0, 20, load_default=4)
    energiza_boost_mode = fields.String(
        load_default="to_cross", validate=validate.OneOf(("to_cross", "past_post"))
    )
    # Tarnished: the rulebook's report (P, S, Runner) for players and the public, or the full rule 15 report.
    tarnished_report = fields.String(load_default="rulebook", validate=validate.OneOf(TARNISHED_REPORTS))

    @validates_schema
    def _check(self, data: dict[str, Any], **_: Any) -> None:
        if len(data["default_cards"]) != 5 or sum(data["default_cards"]) != 30:
            raise ValidationError("five cards totalling 30 (rule 2)", "default_cards")
        length = race_length(data)
        errors = {}
        for name in ("barriers", "water_jumps"):
            late = sorted(sq for sq in data.get(name) or [] if sq >= length)
            if late:
                errors[name] = [f"obstacles must lie before the finish (square {length}); not {late}"]
        if errors:
            raise ValidationError(errors)
        if set(data.get("barriers") or []) & set(data.get("water_jumps") or []):
            raise ValidationError("a square cannot be both a barrier and a water jump", "water_jumps")

    @post_load
    def _course(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """The rulebook's course where none was given, cut to the squares before the finish."""
        length = race_length(data)
        for name, squares in (("barriers", BARRIERS), ("water_jumps", WATER_JUMPS)):
            if data.get(name) is None:
                data[name] = [sq for sq in squares if sq < length]
        return data


class JoinSchema(Schema):
    """Sign-up: the runner's name (one runner) or two names for a Tarnished manager."""

    runner = fields.String(load_default=None, validate=validate.Length(1, 40), metadata={TYPED_NAME: True})
    runners = fields.List(
        fields.String(validate=validate.Length(1, 40), metadata={TYPED_NAME: True}), load_default=None,
        validate=validate.Length(2, 2)
    )


class PlaySchema(Schema):
    """One runner's card for the round (rule 5), with setup fields in round 1."""

    runner = fields.String(load_default=None)
    card = fields.String(required=True)
    move = _int(0, 10, load_default=None)
    bank = _int(0, 10, load_default=None)
    deduct = fields.String(load_default="move", validate=validate.OneOf(("move", "bank")))
    cards = fields.List(_int(0, 10), load_default=None)
    drug = fields.String(load_default=None, validate=validate.OneOf(DRUGS))
    energiza = _int(0, 10, load_default=0)
    boost = _int(0, 20, load_default=0)


class AccuseSchema(Schema):
    """Tarnished: the athlete a manager accuses of cheating, or null for nobody."""

    runner = fields.String(load_default=None, allow_none=True)


class Amount(fields.Field):
    """A robot's movement or banking: a number 0-10, "all" or "rest"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value in ("all", "rest"):
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
            raise ValidationError('a number 0-10, "all" or "rest"')
        return value


class Bound(fields.Field):
    """A robot condition: an exact number or {"min": a, "max": b}."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        if isinstance(value, dict) and value and set(value) <= {"min", "max"}:
            if all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
                if value.get("min", value.get("max")) > value.get("max", value.get("min")):
                    # a condition no report can meet: surely a slip, not what the player meant
                    raise ValidationError(f"min {value['min']} is more than max {value['max']}: it can never hold")
                return dict(value)
        raise ValidationError('an integer or {"min": n, "max": m}')


# How the document (OpenAPI) describes these two fields, which marshmallow cannot say by itself.
AMOUNT = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 10}, {"type": "string", "enum": ["all", "rest"]}]}
BOUND = {"anyOf": [{"type": "integer"}, {"type": "object", "properties": {"min": {"type": "integer"}, "max": {
    "type": "integer"}}, "minProperties": 1, "additionalProperties": False}]}


class WhenSchema(Schema):
    """Conditions on what the previous round's report showed (all must hold)."""

    round = Bound(metadata=BOUND)
    square = Bound(metadata=BOUND)
    position = Bound(metadata=BOUND)
    owed = Bound(metadata=BOUND)
    to_finish = Bound(metadata=BOUND)
    behind_leader = Bound(metadata=BOUND)
    best_card = Bound(metadata=BOUND)
    oldest_card = Bound(metadata=BOUND)


class RobotRuleSchema(Schema):
    """One rule of an algorithm: when it applies, which card and how to split it."""

    when = fields.Nested(WhenSchema, load_default=dict)
    card = fields.String(load_default="oldest", validate=validate.OneOf(CARD_PICKS))
    move = Amount(load_default="rest", metadata=AMOUNT)
    bank = Amount(load_default="rest", metadata=AMOUNT)
    deduct = fields.String(load_default="move", validate=validate.OneOf(("move", "bank")))

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        """"all" to one side leaves nothing for the other: only "rest" or 0 may go with it."""
        for side, other in (("move", "bank"), ("bank", "move")):
            if data.get(side) == "all" and data.get(other) not in ("rest", 0):
                raise ValidationError(
                    f'{side} is "all", so {other} can only be "rest" or 0, not {data[other]!r}', other
                )


class AlgorithmSchema(Schema):
    """A robot: starting cards and rules tried in order each round."""

    name = fields.String(load_default=None, validate=validate.Length(0, 80), metadata={TYPED_NAME: True})
    cards = fields.List(_int(0, 10), required=True)
    rules = fields.List(fields.Nested(RobotRuleSchema), required=True, validate=validate.Length(1, 30))


class SubmitRobotSchema(Schema):
    algorithm = fields.Nested(AlgorithmSchema, required=True)


# -- what the engine sends out, as OpenAPI 3.0 schemas (Engine.view_schema ...; tests/schema checks real games) --


def _map(values: dict[str, Any], keys: str = "runner id") -> dict[str, Any]:
    return by(keys, values)


_DRUG = {"type": "string", "enum": list(DRUGS)}
_ORDER = _obj({"type": {"type": "string", "enum": ["play"]}, "runner": _S, "card": _S}, {
    "move": _I, "bank": _I, "deduct": {"type": "string", "enum": ["move", "bank"]}, "cards": _null(_list(_I)),
    "drug": _null(_DRUG), "energiza": _I, "boost": _I}, "A runner's order as recorded.")
_ALGORITHM = _obj({"cards": _list(_I), "rules": _list(_obj({}, {
    "when": {"type": "object", "additionalProperties": {"type": "object", "properties": {"min": _I, "max": _I}},
             "description": "By measure: the bounds that must hold."},
    "card": {"type": "string", "enum": list(CARD_PICKS)}, "move": AMOUNT, "bank": AMOUNT,
    "deduct": {"type": "string", "enum": ["move", "bank"]}}))}, {"name": _null(_S)}, "A robot's algorithm.")
_RUNNER = _obj({"id": _S, "name": _S, "player": _S, "square": _I, "position": _I, "withdrawn": _B}, {
    "owed": _I, "cf": _B, "cards": _null(_list(_S))},
    "A runner on the track (in the Tarnished report: square and position only).")
_ROW = _obj({"runner": _S, "P": _I, "S": _I}, {
    **{column: _I for column in ("B", "D", "M", "O", "R")}, "cards": _list(_S), "played": _I, "cf": _B,
    "auto": _B, "forfeited": _list(_I), "trip": _obj({"penalty": _I, "square": _I, "unpaid": _I})},
    "A row of the rule 15 report (the Tarnished report: P, S and the runner only).")
_ROWS = _list(_ROW)

_ACCUSATIONS = {**_map(_null(_S), "player id"), "description": "Tarnished: by player id, the runner id each "
                "manager accused (null: nobody)."}

HINT = _null({**_list(_obj({"runner": _S, "owed": _I}, {"starting_cards": _B, "playable": _list(_S)})),
              "description": "Each of your runners' playable cards this round (null outside a round)."})

_WITHDRAWN = {**_list(_obj({"runner": _S, "name": _S, "player": _S})),
              "description": "Runners withdrawn when their player quit or was ejected."}

RESULT = _obj({"winners": _list(_S)}, {"rounds": _I, "withdrawn": _WITHDRAWN, "standings": _list(_obj({
    "runner": _S, "name": _S, "player": _S, "place": _I, "square": _I, "finished": _B})),
    "managers": _list(_obj({"player": _S, "name": _S, "score": _I, "runner_points": _I, "best_place": _I,
                            "accusation": _I}, {"accused": _null(_S)})),
    "runners": _list(_obj({"runner": _S, "name": _S, "player": _S, "place": _null(_I), "square": _I,
                           "points": _I, "drug": _DRUG, "tested": _B, "disqualified": _B}))},
    "The finishing order: standings (Tarnished instead: managers' scores, each runner's drug and test).")

VIEW = _obj({
    "variant": {"type": "string", "enum": list(VARIANTS)}, "race_length": _I, "round": _I,
    "stage": {"type": "string", "enum": ["robots", "round", "accusation", "over"]},
    "runners": _list(_RUNNER), "submitted": _list(_S), "rounds_played": _list(_I),
    "report": _null({**_ROWS, "description": "The latest round's report."}),
    "result": _null(RESULT)}, {
    "obstacles": _obj({"barriers": _list(_I), "water_jumps": _list(_I)}),
    "drugs": _null(_map(_null(_DRUG))), "algorithms": _null(_map(_ALGORITHM, "player id")),
    "you": _obj({"player": _S, "runners": _list(_S), "orders": _map(_ORDER), "hint": HINT}, {
        "drugs": _map(_null(_DRUG)), "accusation": _null(_S), "algorithm": _null(_ALGORITHM),
        "runner_details": _list(_RUNNER), "report": _ROWS}, "Your own orders and secrets (players only)."),
    "gm": _obj({"orders": _map(_ORDER), "accusations": _ACCUSATIONS,
                "algorithms": _map(_ALGORITHM, "player id"), "drugs": _map(_null(_DRUG)),
                "boost_used": _map(_B)}, description="Everything, for the GM."),
}, description="A Golden Strider race as one viewer sees it.")

# a round as recorded: its number, its report rows and whether it ended the race (a round's outcome; each of
# the robot race's rounds)
_ROUND = {"round": _I, "rows": _ROWS, "over": _B}
_DOSE = _obj({"drug": _DRUG, "energiza": _I, "boost": _I},
             description="What the runner's drug did this round: Energiza's extra movement and finishing boost (0 "
                         "otherwise).")
_DOSES = _map(_DOSE)

OUTCOME = _obj({"public": _obj({}, {
    **_ROUND, "accusations": _ACCUSATIONS, "result": RESULT,
    "algorithms": _map(_ALGORITHM, "player id"), "rounds": _list(_obj(_ROUND)),
}, "Everyone's part. A round: round, rows (its rule 15 report; Tarnished: P, S and runner only unless the GM "
   "shows the full report), over (the race ended). Tarnished accusations: accusations (the accused runner id or "
   "null, by player id) and result. The robot race: algorithms and every round. Setup and a quit or ejection: "
   "empty.")}, {
    "private": _map(_obj({}, {"drugs": _DOSES, "rows": _ROWS},
                         "Tarnished, a round: your runners' drugs (drugs) and, when the report is cut, your own "
                         "runners' full rows (rows).")),
    "secret": _obj({}, {"drugs": _DOSES}, "Tarnished, a round: every runner's drug, the GM's until the end."),
}, "A setup, round, accusation, robot race or membership record, cut to what the viewer may see.")

# Rule 1: 6 to 10 runners; Tarnished: 3 to 5 managers of two runners each (the start is refused otherwise).
PLAYER_COUNTS = {"min": 6, "max": 10, "by_option": [{"option": "variant", "value": "tarnished", "min": 3, "max": 5}]}
