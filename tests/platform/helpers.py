"""Small helpers for API tests: a client wrapper and a worker that runs queued jobs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask.testing import FlaskClient
from runtime.context import Context
from workers.runner import run_burst


@dataclass
class Api:
    client: FlaskClient

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, Any]:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        kwargs: dict[str, Any] = {"headers": all_headers, **self.environ(token)}
        if raw is not None:
            kwargs["data"] = raw
            kwargs["content_type"] = "application/json"
        elif body is not None:
            kwargs["json"] = body
        response = self.client.open(f"/v1{path}", method=method, **kwargs)
        return response.status_code, response.get_json(silent=True)

    def environ(self, token: str | None) -> dict[str, Any]:
        """Extra request arguments for a call with ``token`` (a subclass may give each token its own address)."""
        return {}

    def get(self, path: str, token: str | None = None) -> tuple[int, Any]:
        return self.call("GET", path, token=token)

    def post(self, path: str, body: Any = None, token: str | None = None, **kw: Any) -> tuple[int, Any]:
        return self.call("POST", path, body, token=token, **kw)


def run_queued_jobs(ctx: Context) -> None:
    """Run every job queued now (not the scheduled ones) with a real RQ worker, in burst mode: resolutions, then
    webhook deliveries."""
    if not (ctx.queue.count or ctx.webhook_queue.count):
        return  # nothing queued: a worker would only register, find nothing and leave
    run_burst(ctx, ("resolutions", "webhooks"))


def raw_exchange(port: int, request: bytes) -> tuple[bytes, bytes]:
    """Send ``request`` as raw bytes to a server on 127.0.0.1 and read until it closes: (head, body)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body
