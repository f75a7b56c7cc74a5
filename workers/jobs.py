"""RQ job entry points: importable functions that take ids, never objects."""
from __future__ import annotations

from service import context
from workers import resolution


def resolve_phase(game_id: str, number: int) -> str:
    return resolution.resolve_phase(context.current(), game_id, number)
