"""The stream process: ``GET /v1/games/{id}/stream``, each follower's view of every new event as it is appended.

An asyncio server (aiohttp), apart from the API's gunicorn workers: a follower is an open connection and a
small queue here, never a request thread there, so the order path keeps its workers however many follow.
One subscription to the append notices per process feeds every follower (``streams/hub.py``).

Two formats, by ``Accept`` (or ``?format=sse|ndjson``): ``text/event-stream`` (SSE: ``id:`` is the event's
seq, so a browser's EventSource resumes with ``Last-Event-ID``; ``event: end`` when the game is over) and
``application/x-ndjson`` (the default: one event per line, a last line ``{"end": ...}``).  After an event that
closed a phase, both send the game's signed checkpoint at its seq (``event: checkpoint``, a ``{"checkpoint"}``
line).  Heartbeats (an SSE
comment, an empty NDJSON line) keep idle connections open through proxies.

Who follows: ``Authorization: Bearer`` (a bot, a script), a one-time ``?ticket=`` from
``POST /v1/games/{id}/stream-tickets`` (a browser's EventSource, which cannot send headers; service/tickets.py),
or nobody (the public).  The access log names the path only, never the query string.

The process also serves the rest of following a game live (streams/live.py): the stream tickets (issued where
they are spent) and the webhooks' registration and delivery logs.  A front end talks to the API for the game
and to this process for everything live.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Protocol

import orjson
from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.web_protocol import RequestHandler
from redis.exceptions import RedisError

from engines.contract import Viewer
from eventlog import keys
from replays.views import viewer_of
from runtime import checkpoints
from runtime.config import Settings
from runtime.context import Context, use
from service.auth import caller_for
from service.app import STATUS_CODES
from service.errors import ApiError, unauthorized
from service.http import GUNICORN_CODES, parse_object
from service.tickets import redeem
from streams import live
from eventlog.parting import resume_point
from streams.hub import DROPPED, END, Hub, Rewind, Signed, shown, signed
from streams.webhooks import Kicker

log = logging.getLogger("arbiter.streams")

HEARTBEAT_S = float(os.environ.get("ARBITER_STREAM_HEARTBEAT", "15"))
WRITE_TIMEOUT_S = 30.0   # a client that takes no bytes for this long is let go
PAGE = 500               # events read from the store at a time while catching a follower up
RESUME_DEPTH = 2000      # how far back from the head a follower resuming past it is looked back for (a rollback)
SSE, NDJSON = "text/event-stream", "application/x-ndjson"
CORS = {"Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Headers": "Authorization, Content-Type, Last-Event-ID",
        "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS", "Access-Control-Max-Age": "600"}
MAX_BODY = 64 * 1024
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)


class PathOnlyLog(AbstractAccessLogger):
    """Access log lines with the path, never the query (which may hold a stream ticket)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info('%s "%s %s" %s %.3fs', request.remote, request.method, request.path, response.status, time)


def _error(status: int, code: str, message: str, details: dict[str, Any] | None = None,
           headers: dict[str, str] | None = None) -> web.Response:
    body = orjson.dumps({"error": {"code": code, "message": message, "details": details or {}}},
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)  # a list item's errors: {"0": ...}
    return web.Response(body=body, status=status, content_type="application/json", headers={**CORS, **(headers or {})})


def _http_error(status: int, message: str | None, headers: dict[str, str] | None = None) -> web.Response:
    """aiohttp's own refusals (no such route, a method the route lacks, a request it cannot parse) as the API
    answers them: the JSON envelope, CORS, and ``Allow`` with a 405."""
    if status == 404:
        message = "No such endpoint of the stream process; see the Live operations in /v1/openapi.json."
    elif status >= 500:
        message = "Something went wrong on our side."
    return _error(status, STATUS_CODES.get(status) or GUNICORN_CODES.get(status, "http_error"),
                  message or "The request was refused.",
                  headers=headers)


