"""The /v1 routes: each reads the caller, delegates, and filters what goes back out."""
from __future__ import annotations

import ctypes
import gc
import io
import threading
from typing import Any, Callable

from flask import Blueprint, current_app, request
from redis.cluster import RedisCluster
from redis.exceptions import RedisError

from engines import registry
from engines.contract import GM, PUBLIC, Viewer
from replays import audit as audits, export_stream
from replays import proofs
from replays import seek
from replays.fold import FoldError, Record, apply, empty
from replays.views import event_for, game_for, opens_at_end, viewer_of
from service import commands
from engines.canonical import sha256_hex
from eventlog import keys
from eventlog.events import Event
from service.auth import Caller, KnownTokens, TokenLookup, caller_for
from runtime import checkpoints
from runtime.context import Context
from service import listing
from service.errors import ApiError, corrupt_log, forbidden, not_found, unauthorized
from service.http import body_bytes, client_address, int_arg, json_body, json_shaped, reply
from service.schemas import loose_booleans, seed_warnings

v1 = Blueprint("v1", __name__, url_prefix="/v1")

VERIFY_LIMIT = 32 * 1024 * 1024


def ctx() -> Context:
    return current_app.config["ARBITER_CONTEXT"]


def _known_tokens() -> KnownTokens:
    return current_app.config["ARBITER_TOKENS"]


def _caller(game_id: str) -> Caller:
    return caller_for(ctx().store, game_id, request.headers.get("Authorization"), client_address())


def _record(game_id: str) -> Record:
    return _record_with(game_id, None)[0]


def _record_with(game_id: str, also: Callable[[Any], None] | None) -> tuple[Record, list[Any]]:
    """The record, and the replies to the reads ``also`` queued in the same round trip."""
    try:
        record, replies = ctx().loader.load_with(game_id, also) if keys.plausible_game_id(game_id) else (None, [])
    except FoldError as exc:
        raise corrupt_log(game_id, exc.seq) from exc
    if record is None:
        raise not_found(f"No game {game_id!r}.")
    return record, replies


def _may_see_everything(record: Record, caller: Caller) -> None:
    if record["status"] != "finished" and caller.role == "public":
        raise unauthorized("The full log is open to the GM (send the GM's token), and to everyone once the game is "
                           "finished.")
    if record["status"] != "finished" and not caller.is_gm:
        raise forbidden("The full log is open to the GM, and to everyone once the game is finished.")
    if _closed_at_end(record, caller):
        raise forbidden("This game's log stays closed at its end (reveal_at_end: rulebook): the audit and the full "
                        "export are the GM's. GET …/export gives you the log as you may read it, which `arbiter "
                        "verify` checks with your receipts.")


def _closed_at_end(record: Record, caller: Caller) -> bool:
    """A finished game whose GM chose that only what its rules reveal opens at the end, read by anyone but the GM."""
    return record["status"] == "finished" and not caller.is_gm and not opens_at_end(record)


def _full_log(game_id: str, own_view: bool = False) -> tuple[Record | None, Caller]:
    """The record and caller for audit and export.  A log that cannot be folded gives (None, GM) to its GM, who
    needs the audit and the raw events to diagnose it; everyone else gets the corrupt_log error.  ``own_view``:
    a log closed at the end is let through, for the caller's own view of it."""
    try:
        record = _record(game_id)
    except ApiError as exc:
        if exc.code != "corrupt_log":
            raise
        caller = _caller(game_id)
        if not caller.is_gm:
            raise
        return None, caller
    caller = _caller(game_id)
    if not (own_view and _closed_at_end(record, caller)):
        _may_see_everything(record, caller)
    return record, caller


def _seed_for(record: Record, caller: Caller) -> str | None:
    if record["status"] == "finished":
        return record["seed"]
    return ctx().store.private_field(record["game_id"], "seed") if caller.is_gm else None


@v1.after_request
def _challenge(response: Any) -> Any:
    """Every 401 says how to authenticate (RFC 6750), whichever route or check refused the token."""
    if response.status_code == 401:
        response.headers.setdefault("WWW-Authenticate", 'Bearer realm="arbiter"')
    return response


