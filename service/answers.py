"""What the API answers, as marshmallow schemas: nothing loads with them; they generate the document's response
schemas (service/openapi) and tests check answers against them.  Requests are validated by service/schemas.py."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from replays.fold import FOLDS
from service.schemas import GAME_STATUSES, MIN_SEED_LENGTH, REVEAL_AT_END


class ErrorBodySchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ErrorSchema(Schema):
    error = fields.Nested(ErrorBodySchema, required=True)


class WarningSchema(Schema):
    code = fields.String(required=True, metadata={"example": "weak_seed"})
    field = fields.String(required=True)
    message = fields.String(required=True)


class CreatedGameSchema(Schema):
    game_id = fields.String(required=True)
    gm_token = fields.String(required=True)
    seed_commitment = fields.String(required=True)
    type = fields.String(required=True)
    version = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["signup"]))
    deadlines = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    warnings = fields.List(fields.Nested(WarningSchema), required=True, metadata={
        "description": "Things the GM should know, each {code, field, message}; e.g. weak_seed for a seed shorter "
                       f"than {MIN_SEED_LENGTH} characters."})


class ReceiptSchema(Schema):
    game_id = fields.String(required=True)
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    prev_hash = fields.String(required=True)
    at = fields.String(required=True, metadata={"format": "date-time"})
    note = fields.String(required=True, metadata={"description": (
        "The receipt signed by the service: a C2SP signed note in the tlog-checkpoint layout (origin "
        "`<key name>/<game id>`, size = seq, root hash = the event's hash in base64, then `prev_hash <base64>`), "
        "verifiable with a key of GET /v1/keys by anyone (docs/verifying.md).")})


class JoinedSchema(Schema):
    game_id = fields.String(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    receipt = fields.Nested(ReceiptSchema, required=True)


class OrderPhaseSchema(Schema):
    """The phase an order was recorded for, and whether it was the last order that phase waited for."""

    number = fields.Integer(required=True)
    name = fields.String(required=True)
    deadline = fields.String(required=True, metadata={"format": "date-time"})
    resolves = fields.Boolean(required=True, metadata={
        "description": "true: this order was the last one the phase awaited and the game resolves early, so the "
                       "phase is being resolved now (its phase.resolved event follows); false: the phase stays open "
                       "until its deadline or the last missing order."})


class AcceptedSchema(Schema):
    """The 202 for an order, a quit or a GM action: the receipt; an order of the game also says its phase."""

    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    receipt = fields.Nested(ReceiptSchema, required=True)
    status = fields.String(validate=validate.OneOf(["running"]), metadata={
        "description": "An order of the game only: the game's status when it was recorded."})
    phase = fields.Nested(OrderPhaseSchema, metadata={"description": "An order of the game only."})


def order_accepted(receipt: dict[str, Any], phase: dict[str, Any], resolves: bool) -> dict[str, Any]:
    """The 202 for an order of the game: its receipt, the game's status and the phase it was recorded for, so a
    client knows without another request whether its order completed the phase."""
    return {**receipt, "status": "running",
            "phase": {"number": phase["number"], "name": phase["name"], "deadline": phase["deadline"],
                      "resolves": resolves}}


EVENT_TYPES = tuple(sorted(FOLDS))  # every event the fold knows


class EventSchema(Schema):
    """An event's envelope; the document types each event type's data (service/openapi/events.py)."""

    seq = fields.Integer(required=True)
    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    actor = fields.String(required=True, metadata={"description": "A player id, gm, arbiter (the worker) or anyone."})
    at = fields.String(required=True, metadata={"format": "date-time"})
    data = fields.Dict(required=True, metadata={
        "description": "Typed per event type (the document's <EventType>Event, and <Type><EventType>Event for a "
                       "game type's own parts: service/openapi/events.py)."})
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)
    salt = fields.String(metadata={"description": "128 random bits hashed with the event; shown only to those who "
                                                 "see the whole event (everyone once the game is over)."})


class EventsPageSchema(Schema):
    game_id = fields.String(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    next_after = fields.Integer(required=True, allow_none=True)


class DifferenceSchema(Schema):
    """One leaf where a recorded event's data and its recomputation differ (replays/audit.py differences)."""

    path = fields.String(required=True, metadata={"description": "A JSON pointer (RFC 6901) into the event's data "
                                                                "(/outcome/public/board/it)."})
    recorded = fields.Raw(required=True, allow_none=True, metadata={"description": "The value in the log (any "
                                                                                   "JSON; null where missing)."})
    recomputed = fields.Raw(required=True, allow_none=True, metadata={"description": "The value the rules and the "
                                                                                     "seed give (null where missing)."})
    missing = fields.String(required=True, allow_none=True, validate=validate.OneOf(["recorded", "recomputed"]),
                            metadata={"description": "The side the path is absent from; null when both have it."})


