"""What callers can do to a game: create, join, start, and send orders.

Each command builds one event from the freshest record inside ``appending.append``;
a rejected command raises ApiError and appends nothing.
"""
from __future__ import annotations

import secrets
from typing import Any, Callable

from marshmallow import ValidationError

from engines import registry
from engines.canonical import roundtrip, sha256_hex
from engines.contract import GM, Engine, RuleError
from engines.gate import admit
from engines.driver import load_options
from engines.rng import Rng
from eventlog import deadlines, index, keys
from eventlog.events import ANYONE_ACTOR, GENESIS, GM_ACTOR, new_salt, seal
from eventlog.store import Conflict
from replays.fold import Record, departed, engine_for, players_for_engine
from eventlog import clock
from service import gm_actions, names
from service.answers import order_accepted
from service.appending import OnTrust, Plan, Prefetched, append, receipt, resolve_early
from service.auth import Caller, new_token, role_value, token_field
from runtime.context import Context
from service.errors import RULE_CODES, ApiError, conflict, forbidden, invalid, unauthorized
from service.guards import fields_of, load, require_gm, require_running, seed_of
from service.membership import find_player, late_join_plan, leave_plan, still_playing
from service.schemas import GM_ACTIONS, QUIT, CreateGameSchema, JoinNameSchema, QuitSchema
from replays.phases import nobody_awaited, phase_spec
from runtime.scheduling import phase_opened


# -- creating and joining ------------------------------------------------------------------

def create_game(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    data = load(CreateGameSchema, body)
    engine = registry.latest(data["type"])
    if engine is None:
        raise invalid(f"Unknown game type {data['type']!r}.",
                      {"type": [f"Choose one of: {', '.join(registry.names())}."]})
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
        "reveal_at_end": data["reveal_at_end"],
        "seed_commitment": sha256_hex(seed),
    }
    event = seal(1, GENESIS, "game.created", ANYONE_ACTOR, event_data, salt=new_salt())
    try:
        ctx.store.append(game_id, event, private={"seed": seed, token_field(gm_digest): role_value("gm", gm_digest)})
    except Conflict as exc:  # a 64-bit id collision: astronomically unlikely, never silent
        raise ApiError(503, "busy", "Could not allocate a game id; please retry.") from exc
    ctx.redis.zadd(keys.GAMES, {game_id: clock.now().timestamp()})
    index.move(ctx.redis, game_id, "signup")
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
    """Sign up; after the start only where the game takes late players (``Engine.change_members``)."""
    if caller.role == "player":
        raise forbidden("You have already joined this game; a player token cannot register others.")
    name = names.player_name(load(JoinNameSchema, {"name": body.get("name")})["name"])
    token, token_digest = new_token()

    def build(record: Record) -> Plan:
        engine = engine_for(record)
        if record["status"] == "finished" or (record["engine"] is None and record["status"] != "signup"):
            raise conflict("signup_closed", "Sign-up for this game is closed.")
        fields = _join_fields(engine, body, caller)
        active = [p for p in record["players"] if still_playing(p)]
        if len(active) >= engine.meta.max_players:
            raise conflict("game_full", f"This game is full ({engine.meta.max_players} players).")
        taken = names.names_in_game(engine.join_schema, active)
        if (lookalike := names.taken_by(name, taken)) is not None:
            why = "Already taken." if lookalike.casefold() == name.casefold() else f"Looks like {lookalike!r}."
            raise invalid("That name is taken in this game, or looks like one that is.", {"name": [why]})
        names.refuse_typed_lookalikes(engine.join_schema, fields, taken)
        player_id = f"p{record['joined'] + 1}"
        data = {"player_id": player_id, "name": name, "fields": fields}
        plan: dict[str, Any] = {
            "actor": GM_ACTOR if caller.is_gm else ANYONE_ACTOR, "status": 201,
            "private": {token_field(token_digest): role_value("player", token_digest, player_id)},
            "respond": lambda event: {**receipt(game_id, event, ctx.keys), "game_id": game_id, "player_id": player_id,
                                      "name": name, "token": token},
        }
        if record["engine"] is not None:
            return late_join_plan(ctx, game_id, record, {"id": player_id, "name": name, "fields": fields}, data,
                                  **plan)
        return Plan("player.joined", plan.pop("actor"), data, **plan)

    return append(ctx, game_id, build)[1]


def quit_game(ctx: Context, game_id: str, caller: Caller, body: dict[str, Any]) -> Callable[[Record], Plan]:
    """A player's own ``quit``: recorded like an ejection, with the player as its actor."""
    if caller.role != "player":
        raise forbidden("Only a player quits, with their own token; the GM removes a player with gm.eject.")
    load(QuitSchema, fields_of(body))
    player_id = caller.player_id or ""

    def build(record: Record) -> Plan:
        return leave_plan(ctx, game_id, record, player_id, "quit", "player.quit", player_id, {})

    return build


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
    return names.typed_names(engine.join_schema, load(engine.join_schema, extra))


