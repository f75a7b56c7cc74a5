"""Webhook delivery jobs (runtime/webhooks.py has the design): each job sends one hook's events after its cursor,
in seq order, while it holds the hook's lock; a failure is logged, the hook backs off (1 s, 2 s, 4 s, ... at most
300 s) and a retry job is scheduled for then, while the events behind it wait their turn.

Each request has short timeouts (``CONNECT_TIMEOUT_S``, ``TIMEOUT_S``) and a hook in backoff is not called by the
jobs that later events queue, so a receiver that hangs costs one timeout per attempt, not one per event.  And in
the webhook worker (``arbiter worker --queues webhooks``) a job only hands its hook to the ``Deliverer``: deliveries
run on a pool of threads, at most ``PER_HOST`` at a time to one host and ``PER_SITE`` to one site, so a receiver
that hangs (anyone may create games and point hooks at one) holds its own host's few threads while every other
host's hooks are delivered."""
from __future__ import annotations

import functools
import http.client
import ipaddress
import logging
import math
import socket
import ssl
import threading
import time
import uuid
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import orjson
from redis.exceptions import RedisError

from eventlog import keys
from eventlog.events import Event
from eventlog.parting import parting, went_back_to
from replays.views import event_for
from runtime import context as contexts
from runtime import webhooks as hooks
from runtime.context import Context

log = logging.getLogger("arbiter.webhooks")

TIMEOUT_S = 5.0        # send and answer, each
CONNECT_TIMEOUT_S = 2.0  # a receiver that is up takes a connection in milliseconds
THREADS = 32           # deliveries at once in a webhook worker
PER_HOST = 4           # of them to one host: a hanging receiver holds these and no more
PER_SITE = 8           # and to one site (a domain, an address block), however many names hang there
LOCK_S = 120           # a job that dies holding the lock holds up its hook this long at most (renewed per event)
BATCH = 100            # events read at a time
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def deliver(game_id: str, hook_id: str, retry: bool = False) -> str:
    """The RQ job: deliver what the hook has not had yet; in a webhook worker, on its ``Deliverer``'s threads."""
    if _deliverer is not None:
        return _deliverer.submit(game_id, hook_id, retry)
    return run(contexts.current(), game_id, hook_id, retry)


class Deliverer:
    """Deliveries on a pool of ``threads``, at most ``per_host`` at a time to one host (the URL's host name) and
    ``per_site`` to one site (``site``: what one owner most likely controls, so that a wildcard DNS record's many
    names count as one).  The others wait in their site's line, not in the pool's, so a host that hangs holds a
    few threads and delays only its own hooks (and, past ``per_host``, its site's), in the order they were
    queued.  The lines live in this process: a worker that dies loses them, and its successor kicks every hook
    that is behind (``start``)."""

    def __init__(self, context: Context, threads: int = THREADS, per_host: int = PER_HOST,
                 per_site: int = PER_SITE) -> None:
        self.context, self.per_host, self.per_site = context, per_host, per_site
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="webhook")
        self.lock = threading.Lock()
        self.busy: Counter[str] = Counter()                    # host, and site, -> deliveries running
        self.lines: dict[str, deque[Waiting]] = {}             # site -> deliveries waiting for it, oldest first
        self.closed = False

    def submit(self, game_id: str, hook_id: str, retry: bool) -> str:
        hook = hooks.hook(self.context.redis, game_id, hook_id)
        if hook is None:
            return "deleted"
        host = (urlsplit(hook["url"]).hostname or "").lower()
        waiting = Waiting(host, site(host), game_id, hook_id, retry)
        with self.lock:
            if not self._free(waiting):
                self.lines.setdefault(waiting.site, deque()).append(waiting)
                return f"waiting behind {host}"
            self._start(waiting)
        return "handed to a delivery thread"

    def _free(self, waiting: Waiting) -> bool:
        return (self.busy[waiting.host] < self.per_host and
                self.busy[f"site {waiting.site}"] < self.per_site)

    def _start(self, waiting: Waiting) -> None:
        """(Under the lock, so that ``close`` comes before or after, never between.)"""
        self.busy[waiting.host] += 1
        self.busy[f"site {waiting.site}"] += 1
        self.pool.submit(self._run, waiting).add_done_callback(_log_failure)

    def _run(self, waiting: Waiting) -> str:
        try:
            return run(self.context, waiting.game_id, waiting.hook_id, waiting.retry)
        finally:
            with self.lock:
                for key in (waiting.host, f"site {waiting.site}"):
                    self.busy[key] -= 1
                    if not self.busy[key]:
                        del self.busy[key]
                line = self.lines.get(waiting.site, deque())
                following = next((w for w in line if self._free(w)), None) if not self.closed else None
                if following is not None:  # the one slot freed is this site's, and this host's: one may start
                    line.remove(following)
                    self._start(following)
                if not line:
                    self.lines.pop(waiting.site, None)

    def close(self) -> None:
        """The worker is stopping: what is under way finishes, what waits is dropped (the next worker kicks it)."""
        with self.lock:
            self.closed = True
            self.lines.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Waiting:
    """A delivery job handed to the ``Deliverer``."""

    host: str
    site: str
    game_id: str
    hook_id: str
    retry: bool


