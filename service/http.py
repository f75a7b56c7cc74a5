"""Reading requests and writing responses the same way on every endpoint."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from service.errors import ApiError


def json_body(allow_empty: bool = False, limit: int | None = None) -> dict[str, Any]:
    """The request body as a JSON object, or a 400/413 that says what is wrong.  ``limit``: an endpoint's
    own, instead of the app's (which MAX_CONTENT_LENGTH already holds the stream to, plus one byte)."""
    if limit is None:
        limit = current_app.config["ARBITER_MAX_BODY"]
    else:
        request.max_content_length = limit + 1
    if request.content_length is not None and request.content_length > limit:
        raise too_large(limit)
    try:
        raw = request.get_data(cache=True)  # stops reading past request.max_content_length (a chunked body)
    except RequestEntityTooLarge as exc:
        raise too_large(limit) from exc
    if len(raw) > limit:
        raise too_large(limit)
    if not raw.strip():
        if allow_empty:
            return {}
        raise ApiError(400, "empty_body", "The request body is empty; send a JSON object.")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, "invalid_json", "The request body is not valid UTF-8 JSON (or is nested too deeply).",
                       {"position": getattr(exc, "pos", None)}) from exc
    if not isinstance(value, dict):
        raise ApiError(400, "not_an_object", "The request body must be a JSON object.")
    return value


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
