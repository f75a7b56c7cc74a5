"""The fan-out benchmark's follower process (``bench/fanout.py``): many followers of the stream process in one
asyncio loop, each event's arrival time kept.  Spec on stdin, JSON on stdout; it says "ready" once every follower
is connected and stops at the next line on stdin.  A module of its own so that it imports only aiohttp: it is
started for every round with followers, and importing the benchmark's stack (the app's packages) cost ~0.4 s
of CPU each time."""
from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import aiohttp


async def follow(spec: dict[str, Any]) -> dict[str, Any]:
    arrivals: dict[int, list[float]] = {}
    connected = 0
    ready = asyncio.Event()

    async def one(session: aiohttp.ClientSession, game_id: str, token: str | None) -> None:
        nonlocal connected
        headers = {"Accept": "application/x-ndjson", **({"Authorization": f"Bearer {token}"} if token else {})}
        async with session.get(f"{spec['url']}/games/{game_id}/stream", params={"after": spec["after"][game_id]},
                               headers=headers) as response:
            assert response.status == 200, response.status
            connected += 1
            if connected == spec["count"]:
                ready.set()
            async for line in response.content:
                if line.strip():
                    now = time.time()
                    item = json.loads(line)
                    if "seq" in item:
                        arrivals.setdefault(item["seq"], []).append(now)

    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as session:
        games = list(spec["viewers"])
        tasks = []
        for index in range(spec["count"]):
            game_id = games[index % len(games)]
            viewers = spec["viewers"][game_id]
            tasks.append(asyncio.create_task(one(session, game_id, viewers[(index // len(games)) % len(viewers)])))
            if index % 50 == 49:
                await asyncio.sleep(0.05)  # connect in steps, as real clients do, not in one burst
        await asyncio.wait_for(ready.wait(), 60)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # until told to stop
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"connected": connected, "arrivals": arrivals}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(follow(json.loads(sys.stdin.readline())))), flush=True)
