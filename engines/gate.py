"""The platform's one gate for orders: what every game's orders must pass before its rules are asked.

The service (live orders), the audit (recorded ones) and the in-memory driver (bots, engine tests)
all call ``admit``, so an order out of turn or from a player who has left gets the same answer
everywhere, and no engine writes "not your turn" again.
"""
from __future__ import annotations

from collections.abc import Collection

from engines.contract import GM, Engine, JSON, RuleError, State, not_now

# The rules the gate's refusals name: one per case, the same for every game.
GAME_OVER = "game over"
LEFT = "left the game"
NOT_YOUR_TURN = "not your turn"
WRONG_PHASE = "phase"
WRONG_ACTOR = "actor"
UNKNOWN_TYPE = "action type"


def action_type(engine: Engine, kind: object) -> str:
    """``kind`` if it names one of the game's orders; else a 422 naming the choices."""
    if not isinstance(kind, str) or kind not in engine.actions:
        choices = ", ".join(sorted(engine.actions))
        raise RuleError(UNKNOWN_TYPE, f"unknown order type {kind!r} for {engine.meta.title}",
                        {"type": [f"Choose one of: {choices}."]})
    return kind


def admit(engine: Engine, state: State, actor: str, action: JSON, departed: Collection[str] = ()) -> None:
    """Raise RuleError unless ``actor`` may send ``action`` (schema-checked) now: who, when, then the rules."""
    spec = engine.actions[action_type(engine, action.get("type"))]
    if (spec.actor == "gm") != (actor == GM):
        raise RuleError(WRONG_ACTOR, f"{spec.name} is not an order for {'the GM' if actor == GM else 'a player'}",
                        status=403)
    if actor in departed:
        raise not_now(LEFT, "You have left this game (quit or ejected): you send no more orders.")
    phase = engine.phase(state)
    if phase is None:
        raise not_now(GAME_OVER, "The game is over.")
    if spec.phases and phase.name not in spec.phases:
        raise not_now(WRONG_PHASE, f"{spec.name} is an order for the {' or '.join(spec.phases)} phase; "
                                   f"this is the {phase.name} phase.", {"phase": phase.name})
    if actor != GM and actor not in phase.actors:
        if not phase.sealed and phase.actors:  # a turn: whose it is is no secret
            raise not_now(NOT_YOUR_TURN, f"It is {' and '.join(phase.actors)}'s turn, not yours.",
                          {"phase": phase.name, "actors": list(phase.actors)})
        raise not_now(NOT_YOUR_TURN, f"You have no order to give in this {phase.name} phase now.",
                      {"phase": phase.name})
    engine.validate(state, actor, action)
