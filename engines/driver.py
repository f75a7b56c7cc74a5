"""Playing a game purely in memory: the fold and a bot loop, with no store or clock.

The platform's fold (``replays.fold``) wraps the same three steps with sign-up,
deadlines and GM events; engine tests and the conformance suite use this module to
play whole games quickly.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Callable

from engines.canonical import roundtrip, roundtrip_reusing
from engines.contract import Engine, JSON, State
from engines.gate import Table, admit, load_action
from engines.rng import Rng


# Records are named as the platform's events are (``replays.fold.FOLDS``): one vocabulary for both.
MEMBERSHIP_EVENTS = {"join": "player.joined", "quit": "player.quit", "eject": "gm.eject"}


def player_list(count: int, fields: list[JSON] | None = None) -> list[JSON]:
    """Players ``p1..pN`` named ``Player 1..N``, as the platform would list them."""
    return [
        {"id": f"p{i + 1}", "name": f"Player {i + 1}", "fields": (fields[i] if fields else {})}
        for i in range(count)
    ]


def load_options(engine: Engine, options: JSON | None) -> JSON:
    """Options with defaults filled in, as plain JSON (raises marshmallow ValidationError)."""
    return roundtrip(engine.options_schema().load(options or {}))


def submit(engine: Engine, state: State, actor: str, action: JSON, departed: Collection[str] = ()) -> State:
    """Schema-check, pass the platform's gate, and apply one order."""
    loaded = admit(engine, state, actor, action, Table(departed=frozenset(departed)))
    return engine.apply_action(state, actor, loaded)


@dataclass
class Played:
    """A finished (or stopped) in-memory game: its records and the state after each."""

    options: JSON
    players: list[JSON]
    seed: str
    setup: JSON
    records: list[JSON] = field(default_factory=list)
    states: list[State] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.states[-1]

    @property
    def departed(self) -> list[str]:
        """Players who quit or were ejected, from the records: the gate refuses their orders."""
        return [r["change"]["player"]["id"] for r in self.records
                if r["type"] in ("player.quit", "gm.eject")]


class NotPlainJson(AssertionError):
    """An engine returned data that is not already what storage gives back (a tuple, a set, an int key ...)."""


def plain(value: object, what: str, strict: bool = True, base: JSON | None = None) -> JSON:
    """``value`` as it comes back from storage.  With ``strict``, it must already be exactly that: the fold reads
    stored JSON, so an engine that returns a tuple where live play had one would play differently on replay.

    ``base``, the state ``value`` was made from, lends it what the step left alone, as in the platform's fold
    (``roundtrip_reusing``): a step costs what it changed, and a long game's states share their history instead of
    each holding a copy (a 60-player game's 2,000 copies were most of its time, in the garbage collector)."""
    try:
        stored = roundtrip(value) if base is None else roundtrip_reusing(value, base)
    except TypeError as exc:
        raise NotPlainJson(f"{what}: not JSON data ({exc})") from exc
    if strict:
        problem = _difference(value, stored, "$")
        if problem:
            raise NotPlainJson(f"{what}: {problem}")
    return stored


def _difference(raw: object, stored: object, path: str) -> str | None:
    """Where ``raw`` differs from its round trip, comparing types exactly (a tuple is not a list, True is not 1).
    What the round trip took as it was (a part of ``base``, checked when it was new) is stored already."""
    if isinstance(raw, float):
        return f"{path} is a float (canonical JSON has none: outcomes are hashed)"
    if raw is stored:
        return None
    if type(raw) is not type(stored):
        return f"{path} is a {type(raw).__name__}, stored as a {type(stored).__name__}"
    if isinstance(raw, dict):
        for key in raw:
            problem = _difference(raw[key], stored[key], f"{path}.{key}")
            if problem:
                return problem
    elif isinstance(raw, list):
        for index, (a, b) in enumerate(zip(raw, stored)):
            problem = _difference(a, b, f"{path}[{index}]")
            if problem:
                return problem
    elif raw != stored:
        return f"{path} changes in a round trip"
    return None


def start(engine: Engine, options: JSON | None, players: list[JSON], seed: str, strict: bool = False) -> Played:
    opts = load_options(engine, options)
    setup = plain(engine.setup(opts, players, Rng(seed, "setup")), "setup", strict)
    state = plain(engine.initial_state(opts, players, setup), "initial_state", strict)
    return Played(opts, players, seed, setup, [], [state])


