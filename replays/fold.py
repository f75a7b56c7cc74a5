"""The fold: a game's whole record from its log, one event at a time.

The platform part (sign-up, phases, deadlines, pauses, ejections) lives here; the rules
are delegated to the engine the game was created with, at that exact version.
Nothing here draws randomness: setup and outcomes are read from the events.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from engines import registry
from engines.canonical import roundtrip_reusing
from engines.contract import Engine, RuleError
from engines.gate import Table
from eventlog.events import GENESIS, Event

Record = dict[str, Any]


class FoldError(Exception):
    """The log cannot be folded: an unknown engine or an event out of place."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.message = message


def engine_for(record: Record) -> Engine:
    key = (record["type"], record["version"])
    try:
        return _ENGINES[key]  # the usual case, one lookup: only names and versions that are exactly str are here
    except (KeyError, TypeError):  # not yet looked up, or not a name at all (a list): the checks below
        pass
    engine = registry.get(record["type"], record["version"])
    if engine is None:
        raise FoldError(1, f"no engine {record['type']} version {record['version']}")
    if type(key[0]) is str and type(key[1]) is str:
        _ENGINES[key] = engine
    return engine


# Every event of a fold asks for its game's engine: found in the registry once, then here.
# An engine registered under a name and version is that engine for good.
_ENGINES: dict[tuple[str, str], Engine] = {}


def empty() -> Record:
    return {"seq": 0, "head_hash": GENESIS}


def players_for_engine(record: Record) -> list[dict[str, Any]]:
    return [{"id": p["id"], "name": p["name"], "fields": p["fields"]} for p in record["players"]]


def _created(record: Record, event: Event) -> None:
    if record["seq"] != 0:
        raise FoldError(event["seq"], "game.created can only be the first event")
    data = event["data"]
    record.update(
        game_id=data["game_id"],
        type=data["type"],
        version=data["version"],
        name=data.get("name"),
        options=data["options"],
        deadlines=data["deadlines"],
        resolve_early=data["resolve_early"],
        reveal_at_end=data.get("reveal_at_end", "everything"),  # logs from before the choice: everything
        seed_commitment=data["seed_commitment"],
        created_at=event["at"],
        status="signup",
        players=[],
        joined=0,
        phase=None,
        paused=None,
        engine=None,
        setup=None,
        result=None,
        seed=None,
    )
    engine_for(record)  # an unknown engine is named at the event that asks for it


def _joined(record: Record, event: Event) -> None:
    data = event["data"]
    record["joined"] += 1
    player = {"id": data["player_id"], "name": data["name"], "fields": data["fields"], "ejected": False, "left": None}
    record["players"] = [*record["players"], player]  # a new list: the record before shares the old one
    if record["engine"] is not None:  # a join after the start, as the game allows
        _members(record, event, "join", player)


def _quit(record: Record, event: Event) -> None:
    _left(record, event, "quit")


def _ejected(record: Record, event: Event) -> None:
    _left(record, event, "eject")


def _left(record: Record, event: Event, how: str) -> None:
    """A player quits or is ejected: before the start they are simply struck off the sign-up list."""
    player_id = event["data"]["player_id"]
    player = next(p for p in record["players"] if p["id"] == player_id)
    if record["engine"] is None:
        record["players"] = [p for p in record["players"] if p["id"] != player_id]
        return
    # New player entries, not changed ones: the record before shares them.
    record["players"] = [{**p, "ejected": how == "eject", "left": how} if p["id"] == player_id else p
                         for p in record["players"]]
    _members(record, event, how, player)


def _members(record: Record, event: Event, kind: str, player: dict[str, Any]) -> None:
    """The engine's side of a membership change, and the phase it closes or the game it ends, if any.
    (A gm.eject recorded before membership changes had outcomes carries none: nothing was drawn.)"""
    data = event["data"]
    change = {"kind": kind, "player": {"id": player["id"], "name": player["name"], "fields": player["fields"]}}
    state = engine_for(record).apply_members(record["engine"], change, data.get("outcome", NO_OUTCOME))
    if "next" in data:
        _close_phase(record, data, state)
    else:
        record["engine"] = state


NO_OUTCOME: dict[str, Any] = {"public": {}}

# The events that change who plays, and the kind of change each is (``Engine.change_members``).
MEMBERSHIP = {"player.joined": "join", "player.quit": "quit", "gm.eject": "eject"}


def departed(record: Record) -> frozenset[str]:
    """Players who quit or were ejected after the start: the gate refuses their orders."""
    return frozenset(p["id"] for p in record["players"] if p.get("left") or p["ejected"])


