"""What callers can do to a game: each command validates against the freshest record
and appends one event conditionally, retrying when another writer got there first.

A rejected command raises ApiError and appends nothing.
"""
from __future__ import annotations

import logging
import math
import secrets
from datetime import timedelta
from dataclasses import dataclass, field
from typing import Any, Callable

from marshmallow import ValidationError

from engines import registry
from engines.canonical import canonical_json, roundtrip, sha256_hex
from engines.contract import GM, Engine, RuleError
from engines.driver import load_options
from engines.rng import Rng
from eventlog import deadlines, keys
from eventlog.events import ANYONE_ACTOR, GENESIS, GM_ACTOR, Event, seal
from eventlog.store import Conflict, IdempotencyRecord
from replays.fold import Record, engine_for, players_for_engine
from service import clock
from service.auth import Caller, new_token, role_value, token_field
from service.context import Context
from service.errors import ApiError, conflict, forbidden, invalid, not_found, unauthorized
from service.schemas import GM_ACTIONS, CreateGameSchema, JoinNameSchema
from workers.scheduling import phase_opened, phase_spec, resolve_soon, schedule_at

MAX_ATTEMPTS = 25
log = logging.getLogger("arbiter.commands")


@dataclass
class Plan:
    """One event to append, built from a record that was just validated against."""

    type: str
    actor: str
    data: dict[str, Any]
    status: int = 202
    private: dict[str, str] = field(default_factory=dict)
    respond: Callable[[Event], dict[str, Any]] | None = None
    before: Callable[[], None] | None = None   # index writes that must precede the event
    after: Callable[[Event], None] | None = None


def receipt(game_id: str, event: Event) -> dict[str, Any]:
    """What the caller keeps to check later that the log holds exactly their order."""
    return {
        "seq": event["seq"],
        "hash": event["hash"],
        "receipt": {
            "game_id": game_id,
            "seq": event["seq"],
            "hash": event["hash"],
            "prev_hash": event["prev_hash"],
            "at": event["at"],
        },
    }


# -- the append loop ---------------------------------------------------------------------

def _append(
    ctx: Context,
    game_id: str,
    build: Callable[[Record], Plan],
    caller: Caller | None = None,
    idempotency_key: str | None = None,
    body: Any = None,
) -> tuple[int, dict[str, Any]]:
    key_digest = body_digest = None
    if idempotency_key and caller is not None and caller.token_digest:
        key_digest = sha256_hex(idempotency_key)
        body_digest = sha256_hex(canonical_json(body))
        prior = ctx.store.idempotent_answer(game_id, caller.scope, key_digest)
        if prior is not None:
            return _replayed(prior, body_digest)
    for _attempt in range(MAX_ATTEMPTS):
        record = ctx.loader.load(game_id)
        if record is None:
            raise not_found(f"No game {game_id!r}.")
        plan = build(record)
        event = seal(record["seq"] + 1, record["head_hash"], plan.type, plan.actor, plan.data)
        response = plan.respond(event) if plan.respond else receipt(game_id, event)
        idem = None
        if key_digest and body_digest and caller is not None:
            idem = IdempotencyRecord(caller.scope, key_digest, body_digest, plan.status, response)
        if plan.before:
            plan.before()
        try:
            appended = ctx.store.append(game_id, event, idempotency=idem, private=plan.private)
        except Conflict:
            continue
        if appended.replay is not None:
            return _replayed(appended.replay, body_digest or "")
        if plan.after:
            _after(plan.after, event)
        return plan.status, response
    raise ApiError(503, "busy", "The game is busy right now; please retry.")


def _after(hook: Callable[[Event], None], event: Event) -> None:
    """Scheduling after an append is best effort: the event is already the truth, and
    the sweeper re-queues any deadline whose job did not make it onto the queue."""
    try:
        hook(event)
    except Exception:
        log.exception("scheduling after seq %s failed; the sweeper will catch up", event["seq"])


def _replayed(prior: dict[str, Any], body_digest: str) -> tuple[int, dict[str, Any]]:
    if prior["body"] != body_digest:
        raise invalid(
            "This Idempotency-Key was already used with a different request body.",
            {"Idempotency-Key": ["Reused with a different body."]},
            code="idempotency_key_reused",
        )
    return prior["status"], prior["response"]


# -- creating and joining ------------------------------------------------------------------