def site(host: str) -> str:
    """What one owner most likely controls: an address's /24 (IPv4) or /48 (IPv6), else a name's last two labels (a
    wildcard DNS record gives its owner every name under them; names under a shared suffix such as co.uk then share
    a site too, which costs them only concurrency)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return ".".join(host.rstrip(".").split(".")[-2:])
    return str(ipaddress.ip_network(f"{address}/{24 if address.version == 4 else 48}", strict=False))


def _log_failure(future: Future[str]) -> None:
    """A delivery that raised (its store unreachable, say): logged, as RQ would log a failed job; the hook's next
    kick or retry tries again."""
    exc = future.exception()
    if exc is not None:
        log.error("a webhook delivery failed", exc_info=exc)


_deliverer: Deliverer | None = None


def start(context: Context) -> Deliverer:
    """Deliver this process's webhook jobs on a ``Deliverer`` (a webhook worker that runs its jobs in its own
    process, RQ's SimpleWorker), and kick every hook that is behind: deliveries that waited in the lines of a
    worker that died are queued again."""
    global _deliverer
    _deliverer = Deliverer(context)
    try:
        hooks.kick_games(context, sorted(m.decode() for m in context.redis.smembers(keys.WEBHOOK_GAMES)), anew=True)
    except (RedisError, OSError) as exc:
        log.warning("cannot kick the webhooks at start (%s); the next events do", type(exc).__name__)
    return _deliverer


def stop() -> None:
    global _deliverer
    if _deliverer is not None:
        _deliverer.close()
        _deliverer = None


def run(context: Context, game_id: str, hook_id: str, retry: bool = False) -> str:
    redis = context.redis
    redis.delete(keys.webhook_kicked(game_id, hook_id))  # from now on, an append queues a job again
    lock = keys.webhook_lock(game_id, hook_id)
    while True:
        hook = hooks.hook(redis, game_id, hook_id)
        if hook is None:
            return "deleted"
        token = uuid.uuid4().hex
        if not redis.set(lock, token, nx=True, ex=LOCK_S):
            return "busy"  # the holder re-checks the log after releasing, so this event is not left behind
        try:
            # The cursor is read under the lock: read before it, it could be one that the holder then moved on,
            # and its events went out again after theirs (seen: 162, 163, then 162 and 163 again).
            current = hooks.state(redis, game_id, hook_id)
            if not retry and current["next_attempt_at"] and time.time() < current["next_attempt_at"]:
                return "backing off"  # its retry job will come; this one must not hammer a failing receiver
            outcome = _drain(context, game_id, hook, current["delivered"], current["attempts"])
        finally:
            redis.eval(_RELEASE, 1, lock, token)
        if outcome != "delivered":
            return outcome
        retry = False
        seq, _ = context.store.head(game_id)
        if seq <= hooks.state(redis, game_id, hook_id)["delivered"]:
            return "up to date"


def _rewound(context: Context, game_id: str, hook_id: str, delivered: int) -> int:
    """The hook's cursor, gone back to where the log and what the receiver got part if the log no longer holds
    the event it stands on (a rollback): the receiver then gets the ``log.rolled_back`` notice and every event
    after it.  Called under the hook's lock."""
    digest = hooks.delivered_hash(context.redis, game_id, hook_id)
    if digest and delivered:
        kept = parting(context.store, game_id, {delivered: digest})
    else:  # no hash kept (a hook from before): only a cursor past the head shows the log went back
        head = context.store.head(game_id)[0]
        kept = None if delivered <= head else (went_back_to(context.store, game_id, delivered) or head)
    if kept is None:
        return delivered
    held = context.store.read_one(game_id, kept) if kept else None
    context.redis.hset(keys.webhook_state(game_id, hook_id),
                       mapping={"delivered": kept, "delivered_hash": held["hash"] if held else ""})
    log.warning("webhook %s of %s: the log no longer holds seq %s as delivered; the hook goes back to seq %s",
                hook_id, game_id, delivered, kept)
    return kept


