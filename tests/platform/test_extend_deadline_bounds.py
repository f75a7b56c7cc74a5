"""gm.extend_deadline: a new deadline is strictly in the future and at most 366 days from now.

Instants at the edges of the calendar (9999-12-31T23:59:59-14:00 is in year 10000 in UTC)
used to overflow on the way to UTC and answer 500; they are a 422 like any other deadline
out of range, and record nothing.
"""
from __future__ import annotations

from datetime import timedelta

import pytest
from freezegun import freeze_time

from eventlog import clock
from service.schemas import MAX_SECONDS
from tests.platform.conftest import Game, new_game
from tests.platform.helpers import Api

NOW = clock.parse("2030-06-01T12:00:00Z")


def _extend(api: Api, game: Game, **change: object) -> tuple[int, dict]:
    return api.post(game.path("/actions"), {"type": "gm.extend_deadline", "reason": "test", **change}, token=game.gm)


@pytest.mark.parametrize("deadline, says", [
    ("9999-12-31T23:59:59-14:00", "at most 366 days"),
    ("9999-12-31T23:59:59+00:00", "at most 366 days"),
    ("0001-01-01T00:00:00+14:00", "in the future"),
    ("0001-01-01T00:00:00-14:00", "in the future"),
    ("2031-06-02T12:00:01Z", "at most 366 days"),  # one second too far
    ("2030-06-01T12:00:00Z", "in the future"),  # now is not the future
    ("2030-06-01T12:00:00.400+00:00", "in the future"),  # rounds down to now
])
def test_a_deadline_out_of_range_is_422_and_records_nothing(api: Api, deadline: str, says: str) -> None:
    with freeze_time(NOW):
        game = new_game(api)
        seq = api.get(game.path())[1]["seq"]
        status, body = _extend(api, game, deadline=deadline)
        assert status == 422 and says in body["error"]["message"], body
        assert body["error"]["details"] == {"deadline": [body["error"]["message"]]}
        assert api.get(game.path())[1]["seq"] == seq


def test_the_edges_of_the_range_are_accepted(api: Api) -> None:
    with freeze_time(NOW):
        game = new_game(api)
        assert _extend(api, game, deadline="2031-06-02T12:00:00Z")[0] == 202  # exactly 366 days from now
        assert api.get(game.path())[1]["phase"]["deadline"] == "2031-06-02T12:00:00Z"
        assert _extend(api, game, deadline="2030-06-01T08:00:01-04:00")[0] == 202  # one second ahead, another zone
        assert api.get(game.path())[1]["phase"]["deadline"] == "2030-06-01T12:00:01Z"


def test_seconds_that_carry_the_deadline_past_366_days_are_422(api: Api) -> None:
    with freeze_time(NOW):
        game = new_game(api)
        current = clock.parse(api.get(game.path())[1]["phase"]["deadline"])
        assert current > NOW  # so the largest 'seconds' the schema allows goes beyond the bound
        status, body = _extend(api, game, seconds=MAX_SECONDS)
        assert status == 422 and "at most 366 days" in body["error"]["message"]
        assert body["error"]["details"] == {"seconds": [body["error"]["message"]]}
        room = int((NOW + timedelta(seconds=MAX_SECONDS) - current).total_seconds())
        assert _extend(api, game, seconds=room)[0] == 202
        assert clock.parse(api.get(game.path())[1]["phase"]["deadline"]) == NOW + timedelta(seconds=MAX_SECONDS)
