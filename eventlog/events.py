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

from engines.canonical import canonical_bytes

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
    """The link: sha256 of the previous hash and the body's canonical bytes (NotCanonical where it has none).
    Hashed as bytes: the body's are never decoded only to be encoded again (every event of every audit)."""
    text = canonical_bytes(body)
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
    and prev_hash the first of ``events`` must have; the seq of a break counts positions from ``first``."""
    for index, event in enumerate(events, start=first):
        if not isinstance(event, dict):
            return {"seq": index, "problem": "event is not an object"}
        if event.get("seq") != index:
            return {"seq": index, "problem": f"expected seq {index}, found {event.get('seq')!r}"}
        if event.get("prev_hash") != prev:
            return {"seq": index, "problem": "prev_hash does not match the previous event's hash"}
        try:
            body = dict(event)  # the event without its hash: a copy in C, then one key out
            body.pop("hash", None)
            expected = event_hash(prev, body)
        except TypeError as exc:  # NotCanonical
            return {"seq": index, "problem": f"event is not canonical JSON: {exc}"}
        if event.get("hash") != expected:
            return {"seq": index, "problem": "hash does not match the event's content"}
        prev = event["hash"]
    return None