DIVERGENCE_CHECKS = ("seed", "hash_chain", "fold", "recompute", "head_hash", "signed_receipt", "signed_checkpoint",
                     "truncation", "fork")


class DivergenceSchema(Schema):
    seq = fields.Integer(required=True, metadata={"description": "The event it was found at."})
    check = fields.String(required=True, validate=validate.OneOf(DIVERGENCE_CHECKS), metadata={
        "description": "seed: the seed does not match its commitment; hash_chain: a seq, link or hash is wrong; "
                       "fold: the event does not fit the game; recompute: the rules and the seed give another "
                       "record; head_hash: the file's head_hash is not its last event's; signed_receipt, "
                       "signed_checkpoint: the event at seq is not the one a note the service signed names (a "
                       "rewrite); truncation: a signed note is beyond the log's head; fork: two signed notes give "
                       "seq two hashes."})
    problem = fields.String(required=True)
    notes = fields.List(fields.String(), metadata={"description": "check fork only: the two signed notes that prove "
                                                                  "it."})
    differences = fields.List(fields.Nested(DifferenceSchema), metadata={
        "description": "check recompute only: the first 20 differing leaves, in sorted key order (none where the "
                       "event could not be recomputed at all)."})
    differences_total = fields.Integer(metadata={"description": "check recompute only: how many leaves differ."})


class HashChainSchema(Schema):
    ok = fields.Boolean(required=True)
    first_broken_seq = fields.Integer(required=True, allow_none=True)
    problem = fields.String(required=True, allow_none=True)
    head_hash = fields.String(required=True, allow_none=True)
    whole_events_checked = fields.Integer(metadata={"description": "A viewer's export (arbiter-view/1) only: the "
                                                                  "events shown whole, whose hashes were checked."})


class AuditOutcomesSchema(Schema):
    checked = fields.Integer(required=True, metadata={"description": "Records recomputed from the seed."})
    seed = fields.String(required=True, metadata={"description": "used, or why not (not available ...)."})


class AuditFinalSchema(Schema):
    seq = fields.Integer(required=True)
    status = fields.String(required=True, allow_none=True)
    result = fields.Dict(required=True, allow_none=True, metadata={"description": "Once the game is finished: its "
                                                                                "game type's result."})


class SignedNoteSchema(Schema):
    source = fields.String(required=True, validate=validate.OneOf(["given", "export"]), metadata={
        "description": "given: sent beside the export (notes); export: one of the export's checkpoints."})
    note = fields.String(required=True)
    ok = fields.Boolean(required=True, metadata={"description": "Verified, of this game, and the log holds it."})
    problem = fields.String(required=True, allow_none=True)
    kind = fields.String(validate=validate.OneOf(["receipt", "checkpoint"]))
    seq = fields.Integer()
    hash = fields.String()
    key = fields.String(metadata={"description": "The verifier key whose signature verified."})


class SignedSchema(Schema):
    keys = fields.List(fields.String(), required=True, metadata={"description": "The verifier keys trusted."})
    keys_from = fields.String(required=True, metadata={"description": "given (vkeys), this server's, or the file."})
    notes = fields.List(fields.Nested(SignedNoteSchema), required=True)
    included = fields.Integer(required=True, metadata={"description": "Notes verified whose event the log holds."})


class KeySchema(Schema):
    vkey = fields.String(required=True, metadata={"description": "C2SP verifier key: <name>+<8 hex key id>+<base64 "
                                                                 "of 0x01 and the Ed25519 public key>."})
    name = fields.String(required=True)
    id = fields.String(required=True)
    algorithm = fields.String(required=True, validate=validate.OneOf(["ed25519"]))
    status = fields.String(required=True, validate=validate.OneOf(["active", "retired"]))
    retired_at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})


class KeysSchema(Schema):
    keys = fields.List(fields.Nested(KeySchema), required=True)


