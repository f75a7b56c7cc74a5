"""The live API beside the streams: stream tickets and webhooks, served by the stream process with the streams.

Each function here is plain and blocking (the server runs it on its thread pool): it takes the caller's
Authorization header and client address, checks them as the API does (``service.auth.caller_for``: the same
401s, the same bad-token throttle), and returns (status, body) or raises ``ApiError``."""
from __future__ import annotations

from typing import Any

from eventlog import keys
from replays.fold import Record
from runtime import webhooks as hooks
from runtime.context import Context
from service import tickets
from service.auth import Caller, caller_for
from service.errors import invalid, not_found, unauthorized

Answer = tuple[int, dict[str, Any]]


def _game(context: Context, game_id: str) -> Record:
    record = context.loader.load(game_id) if keys.plausible_game_id(game_id) else None
    if record is None:
        raise not_found(f"No game {game_id!r}.")
    return record


def _token_holder(context: Context, game_id: str, header: str | None, client: str, what: str) -> Caller:
    caller = caller_for(context.store, game_id, header, client)
    if caller.token_digest is None:
        raise unauthorized(what)
    return caller


def ticket(context: Context, game_id: str, header: str | None, client: str) -> Answer:
    """A one-time ticket for a browser's EventSource, which cannot send the token in a header."""
    _game(context, game_id)
    caller = _token_holder(context, game_id, header, client, "A ticket stands for a token: send the player's or "
                           "GM's token. The public needs no ticket to follow a game.")
    issued = tickets.issue(context.store, game_id, caller)
    return 201, {"ticket": issued, "expires_in": tickets.TICKET_SECONDS,
                 "stream": f"/v1/games/{game_id}/stream?ticket={issued}"}


def _owner(context: Context, game_id: str, header: str | None, client: str) -> tuple[str, str]:
    """(owner, role) of a token that may keep webhooks: the GM ("gm") or a player (their id)."""
    caller = _token_holder(context, game_id, header, client, "Webhooks belong to a token: send the GM's or a "
                           "player's token.")
    return ("gm", "gm") if caller.is_gm else (caller.player_id or "", "player")


def _owned(context: Context, game_id: str, hook_id: str, header: str | None, client: str) -> dict[str, Any]:
    owner, role = _owner(context, game_id, header, client)
    hook = hooks.hook(context.redis, game_id, hook_id) if len(hook_id) <= 40 else None
    if hook is None or (role != "gm" and hook["owner"] != owner):
        raise not_found(f"No webhook {hook_id!r} of yours in this game.")
    return hook


def add_webhook(context: Context, game_id: str, header: str | None, client: str, body: dict[str, Any]) -> Answer:
    """Register a URL that gets each new event, signed; the GM's hooks get the public view (or, asked, the GM's),
    a player's their own view.  The secret is in this answer only."""
    record = _game(context, game_id)
    owner, role = _owner(context, game_id, header, client)
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
        hook = hooks.register(context.redis, game_id, url, viewer, owner, after,
                              _hash_at(context, game_id, record, after))
    except hooks.Refused as exc:
        raise invalid(str(exc), {"url": [str(exc)]}) from exc
    if after < record["seq"]:
        hooks.kick(context.redis, context.webhook_queue, game_id, hook["id"], record["seq"])
    shown = hooks.public(hook, hooks.state(context.redis, game_id, hook["id"]))
    return 201, {**shown, "secret": hook["secret"]}


def _hash_at(context: Context, game_id: str, record: Record, seq: int) -> str:
    """The hash of the event at ``seq`` (a new hook's cursor), "" for none."""
    if seq == record["seq"]:
        return record["head_hash"]
    event = context.store.read_one(game_id, seq) if seq else None
    return event["hash"] if event else ""


def list_webhooks(context: Context, game_id: str, header: str | None, client: str) -> Answer:
    _game(context, game_id)
    owner, role = _owner(context, game_id, header, client)
    mine = [h for h in hooks.hooks(context.redis, game_id) if role == "gm" or h["owner"] == owner]
    return 200, {"game_id": game_id,
                 "webhooks": [hooks.public(h, hooks.state(context.redis, game_id, h["id"])) for h in mine]}


def read_webhook(context: Context, game_id: str, hook_id: str, header: str | None, client: str) -> Answer:
    """The hook, its delivery state and its delivery log (newest first): the GM reads any of the game's."""
    _game(context, game_id)
    hook = _owned(context, game_id, hook_id, header, client)
    return 200, {**hooks.public(hook, hooks.state(context.redis, game_id, hook_id)),
                 "deliveries": [hooks.public_delivery(d) for d in hooks.deliveries(context.redis, game_id, hook_id)]}


def delete_webhook(context: Context, game_id: str, hook_id: str, header: str | None, client: str) -> Answer:
    _game(context, game_id)
    _owned(context, game_id, hook_id, header, client)
    hooks.delete(context.redis, game_id, hook_id)
    return 200, {"deleted": hook_id}
