"""Issue 28 item 5: one hanging webhook receiver costs only its own hooks.

Anyone can create games: 12 games × 10 hooks to a receiver that never answers used to hold the single webhook
worker 5 s per attempt, one after another, so a healthy hook on another game got nothing for minutes.  A real
``arbiter worker --queues webhooks`` here, against a receiver that takes every connection and answers none, and a
healthy receiver on another host (127.0.0.2): the healthy hook's event must arrive within 10 s, while the hanging
host is never sent more than its share of deliveries at once.  Then the worker restarts, dropping the deliveries
that waited for the hanging host, and the next one delivers every event to every hook."""
from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Iterator

import pytest
from rq import Worker

from bench.receiver import Receiver
from runtime.config import Settings
from runtime.context import Context
from service.app import create_app
from tests.e2e.stack import Stack
from tests.faults import figures
from tests.platform.conftest import new_game
from tests.platform.helpers import Api
from tests.streams.conftest import StreamServer
from workers import webhooks as delivery

GAMES, HOOKS = 12, 10   # hooks per game: the most a game may have
TARGET_S = 10.0


@pytest.fixture()
def receivers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Receiver, Receiver]]:
    monkeypatch.setenv("ARBITER_WEBHOOKS_ALLOW_PRIVATE", "1")  # both receivers are on the loopback
    hanging, healthy = Receiver(), Receiver("127.0.0.2")
    hanging.mode, hanging.hang_s = "hang", 120.0  # never answers within any timeout
    yield hanging, healthy
    hanging.stop()
    healthy.stop()


def test_a_healthy_hook_is_delivered_while_120_hooks_hang(ctx: Context, settings: Settings, tmp_path: Path,
                                                           receivers: tuple[Receiver, Receiver]) -> None:
    hanging, healthy = receivers
    api = Api(create_app(ctx).test_client())
    live = StreamServer(Context(ctx.settings))  # registers the hooks; a hook registered with an old `after` is
    live.start()                                # queued for delivery at once
    stack = Stack(settings, tmp_path)
    try:
        worker = stack.start_worker("webhooks", queues="webhooks", ARBITER_WEBHOOKS_ALLOW_PRIVATE="1")
        deadline = time.monotonic() + 30
        while not Worker.all(queue=ctx.webhook_queue):
            assert time.monotonic() < deadline, "the webhook worker did not start"
            time.sleep(0.1)
        for _ in range(GAMES):
            game = new_game(api, players=2, start=False)
            for _ in range(HOOKS):
                status, body = live.call("POST", game.path("/webhooks"), {"url": hanging.url, "after": 0}, game.gm)
                assert status == 201, body
                hanging.secrets[body["id"]] = body["secret"]
        game = new_game(api, players=2, start=False)
        head = api.get(game.path())[1]["seq"]
        started = time.monotonic()
        status, hook = live.call("POST", game.path("/webhooks"), {"url": healthy.url, "after": head - 1}, game.gm)
        assert status == 201, hook
        healthy.secret = hook["secret"]  # (a delivery that beat this answer is refused with 401, and retried)
        while not healthy.requests:
            assert time.monotonic() - started < TARGET_S, (
                f"the healthy hook got nothing in {TARGET_S} s; the hanging receiver was sent {hanging.requests}")
            time.sleep(0.01)
        waited = time.monotonic() - started
        while not healthy.accepted:
            assert time.monotonic() - started < TARGET_S + 5, "the healthy hook's delivery never verified"
            time.sleep(0.05)
        assert healthy.seqs() == [head]
        assert hanging.requests >= delivery.PER_HOST

        # The worker restarts (a deploy): the deliveries waiting for the hanging host die with it, and the next
        # worker kicks every hook that is behind.  The receiver answers again: every event reaches every hook.
        stack.kill(worker, signal.SIGTERM)
        hanging.mode = "up"
        restarted = time.monotonic()
        stack.start_worker("webhooks-2", queues="webhooks", ARBITER_WEBHOOKS_ALLOW_PRIVATE="1")
        events = head * GAMES * HOOKS  # each hanging hook's game has as many events as the healthy one's
        while len(hanging.accepted) < events:
            assert time.monotonic() - restarted < 60, f"{len(hanging.accepted)} of {events} delivered after the restart"
            time.sleep(0.1)
        caught_up = time.monotonic() - restarted
        assert 1 <= hanging.peak <= delivery.PER_HOST, "the hanging host holds its share of the deliveries, no more"
        assert sorted(len(hanging.seqs(h)) for h in hanging.secrets) == [head] * (GAMES * HOOKS), "each once"
        figures.record("hanging receivers", hanging_hooks=GAMES * HOOKS, healthy_delivered_s=round(waited, 2),
                       hanging_in_flight_peak=hanging.peak, per_host=delivery.PER_HOST, threads=delivery.THREADS,
                       all_delivered_after_restart_s=round(caught_up, 1))
    finally:
        stack.stop()
        live.stop()
