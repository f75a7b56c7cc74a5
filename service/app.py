"""The Flask application factory; ``service.wsgi:app`` is what gunicorn serves."""
from __future__ import annotations

import logging
from typing import Any, Callable

from flask import Flask
from redis.exceptions import ClusterError, RedisClusterException, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from werkzeug.exceptions import HTTPException

from engines import registry
from service.api import v1
from service.auth import KnownTokens
from runtime.config import Settings
from runtime import checkpoints
from runtime.context import Context, use
from service.errors import ApiError
from service.http import json_server_errors, reply

log = logging.getLogger("arbiter.api")

STATUS_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large",
                414: "uri_too_long", 415: "unsupported_media_type", 429: "too_many_requests",
                431: "headers_too_large"}


# Browser clients on any origin may call the API: auth is a bearer token, never a cookie.
CORS_HEADERS = [
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key"),
    # Browser clients may read the throttles' answers (issue 18): when to retry, and what is left.
    ("Access-Control-Expose-Headers", "Retry-After, RateLimit, RateLimit-Policy"),
    ("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS"),  # DELETE: a webhook
    ("Access-Control-Max-Age", "600"),
]


def with_cors(wsgi_app: Callable[..., Any]) -> Callable[..., Any]:
    """Every response, Flask's own (a preflight OPTIONS, a 500) included, leaves with the CORS
    headers.  Added as the status line is sent: a Flask after_request hook setting them one by
    one on the response cost ~4% of an order's API CPU."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, [*headers, *CORS_HEADERS], exc_info)

        return wsgi_app(environ, start)

    return app


def create_app(context: Context | None = None) -> Flask:
    context = context or Context(Settings.from_env())
    use(context)
    registry.names()  # import every engine before the first request
    checkpoints.after_restart(context)  # a store that went back under its signed checkpoints says so first
    app = Flask("arbiter")
    app.config.update(
        ARBITER_CONTEXT=context,
        ARBITER_SETTINGS=context.settings,
        ARBITER_TOKENS=KnownTokens(),  # this process's accepted tokens (service/auth.py)
        ARBITER_MAX_BODY=context.settings.max_body_bytes,
        # One byte more: werkzeug cuts a chunked body off silently at the limit, so json_body() sees limit + 1
        # bytes of an oversized body (a 413) instead of the truncated first limit bytes (a misleading 400).
        # An endpoint with a larger limit of its own (verify) raises it for its request only (json_body): an
        # app-wide larger limit would let a chunked body on any endpoint be buffered up to the largest.
        MAX_CONTENT_LENGTH=context.settings.max_body_bytes + 1,
    )
    app.register_blueprint(v1)
    from service.console import console

    app.register_blueprint(console)  # the GM console at /console: pages over the public /v1 API (issue 23)
    if context.notices is not None:  # every request first hears what the other processes appended
        app.before_request(context.notices.catch_up)

    from service.openapi import register_openapi

    register_openapi(app)

    app.wsgi_app = with_cors(app.wsgi_app)  # type: ignore[method-assign]
    json_server_errors()  # gunicorn's own 400/414/431 answers in the JSON envelope too

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> Any:
        return reply(exc.body(), exc.status, headers=exc.headers)

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
    @app.errorhandler(ClusterError)  # CLUSTERDOWN, MASTERDOWN: a Redis Cluster without a primary for some slots
    @app.errorhandler(TryAgainError)  # a slot being moved or failed over
    @app.errorhandler(RedisClusterException)  # no node of the cluster answers, or none serves the key's slot
    def store_unavailable(exc: Exception) -> Any:
        """Redis down, restarting or (a cluster) without a primary for the key: a 503 the client can retry, not a
        500."""
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
