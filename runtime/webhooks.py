"""Webhooks: what the API (registration, the delivery log), the workers (delivery) and the stream process (the
kick on every append) share.

A hook belongs to one game: a URL, a secret made here and shown once, and the viewer whose view it receives
(the public for a GM's hook, unless the GM asks for the GM's view; the player's own for a player's hook).
Each hook has a cursor, the last seq delivered: a delivery job sends the events after it one at a time, in
seq order, under a per-hook lock, and moves it on only when the receiver answered 2xx.  So every event is
delivered at least once (a receiver that answered but whose answer was lost gets it again; the
``Arbiter-Delivery`` header names the hook and the event's hash for de-duplication: after a rollback the event
that took a lost one's seq is another event, with another id), and a failure is retried with exponential backoff
while later events wait behind it.  The cursor keeps the hash of its event too: a log that no longer holds it
went back, and the cursor goes back to where the log and what the receiver got part, so the receiver gets the
``log.rolled_back`` notice and every event after it.

Server-side request forgery: only http(s) URLs, and every address the host name resolves to must be public
(not loopback, private, link-local, multicast, reserved or unspecified) unless the operator allows private
addresses (``ARBITER_WEBHOOKS_ALLOW_PRIVATE=1``).  The check is made at registration and again at each
delivery, which then connects to the very address it checked (a name that resolves elsewhere meanwhile is
not followed), and never follows a redirect.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
import socket
import time
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

import orjson

from eventlog import clock, keys

MAX_HOOKS = 10          # per game
LOG_KEEP = 100          # deliveries kept in a hook's log
BACKOFF_S = (1, 2, 4, 8, 16, 32, 64, 128, 256, 300)   # before the 2nd, 3rd, ... attempt; then the next event's
JOB = "workers.webhooks.deliver"
KICK_MARK_S = 30        # a queued job that was lost holds further kicks back this long at most


class Refused(ValueError):
    """A URL that may not be called: its message says why (for the 422's details)."""


def allow_private() -> bool:
    return os.environ.get("ARBITER_WEBHOOKS_ALLOW_PRIVATE", "").strip().lower() in ("1", "true", "yes", "on")


def check_url(url: str) -> tuple[str, str, int, list[str]]:
    """(scheme, host, port, addresses) of a URL a hook may call, or ``Refused``."""
    if not isinstance(url, str) or len(url) > 2000:
        raise Refused("Give the URL as a string of at most 2000 characters.")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        # urlsplit drops tabs and line breaks and strips spaces without a word: the URL called would not be the
        # URL the GM registered and reads back, and a raw CR/LF in a request line is a header injection.
        raise Refused("The URL may not hold spaces, line breaks or other control characters; percent-encode them.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise Refused("Only http and https URLs.")
    if not parts.hostname or parts.username or parts.password:
        raise Refused("The URL needs a host, and no user name or password.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise Refused("The URL's port is not valid.") from exc
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Refused(f"The host {parts.hostname!r} does not resolve.") from exc
    addresses = sorted({info[4][0] for info in found})
    if not allow_private():
        for address in addresses:
            if not all(is_public(ip) for ip in unwrapped(ipaddress.ip_address(address.split("%")[0]))):
                raise Refused(f"{parts.hostname} resolves to {address}, which is not a public address (loopback, "
                              "private, link-local and reserved addresses are refused, also inside an IPv6 "
                              "address that carries an IPv4 one). The server's operator may allow them with "
                              "ARBITER_WEBHOOKS_ALLOW_PRIVATE=1 (a receiver on the same host or network).")
    return parts.scheme, parts.hostname, port, addresses


# NAT64's well-known prefix (RFC 6052).  Its local-use 64:ff9b:1::/48 (RFC 8215) may place the IPv4 elsewhere in
# the address: it is left whole, and refused as reserved.
NAT64 = ipaddress.ip_network("64:ff9b::/96")


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def unwrapped(ip: Address) -> list[Address]:
    """The addresses a packet to ``ip`` reaches: an IPv6 address that carries an IPv4 one (IPv4-mapped, 6to4's
    2002::/16, Teredo's 2001::/32 with its server and client, NAT64's 64:ff9b::/96) is the IPv4 inside it, which a
    router on the way turns it into: ``http://[2002:7f00:1::]/`` is 127.0.0.1 to a host with a 6to4 relay."""
    if isinstance(ip, ipaddress.IPv4Address):
        return [ip]
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    if ip in NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return [ip]


def is_public(ip: Address) -> bool:
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Arbiter-Signature`` header: ``t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, header: str, body: bytes, now: float | None = None, tolerance: int = 300) -> bool:
    """What a receiver does: the signature matches this body and is at most ``tolerance`` seconds old."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(fields["t"])
    except (ValueError, KeyError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), f"t={timestamp},v1={fields.get('v1', '')}")


# -- storage (the store's Redis; every key carries the game's hash tag) ----------------------------------------
def register(redis: Any, game_id: str, url: str, viewer: str | None, owner: str, after: int,
             after_hash: str) -> dict[str, Any]:
    """A new hook (its URL checked) whose cursor is at ``after`` (the event with hash ``after_hash``); the answer
    holds the secret, which is never shown again."""
    check_url(url)
    if redis.hlen(keys.webhooks(game_id)) >= MAX_HOOKS:
        raise Refused(f"A game has at most {MAX_HOOKS} webhooks; delete one first.")
    hook_id = "h" + secrets.token_hex(8)
    secret = "whsec_" + secrets.token_urlsafe(32)
    hook = {"id": hook_id, "url": url, "viewer": viewer, "owner": owner, "secret": secret,
            "created_at": int(time.time())}
    pipe = redis.pipeline(transaction=True)
    pipe.hset(keys.webhooks(game_id), hook_id, orjson.dumps(hook))
    pipe.hset(keys.webhook_state(game_id, hook_id), mapping={"delivered": after, "delivered_hash": after_hash,
                                                             "attempts": 0, "status": "ok"})
    pipe.sadd(keys.WEBHOOK_GAMES, game_id)
    pipe.execute()
    return hook


def hooks(redis: Any, game_id: str) -> list[dict[str, Any]]:
    return sorted((orjson.loads(raw) for raw in redis.hvals(keys.webhooks(game_id))), key=lambda h: h["created_at"])


def hook(redis: Any, game_id: str, hook_id: str) -> dict[str, Any] | None:
    raw = redis.hget(keys.webhooks(game_id), hook_id)
    return orjson.loads(raw) if raw else None


def delete(redis: Any, game_id: str, hook_id: str) -> None:
    pipe = redis.pipeline(transaction=True)
    pipe.hdel(keys.webhooks(game_id), hook_id)
    pipe.delete(keys.webhook_state(game_id, hook_id), keys.webhook_log(game_id, hook_id))
    pipe.execute()


def state(redis: Any, game_id: str, hook_id: str) -> dict[str, Any]:
    raw = {k.decode(): v.decode() for k, v in redis.hgetall(keys.webhook_state(game_id, hook_id)).items()}
    return {"delivered": int(raw.get("delivered", 0)), "attempts": int(raw.get("attempts", 0)),
            "status": raw.get("status", "ok"), "last_error": raw.get("last_error") or None,
            "next_attempt_at": int(raw["next_attempt_at"]) if raw.get("next_attempt_at") else None}


def delivered_hash(redis: Any, game_id: str, hook_id: str) -> str:
    """The hash of the event the hook's cursor stands on ("" if unknown: the cursor at 0, or a hook from before the
    hash was kept).  A cursor whose event the log no longer holds was passed by a rollback."""
    raw = redis.hget(keys.webhook_state(game_id, hook_id), "delivered_hash")
    return raw.decode() if raw else ""


def deliveries(redis: Any, game_id: str, hook_id: str) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in redis.lrange(keys.webhook_log(game_id, hook_id), 0, LOG_KEEP - 1)]


def public(hook: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """A hook as its owner may read it: everything but the secret, its times in ISO 8601 like the rest of the API
    (kept as unix seconds)."""
    shown = {**{k: v for k, v in hook.items() if k not in ("secret", "owner")}, **current}
    return {**shown, "created_at": _iso(shown["created_at"]), "next_attempt_at": _iso(shown.get("next_attempt_at"))}


def public_delivery(entry: dict[str, Any]) -> dict[str, Any]:
    """A delivery log entry as its hook's owner reads it: its time in ISO 8601."""
    return {**entry, "at": _iso(entry["at"])}


def _iso(seconds: int | None) -> str | None:
    return None if seconds is None else clock.iso(datetime.fromtimestamp(seconds, timezone.utc))


def kick(redis: Any, queue: Any, game_id: str, hook_id: str, seq: int, anew: bool = False) -> bool:
    """Have a worker deliver the hook's events up to ``seq`` (and any after).  A kick while a job for the hook
    is queued and not yet started adds nothing (that job reads the log when it starts, after clearing the
    mark), so a busy game costs a job per delivery round, not one per event.  ``anew``: a webhook worker that
    starts queues one whatever marks and jobs the last one left (a job too many only looks at the cursor).
    True if a job was queued."""
    from rq.exceptions import DuplicateJobError

    mark = keys.webhook_kicked(game_id, hook_id)
    if anew:
        redis.delete(mark)
    if not redis.set(mark, seq, nx=True, ex=KICK_MARK_S):
        return False
    job_id = f"hook-{game_id}-{hook_id}-{seq}" + (f"-anew-{secrets.token_hex(4)}" if anew else "")
    try:
        queue.enqueue(JOB, game_id, hook_id, job_id=job_id, unique=True,
                      result_ttl=60, failure_ttl=24 * 3600, job_timeout=600,
                      description=f"webhook {hook_id} of {game_id} up to {seq}")
    except DuplicateJobError:
        redis.delete(mark)
        return False
    except BaseException:
        redis.delete(mark)
        raise
    return True


def kick_games(context: Any, games: list[str], seq: int | None = None, anew: bool = False) -> int:
    """Kick every hook of these games, up to ``seq`` (or each game's head): the stream process when it (re)subscribes
    or hears an append, a webhook worker when it starts (``anew``: only the hooks behind the game's head).  The
    number of jobs queued."""
    count = 0
    for game_id in games:
        head = seq if seq is not None else context.store.head(game_id)[0]
        for raw in context.redis.hkeys(keys.webhooks(game_id)):
            hook_id = raw.decode()
            if anew and state(context.redis, game_id, hook_id)["delivered"] >= head:
                continue
            count += kick(context.redis, context.webhook_queue, game_id, hook_id, head, anew)
    return count
