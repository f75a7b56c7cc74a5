"""Following a game live on the real stack: gunicorn serving the API, `arbiter stream` and `arbiter worker` as
processes.  A player's stream shows their own sealed order whole and another's cut; a GM's webhook receives
the public view of each order, signed, in order; the stream process's access log never holds a ticket."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import requests

from cli.embedded_redis import free_port
from tests.e2e.stack import Stack, stack_env
from tests.streams.client import Stream
from bench.receiver import Receiver


def _stream_process(stack: Stack, logs: Path) -> str:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "stream", "--port", str(port)],
                               env=stack_env(stack.settings, ARBITER_WEBHOOKS_ALLOW_PRIVATE="1"),
                               stdout=open(logs / "stream.log", "ab"), stderr=subprocess.STDOUT, start_new_session=True)
    stack.workers.append(process)  # stopped with the stack
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{url}/stream-health", timeout=2).json()["status"] == "ok":
                return url
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError("the stream process did not come up; see stream.log")


def test_a_player_follows_and_a_webhook_hears_a_game_on_the_real_stack(stack: Stack, tmp_path: Path) -> None:
    live = _stream_process(stack, tmp_path)
    stack.start_worker("live-worker")
    stack.start_worker("live-hooks", queues="webhooks", ARBITER_WEBHOOKS_ALLOW_PRIVATE="1")  # as arbiter up runs them
    status, created = stack.call("POST", "/games", {"type": "extreme-ways"})
    assert status == 201, created
    game, gm = created["game_id"], created["gm_token"]
    tokens = {}
    for name in ("Ann", "Bob", "Cy", "Di"):
        status, joined = stack.call("POST", f"/games/{game}/players", {"name": name})
        tokens[joined["player_id"]] = joined["token"]
    assert stack.call("POST", f"/games/{game}/start", token=gm)[0] == 200
    receiver = Receiver()
    try:
        hook = requests.post(f"{live}/games/{game}/webhooks", json={"url": receiver.url},
                             headers={"Authorization": f"Bearer {gm}"}, timeout=10)
        assert hook.status_code == 201, hook.text
        receiver.secret = hook.json()["secret"]
        ticket = requests.post(f"{live}/games/{game}/stream-tickets", headers={"Authorization": f"Bearer "
                                                                               f"{tokens['p1']}"}, timeout=10)
        head = stack.call("GET", f"/games/{game}")[1]["seq"]
        follower = Stream(live, game, fmt="sse", ticket=ticket.json()["ticket"], after=head)
        time.sleep(1.2)  # the stream process reads which games have hooks once a second
        for player, amount in (("p1", 4), ("p2", 6)):
            status, body = stack.call("POST", f"/games/{game}/actions", {"type": "bid", "amount": amount},
                                      token=tokens[player])
            assert status == 202, body
        own, other = follower.events(2)
        follower.close()
        assert own["data"]["action"] == {"type": "bid", "amount": 4} and other["data"] == {"phase": 1, "sealed": True}
        deadline = time.monotonic() + 20
        while len(receiver.accepted) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert receiver.seqs() == [head + 1, head + 2] and receiver.refused == 0
        assert all(d["event"]["data"] == {"phase": 1, "sealed": True} for d in receiver.accepted), "the public view"
    finally:
        receiver.stop()
    log = (tmp_path / "stream.log").read_text()
    assert "/stream" in log and ticket.json()["ticket"] not in log, "the access log names paths, never tickets"
