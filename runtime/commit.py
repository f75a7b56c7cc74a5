"""Decide, commit, react: the one way anything is recorded, for the API and the workers alike.

A caller hands ``commit`` a pure ``decide(record) -> Decision | None`` (every admission check in it, the gate's
among them).  ``commit`` owns the rest: it seals the decided event on the record it was decided on, appends it
with the request's id (``eventlog.requests``) so that a lost reply is looked up and never appended twice, takes a
conflict's missing events and decides again, and hands the appended event to the one reaction
(``runtime.reactions``).  A refusal is raised by ``decide`` and appends nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from eventlog.events import Event, new_salt, now_iso, seal
from eventlog.requests import RequestId
from eventlog.store import Conflict, Guard
from replays.fold import Record, apply
from runtime import reactions
from runtime.signing import Keys

MAX_ATTEMPTS = 25


@dataclass(frozen=True)
class Decision:
    """One event to append, decided at ``now`` on one record; ``answer`` is added to the sender's receipt and
    ``private`` holds the credentials written with the event (a new token's digest, the seed)."""

    type: str
    actor: str
    data: dict[str, Any]
    now: datetime
    status: int = 202
    answer: dict[str, Any] = field(default_factory=dict)
    private: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Committed:
    """What the sender is told (``status``, ``answer``); ``event`` when this call appended it (None
    when the request's answer was found stored: it had been appended before, by this request or its retry)."""

    status: int
    answer: dict[str, Any]
    event: Event | None = None


class Refused(Exception):
    """A decision's refusal: the request may not be recorded (the API's errors are these)."""


class Stale(Exception):
    """A refusal decided on a remembered record or caller, which may be behind: read afresh and decide again."""


class KeyReused(Exception):
    """The request's key was stored with another body: the same key for a different request."""


class Busy(Exception):
    """Every attempt lost its race to another writer: nothing was appended."""


class UnknownGame(Exception):
    """There is no such game."""


# ``decide(record, phase)``: ``phase`` is the one the request was first decided for on a record read for it (None
# until then), so an order or a GM's ruling is never moved on into the phase after the one it was meant for.
Decide = Callable[[Record, "int | None"], "Decision | None"]


def receipt(game_id: str, event: Event, keys: Keys) -> dict[str, Any]:
    """What the sender keeps to check later that the log holds exactly their event; its ``note`` is the same, signed
    by the service (a C2SP checkpoint of the log just after the event), so it proves it to anyone."""
    return {"seq": event["seq"], "hash": event["hash"],
            "receipt": {"game_id": game_id, "seq": event["seq"], "hash": event["hash"],
                        "prev_hash": event["prev_hash"], "at": event["at"], "note": keys.receipt(game_id, event)}}


def commit(ctx: Any, game_id: str, decide: Decide, request: RequestId | None = None, record: Record | None = None,
           guard: Guard | None = None, remembered: bool = False, opened: reactions.Opened | None = None,
           indexed: float | None = None) -> Committed | None:
    """Decide on ``record`` (or the freshest), append exactly once, react; None if ``decide`` found nothing to do.

    ``request``: the id the append carries (one of its own if None).  ``guard``: a condition on the caller that
    the append checks atomically (``GuardFailed`` if it fails, nothing appended).  ``remembered``: ``record`` and
    the caller were taken from this process's memory, not read for this request; a refusal decided on them
    raises ``Stale`` (a conflict brings the log's own events, and the refusals after it are final).  ``opened``
    and ``indexed``: see ``reactions``."""
    request = request or RequestId.own()
    record = record if record is not None else ctx.loader.load(game_id)
    meant: int | None = None
    for _attempt in range(MAX_ATTEMPTS):
        if record is None:
            raise UnknownGame(game_id)
        if not remembered and meant is None:
            meant = record["phase"]["number"] if record.get("phase") else None
        try:
            decision = decide(record, meant)
        except Refused as exc:
            if remembered:
                raise Stale() from exc
            raise
        if decision is None:
            return None
        event = seal(record["seq"] + 1, record["head_hash"], decision.type, decision.actor, decision.data,
                     at=now_iso(decision.now), salt=new_salt())
        after = apply(record, event)
        answer = {**receipt(game_id, event, ctx.keys), **decision.answer}
        reactions.prepare(ctx, game_id, record, after, decision.now, indexed)
        try:
            appended = ctx.store.append(game_id, event, request=request, answer=request.seal(decision.status, answer),
                                        private=decision.private, guard=guard)
        except Conflict as exc:
            record, remembered = ctx.loader.caught_up(game_id, record, exc), False
            continue
        if appended.replay is not None:
            return replayed(request, appended.replay)
        ctx.loader.remember(game_id, after)
        reactions.react(ctx, game_id, record, after, event, opened)
        return Committed(decision.status, answer, event)
    raise Busy(game_id)


def replayed(request: RequestId, stored: bytes) -> Committed:
    """The answer stored for ``request``: it was recorded before (its own retry, or the client's with its key)."""
    body, status, answer = request.open(stored)
    if body != request.body_digest:
        raise KeyReused()
    return Committed(status, answer)