@web.middleware
async def _envelope(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        return _http_error(exc.status, exc.reason, allow)


def json_protocol_errors() -> None:
    """What aiohttp answers before any handler runs (a request line or header it cannot parse: 400; a handler
    that failed: 500) in the envelope too.  Its ``RequestHandler.handle_error`` builds those answers as text:
    this process's replacement logs as it does and answers JSON (the API does the same to gunicorn's)."""
    original = RequestHandler.handle_error
    if getattr(original, "arbiter_json", False):
        return

    def handle_error(self: RequestHandler, request: web.BaseRequest, status: int = 500,
                     exc: BaseException | None = None, message: str | None = None) -> web.StreamResponse:
        original(self, request, status, exc, message)  # logs it; raises if an answer was already under way
        response = _http_error(status, message)
        response.force_close()
        return response

    handle_error.arbiter_json = True  # type: ignore[attr-defined]
    RequestHandler.handle_error = handle_error  # type: ignore[method-assign]


def _unavailable() -> web.Response:
    """Redis down or frozen: a 503 to retry, as the API answers it."""
    return _error(503, "store_unavailable", "The event store is not reachable right now; retry in a moment.",
                  headers={"Retry-After": "1"})


def _format(request: web.Request) -> str | None:
    wanted = request.query.get("format")
    if wanted is not None:
        return {"sse": SSE, "ndjson": NDJSON}.get(wanted)
    accept = request.headers.get("Accept", "")
    return SSE if SSE in accept else NDJSON


def _after(request: web.Request) -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.query.get("after") or "0"
    return int(raw) if raw.isdigit() and len(raw) <= 16 else None


async def _viewer(request: web.Request, context: Context, game_id: str) -> Viewer:
    ticket = request.query.get("ticket")
    if ticket is not None:
        caller = await asyncio.to_thread(redeem, context.store, game_id, ticket)
        if caller is None:
            raise unauthorized("This stream ticket is unknown, spent or expired; ask for another "
                               "(POST /v1/games/{id}/stream-tickets).")
    else:
        caller = await asyncio.to_thread(caller_for, context.store, game_id, request.headers.get("Authorization"),
                                         request.remote or "-")
    return viewer_of(caller.as_role())


def _frame(fmt: str, seq: int, body: bytes) -> bytes:
    return b"id: %d\ndata: %s\n\n" % (seq, body) if fmt == SSE else body + b"\n"


def _checkpoint(fmt: str, body: bytes) -> bytes:
    """A signed checkpoint after the event that closed a phase: its own SSE event type (no ``id:``, so
    ``Last-Event-ID`` stays the event's seq, and ``onmessage`` listeners never see it), an NDJSON line of its own."""
    return b"event: checkpoint\ndata: %s\n\n" % body if fmt == SSE else b'{"checkpoint":%s}\n' % body


def _end(fmt: str, seq: int, reason: str) -> bytes:
    body = orjson.dumps({"end": {"reason": reason, "seq": seq}})
    return b"event: end\ndata: %s\n\n" % body if fmt == SSE else body + b"\n"


async def stream(request: web.Request) -> web.StreamResponse:
    hub = request.app[HUB]
    context = hub.context
    game_id = request.match_info["game_id"]
    fmt, after = _format(request), _after(request)
    if fmt is None:
        return _error(422, "invalid", "'format' must be sse or ndjson.", {"format": ["Must be sse or ndjson."]})
    if after is None:
        return _error(422, "invalid", "'after' (or Last-Event-ID) must be a whole number of at least 0.",
                      {"after": ["Must be a whole number."]})
    if not keys.plausible_game_id(game_id):
        return _error(404, "not_found", f"No game {game_id!r}.")
    try:
        viewer = await _viewer(request, context, game_id)
        feed, follower = await hub.follow(game_id, viewer)
    except ApiError as exc:
        headers = {**exc.headers, **({"WWW-Authenticate": 'Bearer realm="arbiter"'} if exc.status == 401 else {})}
        return _error(exc.status, exc.code, exc.message, exc.details, headers)
    except RedisError:
        return _unavailable()
    try:
        if feed is None or feed.record is None:
            return _error(404, "not_found", f"No game {game_id!r}.")
        record, upto = feed.record, feed.seq   # the follower's queue holds everything after ``upto``
        # A follower that may have seen events the log lost is started from what the log kept (eventlog.parting).
        after = await asyncio.to_thread(resume_point, context.store, game_id, after, upto, RESUME_DEPTH)
        if feed.finished and after >= upto and fmt == SSE:
            return web.Response(status=204, headers=CORS)  # an EventSource reconnecting to a finished game stops
        response = await open_stream(request, fmt)
        if fmt == SSE:
            await response.write(b"retry: 2000\n\n")
        await relay(response, context, game_id, record, viewer, follower, feed.finished, after, upto,
                    Framing(partial(_frame, fmt), partial(_end, fmt), b": heartbeat\n\n" if fmt == SSE else b"\n",
                            partial(_checkpoint, fmt)))
        return response
    except (ConnectionError, TimeoutError):
        return web.Response(status=499)
    finally:
        hub.leave(feed, follower)


async def open_stream(request: web.Request, fmt: str) -> web.StreamResponse:
    """A streamed answer's status line and headers, sent."""
    response = web.StreamResponse(headers={**CORS, "Content-Type": f"{fmt}; charset=utf-8",
                                           "Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"})
    await response.prepare(request)
    return response


@dataclass(frozen=True)
class Framing:
    """How one game's events go on a connection: its own stream's (SSE or NDJSON), or a line per event of many
    games' (streams/many.py).  ``event(seq, body)``, ``end(seq, reason)``, the heartbeat an idle game sends, and
    ``checkpoint(body)``, the signed checkpoint after an event that closed a phase."""

    event: Callable[[int, bytes], bytes]
    end: Callable[[int, str], bytes]
    heartbeat: bytes
    checkpoint: Callable[[bytes], bytes]


class Writer(Protocol):
    async def write(self, data: bytes) -> None: ...


async def relay(out: Writer, context: Context, game_id: str, record: Any, viewer: Viewer, follower: Any,
                finished: bool, last: int, upto: int, framing: Framing) -> bool:
    """One follower's events: what it missed after ``last`` (from the log, up to ``upto``, where its queue takes
    over), then what the feed hands it, until the game's end (True) or the follower is dropped (False).  Each
    event that closed a phase is followed by the game's checkpoint at its seq, when kept."""
    stored = await asyncio.to_thread(checkpoints.kept, context, game_id) if last < upto else {}
    signed_upto = 0  # the last checkpoint written: the feed may offer it again
    while last < upto:  # what was missed, from the log, judged by the game as it stands
        page = await asyncio.to_thread(context.store.read, game_id, last, min(PAGE, upto - last))
        if not page:
            break
        frames = []
        for e in page:
            frames.append(framing.event(e["seq"], shown(record, e, viewer)))
            note = stored.get((e["seq"], e["hash"]))
            if note is not None:
                frames.append(framing.checkpoint(signed(e["seq"], e["hash"], note).body))
                signed_upto = e["seq"]
        async with asyncio.timeout(WRITE_TIMEOUT_S):
            await out.write(b"".join(frames))
        last = page[-1]["seq"]
    if finished:
        await out.write(framing.end(upto, "finished"))
        return True
    return await _follow(out, follower, framing, last, signed_upto)


async def _follow(response: Writer, follower: Any, framing: Framing, last: int, signed_upto: int) -> bool:
    """Write what the feed hands the follower, as it comes; True at the game's end, False if dropped.
    ``asyncio.timeout`` rather than ``wait_for``, and a queued item taken without waiting: ``wait_for`` makes a
    task per call, per follower and event."""
    heartbeat = framing.heartbeat
    queue = follower.queue
    while True:
        if queue.empty():
            try:
                async with asyncio.timeout(HEARTBEAT_S):
                    item = await queue.get()
            except TimeoutError:
                async with asyncio.timeout(WRITE_TIMEOUT_S):
                    await response.write(heartbeat)
                continue
        else:
            item = queue.get_nowait()
        if item is DROPPED:
            return False  # too far behind: the client resumes from its last seq
        if item is END:
            await response.write(framing.end(last, "finished"))
            return True
        if isinstance(item, Rewind):  # the log went back: its events after item.seq follow, the notice first
            last, signed_upto = item.seq, min(signed_upto, item.seq)
            continue
        if isinstance(item, Signed):  # after its event, once (the log's catch-up may have written it)
            if signed_upto < item.seq <= last:
                async with asyncio.timeout(WRITE_TIMEOUT_S):
                    await response.write(framing.checkpoint(item.body))
                signed_upto = item.seq
            continue
        seq, body = item
        if seq <= last:
            continue
        async with asyncio.timeout(WRITE_TIMEOUT_S):
            await response.write(framing.event(seq, body))
        last = seq


# -- the live API: stream tickets and webhooks (streams/live.py) ------------------------------------------------
async def _body(request: web.Request) -> dict[str, Any]:
    """The request body as a JSON object, or the API's 400/413/415 for it (the API's own parser)."""
    return parse_object(await request.content.read(MAX_BODY + 1), request.content_type, MAX_BODY)


def _live(handler: Any, with_body: bool = False) -> Any:
    """An aiohttp handler running ``handler(context, game_id, [hook_id], header, client, [body])`` on the pool."""

    async def serve(request: web.Request) -> web.Response:
        context = request.app[HUB].context
        ids = [request.match_info["game_id"], *([request.match_info["hook_id"]] if "hook_id" in request.match_info
                                                else [])]
        try:
            body = [await _body(request)] if with_body else []
            status, answer = await asyncio.to_thread(handler, context, *ids, request.headers.get("Authorization"),
                                                     request.remote or "-", *body)
        except ApiError as exc:
            headers = {**exc.headers, **({"WWW-Authenticate": 'Bearer realm="arbiter"'} if exc.status == 401
                                         else {})}
            return _error(exc.status, exc.code, exc.message, exc.details, headers)
        except RedisError:
            return _unavailable()
        return web.Response(body=orjson.dumps(answer, option=orjson.OPT_SORT_KEYS), status=status,
                            content_type="application/json", headers=CORS)

    return serve


async def preflight(request: web.Request) -> web.Response:
    return web.Response(status=204, headers=CORS)


async def health(request: web.Request) -> web.Response:
    hub = request.app[HUB]
    body = {"status": "ok" if hub.subscribed.is_set() else "starting", "followers": hub.followers,
            "games": len(hub.feeds), "notices": hub.notices}
    return web.Response(body=orjson.dumps(body), content_type="application/json", headers=CORS)


def create_app(context: Context, hub: Hub | None = None, kicker: Kicker | None = None) -> web.Application:
    """The app; with a ``kicker``, this process also has the workers deliver webhooks as games move on."""
    json_protocol_errors()
    app = web.Application(middlewares=[_envelope])
    app[HUB] = hub = hub or Hub(context)
    if kicker is not None:
        hub.on_append, hub.on_subscribed = kicker.heard, kicker.subscribed

    async def subscription(app: web.Application) -> Any:
        tasks = [asyncio.create_task(hub.run()), *([asyncio.create_task(kicker.run())] if kicker else [])]
        yield
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app.cleanup_ctx.append(subscription)
    app.router.add_get("/v1/games/{game_id}/stream", stream)
    app.router.add_route("OPTIONS", "/v1/games/{game_id}/stream", preflight)
    app.router.add_get("/v1/stream-health", health)
    from streams.many import follow_my_games  # it builds on this module's relay

    app.router.add_post("/v1/me/stream", follow_my_games)
    app.router.add_route("OPTIONS", "/v1/me/stream", preflight)
    app.router.add_post("/v1/games/{game_id}/stream-tickets", _live(live.ticket))
    app.router.add_post("/v1/games/{game_id}/webhooks", _live(live.add_webhook, with_body=True))
    app.router.add_get("/v1/games/{game_id}/webhooks", _live(live.list_webhooks))
    app.router.add_get("/v1/games/{game_id}/webhooks/{hook_id}", _live(live.read_webhook))
    app.router.add_delete("/v1/games/{game_id}/webhooks/{hook_id}", _live(live.delete_webhook))
    for path in ("/v1/games/{game_id}/stream-tickets", "/v1/games/{game_id}/webhooks",
                 "/v1/games/{game_id}/webhooks/{hook_id}"):
        app.router.add_route("OPTIONS", path, preflight)
    return app


def serve(host: str = "127.0.0.1", port: int = 8001) -> None:
    """Run the stream process until it is stopped (``arbiter stream``)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    context = Context(Settings.from_env())
    use(context)
    # handler_cancellation: a client that hangs up is let go at once (its follower leaves the feed), not at the
    # next write.
    web.run_app(create_app(context, kicker=Kicker(context)), host=host, port=port,
                access_log_class=PathOnlyLog, handler_cancellation=True, shutdown_timeout=2,
                print=lambda text: print(text, flush=True))
