"""Following games live (streams/, service/live.py): documented here, added where the document is assembled."""
from __future__ import annotations

from typing import Any

import orjson

from service.openapi.parts import error_responses, game_id_param, query_param, ref, request_body, responses


def live_schemas() -> dict[str, dict[str, Any]]:
    nullable_int = {"type": "integer", "nullable": True}
    hook = {"type": "object", "required": ["id", "url", "viewer", "created_at", "delivered", "attempts", "status"],
            "properties": {
                "id": {"type": "string"}, "url": {"type": "string"},
                "viewer": {"type": "string", "nullable": True, "description": "Whose view the hook gets: null for the "
                           "public, gm, or the player id of a player's own hook."},
                "created_at": {"type": "string", "format": "date-time"},
                "delivered": {"type": "integer", "description": "The last seq the receiver acknowledged."},
                "attempts": {"type": "integer", "description": "Failed attempts at the next event, so far."},
                "status": {"type": "string", "enum": ["ok", "retrying", "failing"]},
                "last_error": {"type": "string", "nullable": True},
                "next_attempt_at": {"type": "string", "format": "date-time", "nullable": True,
                                    "description": "When the next retry is due, while retrying."},
                "secret": {"type": "string", "description": "Only in the answer that creates the hook: the key of "
                           "each delivery's Arbiter-Signature (HMAC-SHA256 over '<t>.' + body)."}}}
    delivery = {"type": "object", "required": ["seq", "at", "status", "error", "attempt", "ms"], "properties": {
        "seq": {"type": "integer"}, "at": {"type": "string", "format": "date-time"}, "status": nullable_int,
        "error": {"type": "string", "nullable": True}, "attempt": {"type": "integer"}, "ms": {"type": "integer"}}}
    return {
        "StreamTicket": {"type": "object", "required": ["ticket", "expires_in", "stream"], "properties": {
            "ticket": {"type": "string"}, "expires_in": {"type": "integer", "example": 60},
            "stream": {"type": "string", "description": "The stream's path with the ticket, on the stream process."}}},
        "NewWebhook": {"type": "object", "required": ["url"], "additionalProperties": False, "properties": {
            "url": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "http(s), on a public "
                    "address (the server refuses loopback, private and link-local ones unless its admin allows)."},
            "view": {"type": "string", "enum": ["public", "gm", "own"], "description": "The GM's hooks: public "
                     "(default) or gm; a player's hook: own (their view), the only choice."},
            "after": {"type": "integer", "minimum": 0, "description": "Deliver the events after this seq (default: "
                      "only those to come)."}}},
        "Webhook": hook,
        "WebhookList": {"type": "object", "required": ["game_id", "webhooks"], "properties": {
            "game_id": {"type": "string"}, "webhooks": {"type": "array", "items": ref("Webhook")}}},
        "WebhookDelivery": delivery,
        "WebhookLog": {"allOf": [ref("Webhook"), {"type": "object", "required": ["deliveries"], "properties": {
            "deliveries": {"type": "array", "items": ref("WebhookDelivery"), "description": "Newest first, the "
                           "last 100."}}}]},
        "WebhookDeleted": {"type": "object", "required": ["deleted"], "properties": {"deleted": {"type": "string"}}},
        "WebhookBody": {"type": "object", "required": ["hook_id", "game_id", "event"], "properties": {
            "hook_id": {"type": "string"}, "game_id": {"type": "string"}, "event": ref("Event")}},
        "StreamCheckpoint": {"type": "object", "required": ["checkpoint"], "properties": {
            "checkpoint": SIGNED_CHECKPOINT}, "description": "After an event that closed a phase (and so after the "
            "last): the game's signed checkpoint at its seq, as its export carries it (SSE: event: checkpoint)."},
        "StreamEnd": {"type": "object", "required": ["end"], "properties": {"end": {
            "type": "object", "required": ["reason", "seq"], "properties": {
                "reason": {"type": "string", "enum": ["finished"]}, "seq": {"type": "integer"}}}}},
    }


