"""The fault tests' workers sweep often and step in soon: recovery is the sweeper's, and a test that waited out
the production grace (5 s) for every kill spent most of its time waiting, and one that waited out the production
retry (5 s) after a dead worker's sweeper had re-queued its phase, as much again.  A short grace only adds duplicate
jobs, which find their phase resolved: the exactly-once checks see them too."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from runtime.config import Settings
from tests.e2e.stack import Stack

SWEEP_EVERY = 0.25
SWEEP_GRACE = 1.0
SWEEP_RETRY = 1.0


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(settings, sweep_every=SWEEP_EVERY, sweep_grace=SWEEP_GRACE,
                               sweep_retry=SWEEP_RETRY)


@pytest.fixture()
def stack(request: pytest.FixtureRequest, settings: Settings, tmp_path: Path) -> Iterator[Stack]:
    """A fault test kills and restarts processes, the API's included: each has a stack of its own.  A module whose
    faults spare the API (killed workers, a wiped queue) says ``SPARES_THE_API = True`` and its tests use their
    process's shared API with workers of their own: starting a gunicorn took seconds of a test."""
    if not getattr(request.module, "SPARES_THE_API", False):
        yield request.getfixturevalue("own_stack")
        return
    live = Stack(settings, tmp_path, port=request.getfixturevalue("shared_api").port)
    try:
        yield live
    finally:
        live.stop()