class CheckpointSchema(Schema):
    game_id = fields.String(required=True)
    seq = fields.Integer(required=True)
    head_hash = fields.String(required=True)
    note = fields.String(required=True, metadata={"description": "A C2SP checkpoint: origin <key name>/<game id>, "
                                                                 "size = seq, root hash = the head hash in base64."})


class AuditSchema(Schema):
    ok = fields.Boolean(required=True)
    game_id = fields.String(allow_none=True)
    events = fields.Integer(required=True)
    hash_chain = fields.Nested(HashChainSchema, required=True)
    outcomes = fields.Nested(AuditOutcomesSchema, required=True)
    divergences = fields.List(fields.Nested(DivergenceSchema), required=True)
    final = fields.Nested(AuditFinalSchema, allow_none=True, metadata={"description": "The folded game's last seq, "
                                                                                      "status and result."})
    signed = fields.Nested(SignedSchema, metadata={"description": "Verify only: what the signed receipts and "
                                                                  "checkpoints prove (docs/verifying.md)."})


class PhaseSchema(Schema):
    """The open phase, as ``replays.views.game_for`` shows it (the engine's Phase plus the log's number and
    deadline)."""

    name = fields.String(required=True, metadata={"description": "The phase's name; keys the game's deadlines."})
    number = fields.Integer(required=True, metadata={"description": "Counts the game's phases from 1; each "
                                                                    "resolution opens the next number."})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "ISO 8601 UTC in whole seconds (2030-06-01T12:00:00Z): an order is "
                                              "on time up to and including this instant. Null while the game is "
                                              "paused."})
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
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    players = fields.List(fields.Nested(GamePlayerSchema), required=True)
    phase = fields.Nested(PhaseSchema, allow_none=True, required=True,
                          metadata={"description": "Null before the start and after the end."})
    state = fields.Dict(allow_none=True, required=True, metadata={
        "description": "The game's state as the caller may see it; typed per game type by the typed getters "
                       "(getExtremeWaysGame ...)."})
    you = fields.Nested(YouSchema, required=True, metadata={"description": "Who the token says the caller is."})
    result = fields.Dict(allow_none=True, metadata={"description": "Once the game is finished."})


class HealthSchema(Schema):
    status = fields.String(required=True)
    store = fields.Dict(required=True)
    stream_url = fields.String(required=True, allow_none=True, metadata={
        "description": "Where this server's stream process is (ARBITER_STREAM_URL, ending in /v1): the live paths "
                       "(stream, stream tickets, webhooks) are served there; null if the server names none."})


class StartedSchema(Schema):
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    receipt = fields.Nested(ReceiptSchema, required=True)
    status = fields.String(required=True, validate=validate.OneOf(["running"]))
    phase = fields.Nested(Schema.from_dict({
        "number": fields.Integer(required=True), "name": fields.String(required=True),
        "deadline": fields.String(required=True, metadata={"format": "date-time"})}, name="OpenedPhase"),
        required=True)


class ReplayFrameSchema(Schema):
    seq = fields.Integer(required=True)
    event = fields.Nested(EventSchema, required=True)
    view = fields.Nested(GameSchema, required=True, allow_none=True, metadata={
        "description": "The game as the caller sees it after this event (null before the game exists)."})


class ReplaySchema(Schema):
    """``at`` given: one frame (seq, event, view); otherwise a page of frames."""

    game_id = fields.String(required=True)
    frames = fields.List(fields.Nested(ReplayFrameSchema), metadata={"description": "Without at."})
    next_after = fields.Integer(allow_none=True, metadata={"description": "Without at: the next page's after."})
    seq = fields.Integer(metadata={"description": "With at."})
    event = fields.Nested(EventSchema, metadata={"description": "With at."})
    view = fields.Nested(GameSchema, allow_none=True, metadata={"description": "With at."})


