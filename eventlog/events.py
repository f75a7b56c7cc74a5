"""Events and the hash chain.

``hash = sha256(prev_hash + canonical_json(event without hash))``; the first event's
``prev_hash`` is sixty-four zeros.  Changing any byte of any event breaks every link
from there on, which is what audit and verify look for.

The hash is public while parts of an event are not (a sealed bid, a secret draw), and
a sealed order has few possible values: without something unguessable in the hashed
body, anyone could try every bid until one reproduced the hash.  So every event the
service records carries a random ``salt`` (128 bits), shown only to those who may see
the whole event, and to everyone once the game is over.
"""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timezone
from typing import Any

from engines.canonical import canonical_bytes, canonical_bytes_each

GENESIS = "0" * 64

Event = dict[str, Any]

# Who appended an event, besides a player id.
GM_ACTOR = "gm"
ARBITER_ACTOR = "arbiter"   # the worker resolving a phase
ANYONE_ACTOR = "anyone"     # an anonymous caller (creating a game, joining)


def now_iso(moment: datetime | None = None) -> str:
    moment = moment or datetime.now(timezone.utc)
    # isoformat, not strftime (a fifth of the time): 2026-11-28T16:05:29.000123Z, microseconds always written.
    return moment.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def event_hash(prev_hash: str, body: Event) -> str:
    """The link: sha256 of the previous hash and the body's canonical bytes (NotCanonical where it has none)."""
    return _link(prev_hash, canonical_bytes(body))


def _link(prev_hash: str, text: bytes) -> str:
    """``event_hash`` from the body's canonical bytes ``text`` (hashed as bytes: never decoded to be encoded again)."""
    return hashlib.sha256(prev_hash.encode("utf-8") + text).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(16)


def seal(
    seq: int, prev_hash: str, type_: str, actor: str, data: dict[str, Any], at: str | None = None,
    salt: str | None = None,
) -> Event:
    """A complete event with its place in the chain (``salt``: see the module docstring)."""
    body: Event = {
        "seq": seq,
        "type": type_,
        "actor": actor,
        "at": at or now_iso(),
        "data": data,
        "prev_hash": prev_hash,
    }
    if salt is not None:
        body["salt"] = salt
    return {**body, "hash": event_hash(prev_hash, body)}


def chain_break(events: list[Event]) -> dict[str, Any] | None:
    """The first event whose seq, link or hash is wrong, or None if the chain holds."""
    return check_chain(events)


def check_chain(events: list[Any], first: int = 1, prev: str = GENESIS) -> dict[str, Any] | None:
    """``chain_break`` from where a part of a log starts (``eventlog.chained``): ``first`` and ``prev`` are the seq
    and prev_hash the first of ``events`` must have; the seq of a break counts positions from ``first``.

    An event's checks come in this order: an object, its seq, its prev_hash, canonical bytes, its hash; the first
    that fails names the break.  The bodies' canonical bytes are made together (``canonical_bytes_each``: one
    plainness walk for them all), so the seqs and links are read first, up to the first that does not follow."""
    bodies: list[Event] = []
    broken: dict[str, Any] | None = None
    link: Any = prev
    for index, event in enumerate(events, start=first):
        if not isinstance(event, dict):
            broken = {"seq": index, "problem": "event is not an object"}
            break
        if event.get("seq") != index:
            broken = {"seq": index, "problem": f"expected seq {index}, found {event.get('seq')!r}"}
            break
        if event.get("prev_hash") != link:
            broken = {"seq": index, "problem": "prev_hash does not match the previous event's hash"}
            break
        body = dict(event)  # the event without its hash: a copy in C, then one key out
        body.pop("hash", None)
        bodies.append(body)
        link = event.get("hash")  # checked below, before anything after it counts
    written, error = canonical_bytes_each(bodies)
    for index, (event, text) in enumerate(zip(events, written), start=first):
        if event.get("hash") != _link(prev, text):
            return {"seq": index, "problem": "hash does not match the event's content"}
        prev = event["hash"]
    if error is not None:
        return {"seq": first + len(written), "problem": f"event is not canonical JSON: {error}"}
    return broken
