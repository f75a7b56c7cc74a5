"""A replay step at the head of a long game against a plain read of it, over HTTP, in the same rounds.

The console's replay slider asks ``GET /v1/games/{id}/replay?at=SEQ`` for every step; a plain
``GET /v1/games/{id}`` is what the same viewer's page costs otherwise.  The game is an Extreme Ways
game grown to 20,000 events of valid replaced bids (``bench.reads.pad``), with a snapshot 32 events
behind its head, as the loader leaves a long-lived game.  Each round times the plain read several
times (its median) and the replay at the head and one step back once each, on one keep-alive
connection, one request at a time: the ratio is the step's time over the read's.
"""
from __future__ import annotations

import http.client
import statistics
import time
from typing import Any

from bench.common import Stack, say
from bench.reads import build
from bench.report import row

TARGET = 10.0
READS_PER_ROUND = 9


class Client:
    """One keep-alive connection, timing each request (client side, so both sides include HTTP alike)."""

    def __init__(self, port: int, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.headers = {"Authorization": f"Bearer {token}"}

    def timed(self, path: str) -> float:
        began = time.perf_counter()
        self.connection.request("GET", path, headers=self.headers)
        response = self.connection.getresponse()
        response.read()
        took = time.perf_counter() - began
        if response.status != 200:
            raise RuntimeError(f"GET {path}: {response.status}")
        return took

    def close(self) -> None:
        self.connection.close()


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    length = 400 if quick else 20_000
    least, most = (1, 1) if quick else (3, 15)
    game = build(stack, length, refold=False)
    api = stack.api("service.wsgi:app", name="api-replay")
    path = f"/v1/games/{game['game_id']}"
    client = Client(api.port, game["token"])
    rounds: list[dict[str, float]] = []
    try:
        client.timed(path)  # the process loads the game once (snapshot and tail): every read after is warm
        index, each = 0, 0.0
        while stack.budget.more(index, least, most, each):
            began = time.monotonic()
            reads = [client.timed(path) for _ in range(READS_PER_ROUND)]
            head = client.timed(f"{path}/replay?at={length}")
            back = client.timed(f"{path}/replay?at={length - 1}")
            read = statistics.median(reads)
            rounds.append({"read_ms": read * 1000, "head_ms": head * 1000, "back_ms": back * 1000,
                           "ratio": head / read, "back_ratio": back / read})
            say(f"  replay round {index + 1}: read {read * 1000:.1f} ms, replay at the head {head * 1000:.0f} ms, "
                f"one step back {back * 1000:.0f} ms")
            index, each = index + 1, time.monotonic() - began
            result.update(events=length, rounds=rounds, summary=_summary(length, rounds))
    finally:
        client.close()
        stack.stop(api.process)


def _summary(length: int, rounds: list[dict[str, float]]) -> list[dict[str, Any]]:
    def median(name: str) -> float:
        return statistics.median(r[name] for r in rounds)

    ratios = [r["ratio"] for r in rounds]
    return [
        row(f"replay step at the head, {length:,} events", median("head_ms"), "ms", median("read_ms"),
            median("ratio"), f"<= {TARGET:.0f}", median("ratio") <= TARGET,
            f"baseline: GET the game (a player); {len(rounds)} rounds, ratio {min(ratios):.1f}-{max(ratios):.1f}"),
        row("replay: one step back from the head", median("back_ms"), "ms", median("read_ms"), median("back_ratio"),
            "report", None, "what the console's Back button asks"),
    ]
