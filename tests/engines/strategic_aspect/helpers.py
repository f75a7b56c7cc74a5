"""Scenarios for the Strategic Aspect rule tests: a started game, set to a position, then played order by
order through the platform's gate (engines.driver) and resolved as the worker would."""
from __future__ import annotations

import copy
from typing import Any

from engines.canonical import roundtrip
from engines.driver import run_phase, start, submit, player_list
from engines.strategic_aspect import ENGINE

State = dict[str, Any]


def new(players: int = 4, seed: str = "rules", options: dict[str, Any] | None = None) -> State:
    return start(ENGINE, options, player_list(players), seed).final


def with_(state: State, **changes: Any) -> State:
    """A copy of ``state`` with top-level parts replaced; ``steps``/``position`` are merged per cyclist."""
    new_state = copy.deepcopy(state)
    for key, value in changes.items():
        if key in ("steps", "position"):
            new_state[key] = {**new_state[key], **value}
        elif key == "cycle":
            new_state["cycle"] = {**new_state["cycle"], **value}
        else:
            new_state[key] = value
    return roundtrip(new_state)


def turn(state: State, cyclist: str, at: int = 0, steps: int | None = None, order: list[str] | None = None,
         **more: Any) -> State:
    """``cyclist``'s move turn open on space ``at`` (others' order: ``order``)."""
    extra: dict[str, Any] = {"steps": {cyclist: steps}} if steps is not None else {}
    return with_(state, stage="move", current=cyclist, pending={}, position={cyclist: at},
                 order=order if order is not None else [c for c in state["cyclists"] if c != cyclist], **extra,
                 **more)


def send(state: State, actor: str, kind: str, **fields: Any) -> State:
    return submit(ENGINE, state, actor, {"type": kind, **fields})


def resolve(state: State, number: int = 1, seed: str = "rules") -> tuple[dict[str, Any], State]:
    return run_phase(ENGINE, state, seed, number)


def effects(outcome: dict[str, Any], do: str) -> list[dict[str, Any]]:
    return [e for e in outcome["public"]["effects"] if e["do"] == do]


def auction(state: State, bidders: tuple[str, str] = ("p1", "p2"), steps: int | None = None) -> State:
    """The first two have reached 30: their sealed auction is open."""
    extra = {"steps": {c: steps for c in bidders}} if steps is not None else {}
    return with_(state, stage="auction", current=None, pending={}, position={c: 30 for c in bidders},
                 cycle={"arrivals": list(bidders)}, auction={"bidders": list(bidders), "cap": 20, "rounds": []},
                 **extra)


def holding_safety(state: State, holder: str, transfers: int = 0) -> State:
    return with_(state, stage="safety", current=holder, pending={},
                 safety={"holder": holder, "transfers": transfers, "status": "deciding", "offered_to": None,
                         "declined": [], "history": []})


def ceremony(state: State, keeper: str | None = None, vote_holder: str | None = None) -> State:
    """The elimination ceremony open; ``keeper`` kept safety (else it was destroyed)."""
    safety = {"holder": keeper, "transfers": 0, "status": "kept" if keeper else "destroyed", "offered_to": None,
              "declined": [], "history": []}
    return with_(state, stage="vote", current=None, pending={}, safety=safety, cycle={"vote_holder": vote_holder})