def table_of(record: Record) -> Table:
    """What the gate must know of the game beside its rules' state: its status, open phase and who has left."""
    phase = record["phase"]
    return Table(record["status"], phase["number"] if phase else None, phase["deadline"] if phase else None,
                 departed(record))


def _started(record: Record, event: Event) -> None:
    data = event["data"]
    engine = engine_for(record)
    record["setup"] = data["setup"]
    record["engine"] = engine.initial_state(record["options"], players_for_engine(record), data["setup"])
    record["status"] = "running"
    record["phase"] = _phase(data["phase"])


def _action(record: Record, event: Event) -> None:
    data = event["data"]
    record["engine"] = engine_for(record).apply_action(record["engine"], event["actor"], data["action"])


def _resolved(record: Record, event: Event) -> None:
    _close_phase(record, event["data"], engine_for(record).apply_outcome(record["engine"], event["data"]["outcome"]))


def _close_phase(record: Record, data: dict[str, Any], state: Any) -> None:
    """The open phase closes with ``state``: the next one opens, or the game ends with its result
    and its seed revealed (a resolution, or a membership change that closes the phase)."""
    record["engine"] = state
    if data["next"] is None:
        record["status"] = "finished"
        record["phase"] = None
        record["result"] = data["result"]
        record["seed"] = data["seed"]
        record["paused"] = None
    else:
        record["phase"] = _phase(data["next"])


def _extended(record: Record, event: Event) -> None:
    deadline = _deadline(event["data"]["deadline"])
    _own_phase(record)["deadline"] = deadline


def _resolve_now(record: Record, event: Event) -> None:
    _own_phase(record)["forced"] = True


def _paused(record: Record, event: Event) -> None:
    remaining = event["data"]["remaining"]
    if type(remaining) is not int or remaining < 0:
        raise ValueError("remaining must be a whole number of seconds")
    record["status"] = "paused"
    record["paused"] = {"remaining": remaining}


def _resumed(record: Record, event: Event) -> None:
    record["status"] = "running" if record["engine"] is not None else "signup"
    record["paused"] = None
    if record["phase"] is not None:
        deadline = _deadline(event["data"]["deadline"])
        _own_phase(record)["deadline"] = deadline


def _rolled_back(record: Record, event: Event) -> None:
    """``log.rolled_back``: the store lost the log's last events (a Redis rollback); the platform says so in the
    log, from which seq to which (replays/loader.py).  Nothing else changes: the game goes on from what is left."""


def _phase(spec: dict[str, Any]) -> dict[str, Any]:
    if type(spec["number"]) is not int or not isinstance(spec["name"], str):
        raise ValueError("a phase has a whole number and a name")
    return {"deadline": _deadline(spec["deadline"]), "forced": False, "name": spec["name"], "number": spec["number"]}


def _deadline(value: Any) -> str:
    """Deadlines are read by every later step (is an order on time? is the phase due?): one
    that is not an ISO 8601 UTC instant must fail here, naming its event, not there as a 500."""
    if not isinstance(value, str) or datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is None:
        raise ValueError("a deadline must be an ISO 8601 UTC timestamp")
    return value


FOLDS: dict[str, Callable[[Record, Event], None]] = {
    "game.created": _created,
    "player.joined": _joined,
    "game.started": _started,
    "action.submitted": _action,
    "phase.resolved": _resolved,
    "gm.extend_deadline": _extended,
    "gm.resolve_now": _resolve_now,
    "gm.pause": _paused,
    "gm.resume": _resumed,
    "gm.eject": _ejected,
    "player.quit": _quit,
    "log.rolled_back": _rolled_back,
}


# The events after which the record is made exactly what storage gives back (sorted keys, lists,
# nothing shared with the event), so that engines always go on from canonical data.
CANONICAL_AFTER = frozenset({"game.started", "phase.resolved", "player.joined", "player.quit", "gm.eject"})


def apply(record: Record, event: Event, step: Callable[[Record, Event], None] | None = None) -> Record:
    """The record after one more event (``Folding`` from ``record``).  The input is left untouched.
    ``step``: what ``check_envelope(record, event)`` gave, if the caller asked already."""
    return Folding(record).apply(event, step)


def _step(record: Record, event: Event, step: Callable[[Record, Event], None] | None = None) -> Record:
    """The record after the event, not yet canonical.  ``step``: what check_envelope gave, if called."""
    step = step or check_envelope(record, event)
    # A new record sharing everything with the old: the steps replace what they change (the player
    # list, a player, the phase) rather than change it, and engines never mutate their state.
    new = dict(record)
    try:
        step(new, event)
    except FoldError:
        raise
    except DATA_ERRORS as exc:
        raise _does_not_fit(event, exc) from exc
    new["seq"] = event["seq"]
    new["head_hash"] = event["hash"]
    return new


