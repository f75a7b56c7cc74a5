"""Audit and verify: re-fold a log from nothing and check every link and every ruling.

The same report serves ``GET /audit`` (from the store), ``POST /v1/replays/verify`` and
``arbiter verify FILE`` (from an export, offline).  Each divergence names its seq.
"""
from __future__ import annotations

from typing import Any, Callable

import orjson

from engines.canonical import in_roundtrip_form, plain_canonical_bytes, roundtrip, same_canonical, sha256_hex
from engines.contract import RuleError
from engines.rng import Rng
from eventlog.events import Event, check_chain
from replays.fold import (FoldError, Folding, Record, apply, check_envelope, empty, engine_for, envelope_problem,
                          players_for_engine, resolved_to)

EXPORT_FORMAT = "arbiter-export/1"


def audit(events: list[Event], seed: str | None) -> dict[str, Any]:
    """Check the chain, re-fold, and recompute every recorded draw and outcome."""
    broken, plain = check_chain(events)
    divergences: list[dict[str, Any]] = []
    if broken:
        divergences.append({**broken, "check": "hash_chain"})
    folding = Folding()
    record: Record = folding.record
    checked = 0
    for position, event in enumerate(events, start=1):
        if broken and position >= broken["seq"]:
            break  # nothing after a broken link can be trusted (chain_break counts seqs by position)
        try:
            step = check_envelope(record, event)  # so that the checks below may read its fields
        except FoldError as exc:
            divergences.append({"seq": exc.seq, "check": "fold", "problem": exc.message})
            break
        known_plain = position <= plain  # as hashing it found: see _same
        applied: list[Any] = []
        problem = _guarded(_recompute, record, event, seed, known_plain, applied)
        settled = None
        if applied:
            step = resolved_to(applied[0])  # the outcome matched: its state from resolving, not applied again
            if known_plain and not divergences:
                # Everything so far checked out, so the state is the engine's own from the seed and checked
                # orders, which resolve_applied promises in round-trip form: folded without a round trip.
                settled = applied[0]
        try:
            folded = folding.apply(event, step, settled)
        except FoldError as exc:
            folded = None
            fold_error = exc
        if problem == "" and folded is not None and event["type"] == "phase.resolved":
            # The outcome matched, so the folded state is the recomputed one: judge what follows on it
            # rather than applying the outcome a second time.
            problem = _guarded(_follows, folded, event, known_plain)
        if problem is not None:
            checked += 1
            if problem:
                divergences.append({"seq": event["seq"], "check": "recompute", "problem": problem})
        if folded is None:
            divergences.append({"seq": fold_error.seq, "check": "fold", "problem": fold_error.message})
            break  # nothing after an event that does not fit the game can be folded
        record = folded
    if seed is not None and record.get("seed_commitment") and sha256_hex(seed) != record["seed_commitment"]:
        divergences.insert(0, {"seq": 1, "check": "seed",
                               "problem": "the seed does not match the published commitment"})
    return {
        "ok": not divergences,
        "game_id": record.get("game_id"),
        "events": len(events),
        "hash_chain": {
            "ok": broken is None,
            "first_broken_seq": broken["seq"] if broken else None,
            "problem": broken["problem"] if broken else None,
            "head_hash": events[-1].get("hash") if events and isinstance(events[-1], dict) else None,
        },
        "outcomes": {"checked": checked,
                     "seed": "used" if seed is not None else "not available: outcomes not recomputed"},
        "divergences": divergences,
        "final": {"seq": record["seq"], "status": record.get("status"), "result": record.get("result")}
        if record.get("game_id") else None,
    }


def _recompute(record: Record, event: Event, seed: str | None, plain: bool = False,
               applied: list[Any] | None = None) -> str | None:
    """'' if a recomputed event matches, a description if not, None if nothing to check.  ``applied``: given
    the state after a matching outcome, where the engine had it from resolving (``Engine.resolve_applied``)."""
    kind = event["type"]
    if kind == "action.submitted":
        engine_for(record).validate(record["engine"], event["actor"], event["data"]["action"])
        return None
    if seed is None or kind not in ("game.started", "phase.resolved"):
        return None
    engine = engine_for(record)
    if kind == "game.started":
        setup = engine.setup(record["options"], players_for_engine(record), Rng(seed, "setup"))
        return "" if _same(setup, event["data"]["setup"], plain) else "the setup draws differ from the seed's"
    number = event["data"]["number"]
    resolved, after = engine.resolve_applied(record["engine"], Rng(seed, "phase", number))
    same, in_form = _matched_after_roundtrip(resolved, event["data"]["outcome"], plain)
    if not same:
        return f"the outcome of phase {number} differs from a fresh resolution"
    # The recorded outcome is the resolved one round-tripped, exactly (types, key order), so applying it
    # gives the engine's state: the fold may take that.
    if after is not None and applied is not None and in_form:
        applied.append(after)
    return ""  # the phase that follows is checked by _follows, on the folded state


