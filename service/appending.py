"""The append loop every command goes through: load the freshest record, build one
event from it (validating as it goes), append it conditionally, retry on a conflict.

A build that raises appends nothing; scheduling after an append is best effort.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson

from engines.canonical import canonical_json, sha256_hex
from eventlog import deadlines, index
from eventlog.events import Event, new_salt, seal
from eventlog.store import Conflict, Guard, IdempotencyRecord
from replays.fold import Record
from eventlog import clock
from service.auth import Caller
from runtime import checkpoints
from runtime.context import Context
from runtime.signing import Keys
from service.errors import ApiError, conflict, invalid, not_found
from runtime.scheduling import resolve_soon

MAX_ATTEMPTS = 25
log = logging.getLogger("arbiter.commands")


@dataclass
class Plan:
    """One event to append, built from a record that was just validated against."""

    type: str
    actor: str
    data: dict[str, Any]
    status: int = 202
    private: dict[str, str] = field(default_factory=dict)
    respond: Callable[[Event], dict[str, Any]] | None = None
    before: Callable[[], None] | None = None   # index writes that must precede the event
    after: Callable[[Event], None] | None = None
    phase: int | None = None   # the phase this event belongs to, if it is meant for one


@dataclass(frozen=True)
class Prefetched:
    """An Idempotency-Key's stored answer (None: nothing stored yet), read in the same
    round trip as the record instead of a GET of its own."""

    key_digest: str
    answer: dict[str, Any] | None


@dataclass
class OnTrust:
    """A caller taken on trust from ``KnownTokens`` with a record from this process's cache.

    ``guard`` has the append script check the caller in the append's atomic step (GuardFailed
    if it no longer holds); the script also answers a stored Idempotency-Key itself.  Until
    the script has answered (``confirmed``) an error may come from the trusted caller or a
    stale record: the caller must then go the full way, which answers a replay before it
    validates and reports errors in their order.  Once it has, the caller was confirmed and no
    replay stored, and the record brought up to date: an error is then this request's answer."""

    guard: Guard
    confirmed: bool = False


def resolve_early(ctx: Context, game_id: str, number: int, purpose: str) -> dict[str, Any]:
    """Plan hooks for an event after which phase ``number`` may resolve at once.

    The deadline index is pulled forward before the append and the job queued after it:
    if the job is lost (worker killed, queue down, API killed in between), the sweeper
    finds the phase within seconds instead of at its deadline."""
    return {
        "before": lambda: deadlines.due_by(ctx.redis, game_id, clock.now()),
        "after": lambda event: resolve_soon(ctx.queue, game_id, number, purpose.format(seq=event["seq"])),
    }


def receipt(game_id: str, event: Event, keys: Keys) -> dict[str, Any]:
    """What the caller keeps to check later that the log holds exactly their order; its ``note`` is the same, signed
    by the service (a C2SP checkpoint of the log just after the event), so it proves it to anyone."""
    return {
        "seq": event["seq"],
        "hash": event["hash"],
        "receipt": {
            "game_id": game_id,
            "seq": event["seq"],
            "hash": event["hash"],
            "prev_hash": event["prev_hash"],
            "at": event["at"],
            "note": keys.receipt(game_id, event),
        },
    }


# -- the append loop ---------------------------------------------------------------------

def append(
    ctx: Context,
    game_id: str,
    build: Callable[[Record], Plan],
    caller: Caller | None = None,
    idempotency_key: str | None = None,
    body: Any = None,
    first: Record | None = None,
    prefetched: Prefetched | None = None,
    trust: OnTrust | None = None,
) -> tuple[int, dict[str, Any]]:
    """``first``: a record the caller has just loaded, used for the first attempt instead
    of loading it again (a stale one only costs a conflict, which brings the missing events,
    and a retry).  ``prefetched``: the Idempotency-Key's stored answer, read with ``first``.
    Either way a replay is answered before anything is validated; one that races this
    request is caught by the append script, which checks the key atomically.

    ``trust``: the caller and ``first`` were not read but taken from this process's memory
    (see ``OnTrust``); nothing is read before the append."""
    key_digest = body_digest = None
    if idempotency_key and caller is not None and caller.token_digest:
        key_digest = sha256_hex(idempotency_key)
        body_digest = sha256_hex(_body_text(body))
        if trust is None:
            if prefetched is not None and prefetched.key_digest == key_digest:
                prior = prefetched.answer
            else:
                prior = ctx.store.idempotent_answer(game_id, caller.scope, key_digest)
            if prior is not None:
                return _replayed(prior, body_digest)
    meant_for: int | None = None
    record = first if first is not None else ctx.loader.load(game_id)
    remembered = trust is not None  # the record may be older than this request: it says nothing of the phase meant
    for _attempt in range(MAX_ATTEMPTS):
        if record is None:
            raise not_found(f"No game {game_id!r}.")
        plan = build(record)
        if not remembered:
            meant_for = _same_phase(meant_for, plan.phase)
        event = seal(record["seq"] + 1, record["head_hash"], plan.type, plan.actor, plan.data, salt=new_salt())
        response = plan.respond(event) if plan.respond else receipt(game_id, event, ctx.keys)
        idem = None
        if key_digest and body_digest and caller is not None:
            idem = IdempotencyRecord(caller.scope, key_digest, body_digest, plan.status, response)
        if plan.before:
            plan.before()
        try:
            appended = ctx.store.append(game_id, event, idempotency=idem, private=plan.private,
                                        guard=trust.guard if trust else None)
        except Conflict as exc:
            if trust is not None:
                trust.confirmed = True
            record, remembered = ctx.loader.caught_up(game_id, record, exc), False
            continue
        if trust is not None:
            trust.confirmed = True
        if appended.replay is not None:
            return _replayed(appended.replay, body_digest or "")
        ctx.loader.appended(game_id, record, event)
        _after(lambda e, before=record: index.moved(ctx.redis, game_id, before, ctx.loader.cached(game_id)), event)
        if plan.after:
            _after(plan.after, event)
        _after(lambda e: checkpoints.made(ctx, game_id, e), event)  # a membership change that closed a phase
        return plan.status, response
    raise ApiError(503, "busy", "The game is busy right now; please retry.")


def _same_phase(meant_for: int | None, phase: int | None) -> int | None:
    """An order validated against one phase must not land in the next: if the phase was
    resolved while this request lost a race to append, the order is refused, not moved."""
    if meant_for is not None and phase is not None and phase != meant_for:
        raise conflict("deadline_passed", "The phase closed while this order was being recorded; it was not recorded.",
                       {"phase": meant_for})
    return meant_for if meant_for is not None else phase


def _body_text(body: Any) -> str:
    """The request body in a stable form for its digest; a body the schemas will reject
    (a float, say) still gets one, so the request fails with a 422 and not a 500."""
    try:
        return canonical_json(body)
    except TypeError:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def _after(hook: Callable[[Event], None], event: Event) -> None:
    """Scheduling after an append is best effort: the event is already the truth, and
    the sweeper re-queues any deadline whose job did not make it onto the queue."""
    try:
        hook(event)
    except Exception:
        log.exception("scheduling after seq %s failed; the sweeper will catch up", event["seq"])


def _replayed(prior: dict[str, Any], body_digest: str) -> tuple[int, dict[str, Any]]:
    if prior["body"] != body_digest:
        raise invalid(
            "This Idempotency-Key was already used with a different request body.",
            {"Idempotency-Key": ["Reused with a different body."]},
            code="idempotency_key_reused",
        )
    return prior["status"], prior["response"]