SIGNED_CHECKPOINT = {"type": "object", "required": ["seq", "head_hash", "note"], "properties": {
    "seq": {"type": "integer", "description": "The event that closed the phase: the checkpoint's size."},
    "head_hash": {"type": "string", "description": "That event's hash: the checkpoint's root hash, in hex."},
    "note": {"type": "string", "description": "The C2SP signed checkpoint note (as getCheckpoint's); verify it with "
             "a key of GET /v1/keys."}}}


STREAM = ("Served by the stream process (`arbiter stream`, port 8001 under `arbiter up`; GET /v1/health's "
          "stream_url says where), not the API, as are the stream tickets and the webhooks (these paths' servers). "
          "`GET /v1/games/{game_id}/stream` sends the caller's view of every new event as it is recorded, redacted "
          "as /events redacts it. `Accept: text/event-stream` (SSE; `id:` is the seq, resume with Last-Event-ID; "
          "`event: end` after the final event) or `application/x-ndjson` (default; one Event per line, an empty "
          "line as heartbeat, a last StreamEnd line). After each event that closes a phase comes the game's "
          "signed checkpoint at its seq (a StreamCheckpoint line; on SSE `event: checkpoint`, without an id, "
          "which `onmessage` never sees); later events may come before it, never the end. "
          "`?after=SEQ` (or Last-Event-ID) first sends what was missed. "
          "Authenticate with `Authorization: Bearer`, or, from a browser EventSource, `?ticket=` from "
          "POST /v1/games/{game_id}/stream-tickets; none for the public view. 401 for a bad token or ticket, 404 "
          "for no such game, 422 for a bad after or format, 204 to an SSE client resuming after the end.")


def _live_paths() -> dict[str, dict[str, Any]]:
    gid, token = [game_id_param()], [{"bearer": []}]
    hook_id = {"name": "hook_id", "in": "path", "required": True, "schema": {"type": "string"}, "example": "h0123"}
    delivery_headers = {"Arbiter-Signature": {"required": True, "description": "t=<unix seconds>,v1=<hex "
                                              "HMAC-SHA256 of '<t>.' + body, keyed with the hook's secret>",
                                              "schema": {"type": "string"}},
                        "Arbiter-Delivery": {"required": True, "description": "<hook>:<event hash>: the same for a "
                                             "repeated delivery (at least once); after a rollback the event that "
                                             "took a lost one's seq has another.", "schema": {"type": "string"}}}
    callback = {"{$request.body#/url}": {"post": {
        "summary": "One event, in seq order per hook; answer 2xx within 5 s or it is retried (1, 2, 4 ... 300 s)",
        "parameters": [{"name": name, "in": "header", **spec} for name, spec in delivery_headers.items()],
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref("WebhookBody")}}},
        "responses": {"2XX": {"description": "Received."}}}}}
    return {
        "/v1/games/{game_id}/stream-tickets": {"post": {
            "operationId": "createStreamTicket", "tags": ["Live"], "summary": "A one-time ticket to open the "
            "caller's stream from a browser EventSource (60 s, one connection)", "description": STREAM,
            "parameters": gid, "security": token,
            "responses": responses(201, "StreamTicket", 401, 404)}},
        "/v1/games/{game_id}/webhooks": {
            "post": {"operationId": "addWebhook", "tags": ["Live"], "summary": "Register a URL that gets each new "
                     "event, signed (the GM's or a player's token; the secret is shown once)",
                     "parameters": gid, "security": token,
                     "requestBody": request_body("NewWebhook", {"url": "https://bot.example.org/arbiter"}),
                     "callbacks": {"event": callback},
                     "responses": responses(201, "Webhook", 400, 401, 404, 413, 422)},
            "get": {"operationId": "listWebhooks", "tags": ["Live"], "summary": "The caller's hooks with their "
                    "delivery state (the GM: every hook of the game)", "parameters": gid, "security": token,
                    "responses": responses(200, "WebhookList", 401, 404)}},
        "/v1/games/{game_id}/webhooks/{hook_id}": {
            "get": {"operationId": "readWebhook", "tags": ["Live"], "summary": "A hook's state and its delivery "
                    "log (its owner, or the GM)", "parameters": [*gid, hook_id], "security": token,
                    "responses": responses(200, "WebhookLog", 401, 404)},
            "delete": {"operationId": "deleteWebhook", "tags": ["Live"], "summary": "Remove a hook (its owner, or "
                       "the GM)", "parameters": [*gid, hook_id], "security": token,
                       "responses": responses(200, "WebhookDeleted", 401, 404)}},
    }