ROLLBACKS_SHOWN_S = 7 * 86400  # how long /v1/health reports a log that went back


@v1.get("/health")
def health() -> Any:
    import time

    redis = ctx().redis
    status = "ok"
    try:
        if isinstance(redis, RedisCluster):
            store = _cluster_health(redis)
            if not store["ok"]:
                status = "degraded"  # a primary lost: what it served answers 503, the rest is served
        else:
            info = redis.info("server")
            store = {"ok": True, "redis_version": info.get("redis_version")}
        rollbacks = ctx().store.rollbacks(time.time() - ROLLBACKS_SHOWN_S)
    except ApiError:
        raise
    except Exception as exc:
        raise ApiError(503, "store_unavailable", "The event store is not reachable.") from exc
    body: dict[str, Any] = {"status": status, "store": store, "stream_url": ctx().settings.stream_url}
    if rollbacks:  # the store lost writes (replays/loader.py): operators must hear of it
        body["log_rollbacks"] = [{**r, "message": f"game {r['game_id']}: the log went back from seq "
                                  f"{r['from_seq']} to {r['to_seq']} (found {r['at']})"} for r in rollbacks]
    return reply(body)


def _cluster_health(redis: RedisCluster) -> dict[str, Any]:
    """Each primary's view of the cluster (``cluster_state``, or unreachable), then whether the store answers at all:
    with ``cluster-require-full-coverage yes`` (Redis's default) one lost primary stops every command, a 503 here;
    with ``no`` the other primaries serve on, and health says ``degraded`` naming what is lost."""
    nodes: dict[str, str] = {}
    for node in redis.get_primaries():
        try:
            nodes[node.name] = str(node.redis_connection.cluster("info").get("cluster_state", "unknown"))
        except Exception:  # a node that does not answer is reported as such, whatever the client raised
            nodes[node.name] = "unreachable"
    store = {"ok": all(state == "ok" for state in nodes.values()), "cluster": {"primaries": nodes}}
    try:
        redis.exists(keys.GAMES)  # the store's own index: is anything served?
    except Exception as exc:
        raise ApiError(503, "store_unavailable", "The event store's Redis Cluster is not serving: "
                       + ", ".join(f"{name} {state}" for name, state in sorted(nodes.items())) + ".",
                       {"cluster": {"primaries": nodes}}, headers={"Retry-After": "1"}) from exc
    return store


@v1.get("/game-types")
def game_types() -> Any:
    from service.openapi import describe, options_json_schema

    types = []
    for name in registry.names():
        engine = registry.latest(name)
        types.append({**describe(engine), "versions": registry.versions(name),
                      "options_schema": options_json_schema(engine)})
    return reply({"game_types": types})


@v1.post("/games")
def create_game() -> Any:
    return _create(json_body())


def _create(body: dict[str, Any]) -> Any:
    """A new game from ``body`` (its type in it), once the admin token (if the server has one) is checked."""
    admin = current_app.config["ARBITER_SETTINGS"].admin_token
    if admin is not None:
        import hmac

        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {admin}".encode()):
            raise ApiError(401, "unauthorized", "This server only lets its admin create games.")
    engine = registry.latest(body["type"]) if isinstance(body.get("type"), str) else None
    loose = loose_booleans(engine.options_schema, body.get("options")) if engine is not None else {}
    if loose:
        raise ApiError(422, "invalid", "The options are not valid for this game type.", {"options": loose})
    answer = commands.create_game(ctx(), body, request.headers.get("Idempotency-Key"))
    return reply({**answer, "warnings": seed_warnings(body.get("seed"))}, 201)


def _sender(game_id: str, allow_empty: bool = False) -> commands.Sender:
    """The write request to ``game_id`` this route is serving (its body read when the request gets that far)."""
    lookup = TokenLookup(game_id, request.headers.get("Authorization"), client_address())
    if not keys.plausible_game_id(game_id):
        raise not_found(f"No game {game_id!r}.")
    return commands.Sender(ctx(), _known_tokens(), game_id, lookup, request.headers.get("Idempotency-Key"),
                           lambda: json_body(allow_empty=allow_empty))


