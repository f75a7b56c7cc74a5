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

from engines.canonical import STR_ONLY, canonical_json, plain_canonical_bytes, plain_canonical_bytes_each, sha256_hex

GENESIS = "0" * 64

Event = dict[str, Any]

# Who appended an event, besides a player id.
GM_ACTOR = "gm"
ARBITER_ACTOR = "arbiter"   # the worker resolving a phase
ANYONE_ACTOR = "anyone"     # an anonymous caller (creating a game, joining)


def now_iso(moment: datetime | None = None) -> str:
    moment = moment or datetime.now(timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_hash(prev_hash: str, body: Event) -> str:
    return _hash(prev_hash, body, plain_canonical_bytes(body))


def _hash(prev_hash: str, body: Event, plain: bytes | None) -> str:
    """``event_hash``, given ``plain_canonical_bytes(body)``."""
    if plain is not None and type(prev_hash) is str and prev_hash.isascii():
        return hashlib.sha256(prev_hash.encode("ascii") + plain).hexdigest()  # the same bytes, without the detour
    return sha256_hex(prev_hash + canonical_json(body))


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
    return check_chain(events)[0]


def check_chain(events: list[Event], first: int = 1, prev: str = GENESIS) -> tuple[dict[str, Any] | None, int]:
    """``chain_break``, and how many events from the first are JSON data (exactly dict, list, str, int, bool
    and None, within orjson's limits: what ``orjson.loads`` gives), as hashing them found: orjson writes any
    part of those in its canonical form, with no further check (``plain_canonical_bytes``).

    ``first`` and ``prev``: the seq and prev_hash the first of ``events`` must have, to check a log a part at a
    time (``eventlog.chained``); the seq of a break counts positions from ``first``."""
    bodies = _bodies(events)
    texts, json_data = plain_canonical_bytes_each(bodies)
    if json_data == len(events) and _links_hold(events, texts, first, prev):
        return None, json_data
    plain = 0
    for index, (event, body, fast) in enumerate(zip(events, bodies, texts), start=first):
        if event.get("seq") != index:
            return {"seq": index, "problem": f"expected seq {index}, found {event.get('seq')!r}"}, plain
        if event.get("prev_hash") != prev:
            return {"seq": index, "problem": "prev_hash does not match the previous event's hash"}, plain
        try:
            expected = _hash(prev, body, fast)
        except TypeError as exc:
            return {"seq": index, "problem": f"event is not canonical JSON: {exc}"}, plain
        if event.get("hash") != expected:
            return {"seq": index, "problem": "hash does not match the event's content"}, plain
        if index - first < json_data and plain == index - first:
            plain = index - first + 1
        prev = event["hash"]
    if len(bodies) < len(events):
        return {"seq": first + len(bodies), "problem": "event is not an object"}, plain
    return None, plain


def _links_hold(events: list[Event], texts: list[bytes], first: int = 1, prev: str = GENESIS) -> bool:
    """Every event's seq, prev_hash and hash right, told for the whole log at once (the usual answer), given
    the canonical bytes of every body: False where the event-by-event check must say which is wrong.
    Hashes compared as exactly str, so that equality is the strings' own."""
    hashes = [event.get("hash") for event in events]
    prevs = [event.get("prev_hash") for event in events]
    if not ([event.get("seq") for event in events] == list(range(first, first + len(events)))
            and set(map(type, hashes)) <= STR_ONLY >= set(map(type, prevs))
            and prevs[:1] == [prev] and prevs[1:] == hashes[:-1]):
        return False
    try:
        links = [prev.encode("ascii") + text for prev, text in zip(prevs, texts)]
    except UnicodeEncodeError:
        return False
    return hashes == [digest.hexdigest() for digest in map(hashlib.sha256, links)]


def _bodies(events: list[Event]) -> list[Event]:
    """The hashed body (the event without its hash) of each event up to the first that is not an object."""
    bodies = []
    for event in events:
        if not isinstance(event, dict):
            break
        body = dict(event)
        body.pop("hash", None)
        bodies.append(body)
    return bodies
