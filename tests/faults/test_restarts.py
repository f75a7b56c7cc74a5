"""Redis and the API killed (SIGKILL) and restarted under write load."""
from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest
import requests
from redis import Redis

from eventlog.events import chain_break, event_hash
from eventlog import clock
from eventlog.store import EventStore
from cli import embedded_redis
from runtime.config import Settings
from tests.e2e.follow import Logs, outcomes
from tests.e2e.play import create_and_join
from tests.e2e.stack import Stack
from tests.faults import figures
from tests.faults.load import Load


@pytest.fixture(params=["always", "everysec"])
def own_redis(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[list[embedded_redis.EmbeddedRedis]]:
    """A redis-server of our own that the test may kill: AOF with fsync on every write, and
    with the once-a-second fsync that `arbiter up` and docker-compose.yml ship."""
    server = embedded_redis.start(tmp_path / "redis", aof=True, fsync=request.param)
    holder = [server]
    yield holder  # type: ignore[misc]
    holder[-1].stop()


def _wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _more_accepted(load: Load, more: int, what: str) -> None:
    target = load.accepted_count() + more
    _wait_for(lambda: load.accepted_count() >= target, 30, what)


def _no_unhandled_errors(stack: Stack) -> None:
    """The API log of the whole ordeal holds no 500 (every failure was a handled 503)."""
    text = (stack.logs / "api.log").read_text(errors="replace")
    assert "unhandled error" not in text, text[text.index("unhandled error") - 200:][:2000]


def _check_log(redis_url: str, load: Load, lossless: bool = True) -> tuple[int, int]:
    """Every 202 is in the log at its receipt's seq, byte for byte; nothing else is; chains intact.

    Not ``lossless`` (appendfsync everysec): Redis may answer a write it has not yet handed to the kernel while a
    slow fsync postpones the AOF write (up to 2 s), and a SIGKILL then loses it.  Such a loss must never be silent:
    the log then says so, with a ``log.rolled_back`` event whose span covers the lost seq.  Returns (acknowledged,
    lost and announced)."""
    store = EventStore(Redis.from_url(redis_url))
    announced = 0
    for game_id, _gm in load.games:
        events = store.read(game_id)
        assert chain_break(events) is None, (game_id, chain_break(events))
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        reasons = [e["data"].get("reason") for e in events if e["type"] == "gm.extend_deadline"]
        assert len(reasons) == len(set(reasons)), f"{game_id}: an order was recorded twice"
        sent = {s.key for s in load.sent if s.game_id == game_id}
        assert set(reasons) <= sent, f"{game_id}: the log holds orders nobody sent"
    for item in load.accepted:
        event = store.read_one(item.game_id, item.answer["seq"])
        if not lossless and (event is None or event["hash"] != item.answer["hash"]):
            spans = [(e["data"]["to_seq"], e["data"]["from_seq"]) for e in store.read(item.game_id)
                     if e["type"] == "log.rolled_back"]
            assert any(low < item.answer["seq"] <= high for low, high in spans), \
                f"{item.key}: acknowledged as seq {item.answer['seq']}, lost, and the log does not say so"
            announced += 1
            continue
        assert event is not None, f"{item.key}: acknowledged as seq {item.answer['seq']} but not in the log"
        assert event["hash"] == item.answer["hash"] == item.answer["receipt"]["hash"]
        assert event["data"]["reason"] == item.key
        receipt = item.answer["receipt"]
        assert (event["seq"], event["prev_hash"], event["at"]) == (receipt["seq"], receipt["prev_hash"], receipt["at"])
        assert event["hash"] == event_hash(event["prev_hash"], {k: v for k, v in event.items() if k != "hash"})
    return len(load.accepted), announced


def test_redis_killed_under_write_load_keeps_every_acknowledged_order(own_redis, tmp_path: Path,
                                                                      soak: bool) -> None:
    server = own_redis[0]
    fsync = "always" if "always" in " ".join(server.process.args) else "everysec"
    url = server.url
    settings = Settings(redis_url=url, queue_url=url.rsplit("/", 1)[0] + "/1", queue_name="arbiter-kill",
                        admin_token=None, max_body_bytes=64 * 1024)
    stack = Stack(settings, tmp_path)
    kills = 5 if soak else 2
    outages: list[float] = []
    try:
        stack.start_api()
        games = [create_and_join(stack, "extreme-ways", 3, seed=f"aof-{i}", deadlines={"bidding": 86400})[:2]
                 for i in range(3)]
        with Load(stack, games, threads_per_game=3) as load:
            for _ in range(kills):
                _more_accepted(load, 30, "no orders were being accepted")
                server.process.send_signal(signal.SIGKILL)
                server.process.wait(10)
                down = time.monotonic()
                time.sleep(0.5)  # clients keep sending into the outage
                server = embedded_redis.start(server.directory, server.port, aof=True, fsync=fsync)
                own_redis.append(server)
                _more_accepted(load, 1, "the API did not recover after Redis restarted")
                outages.append(time.monotonic() - down)
            time.sleep(0.5)
        assert all(s.status is not None for s in load.sent), "some requests were never answered"
        failures = [f for s in load.sent for f in s.failures]
        assert failures, "the outage was not noticed by any client: was Redis really killed?"
        assert set(failures) <= {"503"}, f"clients saw {sorted(set(failures))} instead of a 503"
        acked, lost = _check_log(url, load, lossless=fsync == "always")
        status, audit = stack.call("GET", f"/games/{games[0][0]}/audit", token=games[0][1])
        assert status == 200 and audit["ok"], audit
        _no_unhandled_errors(stack)
    finally:
        stack.stop()
    figures.record(f"redis SIGKILL under write load (appendfsync {fsync})", kills=kills, acknowledged=acked,
                   lost_and_announced=lost, requests_that_saw_503=sum(1 for s in load.sent if s.failures),
                   recovery_max_s=round(max(outages), 2))


def test_api_killed_mid_load_never_half_records_an_order(stack: Stack, settings: Settings, soak: bool) -> None:
    kills = 5 if soak else 2
    games = [create_and_join(stack, "extreme-ways", 3, seed=f"api-{i}", deadlines={"bidding": 86400})[:2]
             for i in range(3)]
    outages: list[float] = []
    with Load(stack, games, threads_per_game=3) as load:
        for _ in range(kills):
            _more_accepted(load, 30, "no orders were being accepted")
            stack.kill(stack.api)  # SIGKILL gunicorn's master and workers, mid-request
            down = time.monotonic()
            stack.start_api(stack.port)
            _more_accepted(load, 1, "the API did not come back")
            outages.append(time.monotonic() - down)
        time.sleep(0.5)
    unanswered = [s.key for s in load.sent if s.status is None]
    assert not unanswered, f"requests never answered after the restart: {unanswered[:5]}"
    assert any(s.failures for s in load.sent), "no client noticed the restart"
    acked, _ = _check_log(settings.redis_url, load)  # Redis is not killed here: nothing may be lost
    _no_unhandled_errors(stack)
    # A request cut off mid-way and retried with its key landed once: its retry got the original answer.
    retried = [s for s in load.accepted if s.failures]
    figures.record("API SIGKILL mid-load", kills=kills, acknowledged=acked, retried_after_error=len(retried),
                   recorded_twice=0, recovery_max_s=round(max(outages), 2))


def _bid(stack: Stack, game_id: str, token: str, key: str) -> int:
    """A careful client: the same order with the same key until a definite answer."""
    for _ in range(600):
        try:
            response = requests.post(f"{stack.url}/games/{game_id}/actions", json={"type": "bid", "amount": 1},
                                     headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
                                     timeout=10)
        except requests.RequestException:
            time.sleep(0.05)
            continue
        if response.status_code < 500:
            return response.status_code
        time.sleep(0.05)
    raise AssertionError(f"{key}: never answered")


def _resolved_within(settings: Settings, games: list[tuple[str, str, dict[str, str]]], budget: float) -> list[float]:
    """Seconds until each game's first phase has its outcome; every one within ``budget``."""
    started = clock.now()
    logs = Logs(settings.redis_url).wait([game_id for game_id, _gm, _tokens in games],
                                         lambda events: bool(outcomes(events)), budget)
    return sorted(max(0.0, (clock.parse(outcomes(events)[0]["at"]) - started).total_seconds())
                  for events in logs.values())


def test_orders_that_complete_a_phase_resolve_it_though_the_api_could_not_queue_the_job(
    stack: Stack, settings: Settings
) -> None:
    """Every player has bid, so the phase should resolve at once; but the API process that
    recorded the last bid never queued the job: its queue was unreachable, or it was
    SIGKILLed between the append and the enqueue and the client's retry was answered
    from the idempotency record.  The sweeper must find each such phase within seconds,
    not at its hour-long deadline."""
    stack.start_worker("sweeping")
    games = [create_and_join(stack, "extreme-ways", 3, seed=f"unqueued-{i}", deadlines={"bidding": 3600})
             for i in range(12)]
    # Half the games: the API's queue is unreachable (a port nobody listens on).
    stack.kill(stack.api)
    stack.start_api(stack.port, ARBITER_QUEUE_URL=f"redis://127.0.0.1:{embedded_redis.free_port()}/0")
    for game_id, _gm, tokens in games[:6]:
        for player, token in tokens.items():
            assert _bid(stack, game_id, token, f"{game_id}-{player}") == 202
    # The other half: bids in flight while the API is SIGKILLed, twice.
    stack.kill(stack.api)
    stack.start_api(stack.port)
    with ThreadPoolExecutor(9) as pool:
        answers = [pool.submit(_bid, stack, game_id, token, f"{game_id}-{player}")
                   for game_id, _gm, tokens in games[6:] for player, token in tokens.items()]
        for _ in range(2):
            time.sleep(0.3)
            stack.kill(stack.api)
            stack.start_api(stack.port)
        assert [a.result() for a in answers] == [202] * len(answers)
    took = _resolved_within(settings, games, 20.0)
    for game_id, gm, _tokens in games:
        _status, audit = stack.call("GET", f"/games/{game_id}/audit", token=gm)
        assert audit["ok"], audit
    _no_unhandled_errors(stack)
    figures.record("phases completed while the API could not queue their job", games=len(games),
                   resolved=len(took), resolution_p50_s=round(figures.percentile(took, 50), 2),
                   resolution_max_s=round(max(took), 2), deadline_s=3600)
