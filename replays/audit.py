"""Audit and verify: re-fold a log from nothing and check every link and every ruling.

The same report serves ``GET /audit`` (from the store), ``POST /v1/replays/verify`` and
``arbiter verify FILE`` (from an export, offline).  Each divergence names its seq.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from marshmallow import ValidationError

from engines.canonical import same_as_hashed, sha256_hex
from engines.contract import Engine, Phase, RuleError, State
from engines.gate import Table, admit
from engines.rng import Rng
from eventlog import clock
from eventlog.chained import Chained
from eventlog.events import GENESIS, Event, event_hash
from replays.fold import (MEMBERSHIP, FoldError, Folding, Record, apply, check_envelope, empty, engine_for,
                          envelope_problem, players_for_engine, table_of)

EXPORT_FORMAT = "arbiter-export/1"
VIEW_FORMAT = "arbiter-view/1"  # one viewer's export of a game whose log stays closed at the end (export_view)

RECOMPUTED = frozenset({"game.started", "phase.resolved", *MEMBERSHIP})


def audit(events: Iterable[Event], seed: str | None) -> dict[str, Any]:
    """Check the chain, re-fold, and recompute every recorded draw and outcome.  ``events`` may stream in (a
    large export being read): they are checked a part at a time (``Chained``) and never all held."""
    chain = Chained(events)
    divergences: list[dict[str, Any]] = []
    folding = Folding()
    record: Record = folding.record
    known = _Known()
    checked = 0
    for _position, event in chain:  # up to a broken link: nothing after it can be trusted
        try:
            step = check_envelope(record, event)  # so that the checks below may read its fields
        except FoldError as exc:
            divergences.append({"seq": exc.seq, "check": "fold", "problem": exc.message})
            break
        finding = _guarded(_recompute, record, event, seed, known)
        try:
            folded = folding.apply(event, step)
        except FoldError as exc:
            if finding is not None:
                checked += 1
                if finding:
                    divergences.append({"seq": event["seq"], "check": "recompute", **finding})
            divergences.append({"seq": exc.seq, "check": "fold", "problem": exc.message})
            break  # nothing after an event that does not fit the game can be folded
        if finding == {} and (event["type"] == "phase.resolved" or event["type"] in MEMBERSHIP):
            finding = _guarded(_follows, record, folded, event, known)
        if finding is not None:
            checked += 1
            if finding:
                divergences.append({"seq": event["seq"], "check": "recompute", **finding})
        record = folded
    chain.finish()
    broken = chain.broken
    if broken:
        divergences.insert(0, {**broken, "check": "hash_chain"})
    if seed is not None and record.get("seed_commitment") and sha256_hex(seed) != record["seed_commitment"]:
        divergences.insert(0, {"seq": 1, "check": "seed",
                               "problem": "the seed does not match the published commitment"})
    return {
        "ok": not divergences,
        "game_id": record.get("game_id"),
        "events": chain.count,
        "hash_chain": {
            "ok": broken is None,
            "first_broken_seq": broken["seq"] if broken else None,
            "problem": broken["problem"] if broken else None,
            "head_hash": chain.head_hash,
        },
        "outcomes": {"checked": checked,
                     "seed": "used" if seed is not None else "not available: outcomes not recomputed"},
        "divergences": divergences,
        "final": {"seq": record["seq"], "status": record.get("status"), "result": record.get("result")}
        if record.get("game_id") else None,
    }


# What a recompute check found: {} where the event matches the rules, else the problem and the values that differ.
Finding = dict[str, Any]
DIFFERENCES_SHOWN = 20


def _recompute(record: Record, event: Event, seed: str | None, known: "_Known") -> Finding | None:
    """{} if a recomputed event matches, a finding if not, None if nothing to check."""
    kind = event["type"]
    if kind == "action.submitted":
        return _admitted(record, event, known)
    if seed is None or kind not in RECOMPUTED:
        return None
    engine = engine_for(record)
    if kind == "game.started":
        setup = engine.setup(record["options"], players_for_engine(record), Rng(seed, "setup"))
        return _compared(setup, event["data"]["setup"], "/setup", "the setup draws differ from the seed's")
    if kind == "phase.resolved":
        number = event["data"]["number"]
        outcome = engine.resolve(record["engine"], Rng(seed, "phase", number))
        return _compared(outcome, event["data"]["outcome"], "/outcome",
                         f"the outcome of phase {number} differs from a fresh resolution")
    change = membership_change(record, event)
    if change is None:
        return None  # a join during sign-up, or an ejection recorded before membership changes had outcomes
    outcome = engine.change_members(record["engine"], change, Rng(seed, "members", event["seq"]))
    return _compared(outcome, event["data"]["outcome"], "/outcome",
                     f"the outcome of the {event['type']} of {change['player']['id']} differs from the rules")


def _admitted(record: Record, event: Event, known: "_Known") -> Finding | None:
    """A recorded order passes the gate again as it was decided: at its ``at``, for the phase it names, read by its
    schema as recorded; None where it does (a rule it breaks is raised, and named by ``_guarded``)."""
    action = event["data"]["action"]
    try:
        loaded = admit(engine_for(record), record["engine"], event["actor"], action, known.table(record),
                       clock.parse(event["at"]), event["data"]["phase"], known.phase)
    except ValidationError as exc:
        return _found(f"the order does not fit its schema: {sorted(exc.messages)}")
    return None if same_as_hashed(loaded, action) else _found("the order is not what its schema makes of it",
                                                     (action, loaded, "/action"))


class _Known:
    """What an audit asks again and again of the same objects, made again only where they are other objects: a
    fold replaces a record's parts and an engine's state, never changes them, so the same objects give the same
    answer.  The gate's table (a phase's orders come one after another) and the engine's phase of the last state
    asked about (asked after a resolution, then by the gate at the next order, of the same state)."""

    __slots__ = ("_parts", "_table", "_state", "_phase")

    def __init__(self) -> None:
        self._parts: tuple[Any, Any, Any] | None = None
        self._table = Table()
        self._state: Any = None
        self._phase: Phase | None = None

    def table(self, record: Record) -> Table:
        """``table_of(record)``."""
        parts = (record["status"], record["phase"], record["players"])
        last = self._parts
        if last is None or parts[0] is not last[0] or parts[1] is not last[1] or parts[2] is not last[2]:
            self._parts, self._table = parts, table_of(record)
        return self._table

    def phase(self, engine: Engine, state: State) -> Phase | None:
        """``engine.phase(state)`` (a game's log has one engine)."""
        if state is not self._state or self._state is None:
            self._state, self._phase = state, engine.phase(state)
        return self._phase


def membership_change(record: Record, event: Event) -> dict[str, Any] | None:
    """The change a membership event asks of a running game's engine, as the platform built it."""
    data = event["data"]
    if record["engine"] is None or "outcome" not in data:
        return None
    if event["type"] == "player.joined":
        return {"kind": "join", "player": {"id": data["player_id"], "name": data["name"], "fields": data["fields"]}}
    player = next(p for p in record["players"] if p["id"] == data["player_id"])
    return {"kind": MEMBERSHIP[event["type"]],
            "player": {"id": player["id"], "name": player["name"], "fields": player["fields"]}}


def _guarded(check: Callable[..., Finding | None], *args: Any) -> Finding | None:
    try:
        return check(*args)
    except RuleError as exc:
        return _found(f"the order breaks a rule ({exc.rule}): {exc.message}")
    except Exception as exc:  # tampered data can break an engine in any way
        return _found(f"cannot be recomputed: {type(exc).__name__}")


def _found(problem: str, values: tuple[Any, Any, str] | None = None) -> Finding:
    """A finding: the problem, and where ``values`` (recorded, recomputed, their pointer) the leaves that differ."""
    shown, total = differences(*values) if values is not None else ([], 0)
    return {"problem": problem, "differences": shown, "differences_total": total}


def _compared(recomputed: Any, recorded: Any, at: str, problem: str) -> Finding:
    return {} if same_as_hashed(recomputed, recorded) else _found(problem, (recorded, recomputed, at))


def differences(recorded: Any, recomputed: Any, at: str = "", limit: int = DIFFERENCES_SHOWN
                ) -> tuple[list[dict[str, Any]], int]:
    """The leaves where two JSON values differ, in sorted key order, as JSON pointers (RFC 6901) under ``at``: the
    first ``limit`` of them, and how many there are.  ``missing`` names the side a path is absent from."""
    found: list[dict[str, Any]] = []
    total = 0
    absent = object()

    def walk(left: Any, right: Any, path: str) -> None:
        nonlocal total
        if isinstance(left, dict) and isinstance(right, dict):
            for name in sorted(set(left) | set(right), key=str):
                step = f"{path}/{str(name).replace('~', '~0').replace('/', '~1')}"
                walk(left.get(name, absent), right.get(name, absent), step)
            return
        if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
            for index in range(max(len(left), len(right))):
                walk(left[index] if index < len(left) else absent,
                     right[index] if index < len(right) else absent, f"{path}/{index}")
            return
        if left is not absent and right is not absent and type(left) is type(right) and left == right:
            return
        total += 1
        if len(found) < limit:
            found.append({"path": path,
                          "recorded": None if left is absent else left,
                          "recomputed": None if right is absent else right,
                          "missing": "recorded" if left is absent else "recomputed" if right is absent else None})

    walk(recorded, recomputed, at)
    return found, total


def _follows(before: Record, after: Record, event: Event, known: _Known) -> Finding:
    """{} if what follows a resolution or a membership change is what the rules give: the same phase
    going on, the next one, or the end with its result."""
    engine = engine_for(after)
    state = after["engine"]
    data = event["data"]
    phase = known.phase(engine, state)
    following = None if phase is None else phase.name
    if event["type"] == "phase.resolved":
        what = f"the phase after {data['number']}"
    else:
        if before["engine"] is None:
            return {}  # sign-up: no phase yet
        what = f"the phase after the {event['type']} of {data['player_id']}"
        closes = phase is None or bool(data.get("outcome", {}).get("closes_phase"))
        if closes != ("next" in data):  # a next phase recorded where the rules give none, or none where they do
            recorded = {"next": data["next"]} if "next" in data else {}
            recomputed = {"next": None if following is None else {"name": following}} if closes else {}
            return _found(f"{what} differs from the rules", (recorded, recomputed, ""))
        if not closes:
            return {} if following is not None else _found(f"{what} differs from the rules")
    recorded_next = data["next"]
    if recorded_next is not None and not isinstance(recorded_next, dict):
        return _next_differs(data, following, what)
    if (following is None) != (recorded_next is None) or (
        following is not None and following != recorded_next["name"]
    ):
        return _next_differs(data, following, what)
    if following is None:
        return _compared(engine.result(state), data["result"], "/result",
                         "the final result differs from the rules")
    return {}


def _next_differs(data: dict[str, Any], following: str | None, what: str) -> Finding:
    """The recorded next phase beside the one the rules give (its name; the whole entry where one side is none)."""
    recorded = data.get("next")
    if isinstance(recorded, dict) and following is not None and "name" in recorded:
        return _found(f"{what} differs from the rules", (recorded["name"], following, "/next/name"))
    recomputed = None if following is None else {"name": following}
    return _found(f"{what} differs from the rules", (recorded, recomputed, "/next"))


def export(record: Record, events: list[Event]) -> dict[str, Any]:
    """A self-contained file: every event unredacted, plus the seed once revealed."""
    return {
        "format": EXPORT_FORMAT,
        "game_id": record["game_id"],
        "type": record["type"],
        "version": record["version"],
        "status": record["status"],
        "seed": record.get("seed"),
        "seed_commitment": record["seed_commitment"],
        "head_hash": record["head_hash"],
        "events": events,
    }


def export_unfoldable(game_id: str, events: list[Event]) -> dict[str, Any]:
    """The export of a log that cannot be folded, so that its GM can diagnose it: every stored event, and a
    header from the events that do fold.  The seed is left out, as for any game that has not finished."""
    record = empty()
    for event in events:
        try:
            record = apply(record, event)
        except FoldError:
            break
    return {
        "format": EXPORT_FORMAT,
        "game_id": game_id,
        "type": record.get("type"),
        "version": record.get("version"),
        "status": "corrupt",
        "seed": None,
        "seed_commitment": record.get("seed_commitment"),
        "head_hash": events[-1].get("hash") if events and isinstance(events[-1], dict) else None,
        "events": events,
    }


def export_view(record: Record, shown: list[Event], viewer: str) -> dict[str, Any]:
    """The log as one viewer may read it (``shown``: every event through ``replays.views.event_for``), for a game
    whose log stays closed at its end: every event's seq, links and hash, the viewer's own events whole (with
    their salt).  ``verify`` checks the links and the hash of every whole event, and so the viewer's receipts,
    without the hidden parts; the outcomes cannot be recomputed (the seed is the GM's)."""
    return {
        "format": VIEW_FORMAT,
        "game_id": record["game_id"],
        "type": record["type"],
        "version": record["version"],
        "status": record["status"],
        "viewer": viewer,
        "seed_commitment": record["seed_commitment"],
        "head_hash": record["head_hash"],
        "events": shown,
    }


def verify_view(document: dict[str, Any], events: Iterable[Any] | None = None) -> dict[str, Any]:
    """Check one viewer's export (``export_view``): every seq and link, and the hash of every event shown whole (an
    event shown cut has no salt: its hash is taken on trust, linked between its neighbours).  ``events``: the
    document's events as they stream in (``replays.export_stream``), else its "events" list."""
    if events is None:
        events = document.get("events")
        if not isinstance(events, list) or not events:
            raise ValueError("an export needs a non-empty 'events' list")
    divergences: list[dict[str, Any]] = []
    prev, whole = GENESIS, 0
    position = 0
    for position, event in enumerate(_shaped(events), start=1):
        if event.get("seq") != position or event.get("prev_hash") != prev:
            divergences.append({"seq": position, "check": "hash_chain",
                                "problem": "the seq or prev_hash does not follow the previous event"})
            break
        if "salt" in event:
            whole += 1
            try:
                expected = event_hash(prev, {k: v for k, v in event.items() if k != "hash"})
            except TypeError:  # not canonical JSON (a float ...): it cannot be the event that was hashed
                expected = None
            if event.get("hash") != expected:
                divergences.append({"seq": position, "check": "hash_chain",
                                    "problem": "hash does not match the event's content"})
                break
        prev = event.get("hash")
    if position == 0:
        raise ValueError("an export needs a non-empty 'events' list")
    claimed = document.get("head_hash")
    if not divergences and claimed is not None and claimed != prev:
        divergences.append({"seq": position, "check": "head_hash",
                            "problem": "the file's head_hash is not the hash of its last event"})
    return {
        "ok": not divergences,
        "game_id": document.get("game_id"),
        "events": position,
        "hash_chain": {"ok": not divergences, "first_broken_seq": divergences[0]["seq"] if divergences else None,
                       "problem": divergences[0]["problem"] if divergences else None, "head_hash": prev,
                       "whole_events_checked": whole},
        "outcomes": {"checked": 0, "seed": "not available: the view of one player (a log closed at the end)"},
        "divergences": divergences,
        "final": None,
    }


def verify(document: Any) -> dict[str, Any]:
    """Audit an exported file; raises ValueError if it is not an export at all.

    A file whose events do not even have the shape of events (an event that is not an object, a
    seq that is not a number, a type that is not a string ...) cannot be checked, so it is
    refused the same way (422 from the API, exit 2 from ``arbiter verify``), naming the event.
    """
    if isinstance(document, dict) and document.get("format") == VIEW_FORMAT:
        return verify_view(document)
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not an Arbiter export: 'format' must be {EXPORT_FORMAT!r}")
    events = document.get("events")
    if not isinstance(events, list) or not events:
        raise ValueError("an export needs a non-empty 'events' list")
    return verify_events(document, events)


def verify_events(header: dict[str, Any], events: Iterable[Any]) -> dict[str, Any]:
    """``verify`` of an export whose header fields (``export`` but its events) are ``header``, its events
    ``events``, which may stream in (``replays.export_stream``: a large file is never held whole).  An event
    without the shape of one stops the check with a ValueError, as ``verify`` refuses it."""
    seed = header.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise ValueError("'seed' must be a string or null")
    report = audit(_shaped(events), seed)
    if report["events"] == 0:
        raise ValueError("an export needs a non-empty 'events' list")
    claimed = header.get("head_hash")
    if report["hash_chain"]["ok"] and claimed is not None and claimed != report["hash_chain"]["head_hash"]:
        report["ok"] = False
        report["divergences"].append({"seq": report["events"], "check": "head_hash",
                                      "problem": "the file's head_hash is not the hash of its last event"})
    return report


def _shaped(events: Iterable[Any]) -> Iterator[Event]:
    """The events, each checked to have the shape of an event as it comes (a ValueError names the first that has
    not)."""
    for position, event in enumerate(events, start=1):
        problem = envelope_problem(event)
        if problem is not None:
            raise ValueError(f"events[{position - 1}] (seq {position}) is not an event: {problem}")
        yield event