# What bad data can make an engine or the round trip raise (an engine's RuleError too, which is none
# of the others).  Anything else is not the event's fault and goes through: an RQ job timeout (an Exception)
# raised mid-step must end the job, not mark its game's log corrupt and let the job run on.
DATA_ERRORS: tuple[type[Exception], ...] = (ArithmeticError, AssertionError, AttributeError, LookupError,
                                            RuntimeError, StopIteration, TypeError, ValueError, RuleError)


def _does_not_fit(event: Event, exc: Exception) -> FoldError:
    """A tampered or corrupt event can break an engine in any way, or leave in the state what has no
    JSON form (a non-string key, an int past 64 bits, nesting past orjson's limit): named by its seq."""
    return FoldError(event["seq"], f"{event['type']} does not fit the game: {exc!r}")


class Folding:
    """A fold in progress, one event at a time: ``record`` so far, and the latest record made canonical, whose
    parts the next canonical record takes as they are (``roundtrip_reusing``): a step shares almost all of the
    game with the record before it.  A record given to start from may not be canonical (a cached record after an
    order), so nothing is reused from it.  A failed ``apply`` (FoldError) changes nothing."""

    def __init__(self, record: Record | None = None) -> None:
        self.record: Record = record or empty()
        self._base: Record | None = None

    def apply(self, event: Event, step: Callable[[Record, Event], None] | None = None) -> Record:
        """The record after one more event.  ``step``: what ``check_envelope(self.record, event)`` gave."""
        new = _step(self.record, event, step)
        if event["type"] in CANONICAL_AFTER:
            try:
                new = roundtrip_reusing(new, self._base)
            except DATA_ERRORS as exc:
                raise _does_not_fit(event, exc) from exc
            self._base = new
        self.record = new
        return new


def check_envelope(record: Record, event: Any) -> Callable[[Record, Event], None]:
    """The fold step for an event whose envelope fits; otherwise a FoldError naming its seq.

    The hash chain cannot catch a re-hashed forgery, and stored logs and exported files
    can hold anything: the fold must not trust any field's type.
    """
    expected = record["seq"] + 1
    if _plainly_an_event(event) and event["seq"] == expected:  # the common case, answered at once
        step = FOLDS.get(event["type"])
        if step is not None:
            return step
    problem = envelope_problem(event)
    if problem is not None:
        seq = event.get("seq") if isinstance(event, dict) and type(event.get("seq")) is int else expected
        raise FoldError(seq, problem)
    if event["seq"] != expected:
        raise FoldError(event["seq"], f"expected seq {expected}")
    step = FOLDS.get(event["type"])
    if step is None:
        raise FoldError(event["seq"], f"unknown event type {event['type'][:80]!r}")
    return step


ENVELOPE: dict[str, type] = {"type": str, "actor": str, "at": str, "data": dict, "prev_hash": str, "hash": str}


def envelope_problem(event: Any) -> str | None:
    """What is wrong with an event's fields and their JSON types, or None if it has the shape of an event."""
    if _plainly_an_event(event):
        return None
    if not isinstance(event, dict):
        return f"an event must be an object, found {_kind_of(event)}"
    for name, wanted in {"seq": int, **ENVELOPE}.items():
        if name not in event:
            return f"'{name}' is missing"
        value = event[name]
        if not isinstance(value, wanted) or isinstance(value, bool):  # a boolean is not a seq
            return f"'{name}' must be {_kind_of(wanted())}, found {_kind_of(value)}"
    return None


def _plainly_an_event(event: Any) -> bool:
    """The common case, checked at once (every event of every fold): each field there with exactly
    its JSON type.  Anything else gets the field-by-field check, which names the problem."""
    get = event.get if type(event) is dict else None
    return (get is not None and type(get("seq")) is int and type(get("type")) is str and type(get("actor")) is str
            and type(get("at")) is str and type(get("data")) is dict and type(get("prev_hash")) is str
            and type(get("hash")) is str)


def _kind_of(value: Any) -> str:
    """A JSON type name for a message: never the value itself, which could be anything, of any size."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a whole number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def _own_phase(record: Record) -> dict[str, Any]:
    """The phase of a new record, copied so that a step may change it (an absent phase fails as before)."""
    if record["phase"] is not None:
        record["phase"] = dict(record["phase"])
    return record["phase"]


def fold(events: list[Event], record: Record | None = None) -> Record:
    folding = Folding(record)
    for event in events:
        folding.apply(event)
    return folding.record
