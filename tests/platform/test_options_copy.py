"""A game's options, as the GM reads them back, create a new game unchanged (issue 32): what the API echoes, null
included (Extreme Ways' reveal_leftover_packets and ec_exclude_token_holders are nullable), it accepts."""
from __future__ import annotations

import pytest

from engines import registry
from tests.platform.helpers import Api


@pytest.mark.parametrize("name", registry.names())
def test_a_games_own_options_create_a_new_game(api: Api, name: str) -> None:
    status, created = api.post("/games", {"type": name})
    assert status == 201, created
    status, game = api.get(f"/games/{created['game_id']}", token=created["gm_token"])
    assert status == 200
    status, copied = api.post("/games", {"type": name, "options": game["options"]})
    assert status == 201, copied
    status, again = api.get(f"/games/{copied['game_id']}", token=copied["gm_token"])
    assert again["options"] == game["options"]


def test_extreme_ways_nullable_options_take_null(api: Api) -> None:
    status, created = api.post("/games", {"type": "extreme-ways", "options": {
        "reveal_leftover_packets": None, "ec_exclude_token_holders": None}})
    assert status == 201, created
    status, game = api.get(f"/games/{created['game_id']}", token=created["gm_token"])
    # null is the ruling's default: leftover packets follow announce; token holders are excluded (recorded true)
    assert game["options"]["reveal_leftover_packets"] is None and game["options"]["ec_exclude_token_holders"] is True
    status, refused = api.post("/games", {"type": "extreme-ways", "options": {"rebound_twist": None}})
    assert status == 422 and "rebound_twist" in refused["error"]["details"]["options"], refused
