"""The event store: one Redis stream per game, appended only through one Lua script.

The script checks the expected next ``seq`` and head hash, honours a client's
Idempotency-Key, and writes credentials that belong with the event (a new token's
digest, the secret seed) in the same atomic step.  It can also check the caller's
credential in that step (a ``Guard``), so an order can be recorded in one round trip.
Stream entry ids are ``<seq>-0`` so one event, or every event after a ``seq``, is a
single XRANGE.
"""
from __future__ import annotations

import time
from datetime import datetime, timezone
from dataclasses import dataclass
from importlib import resources
from typing import Any, Iterator

import orjson
from redis import Redis
from redis.exceptions import NoScriptError

from engines.canonical import canonical_json
from eventlog import keys
from eventlog.events import GENESIS, Event
from eventlog.requests import RequestId

ROLLBACKS = "arbiter:rollbacks"  # logs found to have gone back (a Redis rollback), newest kept, for /v1/health
ROLLBACKS_KEPT = 100


def _append_call(
    game_id: str, event: Event, request: RequestId | None, answer: bytes, private: dict[str, str] | None,
    guard: Guard | None, announce: str,
) -> tuple[list[str], list[Any]]:
    """The append script's keys and arguments (see append.lua).  ``announce``: the channel the
    appended event is published on ("" for none)."""
    answer_key = keys.idempotency(game_id, request.scope, request.digest) if request else keys.no_idempotency(game_id)
    args: list[Any] = [
        event["seq"],
        event["prev_hash"],
        canonical_json(event),
        event["hash"],
        answer if request else "",
        request.ttl if request else 0,
        *((guard.field, guard.value) if guard else ("", "")),
        announce,
        game_id,
    ]
    for field, value in (private or {}).items():
        args += [field, value]
    return [keys.events(game_id), answer_key, keys.private(game_id)], args


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
    """A condition checked in the append's atomic step: the game's private hash still holds ``value`` at
    ``field`` (a token's stored role), so a caller remembered by this process is still who it was."""

    field: str
    value: str


@dataclass(frozen=True)
class Appended:
    event: Event | None
    replay: bytes | None = None  # the request's stored answer (``RequestId.open``): it was appended before


class EventStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        source = resources.files("eventlog").joinpath("append.lua").read_text()
        self._append = redis.register_script(source)
        # Every append is announced to the API processes (``replays.notices``) so that their cached records
        # keep up with the other processes' appends.  Not on a cluster: a PUBLISH there goes to every node.
        self.announce = keys.APPENDED if type(redis) is Redis else ""

    # -- writing -------------------------------------------------------------------
    def append(
        self,
        game_id: str,
        event: Event,
        *,
        request: RequestId | None = None,
        answer: bytes = b"",
        private: dict[str, str] | None = None,
        guard: Guard | None = None,
    ) -> Appended:
        """Append ``event`` if it is the next one, storing ``answer`` under ``request`` with it; raises GuardFailed
        if ``guard`` fails (checked first), answers ``request``'s stored answer if it was appended before (second:
        so a run repeated after a lost reply finds the first), raises Conflict if ``event`` is not the next one."""
        reply = self._run_append(*_append_call(game_id, event, request, answer, private, guard, self.announce))
        status = _text(reply[0])
        if status == "ok":
            return Appended(event)
        if status == "idem":
            return Appended(None, reply[1])
        if status == "guard":
            raise GuardFailed()
        raise Conflict(int(reply[1]), _text(reply[2]), [_event_of(entry[1]) for entry in reply[3]])

    def _run_append(self, script_keys: list[str], args: list[Any]) -> Any:
        """The append script, sent as one EVALSHA.  redis-py's ``Script`` asks on every call whether the client is a
        pipeline, a typing.Protocol check that cost ~20 us of an order's CPU; it runs only when the server does
        not know the script (a restart, a failover), to load it and run it."""
        try:
            return self.redis.execute_command("EVALSHA", self._append.sha, len(script_keys), *script_keys, *args)
        except NoScriptError:
            return self._append(keys=script_keys, args=args)

    def queue_append(self, pipe: Any, game_id: str, event: Event) -> None:
        """Queue a plain conditional append of ``event`` on ``pipe`` (its reply: ``[b"ok", seq]`` or a
        conflict, unparsed): for loading many events at once, as the benchmarks and fixtures do."""
        script_keys, args = _append_call(game_id, event, None, b"", None, None, self.announce)
        self._append(keys=script_keys, args=args, client=pipe)

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

    @staticmethod
    def queue_answer(client: Any, game_id: str, request: RequestId) -> Any:
        """The GET of ``request``'s stored answer, queued on a pipeline (None: nothing stored yet)."""
        return client.get(keys.idempotency(game_id, request.scope, request.digest))


def _event_of(fields: list[bytes]) -> Event:
    """The event in a stream entry's flat field list, as a script returns it."""
    return orjson.loads(fields[fields.index(b"e") + 1])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