class ExportSchema(Schema):
    format = fields.String(required=True)
    game_id = fields.String(required=True)
    type = fields.String(allow_none=True)
    version = fields.String(allow_none=True)
    status = fields.String(allow_none=True, metadata={"description": "signup, running, paused, finished, or "
                                                                   "corrupt for a log that cannot be folded."})
    seed = fields.String(allow_none=True, metadata={"description": "Once the game is finished."})
    seed_commitment = fields.String(allow_none=True)
    head_hash = fields.String(allow_none=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    checkpoints = fields.List(fields.String(), metadata={"description": "The game's signed checkpoints (C2SP notes), "
                                                                       "made as its phases closed."})
    keys = fields.List(fields.String(), metadata={"description": "The verifier keys of GET /v1/keys at the export."})


class ReportSchema(Schema):
    game_id = fields.String(required=True)
    round = fields.Integer(required=True, allow_none=True)
    format = fields.String(required=True, validate=validate.OneOf(["json", "text", "markdown", "bbcode"]))
    report = fields.Raw(required=True, metadata={"anyOf": [{"type": "object"}, {"type": "string"}], "description":
                                                 "The JSON report (format json), or the text ready to paste."})


class ByOptionSchema(Schema):
    option = fields.String(required=True)
    value = fields.String(required=True)
    min = fields.Integer(required=True)
    max = fields.Integer(required=True)


class PlayerCountsSchema(Schema):
    min = fields.Integer(required=True, metadata={"description": "With the default options."})
    max = fields.Integer(required=True, metadata={"description": "With the default options."})
    by_option = fields.List(fields.Nested(ByOptionSchema), required=True, metadata={
        "description": "Other counts an option value brings (e.g. a variant for fewer players)."})


class ActionInfoSchema(Schema):
    type = fields.String(required=True)
    actor = fields.String(required=True, validate=validate.OneOf(["player", "gm"]))
    sealed = fields.Boolean(required=True)
    team_sees = fields.Boolean(required=True)
    phases = fields.List(fields.String(), required=True)
    description = fields.String(required=True)
    example = fields.Dict(required=True)
    schema = fields.String(required=True, metadata={"description": "The order's schema in /v1/openapi.json."})


class GameTypeSchema(Schema):
    name = fields.String(required=True)
    title = fields.String(required=True)
    version = fields.String(required=True)
    versions = fields.List(fields.String(), required=True)
    summary = fields.String(required=True)
    players = fields.Nested(PlayerCountsSchema, required=True)
    turn_based = fields.Boolean(required=True)
    hidden_information = fields.Boolean(required=True)
    late_joins = fields.Boolean(required=True)
    default_deadlines = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    options_schema = fields.Dict(required=True, metadata={"description": "JSON Schema of the options."})
    join_schema = fields.Dict(required=True, metadata={"description": "JSON Schema of the join body: name and "
                                                                     "the type's sign-up fields."})
    gm_join_fields = fields.List(fields.String(), required=True, metadata={"description": "Only the GM sets these."})
    private_join_fields = fields.List(fields.String(), required=True, metadata={
        "description": "Shown only to that player and the GM until the end."})
    actions = fields.List(fields.Nested(ActionInfoSchema), required=True)


class GameTypesSchema(Schema):
    game_types = fields.List(fields.Nested(GameTypeSchema), required=True)


class ListedPhaseSchema(Schema):
    name = fields.String(required=True)
    number = fields.Integer(required=True)
    deadline = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})


class GameSummarySchema(Schema):
    """A game as lists show it: only what anyone may see."""

    game_id = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)
    type = fields.String(required=True)
    version = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES))
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    players = fields.Integer(required=True, metadata={"description": "Players still in the game."})
    max_players = fields.Integer(required=True)
    open_to_join = fields.Boolean(required=True, metadata={"description": "Sign-up open with a seat free, or "
                                                                         "running and taking late players."})
    phase = fields.Nested(ListedPhaseSchema, required=True, allow_none=True)


class GamesPageSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_after = fields.String(required=True, allow_none=True, metadata={
        "description": "Pass as after for the next page; null at the end. With a filter a page may be short, even "
                       "empty, and still have a next_after: each page looks at up to 500 games, so follow next_after "
                       "until it is null."})


class MyGameSchema(Schema):
    game = fields.Nested(GameSummarySchema, required=True)
    you = fields.Nested(YouSchema, required=True)
    awaiting_you = fields.Boolean(required=True, metadata={"description": "The open phase waits for your order."})


class RefusedTokenSchema(Schema):
    index = fields.Integer(required=True, metadata={"description": "Its place in the request's tokens."})
    game_id = fields.String(required=True)
    error = fields.Nested(ErrorBodySchema, required=True)


class MyGamesSchema(Schema):
    games = fields.List(fields.Nested(MyGameSchema), required=True)
    refused = fields.List(fields.Nested(RefusedTokenSchema), required=True)