def _drain(context: Context, game_id: str, hook: dict[str, Any], delivered: int, attempts: int) -> str:
    redis, state_key = context.redis, keys.webhook_state(game_id, hook["id"])
    record = context.loader.load(game_id)
    if record is None:
        return "no game"
    delivered = _rewound(context, game_id, hook["id"], delivered)
    viewer = hook["viewer"]  # the GM, a player, or None: the public
    for event in context.store.read(game_id, after=delivered, limit=BATCH):
        if event["seq"] > record["seq"]:
            record = context.loader.load(game_id) or record  # judged by the game as it stands, as /events does
        body = orjson.dumps({"hook_id": hook["id"], "game_id": game_id,
                             "event": event_for(record, event, viewer)}, option=orjson.OPT_SORT_KEYS)
        started = time.monotonic()
        status, error = post(hook, event, body)
        entry = {"seq": event["seq"], "at": int(time.time()), "status": status, "error": error,
                 "attempt": attempts + 1, "ms": round((time.monotonic() - started) * 1000)}
        pipe = redis.pipeline(transaction=True)
        pipe.expire(keys.webhook_lock(game_id, hook["id"]), LOCK_S)  # still ours: slow receivers take their time
        pipe.lpush(keys.webhook_log(game_id, hook["id"]), orjson.dumps(entry))
        pipe.ltrim(keys.webhook_log(game_id, hook["id"]), 0, hooks.LOG_KEEP - 1)
        if error is None:
            attempts = 0
            pipe.hset(state_key, mapping={"delivered": event["seq"], "delivered_hash": event["hash"], "attempts": 0,
                                          "status": "ok", "last_error": "", "next_attempt_at": ""})
            pipe.execute()
            continue
        attempts += 1
        if attempts > len(hooks.BACKOFF_S):  # about 13 minutes of failures: wait for the next event to try again
            pipe.hset(state_key, mapping={"attempts": attempts, "status": "failing", "last_error": error,
                                          "next_attempt_at": ""})
            pipe.execute()
            return "failing"
        wait = hooks.BACKOFF_S[attempts - 1]
        pipe.hset(state_key, mapping={"attempts": attempts, "status": "retrying", "last_error": error,
                                      "next_attempt_at": math.ceil(time.time() + wait)})  # never early
        pipe.execute()
        context.webhook_queue.enqueue_in(timedelta(seconds=wait), hooks.JOB, game_id, hook["id"], True,
                                 job_id=f"hook-{game_id}-{hook['id']}-retry-{event['seq']}-{attempts}",
                                 result_ttl=60, failure_ttl=24 * 3600, job_timeout=600,
                                 description=f"webhook {hook['id']} of {game_id}: attempt {attempts + 1}")
        return "failed"
    return "delivered"


def post(hook: dict[str, Any], event: Event, body: bytes) -> tuple[int | None, str | None]:
    """POST one delivery to the address checked just now; (status, None) on a 2xx, else (status, error).
    ``Arbiter-Delivery`` names the hook and the event's hash: a repeat has the same, the event that took a lost
    one's seq after a rollback does not."""
    try:
        scheme, host, port, addresses = hooks.check_url(hook["url"])
    except hooks.Refused as exc:
        return None, f"refused: {exc}"
    target = hook["url"].split("://", 1)[1]
    path = "/" + target.split("/", 1)[1] if "/" in target else "/"
    headers = {"Content-Type": "application/json", "User-Agent": "Arbiter-Webhooks/1",
               "Arbiter-Signature": hooks.sign(hook["secret"], int(time.time()), body),
               "Arbiter-Delivery": f"{hook['id']}:{event['hash']}", "Arbiter-Event-Seq": str(event["seq"]),
               "Host": host if port in (80, 443) else f"{host}:{port}"}
    connection = _Pinned(addresses[0], port, host, scheme == "https")
    try:
        connection.request("POST", path.split("#", 1)[0], body=body, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)
        if 200 <= response.status < 300:
            return response.status, None
        return response.status, f"answered {response.status}"
    except (OSError, http.client.HTTPException) as exc:
        return None, type(exc).__name__ if not str(exc) else f"{type(exc).__name__}: {exc}"[:200]
    finally:
        connection.close()


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every delivery: making one loads the CA store (70 ms a delivery here, when it was made
    per connection)."""
    return ssl.create_default_context()


class _Pinned(http.client.HTTPSConnection):
    """A connection to the checked ``address``, with the URL's host name for TLS (SNI and the certificate check)."""

    def __init__(self, address: str, port: int, host: str, tls: bool) -> None:
        super().__init__(address, port, timeout=TIMEOUT_S, context=_tls())  # made once, used for https only
        self._host_name, self._tls = host, tls

    def connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), min(CONNECT_TIMEOUT_S, self.timeout))
        sock.settimeout(self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self._host_name) if self._tls else sock
