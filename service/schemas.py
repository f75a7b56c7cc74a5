"""Request and response schemas: they validate requests and generate /v1/openapi.json."""
from __future__ import annotations

from datetime import datetime, timedelta

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

MAX_SECONDS = 366 * 86400
MIN_SEED_LENGTH = 32
REVEAL_AT_END = ("everything", "rulebook")  # replays.views.opens_at_end
Reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                       metadata={"description": "Why: shown in the public log."})


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
    resolve_early = fields.Boolean(load_default=True)
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


class ErrorBodySchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ErrorSchema(Schema):
    error = fields.Nested(ErrorBodySchema, required=True)


class CreatedGameSchema(Schema):
    game_id = fields.String(required=True)
    gm_token = fields.String(required=True)
    seed_commitment = fields.String(required=True)
    type = fields.String(required=True)
    version = fields.String(required=True)
    status = fields.String(required=True)
    deadlines = fields.Dict(required=True)
    warnings = fields.List(fields.Dict(), required=True, metadata={
        "description": "Things the GM should know, each {code, field, message}; e.g. weak_seed for a seed shorter "
                       f"than {MIN_SEED_LENGTH} characters."})


class JoinedSchema(Schema):
    game_id = fields.String(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)


class ReceiptSchema(Schema):
    game_id = fields.String(required=True)
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    prev_hash = fields.String(required=True)
    at = fields.String(required=True)


class AcceptedSchema(Schema):
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    receipt = fields.Nested(ReceiptSchema, required=True)


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    actor = fields.String(required=True)
    at = fields.String(required=True)
    data = fields.Dict(required=True)
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)


class EventsPageSchema(Schema):
    game_id = fields.String(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    next_after = fields.Integer(required=True, allow_none=True)


class AuditSchema(Schema):
    ok = fields.Boolean(required=True)
    game_id = fields.String(allow_none=True)
    events = fields.Integer(required=True)
    hash_chain = fields.Dict(required=True)
    outcomes = fields.Dict(required=True)
    divergences = fields.List(fields.Dict(), required=True)
    final = fields.Dict(allow_none=True)


class PhaseSchema(Schema):
    """The open phase, as ``replays.views.game_for`` shows it (the engine's Phase plus the log's number and
    deadline)."""

    name = fields.String(required=True, metadata={"description": "The phase's name; keys the game's deadlines."})
    number = fields.Integer(required=True, metadata={"description": "Counts the game's phases from 1; each "
                                                                    "resolution opens the next number."})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "description": "ISO 8601 UTC in whole seconds (2030-06-01T12:00:00Z): an order is on time up to and "
                       "including this instant. Null while the game is paused."})
    actors = fields.List(fields.String(), required=True, metadata={"description": "Player ids who may act now."})
    awaiting = fields.List(fields.String(), required=True, metadata={
        "description": "Player ids whose orders are still missing; when empty (and resolve_early is on) the phase "
                       "resolves at once."})
    sealed = fields.Boolean(required=True, metadata={
        "description": "True: simultaneous sealed orders, each replaceable until the deadline. False: one "
                       "player's turn at a time."})
    round = fields.Integer(required=True, allow_none=True, metadata={"description": "The game's own round number, "
                                                                                   "if it has rounds."})
    prompt = fields.String(required=True, metadata={"description": "What the phase asks for, for a person."})
    paused_remaining_seconds = fields.Integer(metadata={
        "description": "Only while paused: the seconds the phase will have when the GM resumes it."})


class GamePlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    fields_ = fields.Dict(required=True, data_key="fields", metadata={
        "description": "Sign-up fields; private ones only for that player, the GM, and everyone once finished."})
    ejected = fields.Boolean(required=True)
    left = fields.String(required=True, allow_none=True, validate=validate.OneOf(["quit", "eject"]), metadata={
        "description": "How the player left the running game (quit, or ejected by the GM); null while playing."})


class YouSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(["public", "gm", "player"]))
    player_id = fields.String(metadata={"description": "For a player's token."})
    teams = fields.List(fields.String(), metadata={
        "description": "For a player's token: the team viewers they belong to now (they see what is addressed "
                       "to them)."})


class GameSchema(Schema):
    game_id = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)
    type = fields.String(required=True)
    version = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["signup", "running", "paused", "finished"]))
    seq = fields.Integer(required=True)
    head_hash = fields.String(required=True)
    seed_commitment = fields.String(required=True, metadata={"description": "sha256 of the seed, published at "
                                                                            "creation."})
    seed = fields.String(metadata={"description": "Once the game is finished; to the GM at any time."})
    options = fields.Dict(required=True, metadata={"description": "Options that fix secret draws read \"hidden\" "
                                                                  "until the game ends (except to the GM)."})
    deadlines = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                            metadata={"description": "Seconds per phase name."})
    resolve_early = fields.Boolean(required=True)
    reveal_at_end = fields.String(required=True, validate=validate.OneOf(REVEAL_AT_END), metadata={
        "description": "What opened to everyone when the game ended: \"everything\" or only what the rules reveal "
                       "(\"rulebook\"), as chosen at creation."})
    created_at = fields.String(required=True)
    players = fields.List(fields.Nested(GamePlayerSchema), required=True)
    phase = fields.Nested(PhaseSchema, allow_none=True, required=True,
                          metadata={"description": "Null before the start and after the end."})
    state = fields.Raw(allow_none=True, required=True, metadata={"description": "The game's state as the caller "
                                                                                "may see it (see /v1/game-types)."})
    you = fields.Nested(YouSchema, required=True, metadata={"description": "Who the token says the caller is."})
    result = fields.Raw(allow_none=True, metadata={"description": "Once the game is finished."})


class HealthSchema(Schema):
    status = fields.String(required=True)
    store = fields.Dict(required=True)
