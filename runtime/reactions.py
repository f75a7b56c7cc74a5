"""What follows an append, in one place: the deadline index and the resolution jobs, read off the game's record
before and after the event (in the manner of eventsourcing's ``policy()``), never carried through the call.

``prepare`` runs before the append and only ever pulls the index entry earlier, so a process killed between the
append and ``react`` leaves the sweeper a reason to look within seconds (it finds the log's truth and puts the
entry right); ``react`` runs after it and makes the index and the queue say exactly what the log now says.
Both are best effort: the event is already the truth, and the sweeper re-queues what did not make it.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from eventlog import clock, deadlines, index
from eventlog.events import Event
from replays.fold import MEMBERSHIP, Record, engine_for
from replays.phases import nobody_awaited, resolvable
from runtime import checkpoints
from runtime.scheduling import phase_opened, resolve_soon, schedule_deadline

log = logging.getLogger("arbiter.reactions")

# A phase whose next one opened in a batch: ``(game_id, spec, ready)``, scheduled together (``phases_opened``).
Opened = list[tuple[str, dict[str, Any], bool]]


def prepare(ctx: Any, game_id: str, before: Record, after: Record, now: datetime,
            indexed: float | None = None) -> None:
    """Before the event that takes the game from ``before`` to ``after``: the sweeper looks at it no later than it
    is due then.  Nothing is written where that changes nothing: the moment is the same as before the event (an
    ordinary order), or ``indexed`` (the entry as read with the record, when known) is earlier already."""
    due = _due(after, now)
    if due is None or (indexed is not None and indexed <= due.timestamp()):
        return
    if indexed is None and due != now and before.get("status") == "running" and before.get("phase") == after["phase"]:
        return  # the same phase, not ready: its entry says its deadline already
    deadlines.due_by(ctx.redis, game_id, due)


def react(ctx: Any, game_id: str, before: Record, after: Record, event: Event, opened: Opened | None = None) -> None:
    """After ``event`` took the game from ``before`` to ``after``; a failure is logged, the sweeper catches up.
    ``opened``: where to leave a newly opened phase for the caller to schedule with others' (a batch job)."""
    try:
        _react(ctx, game_id, before, after, event, opened)
    except Exception:
        log.exception("game %s: what follows seq %s failed; the sweeper will catch up", game_id, event["seq"])


def _react(ctx: Any, game_id: str, before: Record, after: Record, event: Event, opened: Opened | None) -> None:
    checkpoints.made(ctx, game_id, event)  # at a phase's close, and so at the end: a signed checkpoint kept
    index.moved(ctx.redis, game_id, before, after)  # the game lists' status index
    was, phase = before.get("phase"), after.get("phase")
    if after.get("status") != "running" or phase is None:
        if was is not None:
            deadlines.clear(ctx.redis, game_id)  # over, or paused (a resume indexes it again)
        return
    ready = bool(after["resolve_early"]) and nobody_awaited(engine_for(after), after["engine"])
    if was is None or was["number"] != phase["number"] or before["status"] != "running":
        if opened is None:  # a phase opened (a start, a resolution, a change that closed one) or the game resumed
            phase_opened(ctx.queue, ctx.redis, game_id, phase, ready)
        else:
            opened.append((game_id, phase, ready))
        return
    if phase["deadline"] != was["deadline"]:
        deadlines.set_due(ctx.redis, game_id, clock.parse(phase["deadline"]))
        schedule_deadline(ctx.queue, game_id, phase["number"], clock.parse(phase["deadline"]))
    if phase["forced"] or ready:
        resolve_soon(ctx.queue, game_id, phase["number"], _purpose(event))


def _due(record: Record, now: datetime) -> datetime | None:
    """When the open phase is due: now if it may resolve at once, else its deadline; None if nothing runs."""
    if record.get("status") != "running" or record.get("phase") is None:
        return None
    if resolvable(record, engine_for(record), now) is not None:
        return now
    return clock.parse(record["phase"]["deadline"])


def _purpose(event: Event) -> str:
    """The last part of the resolution job's id: one job per reason, so a repeated reaction queues nothing new."""
    if event["type"] == "action.submitted":
        return "early"
    if event["type"] == "gm.resolve_now":
        return f"gm{event['seq']}"
    return f"{MEMBERSHIP.get(event['type'], 'after')}{event['seq']}"
