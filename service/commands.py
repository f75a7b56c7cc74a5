"""What callers can do to a game: create, join, start, and send orders — each read, decided, committed.

Every write request goes the same way, top down: ``Sender.read`` (the game, the token, a stored answer: from this
process's memory when it has them, else in one round trip), a pure decision (``orders``, ``gm_actions``,
``membership`` or the start and join below), then ``runtime.commit.commit``, which appends exactly once and
reacts.  A rejected request raises ApiError and appends nothing.
"""
from __future__ import annotations

import hashlib
import secrets
from typing import Any, Callable

import orjson
from marshmallow import ValidationError

from engines import registry
from engines.canonical import canonical_json, roundtrip, sha256_hex
from engines.contract import Engine, RuleError
from engines.driver import load_options
from engines.rng import Rng
from eventlog import clock, index, keys
from eventlog.events import ANYONE_ACTOR, GENESIS, GM_ACTOR, new_salt, now_iso, seal
from eventlog.requests import RequestId
from eventlog.store import Conflict, Guard, GuardFailed
from replays.fold import FoldError, Record, engine_for, players_for_engine
from replays.phases import phase_spec
from runtime.commit import Busy, Committed, Decision, KeyReused, Stale, UnknownGame, commit, replayed
from runtime.context import Context
from service import gm_actions, names, orders
from service.auth import Caller, KnownTokens, TokenLookup, new_token, role_value, scope_of, token_field
from service.errors import ApiError, conflict, corrupt_log, forbidden, invalid, not_found, unauthorized
from service.guards import fields_of, load, require_gm
from service.membership import changed, leave, still_playing
from service.schemas import GM_ACTIONS, QUIT, CreateGameSchema, JoinNameSchema, QuitSchema

JOIN_KEY_MIN = 16  # an Idempotency-Key that can fetch a token again must be hard to guess: a UUID is 36


# -- one way for every write -------------------------------------------------------------------

# What a request decides, given who sent it, its body and the seed (read only where ``needs_seed`` says).
Decider = Callable[[Caller, dict[str, Any], "str | None"], Callable[[Record, "int | None"], Decision]]


class Sender:
    """One write request to one game: its token, its Idempotency-Key and how its body is read."""

    def __init__(self, ctx: Context, known: KnownTokens, game_id: str, lookup: TokenLookup, key: str | None,
                 body: Callable[[], dict[str, Any]]) -> None:
        self.ctx, self.known, self.game_id, self.lookup, self.key, self._body = ctx, known, game_id, lookup, key, body

    def send(self, decider: Decider, needs_seed: Callable[[dict[str, Any]], bool] = lambda body: False
             ) -> tuple[int, dict[str, Any]]:
        """Read, decide, commit.  The caller and the record come from memory when this process has both (the
        append's guard then checks the token's role atomically); a refusal decided on them, or a failed guard,
        sends the request the same way again on what is read afresh, so its errors come in their order: 404,
        401/429, the body, a stored answer (a retry), then the rules."""
        remembered = self.known.get(self.game_id, self.lookup.digest) if self.lookup.digest else None
        record = self.ctx.loader.cached(self.game_id) if remembered is not None else None
        if remembered is not None and record is not None:
            caller, stored = remembered
            try:
                body = self._body()
                decide = self._decide(decider, caller, body, needs_seed)
            except ApiError:
                pass  # perhaps the remembered caller's fault: read afresh
            else:
                guard = Guard(token_field(caller.token_digest or ""), stored)
                try:
                    return self._answered(commit, self.ctx, self.game_id, decide, self._request(caller, body), record,
                                          guard, True)
                except (Stale, GuardFailed):
                    self.known.discard(self.game_id, caller.token_digest or "")
        record, caller, prior = self._read()
        body = self._body()
        request = self._request(caller, body)
        if prior is not None:
            return self._answered(replayed, request, prior)
        decide = self._decide(decider, caller, body, needs_seed)
        return self._answered(commit, self.ctx, self.game_id, decide, request, record)

    def _read(self) -> tuple[Record, Caller, bytes | None]:
        """The game's record, the caller and the key's stored answer, in one round trip."""
        lookup, store = self.lookup, self.ctx.store
        answer_of = RequestId.client(self.key, scope_of(lookup.digest), "") if self.key else None

        def also(pipe: Any) -> None:
            lookup.queue(pipe)
            if answer_of is not None:
                store.queue_answer(pipe, self.game_id, answer_of)

        try:
            record, replies = self.ctx.loader.load_with(self.game_id, also)
        except FoldError as exc:
            raise corrupt_log(self.game_id, exc.seq) from exc
        if record is None:
            raise not_found(f"No game {self.game_id!r}.")
        caller = lookup.caller(store, replies)
        if lookup.stored is not None:
            self.known.add(self.game_id, caller, lookup.stored)
        return record, caller, replies[-1] if answer_of is not None else None

    def _request(self, caller: Caller, body: dict[str, Any]) -> RequestId:
        if not self.key:
            return RequestId.own()
        return RequestId.client(self.key, scope_of(caller.token_digest), sha256_hex(_body_text(body)))

    def _decide(self, decider: Decider, caller: Caller, body: dict[str, Any],
                needs_seed: Callable[[dict[str, Any]], bool]) -> Callable[[Record, int | None], Decision]:
        seed = self.ctx.store.private_field(self.game_id, "seed") if needs_seed(body) else None
        return decider(caller, body, seed)

    def _answered(self, how: Callable[..., Committed | None], *args: Any) -> tuple[int, dict[str, Any]]:
        """What ``how`` committed (or found stored), as the API answers it."""
        try:
            done = how(*args)
        except KeyReused as exc:
            raise _reused() from exc
        except Busy as exc:
            raise ApiError(503, "busy", "The game is busy right now; please retry.",
                           headers={"Retry-After": "1"}) from exc
        except UnknownGame as exc:
            raise not_found(f"No game {self.game_id!r}.") from exc
        except FoldError as exc:
            raise corrupt_log(self.game_id, exc.seq) from exc
        assert done is not None  # a request's decision always makes an event or refuses
        return done.status, done.answer


