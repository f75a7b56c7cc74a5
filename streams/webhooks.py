"""The webhook kicks: the stream process hears every append, so it is the one that asks the workers to deliver
the hooks of a game that moved on (runtime/webhooks.py, workers/webhooks.py).

It keeps the set of games that have hooks (refreshed every second: one read, not one per append), and for an
append to one of them queues a delivery job per hook.  A game newly in the set, and every game each time the
subscription is made (at start, after a lost connection), has all its hooks kicked: what was appended while
nobody was listening is delivered too (each hook's cursor knows what it has had)."""
from __future__ import annotations

import asyncio
import logging

from redis.exceptions import RedisError

from eventlog import keys
from runtime import webhooks as hooks
from runtime.context import Context

log = logging.getLogger("arbiter.webhooks")
REFRESH_S = 1.0


class Kicker:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.games: set[str] = set()
        self.kicks = 0

    def heard(self, game_id: str, seq: int) -> None:
        if game_id in self.games:
            asyncio.get_running_loop().create_task(self._kick([game_id], seq))

    def subscribed(self) -> None:
        asyncio.get_running_loop().create_task(self._kick_all())

    async def run(self) -> None:
        while True:
            try:
                await self._refresh()
            except (RedisError, OSError) as exc:
                log.warning("cannot read the games with webhooks (%s)", type(exc).__name__)
            await asyncio.sleep(REFRESH_S)

    async def _refresh(self) -> None:
        members = await asyncio.to_thread(self.context.redis.smembers, keys.WEBHOOK_GAMES)
        games = {m.decode() for m in members}
        new, self.games = games - self.games, games
        if new:
            await self._kick(sorted(new), None)

    async def _kick_all(self) -> None:
        try:
            await self._refresh()
            await self._kick(sorted(self.games), None)
        except (RedisError, OSError) as exc:
            log.warning("cannot kick the webhooks (%s)", type(exc).__name__)

    async def _kick(self, games: list[str], seq: int | None) -> None:
        try:
            self.kicks += await asyncio.to_thread(hooks.kick_games, self.context, games, seq)
        except (RedisError, OSError) as exc:
            log.warning("a webhook kick failed (%s); the next event kicks again", type(exc).__name__)
