"""The stack a benchmark runs against: a real redis-server, gunicorn serving a WSGI app
with the same settings as ``arbiter up``, and ``arbiter worker`` processes, all bound to
127.0.0.1 and all stopped (process group and all) when the run ends, even on failure."""
from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from redis import Redis

from cli import embedded_redis
from cli.processes import stop_all
from cli.main import GUNICORN_DEFAULTS
from runtime.config import Settings
from runtime.context import Context, use

ROOT = Path(__file__).resolve().parent.parent


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class OutOfTime(RuntimeError):
    """A part of the run used up its time box, or the run its budget: the run is incomplete."""


@dataclass
class Budget:
    """The whole run's time budget (``arbiter bench`` must stay under ten minutes on two
    cores): every wait that has no natural end takes its deadline from here.

    ``ends`` is hard: a part still running then fails as incomplete.  ``share_ends`` is the
    current benchmark's share of what is left (``share``): it only decides how many repeats
    a benchmark measures (``more``), never whether it runs, so a loaded machine costs
    repeats, not benchmarks."""

    ends: float = float("inf")  # time.monotonic() at which the run must stop measuring
    share_ends: float = float("inf")
    scale: float = 1.0  # the current share over its plan, at most 1 (``sized``)

    @classmethod
    def of(cls, seconds: float) -> "Budget":
        return cls(time.monotonic() + seconds)

    def left(self) -> float:
        return self.ends - time.monotonic()

    def box(self, seconds: float) -> float:
        """The deadline (monotonic) for a part that should take at most ``seconds``,
        never later than the run's budget."""
        return min(time.monotonic() + seconds, self.ends)

    def check(self, what: str) -> None:
        if self.left() <= 0:
            raise OutOfTime(f"{what}: the run's time budget is used up")

    def share(self, planned: dict[str, float], name: str) -> float:
        """Give benchmark ``name`` its part of what is left, in proportion to ``planned`` (the
        seconds each remaining benchmark is planned to take, ``name``'s included): a part
        that ran over squeezes the ones after it, one that ran short leaves them more."""
        seconds = max(0.0, self.left()) * planned[name] / max(1e-9, sum(planned.values()))
        self.share_ends = min(time.monotonic() + seconds, self.ends)
        self.scale = min(1.0, seconds / planned[name])
        return seconds

    def sized(self, full: float, least: float) -> float:
        """A size (games, events, seconds) for the current benchmark: ``full`` when its share is what was
        planned, less in proportion when the benchmarks before it ran over (a loaded machine), never below
        ``least``.  The rows name the sizes they measured."""
        return max(least, full * self.scale)

    def spare(self) -> float:
        """Seconds left in the current benchmark's share."""
        return min(self.share_ends, self.ends) - time.monotonic()

    def more(self, done: int, least: int, most: int, each: float) -> bool:
        """Whether to measure another repeat of something that takes about ``each`` seconds: always
        until ``least`` are done, never past ``most``, and in between only while the share has room."""
        return done < least or (done < most and self.spare() >= each)


def child_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(REDIS_URL=settings.redis_url, ARBITER_QUEUE_URL=settings.queue_url, ARBITER_QUEUE=settings.queue_name,
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PYTHONUNBUFFERED="1", **extra)
    return env


