"""Stream tickets: how a browser's EventSource, which cannot send an Authorization header, follows a game as a
player or its GM without putting the token in a URL.

The client trades its token (in the header, as for every call) for a ticket: 256 random bits, good for one
connection within 60 seconds.  The ticket travels in the stream's query string, so proxies' access logs may
keep it; by then it is spent (the stream process deletes it as it reads it) or about to expire, and it was
never the token.  Only its SHA-256 is stored, beside the stored role of the token it stands for, and the
stream process checks that role is still the token's when the ticket is used.
"""
from __future__ import annotations

import hashlib
import secrets

import orjson

from eventlog import keys
from eventlog.store import EventStore
from service.auth import Caller, token_field

TICKET_SECONDS = 60


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode("utf-8")).hexdigest()


def issue(store: EventStore, game_id: str, caller: Caller) -> str:
    """A new ticket for ``caller`` (a player or the GM: the public needs none)."""
    assert caller.token_digest is not None
    ticket = secrets.token_urlsafe(32)
    stored = store.private_field(game_id, token_field(caller.token_digest))
    store.redis.set(keys.stream_ticket(game_id, _digest(ticket)), stored or "", ex=TICKET_SECONDS)
    return ticket


def redeem(store: EventStore, game_id: str, ticket: str) -> Caller | None:
    """The caller a ticket stands for, once: None for a ticket unknown, spent, expired, issued for another game,
    or whose token no longer has the role it had."""
    if not ticket or len(ticket) > 200:
        return None
    stored = store.redis.getdel(keys.stream_ticket(game_id, _digest(ticket)))
    if not stored:
        return None
    role = orjson.loads(stored)
    if store.private_field(game_id, token_field(role["digest"])) != stored.decode():
        return None
    return Caller(role["role"], role.get("player_id"), role["digest"])
