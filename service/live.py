"""The API's side of following a game live: stream tickets (the streams themselves are served by the stream
process, ``streams/``, so that a follower never holds one of the API's request workers) and webhooks."""
from __future__ import annotations

from typing import Any

from runtime import webhooks as hooks
from service import tickets
from service.api import _caller, _record, ctx, v1
from service.errors import invalid, not_found, unauthorized
from service.http import json_body, reply


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


# -- webhooks (runtime/webhooks.py) ---------------------------------------------------------------------------

def _hook_owner(game_id: str) -> tuple[str, str]:
    """(owner, role) of a token that may keep webhooks: the GM ("gm") or a player (their id)."""
    caller = _caller(game_id)
    if caller.token_digest is None:
        raise unauthorized("Webhooks belong to a token: send the GM's or a player's token.")
    return ("gm", "gm") if caller.is_gm else (caller.player_id or "", "player")


def _owned(game_id: str, hook_id: str) -> tuple[dict[str, Any], str]:
    owner, role = _hook_owner(game_id)
    hook = hooks.hook(ctx().redis, game_id, hook_id) if len(hook_id) <= 40 else None
    if hook is None or (role != "gm" and hook["owner"] != owner):
        raise not_found(f"No webhook {hook_id!r} of yours in this game.")
    return hook, role


@v1.post("/games/<game_id>/webhooks")
def add_webhook(game_id: str) -> Any:
    """Register a URL that gets each new event, signed; the GM's hooks get the public view (or, asked, the GM's),
    a player's their own view.  The secret is in this answer only."""
    record = _record(game_id)
    owner, role = _hook_owner(game_id)
    body = json_body()
    unknown = sorted(set(body) - {"url", "view", "after"})
    if unknown:
        raise invalid("Unknown fields.", {name: ["Unknown field."] for name in unknown})
    view = body.get("view", "public" if role == "gm" else "own")
    if view not in (("public", "gm") if role == "gm" else ("own",)):
        raise invalid("'view' is 'public' or 'gm' for the GM's hooks; a player's hook gets the player's own view.",
                      {"view": ["Must be one of public, gm." if role == "gm" else "Must be own."]})
    after = body.get("after", record["seq"])
    if type(after) is not int or not 0 <= after <= record["seq"]:
        raise invalid(f"'after' must be a seq from 0 to {record['seq']}.", {"after": ["Not a valid seq."]})
    url = body.get("url")
    if not isinstance(url, str):
        raise invalid("'url' is required: where to POST each event.", {"url": ["Missing data for required field."]})
    viewer = None if view == "public" else ("gm" if view == "gm" else owner)
    try:
        hook = hooks.register(ctx().redis, game_id, url, viewer, owner, after)
    except hooks.Refused as exc:
        raise invalid(str(exc), {"url": [str(exc)]}) from exc
    if after < record["seq"]:
        hooks.kick(ctx().redis, ctx().queue, game_id, hook["id"], record["seq"])
    shown = hooks.public(hook, hooks.state(ctx().redis, game_id, hook["id"]))
    return reply({**shown, "secret": hook["secret"]}, 201)


@v1.get("/games/<game_id>/webhooks")
def list_webhooks(game_id: str) -> Any:
    _record(game_id)
    owner, role = _hook_owner(game_id)
    redis = ctx().redis
    mine = [h for h in hooks.hooks(redis, game_id) if role == "gm" or h["owner"] == owner]
    return reply({"game_id": game_id, "webhooks": [hooks.public(h, hooks.state(redis, game_id, h["id"]))
                                                   for h in mine]})


@v1.get("/games/<game_id>/webhooks/<hook_id>")
def webhook(game_id: str, hook_id: str) -> Any:
    """The hook, its delivery state and its delivery log (newest first): the GM reads any of the game's."""
    _record(game_id)
    hook, _ = _owned(game_id, hook_id)
    redis = ctx().redis
    return reply({**hooks.public(hook, hooks.state(redis, game_id, hook_id)),
                  "deliveries": hooks.deliveries(redis, game_id, hook_id)})


@v1.delete("/games/<game_id>/webhooks/<hook_id>")
def delete_webhook(game_id: str, hook_id: str) -> Any:
    _record(game_id)
    _owned(game_id, hook_id)
    hooks.delete(ctx().redis, game_id, hook_id)
    return reply({"deleted": hook_id})