@dataclass
class Stack:
    """One benchmark's processes.  Use as ``with Stack.start(workdir) as stack:``."""

    workdir: Path
    redis: embedded_redis.EmbeddedRedis
    settings: Settings
    budget: Budget = field(default_factory=Budget)
    quick: bool = False  # a smoke run: one gunicorn worker per server, load runs of a few requests (``bench.driver``)
    processes: list[subprocess.Popen] = field(default_factory=list)
    _context: Context | None = None

    @classmethod
    @contextmanager
    def start(cls, workdir: Path, *, fsync: str = "everysec", budget: Budget | None = None,
              quick: bool = False) -> Iterator["Stack"]:
        """Redis with AOF on, fsync every second (or as asked)."""
        workdir.mkdir(parents=True, exist_ok=True)
        server = embedded_redis.start(workdir / "redis", aof=True, fsync=fsync)
        base = server.url.rsplit("/", 1)[0]
        settings = Settings(redis_url=f"{base}/0", queue_url=f"{base}/1", queue_name="arbiter-bench",
                            admin_token=None, max_body_bytes=64 * 1024)
        stack = cls(workdir, server, settings, budget or Budget(), quick)
        # Anything in this process that reads the environment (RQ jobs run in-process by
        # ``simulate``) must find this Redis, never a default one on 6379.
        saved = {name: os.environ.get(name) for name in ("REDIS_URL", "ARBITER_QUEUE_URL", "ARBITER_QUEUE")}
        os.environ.update(REDIS_URL=settings.redis_url, ARBITER_QUEUE_URL=settings.queue_url,
                          ARBITER_QUEUE=settings.queue_name)
        use(stack.context())
        try:
            yield stack
        finally:
            use(None)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            stop_all(list(reversed(stack.processes)))
            server.stop()

    @property
    def client(self) -> Redis:
        return Redis.from_url(self.settings.redis_url)

    def context(self) -> Context:
        """This process's one context on the stack, as a server process has one: its loader's cache and, without
        a key file, its signing key (a context each made a key each, and printed so, ~1,200 times a storm)."""
        if self._context is None:
            self._context = Context(self.settings)
        return self._context

    def api(self, app: str = "service.wsgi:app", gunicorn: list[str] | None = None, name: str = "api",
            env: dict[str, str] | None = None, wait: bool = True) -> "Api":
        """A gunicorn serving ``app`` (``arbiter up``'s settings unless ``gunicorn`` says otherwise; one worker in a
        quick run, where each worker's start, ~0.7 s of CPU importing the app, was most of what it cost);
        ``wait=False`` returns at once (start several, then ``Api.ready`` each: on a loaded machine a start takes
        seconds, and they overlap)."""
        port = embedded_redis.free_port()
        settings = gunicorn or (one_worker(GUNICORN_DEFAULTS) if self.quick else GUNICORN_DEFAULTS)
        args = [sys.executable, "-m", "gunicorn", *settings, "--bind", f"127.0.0.1:{port}", app]
        log = open(self.workdir / f"{name}.log", "ab")
        process = subprocess.Popen(args, env=child_env(self.settings, **(env or {})), cwd=ROOT, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        api = Api(process, port, name, self.workdir / f"{name}.log")
        if wait:
            api.ready()
        return api

    def stop(self, *processes: subprocess.Popen) -> None:
        stop_all(list(processes))
        for process in processes:
            if process in self.processes:
                self.processes.remove(process)

    def worker(self, name: str, worker_class: str = "simple", queues: str = "resolutions") -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "worker", "--class", worker_class, "--name", name, "--queues", queues],
            env=child_env(self.settings), cwd=ROOT, stdout=open(self.workdir / f"{name}.log", "ab"),
            stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process


def one_worker(settings: list[str]) -> list[str]:
    """gunicorn ``settings`` with one worker process."""
    settings = list(settings)
    settings[settings.index("--workers") + 1] = "1"
    return settings


@dataclass
class Api:
    process: subprocess.Popen
    port: int
    name: str
    log: Path = Path(".")

    def ready(self, timeout: float = 60) -> "Api":
        """Wait until it answers its health check."""
        self.wait_ready(self.log, timeout)
        return self

    def wait_ready(self, log: Path, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; see {log}")
            try:
                status, _ = self.call("GET", "/v1/health")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not come up in {timeout}s; see {log}")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            all_headers = {"Content-Type": "application/json", **(headers or {})}
            if token:
                all_headers["Authorization"] = f"Bearer {token}"
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=all_headers)
            response = connection.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
        finally:
            connection.close()

    def worker_pids(self) -> list[int]:
        """gunicorn's worker processes (the children of its master)."""
        return children(self.process.pid)

    def cpu_seconds(self) -> float:
        """CPU time used so far by gunicorn's master and workers: the server's side of a request."""
        return cpu_seconds([self.process.pid, *self.worker_pids()])


def rss_kib(pid: int) -> int:
    return memory_kib(pid).get("VmRSS", 0)


def memory_kib(pid: int) -> dict[str, int]:
    """A process's resident memory now (VmRSS), its peak (VmHWM) and the anonymous part
    (RssAnon: the heap, what a leak or a fragmented allocator grows), in KiB."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            figures[name] = int(rest.split()[0])
    return figures


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time these processes have used so far (not their children's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(p) for p in path.read_text().split()]
    except OSError:
        return []


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def spread(values: list[float]) -> dict[str, float]:
    """Median and range of repeated measurements: the median is reported, the range shows the noise."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def best_of(repeats: int, run: Any) -> tuple[float, Any]:
    """The fastest of ``repeats`` timings of ``run()`` (noise only ever adds time), and its result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result
