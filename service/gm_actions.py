"""GM actions: deadlines, pauses, early resolution and ejections, each a public event with a reason.

``decide`` is pure: the record, the action, ``now`` (and the seed, which an ejection's draws need) in, the event
out or a refusal raised.  What the index and the queue must do after it is the reaction's (``runtime.reactions``).
"""
from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from eventlog import clock
from eventlog.events import GM_ACTOR
from replays.fold import Record
from runtime.commit import Decision
from service.errors import conflict, invalid
from service.membership import leave
from service.orders import require_phase
from service.schemas import deadline_problem


def decide(record: Record, kind: str, data: dict[str, Any], now: datetime, seed: str | None,
           phase: int | None) -> Decision:
    """``phase``: the phase the GM's action was first decided for; a later one is refused, never acted on."""
    reason = data["reason"]
    if kind == "gm.eject":
        return leave(record, data["player_id"], "eject", "gm.eject", GM_ACTOR, {"reason": reason}, now, seed)
    if kind == "gm.resume":
        if record["status"] != "paused":
            raise conflict("not_paused", "The game is not paused.")
        deadline = None if record["phase"] is None else clock.after(record["paused"]["remaining"], now)
        return Decision(kind, GM_ACTOR, {"reason": reason, "deadline": deadline}, now)
    if kind == "gm.pause":
        if record["status"] not in ("running", "signup"):
            raise conflict("not_running", f"The game is {record['status']}; only a running game can be paused.")
        remaining = 0
        if record["phase"] is not None:
            left = (clock.parse(record["phase"]["deadline"]) - now).total_seconds()
            remaining = max(1, math.ceil(left))
        return Decision(kind, GM_ACTOR, {"reason": reason, "remaining": remaining}, now)
    number = require_phase(record, now, phase)
    if kind == "gm.resolve_now":
        return Decision(kind, GM_ACTOR, {"reason": reason, "phase": number}, now)
    # gm.extend_deadline
    current = clock.parse(record["phase"]["deadline"])
    wanted = current + timedelta(seconds=data["seconds"]) if data["seconds"] is not None else data["deadline"]
    problem = deadline_problem(wanted, now)
    if problem is not None:
        raise invalid(problem, {"seconds" if data["seconds"] is not None else "deadline": [problem]})
    new = clock.iso(wanted)
    if clock.parse(new) <= now:
        problem = "The new deadline must be in the future, in whole seconds (the fraction is dropped)."
        raise invalid(problem, {"deadline": [problem]})
    return Decision(kind, GM_ACTOR, {"reason": reason, "phase": number, "previous": record["phase"]["deadline"],
                                     "deadline": new}, now)