def create_game(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    data = _load(CreateGameSchema(), body)
    engine = registry.latest(data["type"])
    if engine is None:
        raise invalid(f"Unknown game type {data['type']!r}.", {"type": [f"Choose one of: {', '.join(registry.names())}."]})
    try:
        options = load_options(engine, data["options"])
    except ValidationError as exc:
        raise invalid("The options are not valid for this game type.", {"options": exc.messages}) from exc
    unknown = sorted(set(data["deadlines"]) - set(engine.default_deadlines))
    if unknown:
        raise invalid("Unknown phase names in deadlines.", {"deadlines": {
            name: [f"No such phase; phases are: {', '.join(sorted(engine.default_deadlines))}."] for name in unknown}})
    seed = data["seed"] or secrets.token_hex(32)
    game_id = "g" + secrets.token_hex(8)
    gm_token, gm_digest = new_token()
    event_data = {
        "game_id": game_id,
        "type": engine.meta.name,
        "version": engine.meta.version,
        "name": data["name"],
        "options": options,
        "deadlines": {**engine.default_deadlines, **data["deadlines"]},
        "resolve_early": data["resolve_early"],
        "seed_commitment": sha256_hex(seed),
    }
    event = seal(1, GENESIS, "game.created", ANYONE_ACTOR, event_data)
    try:
        ctx.store.append(game_id, event, private={"seed": seed, token_field(gm_digest): role_value("gm", gm_digest)})
    except Conflict as exc:  # a 64-bit id collision: astronomically unlikely, never silent
        raise ApiError(503, "busy", "Could not allocate a game id; please retry.") from exc
    ctx.redis.zadd(keys.GAMES, {game_id: clock.now().timestamp()})
    return {
        "game_id": game_id,
        "gm_token": gm_token,
        "seed_commitment": event_data["seed_commitment"],
        "type": engine.meta.name,
        "version": engine.meta.version,
        "status": "signup",
        "deadlines": event_data["deadlines"],
    }


def join(ctx: Context, game_id: str, caller: Caller, body: dict[str, Any]) -> dict[str, Any]:
    if caller.role == "player":
        raise forbidden("You have already joined this game; a player token cannot register others.")
    name = _load(JoinNameSchema(), {"name": body.get("name")})["name"].strip()
    token, token_digest = new_token()

    def build(record: Record) -> Plan:
        if record["status"] != "signup":
            raise conflict("signup_closed", "Sign-up for this game is closed.")
        engine = engine_for(record)
        fields = _join_fields(engine, body, caller)
        active = [p for p in record["players"] if not p["ejected"]]
        if len(active) >= engine.meta.max_players:
            raise conflict("game_full", f"This game is full ({engine.meta.max_players} players).")
        if any(p["name"].casefold() == name.casefold() for p in active):
            raise invalid("That name is taken in this game.", {"name": ["Already taken."]})
        player_id = f"p{record['joined'] + 1}"
        return Plan(
            "player.joined",
            GM_ACTOR if caller.is_gm else ANYONE_ACTOR,
            {"player_id": player_id, "name": name, "fields": fields},
            status=201,
            private={token_field(token_digest): role_value("player", token_digest, player_id)},
            respond=lambda event: {"game_id": game_id, "player_id": player_id, "name": name, "token": token},
        )

    return _append(ctx, game_id, build)[1]


def _join_fields(engine: Engine, body: dict[str, Any], caller: Caller) -> dict[str, Any]:
    extra = {k: v for k, v in body.items() if k != "name"}
    gm_only = sorted(set(extra) & set(engine.gm_join_fields))
    if gm_only and not caller.is_gm:
        raise ApiError(403, "gm_only_fields", "Only the GM may set these sign-up fields.",
                       {f: ["Only the GM may set this."] for f in gm_only})
    if engine.join_schema is None:
        if extra:
            raise invalid("This game takes only a name at sign-up.", {k: ["Unknown field."] for k in extra})
        return {}
    return _load(engine.join_schema(), extra)


# -- starting ----------------------------------------------------------------------------------

def start(ctx: Context, game_id: str, caller: Caller, idempotency_key: str | None = None) -> tuple[int, dict[str, Any]]:
    _require_gm(caller, "start the game")

    def build(record: Record) -> Plan:
        if record["status"] != "signup":
            raise conflict("already_started", "This game has already started.")
        engine = engine_for(record)
        players = players_for_engine(record)
        if len(players) < engine.meta.min_players:
            raise conflict("not_enough_players",
                           f"{engine.meta.title} needs at least {engine.meta.min_players} players; {len(players)} joined.")
        seed = _seed(ctx, game_id)
        try:
            setup = roundtrip(engine.setup(record["options"], players, Rng(seed, "setup")))
            state = roundtrip(engine.initial_state(record["options"], players, setup))
        except RuleError as exc:
            raise conflict("cannot_start", exc.message, {"rule": exc.rule, **exc.details}) from exc
        phase = engine.phase(state)
        if phase is None:
            raise conflict("nothing_to_play", "These options leave nothing to play.")
        spec = phase_spec(record, phase.name, 1)
        ready = record["resolve_early"] and not phase.awaiting
        return Plan(
            "game.started", GM_ACTOR, {"setup": setup, "phase": spec}, status=200,
            respond=lambda event: {**receipt(game_id, event), "status": "running", "phase": spec},
            before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(spec["deadline"])),
            after=lambda event: phase_opened(ctx.queue, ctx.redis, game_id, spec, ready),
        )

    return _append(ctx, game_id, build, caller, idempotency_key, {"start": True})


