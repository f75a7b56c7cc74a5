"""Reading requests and writing responses the same way on every endpoint."""
from __future__ import annotations

import json
import sys
from typing import Any

import orjson
from flask import Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from service.errors import ApiError


def json_body(allow_empty: bool = False, limit: int | None = None) -> dict[str, Any]:
    """The request body as a JSON object, or a 400/413 that says what is wrong.  ``limit``: an endpoint's
    own, instead of the app's (which MAX_CONTENT_LENGTH already holds the stream to, plus one byte)."""
    limit = current_app.config["ARBITER_MAX_BODY"] if limit is None else limit
    return parse_object(body_bytes(limit), request.mimetype, limit, allow_empty)


def body_bytes(limit: int) -> bytes:
    """The request body's bytes, or a 413 past ``limit`` (set as the request's own maximum: a chunked body is read
    no further)."""
    request.max_content_length = limit + 1
    if request.content_length is not None and request.content_length > limit:
        raise too_large(limit)
    try:
        return request.get_data(cache=True)
    except RequestEntityTooLarge as exc:
        raise too_large(limit) from exc


def parse_object(raw: bytes, mimetype: str | None, limit: int, allow_empty: bool = False) -> dict[str, Any]:
    """A request body as a JSON object, or the 400/413/415 that says what is wrong with it: the API's and the stream
    process's bodies (streams/server.py) are read by this one function."""
    if not json_shaped(raw, mimetype, limit, allow_empty):
        return {}
    # Keys first: that pass keeps nothing, so a large body's parsed objects are not held while it runs.
    duplicate = first_duplicate_key(raw)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, "invalid_json", "The request body is not valid UTF-8 JSON (or is nested too deeply).",
                       {"position": getattr(exc, "pos", None)}) from exc
    if not isinstance(value, dict):
        raise ApiError(400, "not_an_object", "The request body must be a JSON object.")
    if duplicate is not None:
        raise ApiError(400, "duplicate_key", f"The key {duplicate!r} appears twice in one object; JSON parsers "
                       "disagree on which one counts, so send it once.", {"key": duplicate})
    return value


def is_json(mimetype: str | None) -> bool:
    return mimetype == "application/json" or bool(mimetype and mimetype.startswith("application/")
                                                   and mimetype.endswith("+json"))


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> None:
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen.add(key)
    return None  # only the keys are checked here: nothing is built


# One decoder for every body: ``json.loads`` with a hook makes a new one per call (a tenth of the check's time).
_KEYS_ONLY = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def json_shaped(raw: bytes, mimetype: str | None, limit: int, allow_empty: bool = False) -> bool:
    """What is checked of a body before it is parsed: within ``limit``, sent as JSON, and not empty (False: empty,
    and ``allow_empty``); else the 400/413/415 that says what is wrong."""
    if len(raw) > limit:
        raise too_large(limit)
    if not raw.strip():
        if allow_empty:
            return False
        raise ApiError(400, "empty_body", "The request body is empty; send a JSON object.")
    if not is_json(mimetype):
        raise ApiError(415, "unsupported_media_type", "Send the body with 'Content-Type: application/json'.",
                       {"content_type": mimetype or None})
    return True


def first_duplicate_key(raw: bytes) -> str | None:
    """A key that some object of ``raw`` holds twice, or None (also for a body that is not JSON at all).  orjson
    keeps the last of them silently, other parsers the first: a body that means one thing here and
    another to its sender's tools is refused instead."""
    try:
        _KEYS_ONLY.decode(raw.decode("utf-8"))
    except _Duplicate as exc:
        return exc.key
    except RecursionError:  # deeper than the standard parser goes, though not than orjson's limit
        raise ApiError(400, "invalid_json", "The request body is nested too deeply.") from None
    except ValueError:  # not JSON (or not UTF-8): orjson says where, next
        return None
    return None


def too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"The request body is larger than {limit} bytes.", {"limit": limit})


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """Sorted-key JSON, so a replayed idempotent answer is the same bytes."""
    # Non-string keys occur in marshmallow's messages for list items ({"options": {0: [...]}}).
    data = orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    response = Response(data, status=status, mimetype="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def int_arg(name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ApiError(422, "invalid", f"'{name}' must be a whole number from {low} to {high}.",
                       {name: [f"Must be an integer between {low} and {high}."]})
    return value


def client_address() -> str:
    return request.remote_addr or "-"


# gunicorn answers what it cannot parse itself, as HTML, before the app sees the request.
GUNICORN_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long", 417: "expectation_failed",
                  431: "headers_too_large", 500: "internal", 501: "not_implemented"}


def json_server_errors() -> None:
    """Make gunicorn's own error answers the API's JSON envelope: a request line over its limit (414), headers
    too large (431), a request it cannot parse (400).  gunicorn writes them with ``gunicorn.util.write_error``,
    looked up at each call, so this process's replacement answers them.  Nothing without gunicorn."""
    util = sys.modules.get("gunicorn.util")
    if util is None or getattr(util.write_error, "arbiter_json", False):
        return

    def write_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
        from service.app import CORS_HEADERS

        body = orjson.dumps({"error": {"code": GUNICORN_CODES.get(status_int, "bad_request"),
                                       "message": f"{reason}: {mesg}" if mesg else reason, "details": {}}},
                            option=orjson.OPT_SORT_KEYS)
        lines = [f"HTTP/1.1 {status_int} {reason}", "Connection: close", "Content-Type: application/json",
                 f"Content-Length: {len(body)}", *(f"{name}: {value}" for name, value in CORS_HEADERS)]
        util.write_nonblock(sock, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    write_error.arbiter_json = True  # type: ignore[attr-defined]
    util.write_error = write_error
