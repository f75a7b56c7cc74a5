"""The platform's one gate for orders: every check an order must pass, in one place.

The service (live orders, with ``now`` from the clock), the audit (recorded orders, with ``now`` the event's
``at``) and the in-memory driver (bots, engine tests) all call ``admit``, so an order out of turn, after its
deadline, for another phase, sent while paused or from a player who has left gets the same answer everywhere,
and a forged log that holds one is caught by re-running this very function.  No engine writes "not your turn"
again.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from datetime import datetime
from typing import Any, Callable, Mapping

from marshmallow import Schema

from engines.canonical import roundtrip
from engines.contract import GM, Engine, JSON, Phase, RuleError, State, not_now

# The rules the gate's refusals name: one per case, the same for every game.
GAME_OVER = "game over"
LEFT = "left the game"
NOT_YOUR_TURN = "not your turn"
WRONG_PHASE = "phase"
WRONG_ACTOR = "actor"
UNKNOWN_TYPE = "action type"
NOT_STARTED = "not started"
PAUSED = "paused"
DEADLINE = "deadline"


class Refusal(RuleError):
    """A refusal of the platform's, not of a game's rules: it carries the API's error code as well."""

    def __init__(self, code: str, rule: str, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(rule, message, details, status=409)
        self.code = code


@dataclass(frozen=True)
class Table:
    """What the platform knows of a game beside its rules' state when an order arrives.

    ``phase`` and ``deadline`` are the open phase's number and deadline (None where nobody keeps them: the
    in-memory driver plays without a clock)."""

    status: str = "running"
    phase: int | None = None
    deadline: str | None = None
    departed: frozenset[str] = frozenset()


OPEN = Table()


def action_type(engine: Engine, kind: object) -> str:
    """``kind`` if it names one of the game's orders; else a 422 naming the choices."""
    if not isinstance(kind, str) or kind not in engine.actions:
        choices = ", ".join(sorted(engine.actions))
        raise RuleError(UNKNOWN_TYPE, f"unknown order type {kind!r} for {engine.meta.title}",
                        {"type": [f"Choose one of: {choices}."]})
    return kind


def load_action(engine: Engine, action: JSON) -> JSON:
    """Schema-check one order ``{"type": ..., ...}``; returns it with defaults filled in, as stored
    (raises marshmallow's ValidationError)."""
    return _loaded(engine, action_type(engine, action.get("type")), action)


def _loaded(engine: Engine, kind: str, action: JSON) -> JSON:
    """``load_action`` of an order whose type ``kind`` was read already (``admit``)."""
    body = {k: v for k, v in action.items() if k != "type"}
    return roundtrip({"type": kind, **instance(engine.actions[kind].schema).load(body)})


@cache
def instance(schema: type[Schema]) -> Schema:
    """One instance per schema class (orders, and the service's requests): making one costs more than loading a
    small order with it (85 us an order).  Shared between threads safely: ``load`` keeps its state per call."""
    return schema()


def admit(engine: Engine, state: State, actor: str, action: JSON, table: Table = OPEN,
          now: datetime | None = None, phase: int | None = None,
          phase_of: Callable[[Engine, State], Phase | None] | None = None) -> JSON:
    """``action`` as its schema reads it, if ``actor`` may send it at ``now``: who, when, its form, then the rules;
    else a RuleError (a marshmallow ValidationError for its form).

    ``phase``: the phase the order was decided for (a live order's first look, a recorded order's ``phase``); it
    must be the one open, so an order is never moved into the phase after the one its sender saw.  ``phase_of``:
    ``engine.phase(state)`` as a caller that has it already gives it (the audit, after a resolution)."""
    kind = action_type(engine, action.get("type"))
    spec = engine.actions[kind]
    if (spec.actor == "gm") != (actor == GM):
        raise RuleError(WRONG_ACTOR, f"{spec.name} is not an order for {'the GM' if actor == GM else 'a player'}",
                        status=403)
    if actor in table.departed:
        raise not_now(LEFT, "You have left this game (quit or ejected): you send no more orders.")
    check_open(table, now, phase)
    action = _loaded(engine, kind, action)
    current = engine.phase(state) if phase_of is None else phase_of(engine, state)
    if current is None:
        raise not_now(GAME_OVER, "The game is over.")
    if spec.phases and current.name not in spec.phases:
        raise not_now(WRONG_PHASE, f"{spec.name} is an order for the {' or '.join(spec.phases)} phase; "
                                   f"this is the {current.name} phase.", {"phase": current.name})
    if actor != GM and actor not in current.actors:
        if not current.sealed and current.actors:  # a turn: whose it is is no secret
            raise not_now(NOT_YOUR_TURN, f"It is {' and '.join(current.actors)}'s turn, not yours.",
                          {"phase": current.name, "actors": list(current.actors)})
        raise not_now(NOT_YOUR_TURN, f"You have no order to give in this {current.name} phase now.",
                      {"phase": current.name})
    engine.validate(state, actor, action)
    return action


def check_open(table: Table, now: datetime | None, phase: int | None) -> None:
    """The game takes orders at ``now``: it runs, its phase is the one meant, and that phase's deadline has not
    passed (an order is on time up to and including the deadline's own instant; ``now`` None: not checked, as
    for the GM's actions, which may follow a deadline until its resolution)."""
    if table.status == "signup":
        raise Refusal("not_started", NOT_STARTED, "The game has not started yet.")
    if table.status == "paused":
        raise Refusal("paused", PAUSED, "The game is paused by the GM.")
    if table.status == "finished":
        raise Refusal("finished", GAME_OVER, "The game is over.")
    if phase is not None and table.phase is not None and phase != table.phase:
        raise Refusal("deadline_passed", WRONG_PHASE,
                      f"This order was meant for phase {phase}, but phase {table.phase} is open: an order is "
                      "never recorded in another phase than its own (its phase closed first).", {"phase": phase})
    if now is not None and table.deadline is not None and now > _instant(table.deadline):
        raise Refusal("deadline_passed", DEADLINE,
                      "The deadline for this phase has passed; the order was not recorded.",
                      {"deadline": table.deadline})


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
