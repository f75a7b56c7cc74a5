"""Bearer tokens: 256 random bits, shown once, kept only as SHA-256 digests.

A token grants one role in one game and is looked up in that game's private hash by
its digest; the stored digest is then compared in constant time.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from threading import Lock
from typing import Any

import orjson

from eventlog import keys
from eventlog.store import EventStore
from service.errors import ApiError, unauthorized

BAD_TOKEN_LIMIT = 20     # failed attempts per game and client address in a window; more bad tokens get 429
BAD_TOKEN_WINDOW = 60    # seconds, from the first failure of the window
RATE_LIMIT_POLICY = f'"bad-tokens";q={BAD_TOKEN_LIMIT};w={BAD_TOKEN_WINDOW}'


@dataclass(frozen=True)
class Caller:
    """Who is calling: the public (no token), a player of this game, or its GM."""

    role: str  # "public" | "player" | "gm"
    player_id: str | None = None
    token_digest: str | None = None

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    def as_role(self) -> dict[str, Any] | None:
        if self.role == "public":
            return None
        return {"role": self.role, "player_id": self.player_id}

    @property
    def scope(self) -> str:
        return scope_of(self.token_digest)


PUBLIC_CALLER = Caller("public")


def scope_of(token_digest: str | None) -> str:
    """Idempotency keys are scoped per token."""
    return token_digest[:32] if token_digest else "public"


def new_token() -> tuple[str, str]:
    """A fresh token and its digest."""
    token = secrets.token_urlsafe(32)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_field(token_digest: str) -> str:
    return f"token:{token_digest}"


def role_value(role: str, token_digest: str, player_id: str | None = None) -> str:
    return orjson.dumps({"role": role, "player_id": player_id, "digest": token_digest}).decode()


def bearer(header: str | None) -> str | None:
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("The Authorization header must be 'Bearer <token>'.")
    return token.strip()


def caller_for(store: EventStore, game_id: str, header: str | None, client: str = "-") -> Caller:
    """Resolve the Authorization header for this game; no header means the public."""
    lookup = TokenLookup(game_id, header, client)
    pipe = store.redis.pipeline(transaction=False)
    return lookup.caller(store, pipe.execute() if lookup.queue(pipe) else [])


class TokenLookup:
    """The token check in two halves, so its reads can share a round trip with others.

    ``queue`` puts the throttle count, its expiry and the token's stored role on a pipeline;
    ``caller`` judges their replies.  Failed attempts are counted per game and client
    address, and only bad tokens are ever refused for them: a valid one always works.
    A malformed header is refused by ``caller``, after whatever the request checks first.
    """

    def __init__(self, game_id: str, header: str | None, client: str = "-") -> None:
        self.game_id = game_id
        self.error: ApiError | None = None
        try:
            self.token = bearer(header)
        except ApiError as exc:
            self.token, self.error = None, exc
        self.digest = digest(self.token) if self.token is not None else None
        self.counter = f"{keys.bad_tokens(game_id)}:{client}"
        self.queued = 0
        self.stored: str | None = None  # the token's stored role, once ``caller`` has accepted it

    def queue(self, pipe: Any) -> int:
        """Queue the reads; returns how many replies ``caller`` expects first in its list."""
        if self.digest is not None:
            pipe.get(self.counter)
            pipe.ttl(self.counter)
            pipe.hget(keys.private(self.game_id), token_field(self.digest))
            self.queued = 3
        return self.queued

    def caller(self, store: EventStore, replies: list[Any]) -> Caller:
        if self.error is not None:
            raise self.error
        if self.digest is None:
            return PUBLIC_CALLER
        count, ttl, raw = replies[: self.queued]
        role = orjson.loads(raw) if raw is not None else None
        if role is None or not hmac.compare_digest(role["digest"], self.digest):
            raise self._refused(store, int(count or 0), int(ttl))
        self.stored = raw.decode() if isinstance(raw, bytes) else raw
        return Caller(role["role"], role.get("player_id"), self.digest)

    def _refused(self, store: EventStore, count: int, ttl: int) -> ApiError:
        """A bad token: 401, counted, or 429 once this client has sent ``BAD_TOKEN_LIMIT`` of them in the window.
        Both say when the window ends (``RateLimit``, and ``Retry-After`` on the 429); a valid token from the
        same address is never refused for it (a forum bot serving many players from one address must not be
        locked out by one player's typo; and a guess at 256 random bits is hopeless throttled or not)."""
        reset = ttl if ttl > 0 else BAD_TOKEN_WINDOW
        if count >= BAD_TOKEN_LIMIT:
            return ApiError(429, "too_many_bad_tokens",
                            f"Too many invalid tokens for this game from this address; try again in {reset} s "
                            "(a valid token is still accepted).", {"retry_after": reset},
                            headers={"Retry-After": str(reset), "RateLimit-Policy": RATE_LIMIT_POLICY,
                                     "RateLimit": f'"bad-tokens";r=0;t={reset}'})
        _count_bad(store, self.counter)
        left = BAD_TOKEN_LIMIT - count - 1
        headers = {"RateLimit-Policy": RATE_LIMIT_POLICY, "RateLimit": f'"bad-tokens";r={left};t={reset}'}
        return ApiError(401, "unauthorized", "This token is not valid for this game.", headers=headers)


class KnownTokens:
    """Tokens this process has seen accepted, with the caller each one is and its stored role.

    A hint, never a credential: a request sent on the strength of it is appended only with a
    ``Guard`` that has the append script check, in the same atomic step, that the token's
    stored role is still exactly that; otherwise it is read afresh (``commands.Sender``).
    Holds digests only, at most ``size`` of them."""

    def __init__(self, size: int = 4096) -> None:
        self._known: dict[tuple[str, str], tuple[Caller, str]] = {}
        self._size = size
        self._lock = Lock()

    def get(self, game_id: str, token_digest: str) -> tuple[Caller, str] | None:
        return self._known.get((game_id, token_digest))

    def add(self, game_id: str, caller: Caller, stored: str) -> None:
        assert caller.token_digest is not None
        with self._lock:
            if len(self._known) >= self._size:
                del self._known[next(iter(self._known))]  # the oldest
            self._known[(game_id, caller.token_digest)] = (caller, stored)

    def discard(self, game_id: str, token_digest: str) -> None:
        with self._lock:
            self._known.pop((game_id, token_digest), None)


def _count_bad(store: EventStore, key: str) -> None:
    # MULTI on a plain Redis and on a cluster alike (a cluster pipeline is not atomic unless
    # asked; the counter is one key): a counter left without its expiry would lock the client out for good.
    pipe = store.redis.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, BAD_TOKEN_WINDOW, nx=True)
    pipe.execute()
