"""The fan-out benchmark's follower process (``bench/fanout.py``): many followers of the stream process in one
asyncio loop, each event's arrival time kept.  Spec on stdin, JSON on stdout; it says "ready" once every follower
is connected and stops at the next line on stdin.

As lean as a client can be, on asyncio's own streams: it shares the machine's cores with the server it measures
(in use the followers run on their own computers), and aiohttp with a JSON parse of every line cost ~0.12 of a
core for 500 followers of 10 events a second.  Each NDJSON line is an event (``seq`` its last top-level key but
``type``, the keys being sorted), a checkpoint or a heartbeat; only the events' seqs are read.
"""
from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from typing import Any
from urllib.parse import quote, urlsplit

SEQ = re.compile(rb'"seq":(\d+),"type":')  # an event's own seq: nested objects come earlier, under "data"


async def follow(spec: dict[str, Any]) -> dict[str, Any]:
    arrivals: dict[int, list[float]] = {}
    connected = 0
    ready = asyncio.Event()
    url = urlsplit(spec["url"])

    async def one(game_id: str, token: str | None) -> None:
        nonlocal connected
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write((f"GET {url.path}/games/{quote(game_id)}/stream?after={spec['after'][game_id]} HTTP/1.1\r\n"
                      f"Host: {url.netloc}\r\nAccept: application/x-ndjson\r\n{auth}\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        assert status == b"200", head
        chunked = b"transfer-encoding: chunked" in head.lower()
        connected += 1
        if connected == spec["count"]:
            ready.set()
        try:
            while True:
                if chunked:  # a chunk is one write of the server's: whole lines
                    size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                    if size == 0:
                        return
                    data = await reader.readexactly(size + 2)
                else:
                    data = await reader.readline()
                    if not data:
                        return
                now = time.time()
                for line in data.split(b"\n"):
                    found = SEQ.search(line)
                    if found is not None:
                        arrivals.setdefault(int(found.group(1)), []).append(now)
        finally:
            writer.close()

    games = list(spec["viewers"])
    tasks = []
    for index in range(spec["count"]):
        game_id = games[index % len(games)]
        viewers = spec["viewers"][game_id]
        tasks.append(asyncio.create_task(one(game_id, viewers[(index // len(games)) % len(viewers)])))
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
