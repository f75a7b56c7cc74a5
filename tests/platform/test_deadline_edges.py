"""Deadline edges below a second.  Deadlines are whole seconds (``clock.iso``) but the clock that judges an
order is not rounded: an order is on time up to and including the deadline's own instant, and late from the
first microsecond after it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from freezegun import freeze_time

from eventlog import clock
from tests.platform.conftest import Game
from tests.platform.helpers import Api


@pytest.mark.parametrize("offset, status", [
    (timedelta(milliseconds=-1), 202),
    (timedelta(0), 202),
    (timedelta(microseconds=1), 409),
    (timedelta(milliseconds=500), 409),
    (timedelta(milliseconds=999), 409),
])
def test_an_order_just_before_or_after_the_deadline(api: Api, game: Game, offset: timedelta, status: int) -> None:
    text = api.get(game.path())[1]["phase"]["deadline"]
    deadline = clock.parse(text)
    assert deadline.microsecond == 0 and text.endswith("Z")  # whole seconds, so a sub-second edge is meaningful
    with freeze_time(deadline + offset):
        seq = api.get(game.path())[1]["seq"]
        answer, body = api.post(game.path("/actions"), {"type": "bid", "amount": 2}, token=game.tokens["p1"])
        assert answer == status, body
        assert api.get(game.path())[1]["seq"] == seq + (status == 202)
        if status == 409:
            assert body["error"]["code"] == "deadline_passed"
