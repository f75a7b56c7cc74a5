"""GM actions: deadlines, pauses, early resolution and ejections, each a public event
with a reason."""
from __future__ import annotations

import math
from datetime import timedelta
from typing import Any, Callable

from eventlog import deadlines
from eventlog.events import GM_ACTOR
from replays.fold import Record
from eventlog import clock
from service.appending import Plan, resolve_early
from runtime.context import Context
from service.errors import conflict, invalid
from service.guards import require_running
from service.membership import leave_plan
from service.schemas import deadline_problem
from runtime.scheduling import schedule_deadline


def builder(ctx: Context, game_id: str, kind: str, data: dict[str, Any]) -> Callable[[Record], Plan]:
    reason = data["reason"]

    def build(record: Record) -> Plan:
        now = clock.now()
        if kind == "gm.eject":
            return leave_plan(ctx, game_id, record, data["player_id"], "eject", "gm.eject", GM_ACTOR,
                              {"reason": reason})
        if kind == "gm.resume":
            if record["status"] != "paused":
                raise conflict("not_paused", "The game is not paused.")
            if record["phase"] is None:
                return Plan(kind, GM_ACTOR, {"reason": reason, "deadline": None})
            spec = {**record["phase"], "deadline": clock.after(record["paused"]["remaining"], now)}
            return Plan(kind, GM_ACTOR, {"reason": reason, "deadline": spec["deadline"]},
                        before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(spec["deadline"])),
                        after=lambda event: _reschedule(ctx, game_id, record, spec))
        if kind == "gm.pause":
            if record["status"] not in ("running", "signup"):
                raise conflict("not_running", f"The game is {record['status']}; only a running game can be paused.")
            remaining = 0
            if record["phase"] is not None:
                left = (clock.parse(record["phase"]["deadline"]) - now).total_seconds()
                remaining = max(1, math.ceil(left))
            return Plan(kind, GM_ACTOR, {"reason": reason, "remaining": remaining},
                        after=lambda event: deadlines.clear(ctx.redis, game_id))
        require_running(record)
        number = record["phase"]["number"]
        if kind == "gm.resolve_now":
            return Plan(kind, GM_ACTOR, {"reason": reason, "phase": number}, phase=number,
                        **resolve_early(ctx, game_id, number, "gm{seq}"))
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
        spec = {**record["phase"], "deadline": new}
        return Plan(kind, GM_ACTOR, {"reason": reason, "phase": number, "previous": record["phase"]["deadline"],
                                     "deadline": new}, phase=number,
                    before=lambda: deadlines.set_due(ctx.redis, game_id, clock.parse(new)),
                    after=lambda event: _reschedule(ctx, game_id, record, spec))

    return build


def _reschedule(ctx: Context, game_id: str, record: Record, spec: dict[str, Any]) -> None:
    """The phase's new deadline joins that second's batch (a batch left behind at the old
    one skips the phase: its deadline moved)."""
    schedule_deadline(ctx.queue, game_id, spec["number"], clock.parse(spec["deadline"]))


