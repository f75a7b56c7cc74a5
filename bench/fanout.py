"""Benchmark: following games live (issue 22), on the real stack with the stream process.

- Fan-out: followers (public, each player, the GM) of one game while its players send orders at a steady
  rate; the time from each order's acknowledgement (its 202) to each follower's receiving its event, p50 and
  p99.  Followers run in a process of their own (asyncio); both clocks are the machine's wall clock.
- The order path with those followers attached, against without: the same load run (bench/orders.py's
  sealed bids over many games), alternating with and without, as a ratio of requests per second.
- Memory: the stream process's RSS with 1,000 idle followers (of 20 games) against none.
- Webhooks: 400 deliveries (two hooks of one game, 200 orders) to a signature-checking receiver on
  127.0.0.1: all delivered, each once, in order per hook, and how long it took; then the receiver is down for
  5 s while 50 more orders come, and how long after its return everything has arrived.  (1,000 deliveries
  and a 30 s outage before the full run had to fit in ten minutes.)

The followers run in ``python -m bench.follower`` (spec on stdin, JSON on stdout).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from typing import Any

from bench.common import ROOT, Stack, child_env, cpu_seconds, quantile, rss_kib, say
from bench.driver import load
from bench.games import bot_orders, make_game
from bench.receiver import Receiver
from bench.report import row

P99_TARGET_MS = 250.0
RATIO_TARGET = 0.8


class Followers:
    """The follower process, started and stopped by the benchmark."""

    def __init__(self, url: str, viewers: dict[str, list[str | None]], after: dict[str, int], count: int) -> None:
        spec = {"url": url, "viewers": viewers, "after": after, "count": count}
        self.process = subprocess.Popen([sys.executable, "-m", "bench.follower"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True)
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(spec) + "\n")
        self.process.stdin.flush()
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the followers did not all connect")

    def stop(self) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write("stop\n")
        self.process.stdin.flush()
        result = json.loads(self.process.stdout.read())
        self.process.wait(30)
        return {"connected": result["connected"], "arrivals": {int(k): v for k, v in result["arrivals"].items()}}


# -- the stream process and steady orders ----------------------------------------------------------------------
def _stream_process(stack: Stack) -> tuple[subprocess.Popen, str]:
    from cli.embedded_redis import free_port
    import http.client

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "stream", "--port", str(port)],
                               env=child_env(stack.settings), cwd=ROOT, stdout=open(stack.workdir / "stream.log", "ab"),
                               stderr=subprocess.STDOUT, start_new_session=True)
    stack.processes.append(process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/v1/stream-health")
            if json.loads(connection.getresponse().read())["status"] == "ok":
                return process, f"http://127.0.0.1:{port}/v1"
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise RuntimeError("the stream process did not come up; see stream.log")


def _stream_health(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/stream-health", timeout=5) as response:
        return json.loads(response.read())


class Steady:
    """Orders at a steady rate on one game (its three bidders replacing their bids), each 202's time kept."""

    def __init__(self, api: Any, game: Any, orders: dict[str, dict], rate: float) -> None:
        self.api, self.game, self.orders, self.rate = api, game, orders, rate
        self.acks: dict[int, float] = {}
        self.round_trips: list[float] = []  # ms from sending each order to its 202: the sender's own wait
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        bidders = sorted(self.orders)
        step, index, due = 1 / self.rate, 0, time.monotonic()
        while not self._stop.is_set():
            player = bidders[index % len(bidders)]
            sent = time.time()
            status, body = self.api.call("POST", f"/v1/games/{self.game.game_id}/actions", self.orders[player],
                                         token=self.game.tokens[player])
            if status == 202:
                self.acks[body["seq"]] = acked = time.time()
                self.round_trips.append(1000 * (acked - sent))
            else:
                self.failed += 1
            index += 1
            due += step
            time.sleep(max(0.0, due - time.monotonic()))

    def __enter__(self) -> "Steady":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(10)


def _bidders(ctx: Any) -> tuple[Any, dict[str, dict]]:
    while True:
        game = make_game(ctx, "extreme-ways", 4)
        orders = {p: o for p, o in bot_orders(ctx, game).items() if o["type"] == "bid"}
        if len(orders) >= 2:
            keep = sorted(orders)[: min(3, len(orders))]  # one player never bids: the phase stays open
            return game, {p: orders[p] for p in keep}


def _latencies(acks: dict[int, float], got: dict[str, Any], count: int) -> tuple[list[float], int]:
    """Milliseconds from each order's 202 to each follower's receipt of its event, and receipts missing."""
    latencies, missing = [], 0
    for seq, acked in acks.items():
        arrived = got["arrivals"].get(seq, [])
        missing += count - len(arrived)
        latencies += [1000 * (t - acked) for t in arrived]
    return latencies, missing


