"""The event store: one Redis stream per game, appended only through one Lua script.

The script checks the expected next ``seq`` and head hash, honours a client's
Idempotency-Key, and writes credentials that belong with the event (a new token's
digest, the secret seed) in the same atomic step.  It can also check the caller's
credential in that step (a ``Guard``), so an order can be recorded in one round trip.
Stream entry ids are ``<seq>-0`` so one event, or every event after a ``seq``, is a
single XRANGE.
"""
from __future__ import annotations

import os
import threading
import time
from datetime import datetime, timezone
from dataclasses import dataclass
from importlib import resources
from typing import Any, Iterator

import orjson
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from engines.canonical import canonical_json
from eventlog import keys
from eventlog.events import GENESIS, Event

IDEMPOTENCY_TTL = 48 * 3600  # the API promises at least 24 hours
ROLLBACKS = "arbiter:rollbacks"  # logs found to have gone back (a Redis rollback), newest kept, for /v1/health
ROLLBACKS_KEPT = 100


def _append_call(
    game_id: str, event: Event, idempotency: IdempotencyRecord | None, private: dict[str, str] | None,
    guard: Guard | None, announce: str,
) -> tuple[list[str], list[Any]]:
    """The append script's keys and arguments (see append.lua).  ``announce``: the channel the
    appended event is published on ("" for none)."""
    idem_key = (
        keys.idempotency(game_id, idempotency.scope, idempotency.key_digest)
        if idempotency
        else keys.no_idempotency(game_id)
    )
    args: list[Any] = [
        event["seq"],
        event["prev_hash"],
        canonical_json(event),
        event["hash"],
        idempotency.encode() if idempotency else "",
        IDEMPOTENCY_TTL,
        *((guard.field, guard.value, guard.limit) if guard else ("", "", 0)),
        announce,
        game_id,
    ]
    for field, value in (private or {}).items():
        args += [field, value]
    counter = guard.counter if guard else keys.bad_tokens(game_id)  # same slot; unread without a guard
    return [keys.events(game_id), idem_key, keys.private(game_id), counter], args


class Conflict(Exception):
    """Another writer appended first: re-read, re-validate and try again.

    ``events``: the log from the seq the append expected on (at most 256 of them: see append.lua),
    so the caller can catch up without reading them again."""

    def __init__(self, seq: int, head: str, events: list[Event] | None = None) -> None:
        super().__init__(f"log is at seq {seq}")
        self.seq = seq
        self.head = head
        self.events = events or []


class GuardFailed(Exception):
    """The append's ``Guard`` did not hold: nothing was appended."""


@dataclass(frozen=True)
class Guard:
    """A condition checked in the append's atomic step: the game's private hash still holds
    ``value`` at ``field`` (a token's stored role), and ``counter`` (that client's failed token
    attempts) is below ``limit``."""

    field: str
    value: str
    counter: str
    limit: int


@dataclass(frozen=True)
class IdempotencyRecord:
    """What a retried request with the same key is answered with."""

    scope: str
    key_digest: str
    body_digest: str
    status: int
    response: dict[str, Any]

    def encode(self) -> bytes:
        """Only ever read back by ``orjson.loads`` (and the response is replied with sorted keys),
        so it needs no canonical form."""
        return orjson.dumps({"body": self.body_digest, "status": self.status, "response": self.response},
                            option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True)
class Appended:
    event: Event | None
    replay: dict[str, Any] | None = None  # a stored idempotent answer instead of a new event


class EventStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        source = resources.files("eventlog").joinpath("append.lua").read_text()
        self._append = redis.register_script(source)
        # A cluster routes each command to its node: only a plain Redis takes the lean round trip
        # (and one without redis-py's client-side cache, which the lean path would bypass).
        self._lean = type(redis) is Redis and getattr(redis.connection_pool, "cache", None) is None
        self._local = threading.local()
        # Every append is announced to the API processes (``replays.notices``) so that their cached records
        # keep up with the other processes' appends.  Not on a cluster: a PUBLISH there goes to every node.
        self.announce = keys.APPENDED if type(redis) is Redis else ""

    # -- writing -------------------------------------------------------------------
    def append(
        self,
        game_id: str,
        event: Event,
        *,
        idempotency: IdempotencyRecord | None = None,
        private: dict[str, str] | None = None,
        guard: Guard | None = None,
    ) -> Appended:
        """Append ``event`` if it is the next one; raises Conflict if it is not, GuardFailed if ``guard`` fails
        (checked first), and answers a stored idempotent reply instead of appending (checked second)."""
        reply = self._run_append(*_append_call(game_id, event, idempotency, private, guard, self.announce))
        status = _text(reply[0])
        if status == "ok":
            return Appended(event)
        if status == "idem":
            return Appended(None, orjson.loads(reply[1]))
        if status == "guard":
            raise GuardFailed()
        raise Conflict(int(reply[1]), _text(reply[2]), [_event_of(entry[1]) for entry in reply[3]])

    def queue_append(self, pipe: Any, game_id: str, event: Event) -> None:
        """Queue a plain conditional append of ``event`` on ``pipe`` (its reply: ``[b"ok", seq]`` or a
        conflict, unparsed): for loading many events at once, as the benchmarks and fixtures do."""
        script_keys, args = _append_call(game_id, event, None, None, None, self.announce)
        self._append(keys=script_keys, args=args, client=pipe)

    def _run_append(self, script_keys: list[str], args: list[Any]) -> Any:
        """The append script's reply.  A script the server does not know yet (a new or flushed
        Redis) is loaded by redis-py's ``Script``, as is every call on a cluster."""
        if self._lean:
            try:
                replies = self._exchange([(("EVALSHA", self._append.sha, len(script_keys), *script_keys, *args), {})])
            except NoScriptError:
                replies = None
            if replies is not None:
                return replies[0]
        return self._append(keys=script_keys, args=args)

    # -- round trips ---------------------------------------------------------------
    def execute(self, pipe: Any) -> list[Any]:
        """A non-transactional pipeline's replies, like ``pipe.execute()``.

        On a plain Redis the commands go out on this thread's own connection without redis-py's
        per-call layers (retry wrapper, metrics, bookkeeping for features unused here),
        which cost more API CPU than the exchange itself on the order path.  A cluster, or
        a connection that fails, goes through ``pipe.execute()``, which retries."""
        replies = self._exchange(pipe.command_stack) if self._lean else None
        return pipe.execute() if replies is None else replies

    def _own_connection(self) -> Any:
        """This thread's connection for the lean round trips, made on its first use (and again in a
        forked child): taking one from the pool and giving it back costs about as much API CPU as
        the exchange itself.  It reconnects by itself after a failure has disconnected it."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            pool = self.redis.connection_pool
            local.connection = pool.connection_class(**pool.connection_kwargs)
            local.pid = os.getpid()
        return local.connection

    def _exchange(self, commands: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[Any] | None:
        """Send ``(args, options)`` commands in one write and parse each reply as redis-py
        would; None when the connection failed (nothing is retried here: the caller
        falls back to redis-py, whose retry does the same as its own would).  A timeout is
        raised: the server did not answer within the connection's socket timeout.  The first
        error reply is raised once every reply has been read, so the connection stays in step."""
        connection = self._own_connection()
        try:
            connection.send_packed_command(connection.pack_commands([args for args, _options in commands]))
            replies: list[Any] = []
            for args, options in commands:
                try:
                    replies.append(self.redis.parse_response(connection, args[0], **options))
                except ResponseError as exc:
                    replies.append(exc)
        except RedisConnectionError:
            connection.disconnect()
            return None
        except RedisTimeoutError:
            connection.disconnect()  # the server is not answering: going again through redis-py would double the wait
            raise
        except BaseException:
            connection.disconnect()  # replies may be left unread: never reuse the socket
            raise
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    # -- reading -------------------------------------------------------------------
    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Event]:
        """Events with seq > ``after``, oldest first."""
        return self.decode(self.queue_read(self.redis, game_id, after, limit))

    @staticmethod
    def queue_read(client: Any, game_id: str, after: int = 0, limit: int | None = None) -> Any:
        """The XRANGE behind ``read``, on a client or queued on a pipeline; ``decode`` its reply."""
        return client.xrange(keys.events(game_id), min=f"{after + 1}-0", count=limit)

    @staticmethod
    def decode(entries: list[Any]) -> list[Event]:
        return [orjson.loads(fields[b"e"]) for _id, fields in entries]

    def read_one(self, game_id: str, seq: int) -> Event | None:
        entries = self.redis.xrange(keys.events(game_id), min=f"{seq}-0", max=f"{seq}-0")
        return orjson.loads(entries[0][1][b"e"]) if entries else None

    def head(self, game_id: str) -> tuple[int, str]:
        """(seq, hash) of the last event, or (0, GENESIS) for an empty log."""
        entries = self.redis.xrevrange(keys.events(game_id), count=1)
        if not entries:
            return 0, GENESIS
        entry_id, fields = entries[0]
        return int(entry_id.split(b"-")[0]), _text(fields[b"h"])

    def exists(self, game_id: str) -> bool:
        return bool(self.redis.exists(keys.events(game_id)))

    def game_ids(self) -> Iterator[str]:
        """Every game in the store, found from the streams themselves (the truth)."""
        for key in self.redis.scan_iter(match=keys.EVENTS_PATTERN, count=500):
            yield keys.game_id_of_events_key(_text(key))

    # -- logs that went back ---------------------------------------------------------
    def note_rollback(self, game_id: str, from_seq: int, to_seq: int) -> None:
        """Remember that a game's log was found to have gone back from ``from_seq`` to ``to_seq``."""
        at = time.time()
        entry = orjson.dumps({"game_id": game_id, "from_seq": from_seq, "to_seq": to_seq,
                              "at": datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="seconds")})
        self.redis.zadd(ROLLBACKS, {entry: at})
        self.redis.zremrangebyrank(ROLLBACKS, 0, -ROLLBACKS_KEPT - 1)

    def rollbacks(self, since: float) -> list[dict[str, Any]]:
        """The rollbacks noted since ``since`` (a Unix time), newest first."""
        return [orjson.loads(entry) for entry in self.redis.zrevrangebyscore(ROLLBACKS, "+inf", since)]

    # -- credentials ---------------------------------------------------------------
    def private_field(self, game_id: str, field: str) -> str | None:
        value = self.redis.hget(keys.private(game_id), field)
        return None if value is None else _text(value)

    def idempotent_answer(self, game_id: str, scope: str, key_digest: str) -> dict[str, Any] | None:
        return self.decode_answer(self.queue_idempotent_answer(self.redis, game_id, scope, key_digest))

    @staticmethod
    def queue_idempotent_answer(client: Any, game_id: str, scope: str, key_digest: str) -> Any:
        """The GET behind ``idempotent_answer``, on a client or queued on a pipeline; ``decode_answer`` its reply."""
        return client.get(keys.idempotency(game_id, scope, key_digest))

    @staticmethod
    def decode_answer(value: bytes | None) -> dict[str, Any] | None:
        return None if value is None else orjson.loads(value)


def _event_of(fields: list[bytes]) -> Event:
    """The event in a stream entry's flat field list, as a script returns it."""
    return orjson.loads(fields[fields.index(b"e") + 1])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
