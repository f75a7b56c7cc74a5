"""The Flask application factory; ``service.wsgi:app`` is what gunicorn serves."""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, request
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from werkzeug.exceptions import HTTPException

from engines import registry
from service.api import VERIFY_LIMIT, v1
from service.config import Settings
from service.context import Context, use
from service.errors import ApiError
from service.http import reply

log = logging.getLogger("arbiter.api")

STATUS_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large",
                415: "unsupported_media_type", 429: "too_many_requests"}


def create_app(context: Context | None = None) -> Flask:
    context = context or Context(Settings.from_env())
    use(context)
    registry.names()  # import every engine before the first request
    app = Flask("arbiter")
    app.config.update(
        ARBITER_CONTEXT=context,
        ARBITER_SETTINGS=context.settings,
        ARBITER_MAX_BODY=context.settings.max_body_bytes,
    )
    app.register_blueprint(v1)

    @app.before_request
    def body_limit() -> None:
        """Each request reads at most its own endpoint's limit: only verify takes a whole exported game.  An
        app-wide limit would let a chunked body (no Content-Length) on any endpoint be buffered up to the largest."""
        limit = VERIFY_LIMIT if request.endpoint == "v1.verify" else context.settings.max_body_bytes
        # One byte more: werkzeug cuts a chunked body off silently at the limit, so json_body() sees limit + 1
        # bytes of an oversized body (a 413) instead of the truncated first limit bytes (a misleading 400).
        request.max_content_length = limit + 1

    from service.openapi import register_openapi

    register_openapi(app)

    @app.after_request
    def cors(response: Any) -> Any:
        """Browser clients on any origin may call the API: auth is a bearer token, never a cookie."""
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Idempotency-Key"
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response.headers["Access-Control-Max-Age"] = "600"
        return response

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> Any:
        return reply(exc.body(), exc.status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        message = exc.description or exc.name
        if status == 404:
            message = "No such endpoint; see /v1/openapi.json."
        allow = {"Allow": ", ".join(exc.valid_methods)} if getattr(exc, "valid_methods", None) else None
        return reply({"error": {"code": STATUS_CODES.get(status, "http_error"), "message": message, "details": {}}},
                     status, headers=allow)

    @app.errorhandler(RedisConnectionError)
    @app.errorhandler(RedisTimeoutError)
    def store_unavailable(exc: Exception) -> Any:
        """Redis down or restarting: a 503 the client can retry, not a 500."""
        log.warning("event store unreachable: %s", exc)
        return reply({"error": {"code": "store_unavailable", "details": {},
                                "message": "The event store is not reachable right now; retry in a moment "
                                           "(with the same Idempotency-Key, if you sent one)."}},
                     503, headers={"Retry-After": "1"})

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> Any:
        log.exception("unhandled error")
        return reply({"error": {"code": "internal", "message": "Something went wrong on our side.", "details": {}}},
                     500)

    return app