@v1.post("/games/<game_id>/players")
def join(game_id: str) -> Any:
    status, body = commands.join(_sender(game_id))
    return reply(body, status)


@v1.post("/games/<game_id>/start")
def start(game_id: str) -> Any:
    status, body = commands.start(_sender(game_id, allow_empty=True))
    return reply(body, status)


@v1.post("/games/<game_id>/actions")
def act(game_id: str) -> Any:
    status, body = commands.act(_sender(game_id))
    return reply(body, status)


# -- conditional reads: a poller whose copy is current gets a 304 before anything is built ------------------

def _etag(record: Record, caller: Caller) -> str:
    """A strong validator for a read of this game: what it answers depends only on the log's head, who asks and
    the query (every body is built from the log alone and written with sorted keys).  The seq leads, so a client
    can see how far its copy goes; the viewer is hashed in, never shown."""
    basis = "|".join((request.path, request.query_string.decode("latin-1"), str(viewer_of(caller.as_role())),
                      str(record["seq"]), record["head_hash"] or ""))
    return f'"{record["seq"]}-{sha256_hex(basis)[:24]}"'


def _cache_headers(tag: str) -> dict[str, str]:
    # private: the body depends on the token; no-cache: a cache must ask again (cheaply, with If-None-Match).
    return {"ETag": tag, "Cache-Control": "private, no-cache", "Vary": "Authorization"}


def _not_modified(tag: str) -> Any | None:
    """The 304 for a client that holds this representation already (If-None-Match, weak comparison)."""
    if not request.if_none_match or not request.if_none_match.contains_weak(tag.strip('"')):
        return None
    response = reply(None, 304, headers=_cache_headers(tag))
    response.set_data(b"")
    return response


@v1.get("/games/<game_id>")
def game(game_id: str) -> Any:
    record = _record(game_id)
    caller = _caller(game_id)
    tag = _etag(record, caller)
    if (unchanged := _not_modified(tag)) is not None:
        return unchanged
    return reply(game_for(record, viewer_of(caller.as_role()), _seed_for(record, caller)), headers=_cache_headers(tag))


