"""A reply lost on the wire never turns one request into two events.

A TCP proxy sits between the API and Redis and drops the reply to every third append script (the script runs, its
answer never arrives: the connection closes).  redis-py runs the script again on a new connection, and the commit
loop would take the conflict it meets for a stale record; every append carries its request's id, so the second run
finds the first append and answers it instead.  Orders, GM actions and joins, with and without Idempotency-Key.
"""
from __future__ import annotations

import dataclasses
import socket
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from eventlog import clock
from runtime.config import Settings
from runtime.context import Context, use
from service.app import create_app
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

DROP_EVERY = 3  # the reply of every third script run is lost


class ReplyDroppingProxy:
    """Forwards 127.0.0.1:port to Redis; after every ``DROP_EVERY``-th EVALSHA it waits for Redis's reply and closes
    the client's connection instead of passing it on."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.scripts = 0
        self.dropped = 0
        self.lock = threading.Lock()
        self.closing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        """One connection, request by request (redis-py sends one command or pipeline and waits for its reply)."""
        try:
            while True:
                request = client.recv(1 << 16)
                if not request:
                    return
                server.sendall(request)
                drop = False
                if b"EVALSHA" in request:
                    with self.lock:
                        self.scripts += 1
                        drop = self.scripts % DROP_EVERY == 0
                        self.dropped += drop
                reply = server.recv(1 << 16)
                if drop or not reply:
                    return  # the script ran; its answer is lost
                client.sendall(reply)
        except OSError:
            return
        finally:
            client.close()
            server.close()

    def close(self) -> None:
        self.closing = True
        self.listener.close()


@pytest.fixture()
def lossy(settings: Settings) -> Iterator[tuple[Api, Context, ReplyDroppingProxy]]:
    host, port = settings.redis_url.split("//")[1].split("/")[0].split(":")
    proxy = ReplyDroppingProxy((host, int(port)))
    lossy_settings = dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{proxy.port}/0",
                                         append_notices=False)
    context = Context(lossy_settings)
    yield Api(create_app(context).test_client()), context, proxy
    proxy.close()
    use(None)


def _events(context: Context, game: Game, kind: str) -> list[dict[str, Any]]:
    return [e for e in context.store.read(game.id) if e["type"] == kind]


@pytest.mark.parametrize("keyed", [False, True], ids=["no key", "Idempotency-Key"])
def test_orders_and_gm_actions_whose_replies_are_lost_are_recorded_once(
    lossy: tuple[Api, Context, ReplyDroppingProxy], keyed: bool
) -> None:
    api, context, proxy = lossy
    game = new_game(api)
    sent: Counter[tuple[str, int]] = Counter()
    accepted = 0
    for amount in range(1, 16):
        for player, token in game.tokens.items():
            headers = {"Idempotency-Key": str(uuid.uuid4())} if keyed else None
            status, body = api.post(game.path("/actions"), {"type": "bid", "amount": amount}, token=token,
                                    headers=headers)
            assert status in (202, 503), body  # a reply lost twice running is a 503: the client retries
            sent[(player, amount)] += 1
            accepted += status == 202
    bids = Counter((e["actor"], e["data"]["action"]["amount"]) for e in _events(context, game, "action.submitted"))
    assert proxy.dropped >= 15, "the proxy must have lost replies for this test to mean anything"
    assert max(bids.values()) == 1, [bid for bid, count in bids.items() if count > 1]  # none recorded twice
    assert accepted <= sum(bids.values()) <= sum(sent.values())

    before = clock.parse(api.get(game.path(), game.gm)[1]["phase"]["deadline"])
    extended = 0
    for _ in range(12):
        headers = {"Idempotency-Key": str(uuid.uuid4())} if keyed else None
        status, body = api.post(game.path("/actions"), {"type": "gm.extend_deadline", "seconds": 60,
                                                        "reason": "lossy network"}, token=game.gm, headers=headers)
        assert status in (202, 503), body
        extended += status == 202
    moves = _events(context, game, "gm.extend_deadline")
    after = clock.parse(api.get(game.path(), game.gm)[1]["phase"]["deadline"])
    assert extended <= len(moves) <= 12
    assert (after - before).total_seconds() == 60 * len(moves)  # each recorded move counted once


def test_joins_whose_replies_are_lost_hand_every_player_a_token(
    lossy: tuple[Api, Context, ReplyDroppingProxy]
) -> None:
    api, context, proxy = lossy
    game = new_game(api, players=0, start=False)
    answered: dict[str, str] = {}
    for index in range(16):
        key = str(uuid.uuid4()) if index % 2 else None  # half with a join key
        headers = {"Idempotency-Key": key} if key else None
        body = {"name": f"Player {index}"}
        status, joined = api.post(game.path("/players"), body, headers=headers)
        if status == 503 and key:  # the client's retry with its key gets the first answer
            status, joined = api.post(game.path("/players"), body, headers=headers)
        assert status in (201, 503), joined
        if status == 201:
            answered[joined["player_id"]] = joined["token"]
    players = _events(context, game, "player.joined")
    assert proxy.dropped >= 4
    assert len({e["data"]["name"] for e in players}) == len(players)  # nobody recorded twice
    assert set(answered) <= {e["data"]["player_id"] for e in players}
    for token in answered.values():  # every token handed out works
        status, view = api.get(game.path(), token)
        assert status == 200, view
    keyed = sum(1 for index in range(16) if index % 2)
    assert len(answered) >= keyed  # a keyed join always ends with its token