# -- starting ----------------------------------------------------------------------------------

def start(ctx: Context, game_id: str, caller: Caller, idempotency_key: str | None = None) -> tuple[int, dict[str, Any]]:
    require_gm(caller, "start the game")

    def build(record: Record) -> Plan:
        if record["status"] == "paused" and record["phase"] is None:
            raise conflict("paused", "The game was paused during sign-up; resume it (gm.resume) before starting.")
        if record["status"] != "signup":
            raise conflict("already_started", "This game has already started.")
        engine = engine_for(record)
        players = players_for_engine(record)
        if len(players) < engine.meta.min_players:
            raise conflict("not_enough_players",
                           f"{engine.meta.title} needs at least {engine.meta.min_players} players; "
                           f"{len(players)} joined.")
        seed = seed_of(ctx, game_id)
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

        def before() -> None:
            deadlines.set_due(ctx.redis, game_id, clock.parse(spec["deadline"]))
            if ready:
                deadlines.due_by(ctx.redis, game_id, clock.now())

        return Plan(
            "game.started", GM_ACTOR, {"setup": setup, "phase": spec}, status=200,
            respond=lambda event: {**receipt(game_id, event, ctx.keys), "status": "running", "phase": spec},
            before=before,
            after=lambda event: phase_opened(ctx.queue, ctx.redis, game_id, spec, ready),
        )

    return append(ctx, game_id, build, caller, idempotency_key, {"start": True})


# -- orders ------------------------------------------------------------------------------------

def act(
    ctx: Context, game_id: str, caller: Caller, body: dict[str, Any], idempotency_key: str | None = None,
    record: Record | None = None, prefetched: Prefetched | None = None, trust: OnTrust | None = None,
) -> tuple[int, dict[str, Any]]:
    """``record``, ``prefetched`` and ``trust``: what the route already read or took on trust
    (see ``appending.append``)."""
    if caller.role == "public":
        raise unauthorized("Sending an order needs your player token (or the GM's).")
    kind = body.get("type")
    if not isinstance(kind, str) or not kind:
        raise invalid("Every order needs a 'type'.", {"type": ["Missing or not a string."]})
    if kind in GM_ACTIONS:
        require_gm(caller, kind)
        build = gm_actions.builder(ctx, game_id, kind, load(GM_ACTIONS[kind], fields_of(body)))
    elif kind == QUIT:
        build = quit_game(ctx, game_id, caller, body)
    else:
        build = _order_builder(ctx, game_id, caller, kind, body)
    return append(ctx, game_id, build, caller, idempotency_key, body, first=record, prefetched=prefetched,
                  trust=trust)


def _order_builder(
    ctx: Context, game_id: str, caller: Caller, kind: str, body: dict[str, Any]
) -> Callable[[Record], Plan]:
    on_behalf = body.get("on_behalf_of")

    def build(record: Record) -> Plan:
        engine = engine_for(record)
        spec = engine.actions.get(kind)
        if spec is None:
            known = ", ".join(sorted([*engine.actions, *GM_ACTIONS, QUIT]))
            raise invalid(f"Unknown order type {kind!r} for {engine.meta.title}.",
                          {"type": [f"Choose one of: {known}."]})
        actor = _actor_for(record, caller, spec.actor, on_behalf, kind)
        require_running(record)
        if clock.is_past(record["phase"]["deadline"]):
            raise conflict("deadline_passed", "The deadline for this phase has passed; the order was not recorded.",
                           {"deadline": record["phase"]["deadline"]})
        fields = {k: v for k, v in body.items() if k not in ("type", "on_behalf_of")}
        action = {"type": kind, **names.typed_names(spec.schema, load(spec.schema, fields))}
        state = record["engine"]
        try:
            admit(engine, state, actor, action, departed(record))
        except RuleError as exc:
            raise ApiError(exc.status, RULE_CODES[exc.status],
                           exc.message, {"rule": exc.rule, **exc.details}) from exc
        number = record["phase"]["number"]
        data: dict[str, Any] = {"phase": number, "action": action}
        if on_behalf is not None and caller.is_gm:
            data["entered_by"] = GM
        if spec.team_sees:
            data["teams"] = list(engine.teams(state, actor))  # who may see it, fixed as the order is sent
        if record["resolve_early"] and nobody_awaited(engine, engine.apply_action(state, actor, action)):
            return Plan("action.submitted", actor, data, phase=number, **resolve_early(ctx, game_id, number, "early"),
                        respond=lambda event: order_accepted(receipt(game_id, event, ctx.keys), record["phase"], True))
        return Plan("action.submitted", actor, data, phase=number,
                    respond=lambda event: order_accepted(receipt(game_id, event, ctx.keys), record["phase"], False))

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
    find_player(record, actor, "on_behalf_of")  # one who has left is refused by the gate, naming its rule
    return actor


