"""``Engine.resolve_applied``: an engine may hand the audit the state after the outcome it resolved, and the
audit folds that state instead of applying the recorded outcome again.  Only speed: every report must be
the one the outcome applied gives, and a forged outcome must fail as it did."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import replays.fold as fold_module
from engines import registry
from engines.canonical import in_roundtrip_form, roundtrip
from engines.contract import Engine
from replays.audit import audit
from tests.forgery import rehashed, reversed_keys

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "games").glob("*.json"))


def _audits(monkeypatch: pytest.MonkeyPatch, events: list[dict[str, Any]], seed: str) -> tuple[dict, dict, int]:
    """The report with the engines' own ``resolve_applied``, the report with one that gives the applied state
    itself, and how many states the audit took from the latter."""
    plain = audit(events, seed)
    taken = 0

    class Counted(dict):  # the engine's state, marked so that the fold's taking it is counted
        pass

    def giving(engine: Engine) -> Any:
        def applied(state: Any, rng: Any) -> tuple[Any, Any]:
            outcome = engine.resolve(state, rng)
            return outcome, Counted(engine.apply_outcome(state, roundtrip(outcome)))
        return applied

    def counting(record: dict, event: dict, state: Any) -> None:
        nonlocal taken
        taken += type(state) is Counted
        step(record, event, dict(state) if type(state) is Counted else state)

    with monkeypatch.context() as patch:
        for name in registry.names():
            for version in registry.versions(name):
                engine = registry.get(name, version)
                patch.setattr(engine, "resolve_applied", giving(engine))
        step = fold_module._resolved_to
        patch.setattr(fold_module, "_resolved_to", counting)
        fast = audit(events, seed)
    return plain, fast, taken


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_state_from_resolving_gives_the_report_of_the_outcome_applied(path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    plain, fast, taken = _audits(monkeypatch, events, seed)
    assert fast == plain and plain["ok"]
    assert taken == sum(e["type"] == "phase.resolved" for e in events)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_forged_outcome_fails_through_it_as_it_did(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    resolved = [i for i, e in enumerate(events) if e["type"] == "phase.resolved"]
    forged = [dict(e) for e in events]
    index = resolved[len(resolved) // 2]
    outcome = forged[index]["data"]["outcome"]
    forged[index] = {**forged[index], "data": {**forged[index]["data"],
                                                "outcome": {**outcome, "public": {**outcome["public"], "forged": 1}}}}
    plain, fast, taken = _audits(monkeypatch, rehashed(forged, index), seed)
    assert fast == plain and not plain["ok"]
    assert any(d["seq"] == index + 1 and d["check"] == "recompute" for d in plain["divergences"])
    assert resolved.index(index) <= taken < len(resolved)  # not the forged one


@pytest.mark.parametrize("path", FIXTURES[:3], ids=lambda p: p.stem)
def test_an_outcome_stored_with_its_keys_in_another_order_is_applied_as_stored(path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashes are over sorted keys, so a log may hold an outcome in any key order: the fold applies it as it
    is, and the audit must judge on that, not on the engine's own state."""
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    resolved = [i for i, e in enumerate(events) if e["type"] == "phase.resolved"]
    shuffled = [dict(e) for e in events]
    for i in resolved[::2]:
        shuffled[i] = {**shuffled[i], "data": {**shuffled[i]["data"],
                                                "outcome": reversed_keys(shuffled[i]["data"]["outcome"])}}
    assert not in_roundtrip_form(shuffled[resolved[0]]["data"]["outcome"])
    plain, fast, taken = _audits(monkeypatch, shuffled, seed)
    assert fast == plain
    assert taken == len(resolved) - len(resolved[::2])


def _tupled(value: Any) -> Any:
    """The same data with every list a tuple: the same canonical JSON (so the same hash), not JSON data."""
    if isinstance(value, dict):
        return {key: _tupled(item) for key, item in value.items()}
    if isinstance(value, list):
        return tuple(_tupled(item) for item in value)
    return value


@pytest.mark.parametrize("path", FIXTURES[:3], ids=lambda p: p.stem)
def test_an_outcome_holding_tuples_is_applied_as_it_is(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log built in Python may hold tuples where storage gives lists: they hash the same, and the chain check
    finds the event plain, but not JSON data, so the audit must apply the outcome as it is there too."""
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    resolved = [i for i, e in enumerate(events) if e["type"] == "phase.resolved"]
    tupled = [dict(e) for e in events]
    last = resolved[-1]
    data = tupled[last]["data"]
    tupled[last] = {**tupled[last], "data": {**data, "outcome": _tupled(data["outcome"])}}
    assert tupled[last]["data"]["outcome"] != events[last]["data"]["outcome"]
    plain, fast, taken = _audits(monkeypatch, tupled, seed)
    assert fast == plain
    assert taken == len(resolved) - 1


def _settling(monkeypatch: pytest.MonkeyPatch, honour: bool = True) -> list[bool]:
    """Record, for every phase the audit folds, whether it handed the fold a settled state (one that
    ``resolve_applied`` promises in round-trip form) that the fold then kept as it is; ``honour=False``: the
    fold round-trips every state, as it did before it took settled ones."""
    kept: list[bool] = []
    apply = fold_module.Folding.apply

    def recording(self: Any, event: Any, step: Any = None, settled: Any = None) -> Any:
        record = apply(self, event, step, settled if honour else None)
        if event["type"] == "phase.resolved":
            kept.append(settled is not None and record["engine"] is settled)
            # Whether round-tripped or kept: exactly what storage would give back (types, key order).
            assert repr(record) == repr(roundtrip(record))
        return record

    monkeypatch.setattr(fold_module.Folding, "apply", recording)
    return kept


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_log_that_checks_out_folds_the_resolved_states_as_they_are(path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every phase of a clean log: the engine's state is the one resolving gave, not a round trip of it, and
    the report is the one the round trip gives."""
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    with monkeypatch.context() as patch:
        _settling(patch, honour=False)
        slow = audit(events, seed)
    kept = _settling(monkeypatch)
    assert audit(events, seed) == slow and slow["ok"]
    engine = registry.get(document["type"], document["version"])
    gives = type(engine).resolve_applied is not Engine.resolve_applied  # the contract's own gives no state
    assert kept == [gives] * sum(e["type"] == "phase.resolved" for e in events)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_after_a_divergence_every_state_is_round_tripped_again(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once anything failed to check out (here the first outcome, forged and re-sealed), the states folded are
    no longer the engine's own from the seed and checked orders, so its promise no longer covers them: the
    audit round-trips each one again, and reports what it did before."""
    document = json.loads(path.read_text())
    events, seed = document["events"], document["seed"]
    first = next(i for i, e in enumerate(events) if e["type"] == "phase.resolved")
    forged = [dict(e) for e in events]
    outcome = forged[first]["data"]["outcome"]
    forged[first] = {**forged[first], "data": {**forged[first]["data"],
                                                "outcome": {**outcome, "public": {**outcome["public"], "forged": 1}}}}
    forged = rehashed(forged, first)
    with monkeypatch.context() as patch:
        _settling(patch, honour=False)
        slow = audit(forged, seed)
    kept = _settling(monkeypatch)
    report = audit(forged, seed)
    assert report == slow and not report["ok"]
    assert report["divergences"][0]["seq"] == first + 1
    assert len(kept) == sum(e["type"] == "phase.resolved" for e in events) > 1 and not any(kept)