def _guarded(check: Callable[..., str | None], *args: Any) -> str | None:
    try:
        return check(*args)
    except RuleError as exc:
        return f"the order breaks a rule ({exc.rule}): {exc.message}"
    except Exception as exc:  # tampered data can break an engine in any way
        return f"cannot be recomputed: {type(exc).__name__}"


def _follows(after: Record, event: Event, plain: bool = False) -> str:
    """'' if the phase after a resolution (or the final result) is what the rules give."""
    engine = engine_for(after)
    state = after["engine"]
    number = event["data"]["number"]
    following = engine.phase_name(state)
    recorded_next = event["data"]["next"]
    if (following is None) != (recorded_next is None) or (
        following is not None and following != recorded_next["name"]
    ):
        return f"the phase after {number} differs from the rules"
    if following is None and not _same(engine.result(state), event["data"]["result"], plain):
        return "the final result differs from the rules"
    return ""


def _same(value: Any, recorded: Any, plain: bool = False) -> bool:
    """``canonical_json(value) == canonical_json(recorded)``, raising where that raises.  ``plain``:
    ``recorded`` is part of an event that check_chain found plain, so orjson writes it canonically."""
    if not plain:
        return same_canonical(value, recorded)
    fast = plain_canonical_bytes(value)
    if fast is None:
        return same_canonical(value, recorded)
    return fast == orjson.dumps(recorded, option=orjson.OPT_SORT_KEYS)


def _matched_after_roundtrip(value: Any, recorded: Any, plain: bool = False) -> tuple[bool, bool]:
    """``_same(roundtrip(value), recorded)``, raising where that raises, without building the round trip
    unless they differ: orjson writes ``value`` as it writes its round trip, and when those bytes are
    those of plain data, the round trip holds no float either (orjson writes a float with a '.' or an
    'e', which no other token has), so the canonical texts match.  Also whether ``recorded`` is that round
    trip exactly (``in_roundtrip_form``), where they matched (False otherwise).

    ``plain``: ``recorded`` is JSON data (check_chain), so its sorted bytes are canonical, and written in its
    own key order they equal the round trip's sorted bytes only if every object's keys are in sorted order:
    then it is the round trip exactly, told by one unsorted orjson call."""
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)  # raises as roundtrip(value) would
    if plain:
        if orjson.dumps(recorded) == text:
            return True, True
        expected = orjson.dumps(recorded, option=orjson.OPT_SORT_KEYS)
        if text == expected:
            return True, False  # the same data, its keys in another order
    else:
        expected = plain_canonical_bytes(recorded)
        if expected is not None and text == expected:
            return True, in_roundtrip_form(recorded, expected)
    return _same(roundtrip(value), recorded), False  # a difference, or an error: the slow path says which


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


def verify(document: Any) -> dict[str, Any]:
    """Audit an exported file; raises ValueError if it is not an export at all.

    A file whose events do not even have the shape of events (an event that is not an object, a
    seq that is not a number, a type that is not a string ...) cannot be checked, so it is
    refused the same way (422 from the API, exit 2 from ``arbiter verify``), naming the event.
    """
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not an Arbiter export: 'format' must be {EXPORT_FORMAT!r}")
    events = document.get("events")
    if not isinstance(events, list) or not events:
        raise ValueError("an export needs a non-empty 'events' list")
    for position, event in enumerate(events, start=1):
        problem = envelope_problem(event)
        if problem is not None:
            raise ValueError(f"events[{position - 1}] (seq {position}) is not an event: {problem}")
    seed = document.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise ValueError("'seed' must be a string or null")
    report = audit(events, seed)
    claimed = document.get("head_hash")
    if report["hash_chain"]["ok"] and claimed is not None and claimed != report["hash_chain"]["head_hash"]:
        report["ok"] = False
        report["divergences"].append({"seq": len(events), "check": "head_hash",
                                      "problem": "the file's head_hash is not the hash of its last event"})
    return report
