"""The id every append carries, so that an append whose reply was lost is looked up, never run again blind.

A request's id is the client's ``Idempotency-Key`` (scoped to its token, kept 48 hours) or, without one, a secret
made for this request alone (kept ten minutes: long enough for any retry of the same call).  The append script
stores the request's answer under the id's digest in the same atomic step as the event, and answers a second run
with that stored answer instead of appending again.  So redis-py's own retry after a lost reply, the commit loop's
next attempt and a client's retry with its key all find the first append, and every request is recorded at most
once.

The answer is stored sealed: XORed with a SHAKE256 keystream of the request's secret, which is never stored (only
its digest is, as the lookup key).  A join's answer holds the new player's raw token; sealed, the store holds
nothing a reader of it (a backup, a replica) could use, while the client that knows its key gets it back.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import orjson

CLIENT_TTL = 48 * 3600  # the API promises at least 24 hours
OWN_TTL = 600           # a request's own id: only its own retries look for it
OWN_SCOPE = "request"


@dataclass(frozen=True)
class RequestId:
    """``scope`` and ``secret`` name the stored answer; ``body_digest`` tells a reused key from a retry."""

    scope: str
    secret: str
    body_digest: str
    ttl: int

    @classmethod
    def client(cls, key: str, scope: str, body_digest: str) -> RequestId:
        return cls(scope, key, body_digest, CLIENT_TTL)

    @classmethod
    def own(cls) -> RequestId:
        return cls(OWN_SCOPE, secrets.token_hex(16), "", OWN_TTL)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.secret.encode("utf-8")).hexdigest()

    def seal(self, status: int, answer: dict[str, Any]) -> bytes:
        """The stored form of this request's answer (``open`` reads it back): a line ``<status> <body digest>``, then
        the sealed answer's own bytes (half the size of the hex that was stored inside JSON before)."""
        plain = orjson.dumps(answer, option=orjson.OPT_SORT_KEYS)
        return f"{status} {self.body_digest}\n".encode("ascii") + self._xor(plain)

    def open(self, stored: bytes) -> tuple[str, int, dict[str, Any]]:
        """(the body digest it was stored for, status, answer) of a stored answer."""
        if stored[:1] == b"{":  # stored as JSON by an earlier release, and kept for up to CLIENT_TTL
            record = orjson.loads(stored)
            sealed = bytes.fromhex(record["sealed"]) if "sealed" in record else None  # not sealed: older still
            return record["body"], record["status"], record["response"] if sealed is None else self._unseal(sealed)
        head, _, sealed = stored.partition(b"\n")
        status, _, body = head.decode("ascii").partition(" ")
        return body, int(status), self._unseal(sealed)

    def _unseal(self, sealed: bytes) -> dict[str, Any]:
        return orjson.loads(self._xor(sealed))

    def _xor(self, data: bytes) -> bytes:
        """``data`` XORed with a keystream of the secret, SHAKE256's output (an extendable-output hash, in another
        domain than the digest the store keeps): sealing and opening are the same step."""
        pad = hashlib.shake_256(b"arbiter answer\n" + self.secret.encode("utf-8")).digest(len(data))
        return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(len(data), "big")
