"""The API's side of following a game live: stream tickets (the streams themselves are served by the stream
process, ``streams/``, so that a follower never holds one of the API's request workers)."""
from __future__ import annotations

from typing import Any

from service import tickets
from service.api import _caller, _record, ctx, v1
from service.errors import unauthorized
from service.http import reply


@v1.post("/games/<game_id>/stream-tickets")
def stream_ticket(game_id: str) -> Any:
    """A one-time ticket for a browser's EventSource, which cannot send the token in a header."""
    _record(game_id)
    caller = _caller(game_id)
    if caller.token_digest is None:
        raise unauthorized("A ticket stands for a token: send the player's or GM's token. The public needs no "
                           "ticket to follow a game.")
    ticket = tickets.issue(ctx().store, game_id, caller)
    return reply({"ticket": ticket, "expires_in": tickets.TICKET_SECONDS,
                  "stream": f"/v1/games/{game_id}/stream?ticket={ticket}"}, 201)
