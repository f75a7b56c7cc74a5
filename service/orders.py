"""A player's order (or one the GM enters for a player), decided: who it is from, then the platform's gate.

Pure: the record, the caller, the body, ``now`` and the phase the order is meant for in; the event out or a
refusal raised.  Every check of whether the order may be recorded is the gate's (``engines.gate.admit``), which the
audit runs again on every recorded order.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from marshmallow import ValidationError

from engines.contract import GM, RuleError
from engines.gate import Refusal, admit, check_open
from replays.fold import Record, engine_for, table_of
from replays.phases import nobody_awaited
from runtime.commit import Decision
from service.answers import order_accepted
from service import names
from service.auth import Caller
from service.errors import RULE_CODES, ApiError, forbidden, invalid
from service.membership import find_player
from service.schemas import GM_ACTIONS, QUIT


def decide(record: Record, caller: Caller, body: dict[str, Any], now: datetime, phase: int | None) -> Decision:
    kind = body["type"]
    engine = engine_for(record)
    spec = engine.actions.get(kind)
    if spec is None:
        known = ", ".join(sorted([*engine.actions, *GM_ACTIONS, QUIT]))
        raise invalid(f"Unknown order type {kind!r} for {engine.meta.title}.", {"type": [f"Choose one of: {known}."]})
    on_behalf = body.get("on_behalf_of")
    actor = _actor_for(record, caller, spec.actor, on_behalf, kind)
    fields = {k: v for k, v in body.items() if k != "on_behalf_of"}
    state = record["engine"]
    try:
        action = admit(engine, state, actor, fields, table_of(record), now, phase)
    except ValidationError as exc:
        raise invalid("The request has invalid fields.", exc.messages if isinstance(exc.messages, dict)
                      else {"_schema": exc.messages}) from exc
    except RuleError as exc:
        raise refused(exc) from exc
    # Names a player types into an order (a robot's name) are checked as player names are (service/names.py).
    action = {"type": kind, **names.typed_names(spec.schema, {k: v for k, v in action.items() if k != "type"})}
    data: dict[str, Any] = {"phase": record["phase"]["number"], "action": action}
    if on_behalf is not None and caller.is_gm:
        data["entered_by"] = GM
    if spec.team_sees:
        data["teams"] = list(engine.teams(state, actor))  # who may see it, fixed as the order is sent
    resolves = bool(record["resolve_early"]) and nobody_awaited(engine, engine.apply_action(state, actor, action))
    return Decision("action.submitted", actor, data, now, answer=order_accepted({}, record["phase"], resolves))


def require_phase(record: Record, now: datetime | None, phase: int | None) -> int:
    """The open phase's number, if the game runs and it is the phase meant (``engines.gate.check_open``)."""
    try:
        check_open(table_of(record), now, phase)
    except RuleError as exc:
        raise refused(exc) from exc
    return record["phase"]["number"]


def refused(exc: RuleError) -> ApiError:
    """A refusal of the gate or of a game's rules, as the API says it: its code, and the rule it names."""
    code = exc.code if isinstance(exc, Refusal) else RULE_CODES[exc.status]
    return ApiError(exc.status, code, exc.message, {"rule": exc.rule, **exc.details})


def _actor_for(record: Record, caller: Caller, needs: str, on_behalf: Any, kind: str) -> str:
    """Who the order is from: a player sends their own; a GM may enter one for a player."""
    if needs == "gm":
        if not caller.is_gm:
            raise forbidden(f"Only the GM may send {kind}.")
        return GM
    if caller.is_gm:
        if not isinstance(on_behalf, str):
            raise invalid("The GM enters a player's order by naming them.",
                          {"on_behalf_of": ["Required when the GM sends a player's order."]})
        actor = on_behalf
    else:
        if on_behalf is not None and on_behalf != caller.player_id:
            raise forbidden("You may only send orders for yourself.")
        actor = caller.player_id or ""
    find_player(record, actor, "on_behalf_of")  # one who has left is refused by the gate, naming its rule
    return actor