def _figures(latencies: list[float], missing: int) -> dict[str, Any]:
    return {"p50": quantile(latencies, 0.5), "p99": quantile(latencies, 0.99), "max": max(latencies, default=0.0),
            "samples": len(latencies), "missing": missing}


def _fanout(stack: Stack, api: Any, stream: subprocess.Popen, url: str, quick: bool, result: dict[str, Any]) -> None:
    """First the fan-out alone (followers attached, orders at a steady rate on their game); then the order path
    at full load, with and without the followers, alternating (the steady orders go on in both).  Each load run
    also counts the CPU seconds of the API, the stream process, Redis and the follower clients: on this one
    machine the clients (which in use run on the followers' own computers) take cores the API would have."""
    from bench.orders import _requests

    ctx = stack.context()
    count = 20 if quick else 500
    rate = 5.0 if quick else 10.0
    steady_s = 1.0 if quick else stack.budget.sized(6.0, 3.0)
    duration = 1.0 if quick else 4.0
    least, most = (1, 1) if quick else (1, 3)
    game, orders = _bidders(ctx)
    items = _requests(ctx, 4 if quick else 200)
    viewers = {game.game_id: [None, game.gm_token, *game.tokens.values()]}
    say(f"fanout: {count} followers of one game ({len(viewers[game.game_id])} viewers), orders at {rate:.0f}/s on "
        f"it for {steady_s:.0f} s; then load runs of {duration:.0f} s over {len(items)} bidders, {least}-{most} rounds")
    followers = Followers(url, viewers, {game.game_id: ctx.store.head(game.game_id)[0]}, count)
    try:
        with Steady(api, game, orders, rate) as steady:
            time.sleep(steady_s)
        time.sleep(0.5)  # the last acknowledged orders reach the followers
    finally:
        got = followers.stop()
    result.update(followers=count, steady_rate=rate, latencies_ms=_figures(*_latencies(steady.acks, got, count)),
                  round_trip_ms=_figures(steady.round_trips, 0))
    say(f"  fanout alone: p50 {result['latencies_ms']['p50']:.1f} ms, p99 {result['latencies_ms']['p99']:.1f} ms")
    runs: dict[str, list[float]] = {"without": [], "with": []}
    cpu: dict[str, list[dict[str, float]]] = {"without": [], "with": []}
    loaded: tuple[list[float], int] = ([], 0)
    loaded_trips: list[float] = []
    load(api.port, items, threads=8, duration=min(2.0, duration), idempotency_prefix="warm", quick=quick)
    index, each = 0, 0.0
    while stack.budget.more(index, least, most, each):
        began = time.monotonic()
        for side in (("without", "with") if index % 2 == 0 else ("with", "without")):
            head = ctx.store.head(game.game_id)[0]
            followers = Followers(url, viewers, {game.game_id: head}, count) if side == "with" else None
            pids = {"api": [api.process.pid, *api.worker_pids()], "stream": [stream.pid],
                    "redis": [stack.redis.process.pid], "followers": [followers.process.pid] if followers else []}
            try:
                with Steady(api, game, orders, rate) as steady:
                    before, began_load = {name: cpu_seconds(of) for name, of in pids.items()}, time.monotonic()
                    measured = load(api.port, items, threads=8, duration=duration, idempotency_prefix=f"{side}{index}",
                                    quick=quick)
                    used = {name: cpu_seconds(of) - before[name] for name, of in pids.items()}
                    wall = time.monotonic() - began_load
                time.sleep(0.5)
            finally:
                got = followers.stop() if followers else None
            runs[side].append(measured["rps"])
            cpu[side].append({**{name: round(seconds / wall, 3) for name, seconds in used.items()},
                              "load generator": round(measured["client_cpu_share"], 3)})
            if got is not None:
                more = _latencies(steady.acks, got, count)
                loaded = (loaded[0] + more[0], loaded[1] + more[1])
                loaded_trips += steady.round_trips
            say(f"  fanout round {index + 1} {side} followers: {measured['rps']:.0f} orders/s "
                f"(steady orders {len(steady.acks)}, failed {steady.failed}); cores: "
                + ", ".join(f"{name} {cores:.2f}" for name, cores in cpu[side][-1].items()))
        index, each = index + 1, time.monotonic() - began
    ratios = [w / wo for w, wo in zip(runs["with"], runs["without"])]
    result.update(rps=runs, ratio=statistics.median(ratios), cores=cpu, latencies_under_load_ms=_figures(*loaded),
                  round_trip_under_load_ms=_figures(loaded_trips, 0))


