"""RQ job entry points: importable functions that take ids, never objects."""
from __future__ import annotations

from runtime import context
from workers import resolution


def resolve_phase(game_id: str, number: int) -> str:
    return resolution.resolve_phase(context.current(), game_id, number)


def resolve_due(second: int, part: int) -> str:
    """One of the jobs draining the batch of deadlines at ``second`` (runtime/scheduling.py)."""
    return resolution.resolve_due(context.current(), second, part)
