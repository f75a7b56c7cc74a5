"""The API fixtures of the platform tests (the Flask app on a real Redis, a started game), shared here."""
from tests.platform.conftest import api, game  # noqa: F401

import asyncio
import threading
import time
from typing import Any, Iterator

import pytest
import requests
from aiohttp import web

from cli.embedded_redis import free_port
from runtime.context import Context
from streams.hub import Hub
from streams.server import create_app
from streams.webhooks import Kicker


class StreamServer:
    """The stream process's app, served from a thread of the test on a free port, over the test's Redis."""

    def __init__(self, ctx: Context, webhooks: bool = False) -> None:
        self.hub: Hub | None = None
        self.kicker = Kicker(ctx) if webhooks else None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ctx = ctx
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        deadline = time.monotonic() + 10
        while not self.hub.subscribed.is_set():
            assert time.monotonic() < deadline, "the stream process did not subscribe"
            time.sleep(0.02)

    async def _start(self) -> None:
        self.hub = Hub(self._ctx)
        self._runner = web.AppRunner(create_app(self._ctx, self.hub, self.kicker), handler_cancellation=True,
                                     shutdown_timeout=1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """A call to the live API (stream tickets, webhooks) this process serves beside the streams."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = requests.request(method, f"{self.url}{path}", json=body, headers=headers, timeout=30)
        return response.status_code, response.json() if response.content else None

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


@pytest.fixture()
def streams(ctx: Context) -> Iterator[StreamServer]:
    server = StreamServer(ctx)
    server.start()
    yield server
    server.stop()


@pytest.fixture()
def kicking_streams(ctx: Context) -> Iterator[StreamServer]:
    """The stream process as ``arbiter stream`` runs it: it also kicks the webhooks' delivery jobs."""
    server = StreamServer(ctx, webhooks=True)
    server.start()
    yield server
    server.stop()