def _idle_memory(stack: Stack, stream: subprocess.Popen, url: str, quick: bool, result: dict[str, Any]) -> None:
    ctx = stack.context()
    count = 100 if quick else 1000
    games = [make_game(ctx, "extreme-ways", 4) for _ in range(5 if quick else 20)]
    time.sleep(0.5)
    before = rss_kib(stream.pid)
    viewers = {g.game_id: [None, *g.tokens.values()] for g in games}
    followers = Followers(url, viewers, {g.game_id: ctx.store.head(g.game_id)[0] for g in games}, count)
    try:
        time.sleep(1.0)
        health = _stream_health(url)
        after = rss_kib(stream.pid)
    finally:
        followers.stop()
    result.update(idle_followers=health["followers"], rss_kib_before=before, rss_kib_with=after,
                  rss_mib_per_1000=(after - before) / 1024 * 1000 / count)


# -- webhooks --------------------------------------------------------------------------------------------------
def _orders(api: Any, game: Any, orders: dict[str, dict], count: int) -> None:
    bidders = sorted(orders)
    for index in range(count):
        player = bidders[index % len(bidders)]
        status, body = api.call("POST", f"/v1/games/{game.game_id}/actions", orders[player],
                                token=game.tokens[player])
        if status != 202:
            raise RuntimeError(f"an order failed: {status} {body}")


def _wait(what: str, done: Any, seconds: float) -> float:
    started = time.monotonic()
    while not done():
        if time.monotonic() - started > seconds:
            raise RuntimeError(f"webhooks: {what} not done in {seconds:.0f} s")
        time.sleep(0.05)
    return time.monotonic() - started