STREAM_SERVER = "http://127.0.0.1:8001"  # `arbiter up`'s stream process, unless the server names its own


def _stream_path() -> dict[str, Any]:
    """``GET /v1/games/{game_id}/stream``: one line (NDJSON) or message (SSE) per event, then the end."""
    line = {"oneOf": [ref("Event"), ref("StreamCheckpoint"), ref("StreamEnd")], "description": "One line: an "
            "Event, a StreamCheckpoint after an event that closed a phase, or the last line, StreamEnd (an empty line "
            "is a heartbeat)."}
    return {"get": {
        "operationId": "followGame", "tags": ["Live"], "summary": "Follow a game: the caller's view of every event "
        "as it is recorded, after what was missed", "description": STREAM, "parameters": [
            game_id_param(),
            query_param("after", "Send the events after this seq first (default 0: the whole log)"),
            {"name": "format", "in": "query", "required": False, "schema": {"type": "string", "enum": [
                "ndjson", "sse"]}, "description": "Instead of Accept: ndjson (the default) or sse."},
            {"name": "ticket", "in": "query", "required": False, "schema": {"type": "string"}, "description":
             "A stream ticket (createStreamTicket), for a browser's EventSource, which cannot send a token."},
            {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"},
             "description": "What an EventSource resumes after (the seq of the last event it got): as after."}],
        "responses": {
            "200": {"description": "The events, one per line (NDJSON) or message (SSE), as they are recorded; the "
                    "answer ends after the game's last event with a StreamEnd.", "content": {
                        "application/x-ndjson": {"schema": line},
                        "text/event-stream": {"schema": {"type": "string", "description": "SSE: id is the seq, "
                                              "data an Event; event: checkpoint with a StreamCheckpoint's checkpoint; "
                                              "event: end with a StreamEnd."}}}},
            "204": {"description": "An SSE client resuming after the end of a finished game: nothing more comes."},
            **error_responses(401, 404, 422)}}}


def _my_stream_path() -> dict[str, Any]:
    """``POST /v1/me/stream``: the games of many tokens on one connection, each line naming its game."""
    return {"post": {
        "operationId": "followMyGames", "tags": ["Live"], "summary": "Follow the games of many tokens on one stream "
        "(a bot in many games)", "description": "Each token with its game (tokens belong to one game each), in the "
        "body, never in a URL; up to 100, a game once. NDJSON, one line per item: a game's event as that token sees "
        "it (as its own stream shows it), a game's signed checkpoint after an event that closed a phase, a "
        "game's end, a game refused (the error its own stream would answer; the "
        "others go on), an empty line as heartbeat, and a last line once every game has ended. A game whose follower "
        "falls too far behind ends the connection: reconnect with each game's after = the last seq you have.",
        "requestBody": request_body("FollowMyGames", {"tokens": [
            {"game_id": "g0123456789abcdef", "token": "...", "after": 0}]}),
        "responses": {"200": {"description": "The games' events as they are recorded, one line each.", "content": {
            "application/x-ndjson": {"schema": ref("MyStreamLine")},
            "text/plain": {"schema": {"type": "string", "description": "The same lines, for Accept: text/plain "
                                      "(each a MyStreamLine, or empty)."}}}}, **error_responses(400, 413, 422)}}}


