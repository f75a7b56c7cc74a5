"""Putting resolutions on the RQ queue.

Each phase's first job has the id ``resolve-<game>-<phase>``; a job that must run again
(deadline moved, early resolution, sweeper) gets a suffix naming why, and every
enqueue is ``unique=True`` so the same job is never queued twice.  Jobs carry ids
only; the JSON serializer means nothing is unpickled.
"""
from __future__ import annotations

from datetime import datetime

from rq import Queue
from rq.exceptions import DuplicateJobError

RESULT_TTL = 600
FAILURE_TTL = 7 * 24 * 3600
JOB_TIMEOUT = 120


def job_id(game_id: str, number: int, purpose: str = "") -> str:
    base = f"resolve-{game_id}-{number}"
    return f"{base}-{purpose}" if purpose else base


def _options(game_id: str, number: int, purpose: str) -> dict:
    return {
        "job_id": job_id(game_id, number, purpose),
        "unique": True,
        "result_ttl": RESULT_TTL,
        "failure_ttl": FAILURE_TTL,
        "job_timeout": JOB_TIMEOUT,
        "description": f"resolve {game_id} phase {number}",
    }


def schedule_at(queue: Queue, game_id: str, number: int, when: datetime, purpose: str = "") -> bool:
    """Resolve phase ``number`` of ``game_id`` at ``when``; False if already queued."""
    try:
        queue.enqueue_at(when, "workers.jobs.resolve_phase", game_id, number, **_options(game_id, number, purpose))
    except DuplicateJobError:
        return False
    return True


def resolve_soon(queue: Queue, game_id: str, number: int, purpose: str) -> bool:
    """Resolve now (everyone has acted, a GM said so, or the sweeper found it overdue)."""
    try:
        queue.enqueue("workers.jobs.resolve_phase", game_id, number, **_options(game_id, number, purpose))
    except DuplicateJobError:
        return False
    return True


def nobody_awaited(engine, state: dict) -> bool:
    """The open phase waits for nobody: with ``resolve_early`` it resolves at once."""
    phase = engine.phase(state)
    return phase is not None and not phase.awaiting


def phase_spec(record: dict, phase_name: str, number: int, moment: datetime | None = None) -> dict:
    """The log entry that opens a phase: its number, name and deadline."""
    from service import clock

    seconds = record["deadlines"].get(phase_name, 86400)
    return {"number": number, "name": phase_name, "deadline": clock.after(seconds, moment)}


def phase_opened(queue: Queue, redis, game_id: str, spec: dict, ready: bool) -> None:
    """After a phase-opening event is in the log: schedule its resolution.

    ``ready`` means nobody needs to act (resolve early, if the game allows it).
    """
    from eventlog import deadlines
    from service import clock

    when = clock.parse(spec["deadline"])
    deadlines.set_due(redis, game_id, when)
    schedule_at(queue, game_id, spec["number"], when)
    if ready:
        deadlines.due_by(redis, game_id, clock.now())
        resolve_soon(queue, game_id, spec["number"], "early")