def _webhooks(stack: Stack, api: Any, url: str, quick: bool, result: dict[str, Any]) -> None:
    ctx = stack.context()
    per_hook = 20 if quick else round(stack.budget.sized(200, 50))
    outage = 1.0 if quick else 5.0
    later = 10 if quick else 50
    receiver = Receiver()
    game, orders = _bidders(ctx)
    hooks = []
    for _ in range(2):
        request = urllib.request.Request(f"{url}/games/{game.game_id}/webhooks", method="POST",
                                         data=json.dumps({"url": receiver.url}).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {game.gm_token}"})
        with urllib.request.urlopen(request, timeout=30) as response:  # the stream process serves webhooks
            hook = json.loads(response.read())
        receiver.secrets[hook["id"]] = hook["secret"]
        hooks.append(hook["id"])
    time.sleep(1.5)  # the stream process learns of the hooked game (once a second)
    started = time.monotonic()
    _orders(api, game, orders, per_hook)
    sending = time.monotonic() - started  # the orders' own time, one at a time: the deliveries' baseline
    _wait("the deliveries", lambda: len(receiver.accepted) >= 2 * per_hook, 120)
    seconds = time.monotonic() - started  # from the first order sent to the last delivery received
    in_order = all(receiver.seqs(h) == sorted(receiver.seqs(h)) for h in hooks)
    once = all(len(receiver.seqs(h)) == len(set(receiver.seqs(h))) == per_hook for h in hooks)
    receiver.mode = "down"
    _orders(api, game, orders, later)
    time.sleep(outage)
    receiver.mode = "up"
    back = _wait("deliveries after the outage", lambda: len(receiver.accepted) >= 2 * (per_hook + later), 400)
    after_once = all(len(receiver.seqs(h)) == len(set(receiver.seqs(h))) == per_hook + later for h in hooks)
    after_order = all(receiver.seqs(h) == sorted(receiver.seqs(h)) for h in hooks)
    receiver.server.shutdown()
    result["delivered_seqs"] = {h: _irregular(receiver.seqs(h)) for h in hooks}  # what went wrong, if anything
    result.update(deliveries=2 * per_hook, delivery_seconds=seconds, orders_seconds=sending,
                  in_order=in_order and after_order,
                  exactly_once=once and after_once, refused=receiver.refused, outage_s=outage,
                  after_outage=2 * later, seconds_after_return=back)


def _irregular(seqs: list[int]) -> dict[str, Any]:
    """A hook's deliveries in arrival order, summed up: how many, the seqs received twice or more, and each place
    where a seq came after a higher one (with the five before it)."""
    seen = Counter(seqs)
    back = [seqs[max(0, i - 5):i + 1] for i in range(1, len(seqs)) if seqs[i] < seqs[i - 1]]
    return {"count": len(seqs), "first": seqs[:1], "last": seqs[-1:],
            "repeated": {seq: n for seq, n in seen.items() if n > 1}, "went_back": back[:10]}


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    saved = os.environ.get("ARBITER_WEBHOOKS_ALLOW_PRIVATE")
    os.environ["ARBITER_WEBHOOKS_ALLOW_PRIVATE"] = "1"  # the receiver is on 127.0.0.1
    try:
        api = stack.api("service.wsgi:app", name="api-fanout")
        stream, url = _stream_process(stack)
        stack.worker("worker-fanout", queues="resolutions,webhooks")
        _fanout(stack, api, stream, url, quick, result)
        result["summary"] = _summary(result)
        _idle_memory(stack, stream, url, quick, result)
        result["summary"] = _summary(result)
        _webhooks(stack, api, url, quick, result)
        result["summary"] = _summary(result)
    finally:
        if saved is None:
            os.environ.pop("ARBITER_WEBHOOKS_ALLOW_PRIVATE", None)
        else:
            os.environ["ARBITER_WEBHOOKS_ALLOW_PRIVATE"] = saved


def _cores(cores: dict[str, list[dict[str, float]]]) -> list[dict[str, Any]]:
    """Where the cores went in the load runs with followers (medians of the rounds): the stream process's fan-out
    is the server's cost of them; the follower clients' share of the machine is this benchmark's, not a server's."""
    def median(side: str, name: str) -> float:
        return statistics.median(figures[name] for figures in cores[side])

    api, api_without = median("with", "api"), median("without", "api")
    return [row("cores in the load with followers: stream process", median("with", "stream"), "cores",
                median("without", "stream"), None, "report",
                note=f"the follower clients took {median('with', 'followers'):.2f} of the cores beside it (in use "
                     f"they run elsewhere); the API {api:.2f} with, {api_without:.2f} without; baseline: without")]


def _summary(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each figure against the same run's baseline: a follower's wait against the sender's own (its order's
    round trip to the 202), the deliveries against the time their orders took, the catch-up against the outage."""
    def ratio(value: float, baseline: float | None) -> float | None:
        return value / baseline if baseline else None

    lines = []
    if "latencies_ms" in result:
        lat, trip = result["latencies_ms"], result.get("round_trip_ms", {})
        lines += [
            row(f"fan-out p50, {result['followers']} followers", lat["p50"], "ms", trip.get("p50"),
                ratio(lat["p50"], trip.get("p50")), note=f"{lat['samples']} receipts, {lat['missing']} missing; "
                "from the 202 to the follower (< 0: the event came first); baseline: the order's round trip"),
            row(f"fan-out p99, {result['followers']} followers", lat["p99"], "ms", trip.get("p99"),
                ratio(lat["p99"], trip.get("p99")), target=f"< {P99_TARGET_MS:.0f}",
                ok=lat["p99"] < P99_TARGET_MS and lat["missing"] == 0,
                note=f"max {lat['max']:.0f} ms; baseline: the order's round trip, p99"),
        ]
    if "ratio" in result:
        under, trip = result["latencies_under_load_ms"], result.get("round_trip_under_load_ms", {})
        lines += [
            row("orders/s with followers / without", statistics.median(result["rps"]["with"]), "req/s",
                statistics.median(result["rps"]["without"]), result["ratio"], f">= {RATIO_TARGET}",
                result["ratio"] >= RATIO_TARGET, "rounds " + ", ".join(
                    f"{w / wo:.2f}" for w, wo in zip(result["rps"]["with"], result["rps"]["without"]))),
            *_cores(result["cores"]),
            row("fan-out p99 while the order path is saturated", under["p99"], "ms", trip.get("p99"),
                ratio(under["p99"], trip.get("p99")), target="report",
                note=f"p50 {under['p50']:.0f} ms, {under['missing']} missing of {under['samples'] + under['missing']}; "
                "baseline: the followed game's orders' round trip, p99"),
        ]
    if "rss_mib_per_1000" in result:
        idle = result["rss_kib_before"] / 1024
        lines.append(row("stream process RSS per 1,000 idle followers", result["rss_mib_per_1000"], "MiB", idle,
                         ratio(result["rss_mib_per_1000"], idle),
                         note=f"{result['idle_followers']} followers held; baseline: its RSS with none"))
    if "deliveries" in result:
        lines.append(row(f"webhooks: {result['deliveries']} deliveries", result["delivery_seconds"], "s",
                         result.get("orders_seconds"), ratio(result["delivery_seconds"], result.get("orders_seconds")),
                         target="all, once, in order", ok=result["in_order"] and result["exactly_once"],
                         note=f"{result['refused']} refused signatures; from the first order to the last delivery; "
                         "baseline: sending the orders"))
        lines.append(row(f"webhooks: all delivered after a {result['outage_s']:.0f} s outage",
                         result["seconds_after_return"], "s after return", result["outage_s"],
                         ratio(result["seconds_after_return"], result["outage_s"]), target="all",
                         ok=result["exactly_once"], note=f"{result['after_outage']} deliveries held back; "
                         "baseline: the outage"))
    return lines