@v1.get("/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Any:
    """The board drawn from a view (``game_for``), so it shows nothing that view hides: the caller's own, or the one
    ``as`` names (``_viewer``), now or just after the event ``at``; the picture itself, or (``Accept:
    application/json``) the picture as a string with the seq it was drawn at."""
    import importlib

    record = _record(game_id)
    caller = _caller(game_id)
    viewer = _viewer(record, caller)
    at = int_arg("at", None, 1, record["seq"])
    view = game_for(record if at is None else seek.state_at(ctx().store, game_id, at)[0], viewer)["state"]
    if view is None:
        raise ApiError(409, "not_started", "The game had not started yet at that seq: there is no board to draw."
                       if at is not None else "The game has not started yet: there is no board to draw.")
    try:
        drawer = importlib.import_module(f"engines.{record['type'].replace('-', '_')}.board_svg")
    except ModuleNotFoundError as exc:
        raise not_found(f"No board picture for {record['type']!r}.") from exc
    tag = _etag(record, caller)
    if (unchanged := _not_modified(tag)) is not None:
        return unchanged
    svg = drawer.render(view)
    if request.accept_mimetypes.best_match(["image/svg+xml", "application/json"]) == "application/json":
        return reply({"game_id": game_id, "seq": at or record["seq"], "svg": svg}, headers=_cache_headers(tag))
    return current_app.response_class(svg, mimetype="image/svg+xml", headers={
        **_cache_headers(tag), "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        "X-Content-Type-Options": "nosniff"})


def _viewer(record: Record, caller: Caller) -> Viewer:
    """Whose view a read shows: the caller's own, or the one ``as`` names (``public``, ``gm`` or a player id).  Only
    the GM, who sees everything already, may name another viewer than their own or the public; whether that player
    exists is checked only then, so a refusal tells nobody else which players there are."""
    own = viewer_of(caller.as_role())
    asked = request.args.get("as")
    if asked is None:
        return own
    wanted = PUBLIC if asked == "public" else GM if asked == "gm" else asked
    if wanted == own or wanted is PUBLIC:
        return wanted
    if not caller.is_gm:
        raise forbidden("Only the game's GM may see the game as another player.")
    if not any(p["id"] == asked for p in record["players"]):
        raise ApiError(422, "invalid", "'as' must be public, gm or the id of one of this game's players.",
                       {"as": ["Must be public, gm or the id of one of the game's players."]})
    return wanted


@v1.get("/games/<game_id>/events")
def events(game_id: str) -> Any:
    record = _record(game_id)
    caller = _caller(game_id)
    after = int_arg("after", 0, 0, 2**53)
    limit = int_arg("limit", 100, 1, 1000)
    tag = _etag(record, caller)
    if (unchanged := _not_modified(tag)) is not None:
        return unchanged
    page = ctx().store.read(game_id, after=after, limit=limit)
    page = [e for e in page if e["seq"] <= record["seq"]]  # the page the tag names: nothing appended since
    viewer = viewer_of(caller.as_role())
    shown = [event_for(record, e, viewer) for e in page]
    next_after = page[-1]["seq"] if page and page[-1]["seq"] < record["seq"] else None
    return reply({"game_id": game_id, "events": shown, "next_after": next_after}, headers=_cache_headers(tag))


@v1.get("/games/<game_id>/replay")
def replay(game_id: str) -> Any:
    record = _record(game_id)
    caller = _caller(game_id)
    viewer = _viewer(record, caller)
    at = int_arg("at", None, 1, record["seq"])
    after = int_arg("after", 0, 0, 2**53)  # as on /events: past the end is an empty page, not an error
    limit = int_arg("limit", 100, 1, 500)
    tag = _etag(record, caller)
    if (unchanged := _not_modified(tag)) is not None:
        return unchanged
    if at is not None:  # from the nearest kept record at or below it (replays/seek.py), not the first event
        state, event = seek.state_at(ctx().store, game_id, at)
        return reply({"game_id": game_id, **_frame(record, state, event, viewer)}, headers=_cache_headers(tag))
    upto = min(record["seq"], after + limit)
    frames = []
    if after < upto:
        state = seek.state_at(ctx().store, game_id, after)[0] if after else empty()
        for event in ctx().store.read(game_id, after=after, limit=upto - after):
            state = apply(state, event)
            frames.append(_frame(record, state, event, viewer))
    next_after = upto if upto < record["seq"] else None
    return reply({"game_id": game_id, "frames": frames, "next_after": next_after}, headers=_cache_headers(tag))


def _frame(record: Record, state: Record, event: Event, viewer: Viewer) -> dict[str, Any]:
    """One replay frame: the event as ``viewer`` sees it, and the game just after it."""
    return {"seq": event["seq"], "event": event_for(record, event, viewer),
            "view": game_for(state, viewer) if state.get("game_id") else None}


@v1.get("/games/<game_id>/audit")
def audit(game_id: str) -> Any:
    record, caller = _full_log(game_id)
    seed = _seed_for(record, caller) if record is not None else ctx().store.private_field(game_id, "seed")
    return reply(audits.audit(ctx().store.read(game_id), seed))


@v1.get("/games/<game_id>/export")
def export(game_id: str) -> Any:
    record, caller = _full_log(game_id, own_view=True)
    events = ctx().store.read(game_id)
    if record is not None and _closed_at_end(record, caller):
        viewer = viewer_of(caller.as_role())
        shown = [event_for(record, event, viewer) for event in events[: record["seq"]]]
        document = audits.export_view(record, shown, viewer or "public")
    elif record is None:
        document = audits.export_unfoldable(game_id, events)
    else:
        document = audits.export(record, events[: record["seq"]])
    # The game's signed checkpoints and the keys that verify them: a truncation or a rewrite of this file shows
    # against them (replays/proofs.py).
    document.update(checkpoints=checkpoints.stored(ctx(), game_id), keys=[k["vkey"] for k in ctx().keys.listing()])
    return reply(document, headers={"Content-Disposition": f'attachment; filename="{game_id}.json"'})


@v1.get("/keys")
def signing_keys() -> Any:
    """The keys that sign receipts and checkpoints, in C2SP verifier-key form: the signing one and the retired."""
    return reply({"keys": ctx().keys.listing()})


@v1.get("/games/<game_id>/checkpoint")
def checkpoint(game_id: str) -> Any:
    """The log's head, signed now (a C2SP checkpoint): anyone may ask, as anyone may read the head hash."""
    record = _record(game_id)
    note = checkpoints.sign_head(ctx(), game_id, record["seq"], record["head_hash"])
    return reply({"game_id": game_id, "seq": record["seq"], "head_hash": record["head_hash"], "note": note})


@v1.get("/games/<game_id>/report")
def report(game_id: str) -> Any:
    from engines.contract import RuleError
    from replays.fold import engine_for

    record = _record(game_id)
    caller = _caller(game_id)
    engine = engine_for(record)
    if not hasattr(engine, "report"):
        raise not_found(f"{engine.meta.title} has no turn report.")
    if record["engine"] is None:
        raise ApiError(409, "not_started", "The game has not started yet.")
    fmt = request.args.get("format", "json")
    if fmt not in ("json", "text", "markdown", "bbcode"):
        raise ApiError(422, "invalid", "'format' must be json, text, markdown or bbcode.",
                       {"format": ["Must be one of json, text, markdown, bbcode."]})
    number = int_arg("round", None, 1, 10_000)
    tag = _etag(record, caller)
    if (unchanged := _not_modified(tag)) is not None:
        return unchanged
    viewer = viewer_of(caller.as_role())
    try:
        body = engine.report(record["engine"], number, "json", viewer)
        if number is None and isinstance(body, dict):
            number = body.get("round")  # "the latest" answers with the round it is
        if fmt != "json":
            body = engine.report(record["engine"], number, fmt, viewer)
    except RuleError as exc:
        raise ApiError(exc.status if exc.status != 422 else 404, "no_such_round", exc.message, exc.details) from exc
    # One shape for every format: "report" holds the JSON object, or the text ready to paste.
    return reply({"game_id": game_id, "round": number, "format": fmt, "report": body}, headers=_cache_headers(tag))


# Verifying a whole export costs memory (a 31 MiB export grew a worker by ~600 MiB): each API process verifies at
# most VERIFY_AT_ONCE at a time (more get 503 busy before their body is read), each client address may start
# VERIFY_PER_MINUTE verifications of exports over VERIFY_SMALL a minute, and the process gives the memory back.
VERIFY_AT_ONCE = 1  # a 31 MiB export: its bytes and the audit's part (docs/reliability.md)
VERIFY_PER_MINUTE = 10   # of the large ones, per client address
VERIFY_SMALL = 1024 * 1024  # an export up to this size costs little and is not counted (most games' are far smaller)
_verifying = threading.BoundedSemaphore(VERIFY_AT_ONCE)


@v1.post("/replays/verify")
def verify() -> Any:
    large = request.content_length is None or request.content_length > VERIFY_SMALL
    if large:
        _verify_rate(client_address())
    if not _verifying.acquire(blocking=False):
        raise ApiError(503, "busy", f"This server is verifying {VERIFY_AT_ONCE} exports already; retry in a few "
                       "seconds, or run `arbiter verify FILE` on your own machine.", headers={"Retry-After": "5"})
    try:
        raw = body_bytes(VERIFY_LIMIT)
        json_shaped(raw, request.mimetype, VERIFY_LIMIT)
        request._cached_data = b""  # type: ignore[attr-defined]  # held here alone, let go as soon as it is read
        source = io.BytesIO(raw)
        del raw
        try:
            report, document = export_stream.verify(source)  # read as it streams: never parsed whole
            given, vkeys = document.get("notes") or [], document.get("vkeys")
            if not isinstance(given, list) or not isinstance(vkeys, (list, type(None))):
                raise ValueError("'notes' and 'vkeys' are lists")
            return reply(proofs.check(document, report, given, proofs.verifiers(vkeys) if vkeys is not None else
                                      ctx().keys.verifiers(), "given" if vkeys is not None else "this server's"))
        except export_stream.NotJson as exc:
            raise ApiError(400, exc.code, str(exc), {"key": exc.key} if exc.key is not None else None) from exc
        except ValueError as exc:
            raise ApiError(422, "not_an_export", str(exc), {"format": [str(exc)]}) from exc
        finally:
            source.close()
    finally:
        _verifying.release()
        if large:  # a full collection costs a second or more in a big process: worth it after a large export only
            _give_memory_back()


def _verify_rate(client: str) -> None:
    """At most VERIFY_PER_MINUTE large verifications a minute per client address, counted on the store; a store that
    does not answer does not stop a verification, which needs no store."""
    key = f"arbiter:verify-rate:{client}"
    try:
        pipe = ctx().redis.pipeline(transaction=True)
        pipe.incr(key)
        pipe.expire(key, 60, nx=True)
        pipe.ttl(key)
        count, _, ttl = pipe.execute()
    except RedisError:
        return
    if count > VERIFY_PER_MINUTE:
        wait = max(int(ttl), 1)
        raise ApiError(429, "too_many_requests", f"At most {VERIFY_PER_MINUTE} verifications of large exports a "
                       f"minute from one address; retry in {wait} s, or run `arbiter verify FILE` on your own machine.",
                       {"retry_after": wait}, headers={"Retry-After": str(wait),
                                                       "RateLimit-Policy": f'"verify";q={VERIFY_PER_MINUTE};w=60',
                                                       "RateLimit": f'"verify";r=0;t={wait}'})


def _give_memory_back() -> None:
    """Collect what the verification left and hand freed heap back to the OS (glibc keeps it otherwise)."""
    gc.collect()
    if _libc is not None:
        _libc.malloc_trim(0)


try:
    _libc: Any = ctypes.CDLL("libc.so.6")
except OSError:  # not glibc: the memory is reused by the next request instead
    _libc = None


# -- lists of games ---------------------------------------------------------------------------------

@v1.get("/games")
def list_games() -> Any:
    limit = int_arg("limit", 20, 1, 100)
    args = request.args
    return reply(listing.list_games(ctx(), args.get("type"), args.get("status"), args.get("after"), limit or 20))


@v1.post("/me/games")
def my_games() -> Any:
    """Tokens come in the body (many at once, never in a URL that logs keep)."""
    return reply(listing.my_games(ctx(), json_body(), client_address()))


# -- each game type's typed operations (service/openapi.py): the generic ones, for games of that type --------

def _of_type(game_type: str, game_id: str) -> None:
    if _record(game_id)["type"] != game_type:
        raise not_found(f"No {game_type} game {game_id!r}.")


@v1.post("/game-types/<game_type>/games")
def typed_create(game_type: str) -> Any:
    """The body has no type: the path says it (a type in the body too is refused, not overridden)."""
    if registry.latest(game_type) is None:
        raise not_found(f"No game type {game_type!r}.")
    body = json_body()
    if "type" in body:
        raise ApiError(422, "invalid", "The path names the game type; leave 'type' out of the body.",
                       {"type": ["Unknown field."]})
    return _create({**body, "type": game_type})


def _typed(generic: Callable[[str], Any]) -> Callable[..., Any]:
    """``generic`` (a /v1/games/{game_id}... route) for a game of the path's type only."""
    def route(game_type: str, game_id: str) -> Any:
        _of_type(game_type, game_id)
        return generic(game_id)
    return route


for _suffix, _generic, _method in (("", game, "GET"), ("/players", join, "POST"), ("/actions", act, "POST"),
                                   ("/events", events, "GET"), ("/replay", replay, "GET")):
    v1.add_url_rule(f"/game-types/<game_type>/games/<game_id>{_suffix}", f"typed_{_generic.__name__}",
                    _typed(_generic), methods=[_method])
