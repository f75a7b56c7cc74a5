"""``POST /v1/me/stream``: the games of many tokens on one connection (a bot in many games holds one stream, as a
lichess bot holds its account's event stream, instead of one per game).

The body names each game with its token (never in a URL) and, to resume, the seq to continue after.  The answer is
NDJSON, one line per item, each naming its game: ``{"game_id", "event"}`` (the event as that token sees it, as the
game's own stream shows it), ``{"game_id", "end"}`` when that game is over, ``{"game_id", "error"}`` for a token or
game refused (the error the game's own stream would answer; the others go on), empty lines as heartbeats, and a last
``{"end": {"reason": "finished"}}`` once every game has ended.  A game whose follower falls too far behind ends the
connection: reconnect with each game's ``after`` = the last seq you have.  Each game is followed by the same relay
as its own stream (streams/server.py), here with lines that name it."""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson
from aiohttp import web
from redis.exceptions import RedisError

from eventlog import keys
from eventlog.parting import resume_point
from replays.views import viewer_of
from service.auth import caller_for
from service.errors import ApiError
from service.guards import load
from service.schemas import FollowMyGamesSchema
from streams.hub import Hub
from streams.server import HUB, NDJSON, RESUME_DEPTH, Framing, _body, _error, open_stream, relay


TEXT = "text/plain"  # the same lines, for a client that asks for text (a generated client knows no NDJSON)


class Lines:
    """The connection's writer for every game's task: one whole write at a time."""

    def __init__(self, response: web.StreamResponse) -> None:
        self.response, self.lock = response, asyncio.Lock()

    async def write(self, data: bytes) -> None:
        async with self.lock:
            await self.response.write(data)


def framing(game_id: str) -> Framing:
    """Lines naming ``game_id``: each event as its own stream would show it, inside ``{"game_id", "event"}``."""
    named = orjson.dumps(game_id)
    return Framing(event=lambda _seq, body: b'{"event":%s,"game_id":%s}\n' % (body, named),
                   end=lambda seq, reason: orjson.dumps({"end": {"reason": reason, "seq": seq}, "game_id": game_id},
                                                        option=orjson.OPT_SORT_KEYS) + b"\n",
                   heartbeat=b"\n",
                   checkpoint=lambda body: b'{"checkpoint":%s,"game_id":%s}\n' % (body, named))


async def follow_my_games(request: web.Request) -> web.StreamResponse:
    hub = request.app[HUB]
    try:
        held = load(FollowMyGamesSchema, await _body(request))["tokens"]
    except ApiError as exc:
        return _error(exc.status, exc.code, exc.message, exc.details, exc.headers)
    accept = request.headers.get("Accept", "")
    response = await open_stream(request, TEXT if TEXT in accept and NDJSON not in accept else NDJSON)
    out = Lines(response)
    tasks = [asyncio.create_task(_one(request, hub, out, item)) for item in held]
    try:
        for finishing in asyncio.as_completed(tasks):
            if not await finishing:
                return response  # a follower dropped (too far behind) or the store went away: reconnect
        await out.write(b'{"end":{"reason":"finished"}}\n')
    except (ConnectionError, TimeoutError):
        pass
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
    return response


async def _one(request: web.Request, hub: Hub, out: Lines, item: dict[str, Any]) -> bool:
    """One game of the connection, to its end (True), or False if its follower was dropped or the store is away."""
    game_id, lines = item["game_id"], framing(item["game_id"])
    context = hub.context

    async def refused(code: str, message: str, details: dict[str, Any] | None = None) -> bool:
        error = {"code": code, "message": message, "details": details or {}}  # as the game's own stream says it
        await out.write(orjson.dumps({"error": error, "game_id": game_id}, option=orjson.OPT_SORT_KEYS) + b"\n")
        return code != "store_unavailable"

    if not keys.plausible_game_id(game_id):
        return await refused("not_found", f"No game {game_id!r}.")
    feed = follower = None
    try:
        caller = await asyncio.to_thread(caller_for, context.store, game_id, f"Bearer {item['token']}",
                                         request.remote or "-")
        viewer = viewer_of(caller.as_role())
        feed, follower = await hub.follow(game_id, viewer)
        if feed is None or feed.record is None:
            return await refused("not_found", f"No game {game_id!r}.")
        after = await asyncio.to_thread(resume_point, context.store, game_id, item["after"], feed.seq, RESUME_DEPTH)
        return await relay(out, context, game_id, feed.record, viewer, follower, feed.finished, after, feed.seq,
                           lines)
    except ApiError as exc:
        return await refused(exc.code, exc.message, exc.details)
    except RedisError:
        return await refused("store_unavailable", "The event store is not reachable right now; reconnect in a "
                             "moment.")
    finally:
        if follower is not None:
            hub.leave(feed, follower)
