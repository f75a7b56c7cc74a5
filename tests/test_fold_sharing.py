"""The fold shares what did not change between one record and the next (engines never mutate
their state), and makes records canonical by reusing the parts it shares with the last
canonical record.  Both are only speed: the records must be exactly what a fold that copied
and round-tripped everything gives, and no step may change a record an earlier step returned.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from replays.fold import Folding, FoldError, apply, empty, fold
from tests.unchanged import Unchanged

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "games").glob("*.json"))
DEADLINE = "2031-01-01T00:00:00.000000Z"


def _with_gm_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log with a pause, a resume and an extension after the first order, and an ejection
    before the last resolution (the fold does not check hashes, so the seqs are simply renumbered)."""
    first = next(i for i, e in enumerate(events) if e["type"] == "action.submitted")
    last = max(i for i, e in enumerate(events) if e["type"] == "phase.resolved")

    def gm(kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {**events[first], "type": kind, "actor": "gm", "data": data}

    paused = [gm("gm.pause", {"remaining": 60}), gm("gm.resume", {"deadline": DEADLINE}),
              gm("gm.extend_deadline", {"deadline": DEADLINE})]
    ejected = [gm("gm.eject", {"player_id": events[first]["actor"]})]
    out = events[: first + 1] + paused + events[first + 1: last] + ejected + events[last:]
    return [{**event, "seq": seq} for seq, event in enumerate(out, start=1)]


def _logs() -> list[tuple[str, list[dict[str, Any]]]]:
    logs = []
    for path in FIXTURES:
        events = json.loads(path.read_text())["events"]
        logs += [(path.stem, events), (f"{path.stem}+gm", _with_gm_events(events))]
    return logs


@pytest.mark.parametrize("name,events", _logs(), ids=[name for name, _ in _logs()])
def test_a_fold_that_shares_gives_the_records_of_one_that_copies_everything(name: str,
                                                                             events: list[dict[str, Any]]) -> None:
    folding, alone = Folding(), empty()
    returned = Unchanged()
    for event in events:
        try:
            alone = apply(alone, event)  # a fold of one step: the whole record round-tripped
        except FoldError as exc:
            with pytest.raises(FoldError) as again:
                folding.apply(event)
            assert again.value.message == exc.message
            break
        shared = folding.apply(event)
        assert repr(shared) == repr(alone), f"{name}: seq {event['seq']}"  # repr: types and key order too
        returned.keep(shared)
    else:
        assert repr(fold(events)) == repr(shared)
    changed = returned.changed()
    assert not changed, f"{name}: a later step changed a record an earlier step returned: {repr(changed[0])[:300]}"


def test_the_fold_leaves_the_events_as_they_were() -> None:
    events = json.loads(FIXTURES[0].read_text())["events"]
    before = copy.deepcopy(events)
    fold(events)
    assert events == before


def test_a_state_with_no_json_form_is_a_fold_error_at_the_event_that_makes_it_canonical() -> None:
    """A forged order can leave in the state what JSON cannot hold (here an int key: a GM's garnet
    correction for player 5, not "p5"); the round trip after the next resolution must name that event
    rather than escape as a TypeError (a 500 from the API, a traceback from ``arbiter verify``)."""
    events = json.loads(next(p for p in FIXTURES if p.stem == "recorded-ew").read_text())["events"]
    first = next(i for i, e in enumerate(events) if e["type"] == "action.submitted")
    forged = {**events[first], "actor": "gm",
              "data": {**events[first]["data"], "action": {"type": "gm.set_garnets", "player_id": 5, "garnets": 1}}}
    log = [{**event, "seq": seq} for seq, event in enumerate(events[:first + 1] + [forged] + events[first + 1:], 1)]
    resolved = next(e["seq"] for e in log[first + 2:] if e["type"] == "phase.resolved")
    for folding in (lambda: fold(log), lambda: _apply_all(log)):
        with pytest.raises(FoldError) as caught:
            folding()
        assert caught.value.seq == resolved and "Dict key must be str" in caught.value.message


def _apply_all(events: list[dict[str, Any]]) -> dict[str, Any]:
    record = empty()
    for event in events:
        record = apply(record, event)
    return record