def sender(ctx: Context, game_id: str, token: str | None, body: dict[str, Any], key: str | None = None,
           known: KnownTokens | None = None) -> Sender:
    """A write request made in this process (a simulation, a test), exactly as the API makes one from HTTP."""
    lookup = TokenLookup(game_id, f"Bearer {token}" if token else None)
    return Sender(ctx, known or KnownTokens(), game_id, lookup, key, lambda: body)


def _reused() -> ApiError:
    """The answer to a key stored with another body: the same key for a different request."""
    return invalid("This Idempotency-Key was already used with a different request body.",
                   {"Idempotency-Key": ["Reused with a different body."]}, code="idempotency_key_reused")


def _body_text(body: Any) -> str:
    """The request body in a stable form for its digest; a body the schemas will reject
    (a float, say) still gets one, so the request fails with a 422 and not a 500."""
    try:
        return canonical_json(body)
    except TypeError:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


# -- creating ----------------------------------------------------------------------------------

def create_game(ctx: Context, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    """A new game.  With an Idempotency-Key the game's id is derived from it, so a retry finds the game its lost
    answer created (and gets that answer, GM token included) instead of creating another."""
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
    _strong_key(key)
    seed = data["seed"] or secrets.token_hex(32)
    game_id = "g" + (hashlib.sha256(f"arbiter game id\n{key}".encode()).hexdigest()[:16] if key
                     else secrets.token_hex(8))
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
    event = seal(1, GENESIS, "game.created", ANYONE_ACTOR, event_data, at=now_iso(clock.now()), salt=new_salt())
    answer = {"game_id": game_id, "gm_token": gm_token, "seed_commitment": event_data["seed_commitment"],
              "type": engine.meta.name, "version": engine.meta.version, "status": "signup",
              "deadlines": event_data["deadlines"]}
    request = RequestId.client(key, "create", sha256_hex(_body_text(body))) if key else RequestId.own()
    try:
        appended = ctx.store.append(game_id, event, request=request, answer=request.seal(201, answer),
                                    private={"seed": seed, token_field(gm_digest): role_value("gm", gm_digest)})
    except Conflict as exc:  # a 64-bit id collision: astronomically unlikely, never silent
        raise ApiError(503, "busy", "Could not allocate a game id; please retry.") from exc
    if appended.replay is not None:
        try:
            return replayed(request, appended.replay).answer
        except KeyReused as exc:
            raise _reused() from exc
    ctx.redis.zadd(keys.GAMES, {game_id: clock.now().timestamp()})
    index.move(ctx.redis, game_id, "signup")
    return answer


def _strong_key(key: str | None) -> None:
    """A key that can fetch a token again (creating, joining) must be hard to guess."""
    if key is not None and len(key) < JOIN_KEY_MIN:
        raise invalid(f"An Idempotency-Key on this request must be at least {JOIN_KEY_MIN} characters "
                      "(a random UUID): its answer holds a token.",
                      {"Idempotency-Key": [f"At least {JOIN_KEY_MIN} characters."]})


# -- joining ----------------------------------------------------------------------------------

def join(sender: Sender) -> tuple[int, dict[str, Any]]:
    """Sign up; after the start only where the game takes late players (``Engine.change_members``)."""
    _strong_key(sender.key)
    token, token_digest = new_token()
    return sender.send(lambda caller, body, seed: _join_decider(caller, body, seed, token, token_digest),
                       needs_seed=lambda body: True)


def _join_decider(caller: Caller, body: dict[str, Any], seed: str | None, token: str, token_digest: str
                  ) -> Callable[[Record, int | None], Decision]:
    if caller.role == "player":
        raise forbidden("You have already joined this game; a player token cannot register others.")
    name = names.player_name(load(JoinNameSchema, {"name": body.get("name")})["name"])
    now = clock.now()

    def decide(record: Record, _phase: int | None) -> Decision:
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
        joined = Decision("player.joined", GM_ACTOR if caller.is_gm else ANYONE_ACTOR,
                          {"player_id": player_id, "name": name, "fields": fields}, now, 201,
                          {"game_id": record["game_id"], "player_id": player_id, "name": name, "token": token},
                          {token_field(token_digest): role_value("player", token_digest, player_id)})
        if record["engine"] is None:
            return joined
        orders.require_phase(record, None, None)  # a late join into a paused game is refused as an order would be
        change = {"kind": "join", "player": {"id": player_id, "name": name, "fields": fields}}
        return changed(record, change, joined, seed)

    return decide


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

def start(sender: Sender) -> tuple[int, dict[str, Any]]:
    return sender.send(_start_decider, needs_seed=lambda body: True)


def _start_decider(caller: Caller, body: dict[str, Any], seed: str | None
                   ) -> Callable[[Record, int | None], Decision]:
    require_gm(caller, "start the game")
    now = clock.now()

    def decide(record: Record, _phase: int | None) -> Decision:
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
        if seed is None:
            raise ApiError(500, "internal", "This game's seed is missing.")
        try:
            setup = roundtrip(engine.setup(record["options"], players, Rng(seed, "setup")))
            state = roundtrip(engine.initial_state(record["options"], players, setup))
        except RuleError as exc:
            raise conflict("cannot_start", exc.message, {"rule": exc.rule, **exc.details}) from exc
        phase = engine.phase(state)
        if phase is None:
            raise conflict("nothing_to_play", "These options leave nothing to play.")
        spec = phase_spec(record, phase.name, 1, now)
        return Decision("game.started", GM_ACTOR, {"setup": setup, "phase": spec}, now, 200,
                        {"status": "running", "phase": spec})

    return decide


# -- orders, quitting and the GM's actions ---------------------------------------------------------

def act(sender: Sender) -> tuple[int, dict[str, Any]]:
    return sender.send(_act_decider, needs_seed=lambda body: body.get("type") in (QUIT, "gm.eject"))


def _act_decider(caller: Caller, body: dict[str, Any], seed: str | None
                 ) -> Callable[[Record, int | None], Decision]:
    if caller.role == "public":
        raise unauthorized("Sending an order needs your player token (or the GM's).")
    kind = body.get("type")
    if not isinstance(kind, str) or not kind:
        raise invalid("Every order needs a 'type'.", {"type": ["Missing or not a string."]})
    now = clock.now()
    if kind in GM_ACTIONS:
        require_gm(caller, kind)
        data = load(GM_ACTIONS[kind], fields_of(body))
        return lambda record, phase: gm_actions.decide(record, kind, data, now, seed, phase)
    if kind == QUIT:
        if caller.role != "player":
            raise forbidden("Only a player quits, with their own token; the GM removes a player with gm.eject.")
        load(QuitSchema, fields_of(body))
        player_id = caller.player_id or ""
        return lambda record, phase: leave(record, player_id, "quit", "player.quit", player_id, {}, now, seed)
    return lambda record, phase: orders.decide(record, caller, body, now, phase)
