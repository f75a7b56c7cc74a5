"""Marshmallow schemas: game options, sign-up fields, orders and robot algorithms."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from engines.golden_strider.race import race_length
from engines.golden_strider.report import TARNISHED_REPORTS

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

    runner = fields.String(load_default=None, validate=validate.Length(1, 40))
    runners = fields.List(
        fields.String(validate=validate.Length(1, 40)), load_default=None, validate=validate.Length(2, 2)
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


class WhenSchema(Schema):
    """Conditions on what the previous round's report showed (all must hold)."""

    round = Bound()
    square = Bound()
    position = Bound()
    owed = Bound()
    to_finish = Bound()
    behind_leader = Bound()
    best_card = Bound()
    oldest_card = Bound()


class RobotRuleSchema(Schema):
    """One rule of an algorithm: when it applies, which card and how to split it."""

    when = fields.Nested(WhenSchema, load_default=dict)
    card = fields.String(load_default="oldest", validate=validate.OneOf(CARD_PICKS))
    move = Amount(load_default="rest")
    bank = Amount(load_default="rest")
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

    name = fields.String(load_default=None, validate=validate.Length(0, 80))
    cards = fields.List(_int(0, 10), required=True)
    rules = fields.List(fields.Nested(RobotRuleSchema), required=True, validate=validate.Length(1, 30))


class SubmitRobotSchema(Schema):
    algorithm = fields.Nested(AlgorithmSchema, required=True)
