"""Write load for the fault tests: client threads that keep sending orders and remember
every answer, retrying an unanswered request with the same Idempotency-Key (as a careful
client does) until it gets a definite answer or the load stops."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack


@dataclass
class Sent:
    game_id: str
    key: str
    body: dict[str, Any]
    status: int | None = None
    answer: dict[str, Any] | None = None
    failures: list[str] = field(default_factory=list)  # statuses or exceptions seen before the answer


@dataclass
class Load:
    stack: Stack
    games: list[tuple[str, str]]  # (game_id, gm token); every thread acts as one game's GM
    threads_per_game: int = 2
    sent: list[Sent] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        for index, (game_id, gm) in enumerate(self.games):
            for lane in range(self.threads_per_game):
                thread = threading.Thread(target=self._run, args=(game_id, gm, f"{index}-{lane}"), daemon=True)
                thread.start()
                self._threads.append(thread)

    def __enter__(self) -> "Load":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()  # also when the test fails: no client thread outlives its test

    def finish(self) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(60)

    def _run(self, game_id: str, gm: str, lane: str) -> None:
        session = requests.Session()
        number = 0
        while not self.stop.is_set():
            number += 1
            key = f"load-{lane}-{number}"
            # gm.extend_deadline is public and its reason is free text: each event names its request.
            item = Sent(game_id, key, {"type": "gm.extend_deadline", "seconds": 1, "reason": key})
            with self._lock:
                self.sent.append(item)
            self._deliver(session, gm, item)

    def _deliver(self, session: requests.Session, gm: str, item: Sent) -> None:
        headers = {"Authorization": f"Bearer {gm}", "Idempotency-Key": item.key}
        while True:
            try:
                response = session.post(f"{self.stack.url}/games/{item.game_id}/actions", json=item.body,
                                        headers=headers, timeout=10)
            except requests.RequestException as exc:
                item.failures.append(type(exc).__name__)
            else:
                if response.status_code < 500:
                    item.status, item.answer = response.status_code, response.json()
                    return
                item.failures.append(str(response.status_code))
            if self.stop.is_set() and len(item.failures) > 50:
                return
            time.sleep(0.05)

    @property
    def accepted(self) -> list[Sent]:
        return [s for s in self.sent if s.status == 202]

    def accepted_count(self) -> int:
        with self._lock:
            return sum(1 for s in self.sent if s.status == 202)


def many_games(stack: Stack, count: int, game_type: str = "extreme-ways", players: int = 3,
               **create: Any) -> list[tuple[str, str, dict[str, str]]]:
    """Create, fill and start ``count`` games over HTTP, eight at a time."""
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda i: create_and_join(stack, game_type, players, seed=f"many-{i}", **create),
                             range(count)))


def signed_up(stack: Stack, count: int, game_type: str = "extreme-ways", players: int = 3,
              **create: Any) -> list[tuple[str, str]]:
    """``count`` games with their players joined, not started yet: (game_id, gm token)."""
    def one(index: int) -> tuple[str, str]:
        status, created = stack.call("POST", "/games", {"type": game_type, "seed": f"many-{index}", **create})
        assert status == 201, created
        for player in range(players):
            status, joined = stack.call("POST", f"/games/{created['game_id']}/players", {"name": f"R{player}"})
            assert status == 201, joined
        return created["game_id"], created["gm_token"]

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


def start_all(stack: Stack, games: list[tuple[str, str]]) -> None:
    def one(game: tuple[str, str]) -> None:
        status, body = stack.call("POST", f"/games/{game[0]}/start", token=game[1])
        assert status == 200, body

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, games))