def fold(engine: Engine, played: Played) -> State:
    """Re-fold the records from scratch, reading recorded outcomes (never re-drawing).  Each state is a round
    trip, so the next takes what a record leaves alone from it (``roundtrip_reusing``), as the platform's fold
    does."""
    state = roundtrip(engine.initial_state(played.options, played.players, played.setup))
    for record in played.records:
        state = roundtrip_reusing(_applied(engine, state, record), state)
    return state


def apply_record(engine: Engine, state: State, record: JSON) -> State:
    return roundtrip(_applied(engine, state, record))


def _applied(engine: Engine, state: State, record: JSON) -> State:
    """The state after one record, as the engine returns it."""
    if record["type"] == "action.submitted":
        return engine.apply_action(state, record["actor"], record["action"])
    if record["type"] == "phase.resolved":
        return engine.apply_outcome(state, record["outcome"])
    if record["type"] in MEMBERSHIP_EVENTS.values():
        return engine.apply_members(state, record["change"], record["outcome"])
    raise ValueError(f"unknown record type {record['type']!r}")


def play_bots(
    engine: Engine,
    options: JSON | None,
    players: list[JSON],
    seed: str,
    *,
    bot_seed: str = "bots",
    max_phases: int = 5000,
    skip: Callable[[int, str], bool] | None = None,
    check: Callable[[State], None] | None = None,
    strict: bool = False,
) -> Played:
    """Bots play the game to its end.  ``skip(phase_number, actor)`` makes a bot miss
    a deadline; ``check(state)`` runs after every step (invariants); ``strict`` requires
    every engine output to be plain JSON already (see ``plain``)."""
    played = start(engine, options, players, seed, strict)
    departed = played.departed  # nobody joins or leaves here: the gate's table is the same for every order
    number = 1
    while (phase := engine.phase(played.final)) is not None:
        if number > max_phases:
            raise RuntimeError(f"{engine.meta.name}: no end after {max_phases} phases")
        bots = Rng(bot_seed, "phase", number)
        for actor in phase.awaiting:
            if skip and skip(number, actor):
                continue
            action = engine.bot_action(played.final, actor, bots.fork(actor))
            if action is None:
                continue
            loaded = load_action(engine, action)
            new = submit(engine, played.final, actor, loaded, departed)
            new = plain(new, f"apply_action({loaded['type']} by {actor}) in phase {number}", strict, played.final)
            _step(played, {"type": "action.submitted", "actor": actor, "action": loaded}, new, check)
        outcome = plain(engine.resolve(played.final, Rng(seed, "phase", number)), f"resolve of phase {number}", strict)
        new = plain(engine.apply_outcome(played.final, outcome), f"apply_outcome of phase {number}", strict,
                    played.final)
        _step(played, {"type": "phase.resolved", "number": number, "outcome": outcome}, new, check)
        number += 1
    return played


def _step(played: Played, record: JSON, state: State, check: Callable[[State], None] | None) -> None:
    played.records.append(record)
    played.states.append(state)
    if check:
        check(state)


def change_members(engine: Engine, played: Played, kind: str, player: JSON, number: int = 0) -> JSON:
    """A membership change (``kind``: join, quit or eject) as the platform records it, applied to
    ``played``: the record, which the fold and ``departed`` read."""
    change = {"kind": kind, "player": player}
    outcome, state = _members(engine, played.final, change, Rng(played.seed, "members", number))
    record = {"type": MEMBERSHIP_EVENTS[kind], "change": change, "outcome": outcome}
    _step(played, record, state, None)
    return record


def eject(engine: Engine, state: State, player_id: str, how: str = "eject", seed: str = "members") -> State:
    """``state`` after ``player_id`` leaves (ejected or quit) as the platform would record it: for engine tests."""
    change = {"kind": how, "player": {"id": player_id, "name": player_id, "fields": {}}}
    return _members(engine, state, change, Rng(seed, "members", 0))[1]


def _members(engine: Engine, state: State, change: JSON, rng: Rng) -> tuple[JSON, State]:
    """The engine's outcome of a membership change and the state after it, as storage gives them back."""
    outcome = plain(engine.change_members(state, change, rng), change["kind"])
    return outcome, plain(engine.apply_members(state, change, outcome), f"apply_members of {change['kind']}")


def run_phase(engine: Engine, state: State, seed: str, number: int) -> tuple[JSON, State]:
    """Resolve the open phase as the worker would: returns (outcome, new state)."""
    outcome = roundtrip(engine.resolve(state, Rng(seed, "phase", number)))
    return outcome, roundtrip(engine.apply_outcome(state, outcome))
