"""The baseline for benchmark 1: the least an order endpoint can do in the same server
config — parse the body, validate it with marshmallow, one plain XADD, a JSON reply.

Bench-only; served by gunicorn exactly like ``service.wsgi:app``.
"""
from __future__ import annotations

import os
from typing import Any

import orjson
from flask import Flask, Response, request
from marshmallow import Schema, ValidationError, fields, validate
from redis import Redis


class OrderSchema(Schema):
    type = fields.String(required=True, validate=validate.Length(1, 64))
    amount = fields.Integer(strict=True, validate=validate.Range(0, 10_000))


def create_app() -> Flask:
    redis = Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    app = Flask("arbiter-bench-baseline")

    def reply(body: Any, status: int) -> Response:
        return Response(orjson.dumps(body, option=orjson.OPT_SORT_KEYS), status=status, mimetype="application/json")

    @app.get("/v1/health")
    def health() -> Any:
        return reply({"status": "ok"}, 200)

    @app.post("/v1/games/<game_id>/actions")
    def act(game_id: str) -> Any:
        try:
            body = orjson.loads(request.get_data(cache=False))
            order = OrderSchema().load(body)
        except (orjson.JSONDecodeError, ValidationError) as exc:
            return reply({"error": {"code": "invalid", "message": str(exc), "details": {}}}, 422)
        entry = redis.xadd(f"bench:{{{game_id}}}:events", {"e": orjson.dumps(order)})
        return reply({"id": entry.decode()}, 202)

    return app


app = create_app()
