"""The open phase of a folded record: when it closes and what the next one's log entry says.

Shared by the API (an order that completes a phase, a GM's ruling) and the workers (a
deadline), so both judge "may this phase resolve now?" the same way.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from engines.contract import Engine
from eventlog import clock

DEFAULT_DEADLINE = 86400  # seconds, for a phase the game's deadlines do not name


def nobody_awaited(engine: Engine, state: Any) -> bool:
    """The open phase waits for nobody: with ``resolve_early`` it resolves at once."""
    phase = engine.phase(state)
    return phase is not None and not phase.awaiting


def phase_spec(record: dict[str, Any], phase_name: str, number: int, moment: datetime | None = None) -> dict[str, Any]:
    """The log entry that opens a phase: its number, name and deadline."""
    seconds = record["deadlines"].get(phase_name, DEFAULT_DEADLINE)
    return {"number": number, "name": phase_name, "deadline": clock.after(seconds, moment)}


def resolvable(record: dict[str, Any], engine: Engine, now: datetime) -> str | None:
    """Why the open phase may be resolved at ``now`` (the trigger recorded with its
    outcome), or None while it must wait for its deadline."""
    if record["phase"]["forced"]:
        return "gm"
    if now > clock.parse(record["phase"]["deadline"]):
        return "deadline"
    if record["resolve_early"] and nobody_awaited(engine, record["engine"]):
        return "early"
    return None


def what_follows(record: dict[str, Any], engine: Engine, state: Any, seed: str, now: datetime) -> dict[str, Any]:
    """How a closing phase is recorded: the next phase's entry, or the end with the result and the
    seed revealed.  One place for the worker's resolutions and for membership changes that close a phase."""
    following = engine.phase(state)
    if following is None:
        return {"next": None, "result": engine.result(state), "seed": seed}
    return {"next": phase_spec(record, following.name, record["phase"]["number"] + 1, now)}
