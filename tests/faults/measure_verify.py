"""Peak memory of POST /v1/replays/verify (issue 18 item 4; the figure in docs/reliability.md).

    .venv/bin/python -m tests.faults.measure_verify [EVENTS] [CONCURRENT]

Builds an export of EVENTS events (83,000 make 31 MiB, the size of the largest real export seen):
a real Extreme Ways game's start, then GM deadline moves with a reason each, a valid hash chain
that verifies.  Then serves the API under gunicorn as `arbiter api` does (2 processes) and posts
it CONCURRENT times at once, printing each answer and each API process's RSS before, at its peak
(VmHWM) and after."""
from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import requests

from cli import embedded_redis
from eventlog.events import new_salt, seal
from replays import audit as audits
from replays.fold import fold
from runtime.config import Settings
from runtime.context import Context, use
from service.app import create_app
from tests.e2e.stack import Stack
from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def big_export(settings: Settings, count: int) -> bytes:
    ctx = Context(settings)
    use(ctx)
    game = new_game(Api(create_app(ctx).test_client()))
    events = ctx.store.read(game.id)
    for i in range(count):
        last = events[-1]
        events.append(seal(last["seq"] + 1, last["hash"], "gm.extend_deadline", "gm",
                           {"deadline": f"2027-01-01T00:00:{i % 60:02d}Z",
                            "reason": f"round {i}: the forum was down, extending as promised"}, salt=new_salt()))
    return orjson.dumps(audits.export(fold(events), events))


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _mib(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0


def main(count: int = 83_000, concurrent: int = 4) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = embedded_redis.start(Path(folder) / "redis", aof=False)
        settings = Settings(redis_url=server.url, queue_url=server.url.rsplit("/", 1)[0] + "/1",
                            queue_name="measure", admin_token=None, max_body_bytes=64 * 1024)
        stack = Stack(settings, Path(folder))
        try:
            data = big_export(settings, count)
            print(f"export: {len(data) / 2**20:.1f} MiB, {count + 6} events")
            stack.start_api()
            workers = _children(stack.api.pid)
            before = {w: _mib(w, "VmRSS") for w in workers}
            answers: list[tuple[int, float, object]] = []

            def post() -> None:
                began = time.monotonic()
                answer = requests.post(f"{stack.url}/replays/verify", data=data, timeout=600,
                                       headers={"Content-Type": "application/json"})
                body = answer.json()
                answers.append((answer.status_code, round(time.monotonic() - began, 2),
                                body.get("ok", body.get("error", {}).get("code"))))

            threads = [threading.Thread(target=post) for _ in range(concurrent)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            time.sleep(1)
            print("answers (status, seconds, ok or error code):", answers)
            for w in workers:
                print(f"API process {w}: before {before[w]:.0f} MiB, peak {_mib(w, 'VmHWM'):.0f} MiB, "
                      f"after {_mib(w, 'VmRSS'):.0f} MiB")
        finally:
            stack.stop()
            server.stop()


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