# -- orders ------------------------------------------------------------------------------------

def act(
    ctx: Context, game_id: str, caller: Caller, body: dict[str, Any], idempotency_key: str | None = None
) -> tuple[int, dict[str, Any]]:
    if caller.role == "public":
        raise unauthorized("Sending an order needs your player token (or the GM's).")
    kind = body.get("type")
    if not isinstance(kind, str) or not kind:
        raise invalid("Every order needs a 'type'.", {"type": ["Missing or not a string."]})
    if kind in GM_ACTIONS:
        _require_gm(caller, kind)
        build = _gm_builder(ctx, game_id, kind, _load(GM_ACTIONS[kind](), _fields(body)))
    else:
        build = _order_builder(ctx, game_id, caller, kind, body)
    return _append(ctx, game_id, build, caller, idempotency_key, body)


def _order_builder(ctx: Context, game_id: str, caller: Caller, kind: str, body: dict[str, Any]) -> Callable[[Record], Plan]:
    on_behalf = body.get("on_behalf_of")

    def build(record: Record) -> Plan:
        engine = engine_for(record)
        spec = engine.actions.get(kind)
        if spec is None:
            known = ", ".join(sorted([*engine.actions, *GM_ACTIONS]))
            raise invalid(f"Unknown order type {kind!r} for {engine.meta.title}.", {"type": [f"Choose one of: {known}."]})
        actor = _actor_for(record, caller, spec.actor, on_behalf, kind)
        _require_running(record)
        if clock.is_past(record["phase"]["deadline"]):
            raise conflict("deadline_passed", "The deadline for this phase has passed; the order was not recorded.",
                           {"deadline": record["phase"]["deadline"]})
        fields = {k: v for k, v in body.items() if k not in ("type", "on_behalf_of")}
        action = {"type": kind, **_load(spec.schema(), fields)}
        try:
            engine.validate(record["engine"], actor, action)
        except RuleError as exc:
            raise ApiError(exc.status, "rule_violation" if exc.status == 422 else "not_now",
                           exc.message, {"rule": exc.rule, **exc.details}) from exc
        number = record["phase"]["number"]
        data: dict[str, Any] = {"phase": number, "action": action}
        if on_behalf is not None and caller.is_gm:
            data["entered_by"] = GM

        def after(event: Event) -> None:
            if not record["resolve_early"]:
                return
            state = engine.apply_action(record["engine"], actor, action)
            phase = engine.phase(state)
            if phase is not None and not phase.awaiting:
                resolve_soon(ctx.queue, game_id, number, "early")

        return Plan("action.submitted", actor, data, after=after)

    return build


def _actor_for(record: Record, caller: Caller, needs: str, on_behalf: Any, kind: str) -> str:
    """Who the order is from: a player sends their own; a GM may enter one for a player."""
    if needs == "gm":
        if not caller.is_gm:
            raise forbidden(f"Only the GM may send {kind}.")
        return GM
    if caller.is_gm:
        if not isinstance(on_behalf, str):
            raise invalid("The GM enters a player's order by naming them.",
                          {"on_behalf_of": ["Required when the GM sends a player's order."]})
        actor = on_behalf
    else:
        if on_behalf is not None and on_behalf != caller.player_id:
            raise forbidden("You may only send orders for yourself.")
        actor = caller.player_id or ""
    player = next((p for p in record["players"] if p["id"] == actor), None)
    if player is None:
        raise invalid(f"No player {actor!r} in this game.", {"on_behalf_of": ["Unknown player."]})
    if player["ejected"]:
        raise forbidden("This player has been ejected from the game.")
    return actor


# -- GM actions --------------------------------------------------------------------------------

