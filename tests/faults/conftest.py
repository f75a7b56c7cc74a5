"""The fault tests' workers sweep often and step in soon: recovery is the sweeper's, and a test that waited out
the production grace (5 s) for every kill spent most of its time waiting.  A short grace only adds duplicate
jobs, which find their phase resolved: the exactly-once checks see them too."""
from __future__ import annotations

import dataclasses

import pytest

from runtime.config import Settings
from tests.e2e.stack import Stack

SWEEP_EVERY = 0.25
SWEEP_GRACE = 1.0


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(settings, sweep_every=SWEEP_EVERY, sweep_grace=SWEEP_GRACE)


@pytest.fixture()
def stack(own_stack: Stack) -> Stack:
    """A fault test kills and restarts processes, the API's included: each has a stack of its own."""
    return own_stack
