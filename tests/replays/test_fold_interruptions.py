"""The fold names an event whose data breaks an engine (FoldError: the log is corrupt), but an
interruption raised mid-step is not the event's fault: an RQ job timeout must end the job as a
timeout, not be reported as a corrupt log while the job runs on past its limit."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rq.timeouts import JobTimeoutException

from engines import registry
from replays.fold import Folding, FoldError, apply, empty, fold

RECORDED = Path(__file__).parent.parent / "fixtures" / "games" / "recorded-ew.json"


def _events() -> list[dict[str, Any]]:
    return json.loads(RECORDED.read_text())["events"]


def _breaking(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """The engine of the recorded game raises ``error`` on its first resolved phase."""
    document = json.loads(RECORDED.read_text())
    engine = registry.get(document["type"], document["version"])

    def apply_outcome(state: Any, outcome: Any) -> Any:
        raise error

    monkeypatch.setattr(engine, "apply_outcome", apply_outcome)


@pytest.mark.parametrize("error", [KeyError("runners"), TypeError("no"), ValueError("bad"), IndexError(3)])
def test_data_that_breaks_the_engine_is_named_by_its_seq(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    events = _events()
    first = next(e["seq"] for e in events if e["type"] == "phase.resolved")
    _breaking(monkeypatch, error)
    with pytest.raises(FoldError) as caught:
        fold(events)
    assert caught.value.seq == first and "phase.resolved does not fit the game" in caught.value.message


def test_a_job_timeout_mid_step_goes_through_every_way_of_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _events()
    _breaking(monkeypatch, JobTimeoutException("Task exceeded maximum timeout value (180 seconds)"))
    with pytest.raises(JobTimeoutException):
        fold(events)
    folding = Folding()
    with pytest.raises(JobTimeoutException):
        for event in events:
            folding.apply(event)
    record = empty()
    with pytest.raises(JobTimeoutException):
        for event in events:
            record = apply(record, event)
