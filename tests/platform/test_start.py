"""Starting a game: what the GM is told when it cannot start."""
from __future__ import annotations

from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def test_a_game_paused_during_sign_up_must_be_resumed_before_it_starts(api: Api) -> None:
    game = new_game(api, start=False)
    assert api.post(game.path("/actions"), {"type": "gm.pause", "reason": "wait"}, token=game.gm)[0] == 202
    status, body = api.post(game.path("/start"), token=game.gm)
    assert status == 409 and body["error"]["code"] == "paused", body
    assert api.post(game.path("/actions"), {"type": "gm.resume", "reason": "go"}, token=game.gm)[0] == 202
    assert api.post(game.path("/start"), token=game.gm)[0] == 200
