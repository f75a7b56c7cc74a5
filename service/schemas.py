"""Request schemas: they validate requests and generate the document's request bodies (/v1/openapi.json); what
the API answers is in service/answers.py."""
from __future__ import annotations

from datetime import datetime, timedelta

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from eventlog.index import STATUSES

MAX_SECONDS = 366 * 86400
MIN_SEED_LENGTH = 32
REVEAL_AT_END = ("everything", "rulebook")  # replays.views.opens_at_end
Reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                       metadata={"description": "Why: shown in the public log."})


class StrictBoolean(fields.Boolean):
    """true or false only: marshmallow's Boolean also takes 0, 1, "yes" ..., which the document (type: boolean)
    does not allow."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def loose_booleans(schema: type[Schema], data: object) -> dict[str, list[str]]:
    """The fields of ``data`` that ``schema`` reads as booleans but that are not JSON true or false (marshmallow's
    Boolean also takes 0, 1, "yes" ...; the document says boolean), by field name.  A field that allows null (declared
    nullable) takes null too: a game's options echo it, and are copied into new games."""
    if not isinstance(data, dict):
        return {}
    found = {}
    for name, field in schema().fields.items():
        key = field.data_key or name
        if isinstance(field, fields.Boolean) and key in data and not isinstance(data[key], bool) and not (
                data[key] is None and field.allow_none):
            found[key] = ["Not a valid boolean: use true or false."]
    return found


class CreateGameSchema(Schema):
    type = fields.String(required=True, metadata={"description": "A game type name from /v1/game-types."})
    name = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=256),
                         metadata={"description": "Fix the seed (secret until the game ends). Use at least "
                                                  f"{MIN_SEED_LENGTH} characters: the published sha256 commitment is "
                                                  "only as strong as the seed, so a shorter one is accepted with a "
                                                  "weak_seed warning. Leave it out to get 256 random bits."})
    deadlines = fields.Dict(keys=fields.String(),
                            values=fields.Integer(strict=True, validate=validate.Range(1, MAX_SECONDS)),
                            load_default=dict, metadata={"description": "Seconds per phase name."})
    resolve_early = StrictBoolean(load_default=True)
    reveal_at_end = fields.String(load_default="everything", validate=validate.OneOf(REVEAL_AT_END), metadata={
        "description": "What opens to everyone when the game ends. \"everything\" (default): the whole log, audit, "
                       "export and seed, so anyone can verify the game. \"rulebook\": only what the game's rules "
                       "reveal (its view and result); the log stays as each viewer saw it during the game, the audit, "
                       "full export and seed are the GM's, and a player's export (their view of the log) still "
                       "verifies their own receipts. Recorded in game.created."})


def seed_warnings(seed: object) -> list[dict[str, str]]:
    """Warnings for a GM-chosen seed that players could guess from its public sha256 commitment.

    A warning, not a 422: seeds fixed by hand (re-entering a game run on a forum, tests) stay
    possible, and the GM is told what it costs.
    """
    if not isinstance(seed, str) or len(seed) >= MIN_SEED_LENGTH:
        return []
    return [{"code": "weak_seed", "field": "seed",
             "message": f"The seed has {len(seed)} characters; use at least {MIN_SEED_LENGTH} (or leave it out for "
                        "256 random bits). Its sha256 is published now, so a short or guessable seed can be found by "
                        "trying candidates, and with it every future draw of this game."}]


class JoinNameSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=60))


class ExtendDeadlineSchema(Schema):
    seconds = fields.Integer(strict=True, validate=validate.Range(1, MAX_SECONDS), load_default=None)
    deadline = fields.AwareDateTime(load_default=None, metadata={
        "description": "New deadline, ISO 8601 with an offset (kept in whole seconds, UTC): strictly in the future "
                       "and at most 366 days from now."})
    reason = Reason

    @validates_schema
    def one_of(self, data: dict, **_: object) -> None:
        if (data.get("seconds") is None) == (data.get("deadline") is None):
            raise ValidationError("Give exactly one of 'seconds' (added to the deadline) or 'deadline'.",
                                  field_name="seconds")


def deadline_problem(moment: datetime, now: datetime) -> str | None:
    """Why a new deadline is refused, or None.  Compared as aware datetimes, which never overflow, before it is
    converted to UTC, which does at the edges of the calendar (9999-12-31T23:59:59-14:00)."""
    if moment <= now:
        return "The new deadline must be in the future."
    if moment > now + timedelta(seconds=MAX_SECONDS):
        return "The new deadline must be at most 366 days from now."
    return None


class ReasonSchema(Schema):
    reason = Reason


class EjectSchema(Schema):
    player_id = fields.String(required=True)
    reason = Reason


class QuitSchema(Schema):
    """A player's own ``quit``: no fields; the game's rules say what leaving does."""


QUIT = "quit"  # the platform's order for a player leaving, in every game

GM_ACTIONS: dict[str, type[Schema]] = {
    "gm.extend_deadline": ExtendDeadlineSchema,
    "gm.resolve_now": ReasonSchema,
    "gm.pause": ReasonSchema,
    "gm.resume": ReasonSchema,
    "gm.eject": EjectSchema,
}


GAME_STATUSES = STATUSES  # eventlog.index keeps a list of the games in each


class HeldTokenSchema(Schema):
    game_id = fields.String(required=True, validate=validate.Length(1, 64))
    token = fields.String(required=True, validate=validate.Length(1, 200))


class MyGamesRequestSchema(Schema):
    tokens = fields.List(fields.Nested(HeldTokenSchema), required=True, validate=validate.Length(1, 100))


class FollowedTokenSchema(HeldTokenSchema):
    after = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 2**53), metadata={
        "description": "Send this game's events after this seq first (default 0: its whole log)."})


class FollowMyGamesSchema(Schema):
    """The games of many tokens on one stream (``POST /v1/me/stream`` on the stream process), a game once each."""

    tokens = fields.List(fields.Nested(FollowedTokenSchema), required=True, validate=validate.Length(1, 100))

    @validates_schema
    def _a_game_once(self, data: dict, **kwargs: object) -> None:
        games = [item["game_id"] for item in data.get("tokens", [])]
        twice = sorted({game for game in games if games.count(game) > 1})
        if twice:
            raise ValidationError(f"Follow a game with one token: {', '.join(twice)} twice.", "tokens")