def my_stream_schemas() -> dict[str, dict[str, Any]]:
    game_id = {"type": "string", "description": "The game the line is about."}
    return {
        "FollowMyGames": {"type": "object", "required": ["tokens"], "additionalProperties": False, "properties": {
            "tokens": {"type": "array", "minItems": 1, "maxItems": 100, "items": {
                "type": "object", "required": ["game_id", "token"], "additionalProperties": False, "properties": {
                    "game_id": {"type": "string", "minLength": 1, "maxLength": 64},
                    "token": {"type": "string", "minLength": 1, "maxLength": 200},
                    "after": {"type": "integer", "minimum": 0, "default": 0, "description": "Send this game's "
                              "events after this seq first (default 0: its whole log)."}}}}}},
        "MyStreamEvent": {"type": "object", "required": ["game_id", "event"], "properties": {
            "game_id": game_id, "event": ref("Event")}},
        "MyStreamCheckpoint": {"type": "object", "required": ["game_id", "checkpoint"], "properties": {
            "game_id": game_id, "checkpoint": SIGNED_CHECKPOINT}, "description": "The game's signed checkpoint after "
            "an event that closed one of its phases, as its own stream sends it."},
        "MyStreamGameEnd": {"type": "object", "required": ["game_id", "end"], "properties": {
            "game_id": game_id, "end": {"type": "object", "required": ["reason", "seq"], "properties": {
                "reason": {"type": "string", "enum": ["finished"]}, "seq": {"type": "integer"}}}}},
        "MyStreamRefused": {"type": "object", "required": ["game_id", "error"], "properties": {
            "game_id": game_id, "error": ref("ErrorBody")}},
        "MyStreamEnd": {"type": "object", "required": ["end"], "properties": {"end": {
            "type": "object", "required": ["reason"], "properties": {"reason": {"type": "string", "enum": [
                "finished"]}}}}, "description": "The last line: every game has ended."},
        "MyStreamLine": {"oneOf": [ref("MyStreamEvent"), ref("MyStreamCheckpoint"),
                                   ref("MyStreamGameEnd"), ref("MyStreamRefused"),
                                   ref("MyStreamEnd")], "description": "One line of followMyGames."},
    }


def follow_live(document: dict[str, Any]) -> None:
    """Add following games live to the assembled document: the stream, the stream tickets and the webhooks, with
    their schemas and a Live tag.  The stream process (``arbiter stream``) serves them, not this API: each of their
    paths names it in ``servers`` (a generated client calls them with a client whose base URL is the stream process:
    ``GET /v1/health``'s ``stream_url`` without its ``/v1``)."""
    document["components"]["schemas"].update({**live_schemas(), **my_stream_schemas()})
    paths = {"/v1/games/{game_id}/stream": _stream_path(), "/v1/me/stream": _my_stream_path(), **_live_paths()}
    for item in paths.values():
        for operation in item.values():
            operation["responses"].update(error_responses(429, 503))
        item["servers"] = [{"url": STREAM_SERVER, "description": "The stream process (arbiter stream): "
                            "GET /v1/health's stream_url, without /v1."}]
    document["tags"].append({"name": "Live", "description": STREAM})
    document["paths"].update(paths)


def with_stream_server(document: dict[str, Any], stream_url: str | None) -> dict[str, Any]:
    """``document`` naming the server's own stream process (``ARBITER_STREAM_URL``) in the live paths' servers."""
    if not stream_url:
        return document
    text = orjson.dumps(document).decode().replace(f'"url":"{STREAM_SERVER}"',
                                                   orjson.dumps({"url": stream_url.removesuffix("/v1")}).decode()[1:-1])
    return orjson.loads(text)