def _gm_builder(ctx: Context, game_id: str, kind: str, data: dict[str, Any]) -> Callable[[Record], Plan]:
    reason = data["reason"]

    def build(record: Record) -> Plan:
        now = clock.now()
        if kind == "gm.eject":
            return _eject_plan(ctx, game_id, record, data["player_id"], reason)
        if kind == "gm.resume":
            if record["status"] != "paused":
                raise conflict("not_paused", "The game is not paused.")
            if record["phase"] is None:
                return Plan(kind, GM_ACTOR, {"reason": reason, "deadline": None})
            spec = {**record["phase"], "deadline": clock.after(record["paused"]["remaining"], now)}
            return Plan(kind, GM_ACTOR, {"reason": reason, "deadline": spec["deadline"]},
                        before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(spec["deadline"])),
                        after=lambda event: _reschedule(ctx, game_id, record, spec))
        if kind == "gm.pause":
            if record["status"] not in ("running", "signup"):
                raise conflict("not_running", f"The game is {record['status']}; only a running game can be paused.")
            remaining = 0
            if record["phase"] is not None:
                left = (clock.parse(record["phase"]["deadline"]) - now).total_seconds()
                remaining = max(1, math.ceil(left))
            return Plan(kind, GM_ACTOR, {"reason": reason, "remaining": remaining},
                        after=lambda event: deadlines.clear(ctx.redis, game_id))
        _require_running(record)
        number = record["phase"]["number"]
        if kind == "gm.resolve_now":
            return Plan(kind, GM_ACTOR, {"reason": reason, "phase": number},
                        after=lambda event: resolve_soon(ctx.queue, game_id, number, f"gm{event['seq']}"))
        # gm.extend_deadline
        current = clock.parse(record["phase"]["deadline"])
        if data["seconds"] is not None:
            new = clock.iso(current + timedelta(seconds=data["seconds"]))
        else:
            new = clock.iso(data["deadline"])
        if clock.parse(new) <= now:
            raise invalid("The new deadline must be in the future.", {"deadline": ["In the past."]})
        spec = {**record["phase"], "deadline": new}
        return Plan(kind, GM_ACTOR, {"reason": reason, "phase": number, "previous": record["phase"]["deadline"],
                                     "deadline": new},
                    before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(new)),
                    after=lambda event: _reschedule(ctx, game_id, record, spec))

    return build


def _eject_plan(ctx: Context, game_id: str, record: Record, player_id: str, reason: str) -> Plan:
    if record["status"] == "finished":
        raise conflict("finished", "The game is over.")
    player = next((p for p in record["players"] if p["id"] == player_id), None)
    if player is None:
        raise invalid(f"No player {player_id!r} in this game.", {"player_id": ["Unknown player."]})
    if player["ejected"]:
        raise conflict("already_ejected", "That player has already been ejected.")

    def after(event: Event) -> None:
        if record["status"] != "running" or not record["resolve_early"]:
            return
        engine = engine_for(record)
        phase = engine.phase(engine.eject(record["engine"], player_id))
        if phase is not None and not phase.awaiting:
            resolve_soon(ctx.queue, game_id, record["phase"]["number"], f"eject{event['seq']}")

    return Plan("gm.eject", GM_ACTOR, {"reason": reason, "player_id": player_id}, after=after)


def _reschedule(ctx: Context, game_id: str, record: Record, spec: dict[str, Any]) -> None:
    when = clock.parse(spec["deadline"])
    schedule_at(ctx.queue, game_id, spec["number"], when, f"at{int(when.timestamp())}")


# -- small helpers -----------------------------------------------------------------------------

def _fields(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "type"}


def _load(schema: Any, data: Any) -> dict[str, Any]:
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise invalid("The request has invalid fields.", exc.messages if isinstance(exc.messages, dict)
                      else {"_schema": exc.messages}) from exc


def _require_gm(caller: Caller, what: str) -> None:
    if caller.role == "public":
        raise unauthorized(f"Only the GM may {what}: send the GM token.")
    if not caller.is_gm:
        raise forbidden(f"Only the GM may {what}.")


def _require_running(record: Record) -> None:
    status = record["status"]
    if status == "signup":
        raise conflict("not_started", "The game has not started yet.")
    if status == "paused":
        raise conflict("paused", "The game is paused by the GM.")
    if status == "finished":
        raise conflict("finished", "The game is over.")


def _seed(ctx: Context, game_id: str) -> str:
    seed = ctx.store.private_field(game_id, "seed")
    if seed is None:
        raise ApiError(500, "internal", "This game's seed is missing.")
    return seed
