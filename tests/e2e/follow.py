"""Games' logs followed straight from the store, for the tests that wait on a live stack: one blocking XREAD over
every game waited for wakes at the append the test needs.  Polling the API for full event reads instead cost the
API's CPU (which the profile does not see) and a sleep per round."""
from __future__ import annotations

import time
from typing import Callable

from redis import Redis

from eventlog import keys
from eventlog.events import Event
from eventlog.store import EventStore


class Logs:
    """Each followed game's events so far, read incrementally (a test asks the API for what it checks)."""

    def __init__(self, redis_url: str) -> None:
        self.redis = Redis.from_url(redis_url)
        self.events: dict[str, list[Event]] = {}
        self._last: dict[str, bytes] = {}

    def read(self, game_ids: list[str], block_ms: int | None = None) -> None:
        """Take in what was appended to these games since the last read; with ``block_ms``, first wait that long
        at most for any of them to grow."""
        streams = {keys.events(game_id): self._last.get(game_id, b"0-0") for game_id in game_ids}
        for name, entries in self.redis.xread(streams, block=block_ms) or []:
            game_id = keys.game_id_of_events_key(name.decode())
            self.events.setdefault(game_id, []).extend(EventStore.decode(entries))
            self._last[game_id] = entries[-1][0]

    def wait(self, game_ids: list[str], done: Callable[[list[Event]], bool], timeout: float) -> dict[str, list[Event]]:
        """Until ``done`` holds for the events of every one of these games; their events."""
        deadline = time.monotonic() + timeout
        pending = [game_id for game_id in game_ids if not done(self.events.get(game_id, []))]
        while pending:
            left = deadline - time.monotonic()
            assert left > 0, f"{len(pending)} of {len(game_ids)} games never got there in {timeout} s: {pending[:5]}"
            self.read(pending, block_ms=max(1, int(min(left, 1.0) * 1000)))
            pending = [game_id for game_id in pending if not done(self.events.get(game_id, []))]
        return {game_id: self.events.get(game_id, []) for game_id in game_ids}


def outcomes(events: list[Event]) -> list[Event]:
    """The phase.resolved events of a log."""
    return [e for e in events if e["type"] == "phase.resolved"]


def past(number: int) -> Callable[[list[Event]], bool]:
    """For ``Logs.wait``: phase ``number`` has closed (resolved, or closed by a quit, an ejection or a join), or the
    game has ended."""
    def closed(events: list[Event]) -> bool:
        return any("next" in e["data"] and (e["data"]["next"] is None or e["data"]["next"]["number"] > number)
                   for e in reversed(events))
    return closed
